//! Encyclopedia articles, one per entity, and each organisation's own site.

use serde::Serialize;

use fabula_file::{ColumnRole, Page, PageKind, TableRole};
use fabula_world::model::{Alliance, Event, Organisation, Person, Region, Settlement, Work};
use fabula_world::theme::EntityShape;

use crate::draft::{Cell, Ctx, Draft, fmt_count};
use crate::english::{compound, with_article};
use crate::phrases::say;
use crate::templates;

/// One section of an article: prose, a table, or both.
#[derive(Serialize, Default)]
pub struct Section {
    pub heading: String,
    pub text: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct Article<'a> {
    title: &'a str,
    lead: String,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    see_also: Vec<String>,
}

fn label(text: &str) -> String {
    crate::english::upper_first(text)
}

fn article(
    d: Draft,
    lead: Vec<String>,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    see_also: Vec<String>,
) -> Page {
    let title = d.title.clone();
    // A heading over nothing says nothing: sections without rows or text are left out.
    let sections = sections
        .into_iter()
        .filter(|s| !s.rows.is_empty() || !s.text.is_empty())
        .collect();
    let body = templates::render(
        "entity.md.j2",
        Article {
            title: &title,
            lead: lead.join(" "),
            infobox,
            sections,
            see_also,
        },
    );
    d.finish(body)
}

impl Section {
    /// A section holding only a table.
    fn table(heading: impl Into<String>, columns: Vec<String>, rows: Vec<Vec<String>>) -> Section {
        Section {
            heading: heading.into(),
            columns,
            rows,
            ..Default::default()
        }
    }
}

/// The draft of the encyclopedia article about an entity.
fn entity_draft(ctx: &Ctx, role: TableRole, id: i64, name: &str) -> Draft {
    let url = ctx.sites.entity(role, id).to_string();
    Draft::new(url, name, PageKind::Entity, None).about(role, id)
}

/// Fills one phrasing per (phrase bank, values) pair, in order.
fn say_each(ctx: &mut Ctx, sentences: &[(&str, &[(&str, &str)])]) -> Vec<String> {
    sentences
        .iter()
        .map(|(key, values)| say(ctx.rng, key, values))
        .collect()
}

/// States the theme's extra columns of a row, as infobox rows.
fn extras(
    d: &mut Draft,
    ctx: &Ctx,
    (role, id): (TableRole, i64),
    shape: &EntityShape,
    values: &[i64],
) -> Vec<(String, String)> {
    shape
        .extras
        .iter()
        .enumerate()
        .map(|(i, e)| (label(&e.label), d.extra(ctx, role, id, i, values[i])))
        .collect()
}

/// Renders every entity article and organisation site.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let w = ctx.world;
    for region in &w.regions {
        pages.push(region_article(ctx, region));
    }
    for settlement in &w.settlements {
        pages.push(settlement_article(ctx, settlement));
    }
    for person in &w.people {
        pages.push(person_article(ctx, person));
    }
    for org in &w.organisations {
        pages.push(organisation_article(ctx, org));
        pages.push(about_page(ctx, org));
        pages.push(people_page(ctx, org));
    }
    for work in &w.works {
        pages.push(work_article(ctx, work));
    }
    for event in &w.events {
        pages.push(event_article(ctx, event));
    }
    for alliance in &w.alliances {
        pages.push(alliance_article(ctx, alliance));
    }
}

fn region_article(ctx: &mut Ctx, region: &Region) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let (r, id) = (TableRole::Region, region.id);
    let mut d = entity_draft(ctx, r, id, &region.name);
    let name = d.own_name(ctx, r, id);
    let pop = d.count(ctx, r, id, ColumnRole::Population, region.population);
    let lead = vec![
        format!(
            "{name} is {} of {}.",
            with_article(&theme.region.singular),
            w.name
        ),
        say(
            ctx.rng,
            "region_population",
            &[("subject", &name), ("value", &pop)],
        ),
    ];
    let mut infobox = vec![
        ("Type".into(), label(&theme.region.singular)),
        ("Population".into(), pop),
    ];
    infobox.extend(extras(&mut d, ctx, (r, id), &theme.region, &region.extras));
    let s = TableRole::Settlement;
    let rows = w
        .settlements
        .iter()
        .filter(|x| x.region == id)
        .map(|x| {
            d.row(
                ctx,
                s,
                x.id,
                &[Cell::Subject(ColumnRole::Region), Cell::Link],
            )
        })
        .collect();
    let sections = vec![Section::table(
        label(&theme.settlement.plural),
        vec![label(&theme.settlement.singular)],
        rows,
    )];
    article(d, lead, infobox, sections, Vec::new())
}

fn settlement_article(ctx: &mut Ctx, settlement: &Settlement) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let (s, id) = (TableRole::Settlement, settlement.id);
    let mut d = entity_draft(ctx, s, id, &settlement.name);
    let name = d.own_name(ctx, s, id);
    let region = d.reference(
        ctx,
        s,
        id,
        ColumnRole::Region,
        TableRole::Region,
        settlement.region,
    );
    let founded = d.year(ctx, s, id, ColumnRole::Founded, settlement.founded);
    let pop = d.count(ctx, s, id, ColumnRole::Population, settlement.population);
    let kind = theme.settlement.singular.as_str();
    let lead = say_each(
        ctx,
        &[
            (
                "settlement_region",
                &[
                    ("subject", &name),
                    ("kind", kind),
                    ("kinds", &theme.settlement.plural),
                    ("object", &region),
                ],
            ),
            (
                "settlement_founded",
                &[("subject", &name), ("kind", kind), ("value", &founded)],
            ),
            (
                "settlement_population",
                &[("subject", &name), ("value", &pop)],
            ),
        ],
    );
    let mut infobox = vec![
        (label(&theme.region.singular), region),
        ("Founded".into(), founded),
        ("Population".into(), pop),
    ];
    infobox.extend(extras(
        &mut d,
        ctx,
        (s, id),
        &theme.settlement,
        &settlement.extras,
    ));
    let sections = settlement_sections(&mut d, ctx, id);
    article(d, lead, infobox, sections, Vec::new())
}

/// The people born in a settlement and the organisations based there.
fn settlement_sections(d: &mut Draft, ctx: &Ctx, id: i64) -> Vec<Section> {
    let w = ctx.world;
    let (p, o) = (TableRole::Person, TableRole::Organisation);
    let people = w
        .people
        .iter()
        .filter(|x| x.birthplace == id)
        .map(|x| {
            d.row(
                ctx,
                p,
                x.id,
                &[Cell::Subject(ColumnRole::Birthplace), Cell::Link],
            )
        })
        .collect();
    let orgs = w
        .organisations
        .iter()
        .filter(|x| x.home == id)
        .map(|x| d.row(ctx, o, x.id, &[Cell::Subject(ColumnRole::Home), Cell::Link]))
        .collect();
    let name = vec!["Name".to_string()];
    let heading = format!("{} based here", label(&w.theme.organisation.plural));
    vec![
        Section::table("Notable people born here", name.clone(), people),
        Section::table(heading, name, orgs),
    ]
}

fn person_article(ctx: &mut Ctx, person: &Person) -> Page {
    let theme = &ctx.world.theme;
    let (p, id) = (TableRole::Person, person.id);
    let mut d = entity_draft(ctx, p, id, &person.name);
    let name = d.own_name(ctx, p, id);
    let born = d.year(ctx, p, id, ColumnRole::BirthYear, person.birth_year);
    let s = TableRole::Settlement;
    let place = d.reference(ctx, p, id, ColumnRole::Birthplace, s, person.birthplace);
    let occupation = d.text(ctx, p, id, ColumnRole::Occupation, &person.occupation);
    let mut lead = vec![say(
        ctx.rng,
        "person_born",
        &[("subject", &name), ("value", &born), ("object", &place)],
    )];
    let mut infobox = vec![("Born".into(), born), ("Birthplace".into(), place)];
    if let Some(death) = person.death_year {
        let died = d.year(ctx, p, id, ColumnRole::DeathYear, death);
        lead.push(say(
            ctx.rng,
            "person_died",
            &[("subject", &name), ("value", &died)],
        ));
        infobox.push(("Died".into(), died));
    }
    lead.push(say(
        ctx.rng,
        "person_occupation",
        &[("subject", &name), ("value", &occupation)],
    ));
    infobox.push(("Occupation".into(), occupation));
    let columns = vec![
        "Role".into(),
        label(&theme.organisation.singular),
        "From".into(),
        "To".into(),
    ];
    let sections = vec![Section::table("Career", columns, career(&mut d, ctx, id))];
    article(d, lead, infobox, sections, Vec::new())
}

/// A person's career rows: the organisations they founded, the seats they held, the memberships.
fn career(d: &mut Draft, ctx: &Ctx, id: i64) -> Vec<Vec<String>> {
    let w = ctx.world;
    let o = TableRole::Organisation;
    let mut rows = Vec::new();
    for org in w.organisations.iter().filter(|x| x.founder == id) {
        rows.push(d.row(
            ctx,
            o,
            org.id,
            &[
                Cell::Subject(ColumnRole::Founder),
                Cell::Plain("Founder"),
                Cell::Link,
                Cell::Year(ColumnRole::Founded, org.founded),
                Cell::Plain(""),
            ],
        ));
    }
    for t in w.tenures.iter().filter(|x| x.person == id) {
        rows.push(d.row(
            ctx,
            TableRole::Tenure,
            t.id,
            &[
                Cell::Subject(ColumnRole::Person),
                Cell::Text(ColumnRole::Seat, &t.seat),
                Cell::Reference(ColumnRole::Organisation, o, t.organisation),
                Cell::Year(ColumnRole::StartYear, t.start),
                Cell::End(t.end),
            ],
        ));
    }
    for m in w.memberships.iter().filter(|x| x.person == id) {
        rows.push(d.row(
            ctx,
            TableRole::Membership,
            m.id,
            &[
                Cell::Subject(ColumnRole::Person),
                Cell::Text(ColumnRole::MemberRole, &m.role),
                Cell::Reference(ColumnRole::Organisation, o, m.organisation),
                Cell::Year(ColumnRole::Joined, m.joined),
                Cell::Plain(""),
            ],
        ));
    }
    rows
}

fn organisation_article(ctx: &mut Ctx, org: &Organisation) -> Page {
    let theme = &ctx.world.theme;
    let (o, id) = (TableRole::Organisation, org.id);
    let mut d = entity_draft(ctx, o, id, &org.name);
    let name = d.own_name(ctx, o, id);
    let founded = d.year(ctx, o, id, ColumnRole::Founded, org.founded);
    let founder = d.reference(
        ctx,
        o,
        id,
        ColumnRole::Founder,
        TableRole::Person,
        org.founder,
    );
    let home = d.reference(
        ctx,
        o,
        id,
        ColumnRole::Home,
        TableRole::Settlement,
        org.home,
    );
    let category = d.text(ctx, o, id, ColumnRole::Category, &org.category);
    let members = d.count(ctx, o, id, ColumnRole::MemberCount, org.member_count);
    let kind = theme.organisation.singular.as_str();
    let lead = say_each(
        ctx,
        &[
            (
                "org_founded",
                &[
                    ("subject", &name),
                    ("value", &founded),
                    ("object", &founder),
                ],
            ),
            (
                "org_home",
                &[("subject", &name), ("kind", kind), ("object", &home)],
            ),
            (
                "org_category",
                &[("subject", &name), ("kind", kind), ("value", &category)],
            ),
            ("org_members", &[("subject", &name), ("value", &members)]),
        ],
    );
    let mut infobox = vec![
        ("Category".into(), category),
        (format!("Home {}", theme.settlement.singular), home),
        ("Founder".into(), founder),
        ("Founded".into(), founded),
        ("Members".into(), members),
    ];
    infobox.extend(extras(
        &mut d,
        ctx,
        (o, id),
        &theme.organisation,
        &org.extras,
    ));
    let sections = organisation_sections(&mut d, ctx, id);
    let site = &ctx.sites.org_sites[&id];
    let see_also = vec![
        format!("[Official website of {}]({site}about)", org.name),
        format!("[People of {}]({site}people)", org.name),
    ];
    article(d, lead, infobox, sections, see_also)
}

/// An organisation's works and its alliance memberships.
fn organisation_sections(d: &mut Draft, ctx: &Ctx, id: i64) -> Vec<Section> {
    let w = ctx.world;
    let theme = &w.theme;
    let works = w
        .works
        .iter()
        .filter(|x| x.organisation == id)
        .map(|x| {
            let cells = [
                Cell::Subject(ColumnRole::Organisation),
                Cell::Link,
                Cell::Year(ColumnRole::Year, x.year),
            ];
            d.row(ctx, TableRole::Work, x.id, &cells)
        })
        .collect();
    let alliances = w
        .alliance_memberships
        .iter()
        .filter(|x| x.organisation == id)
        .map(|x| {
            let cells = [
                Cell::Subject(ColumnRole::Organisation),
                Cell::Reference(ColumnRole::Alliance, TableRole::Alliance, x.alliance),
                Cell::Year(ColumnRole::StartYear, x.start),
                Cell::End(x.end),
            ];
            d.row(ctx, TableRole::AllianceMembership, x.id, &cells)
        })
        .collect();
    let verb = theme.work.verb.clone().unwrap_or_default();
    vec![
        Section::table(
            label(&theme.work.plural),
            vec!["Name".into(), label(&verb)],
            works,
        ),
        Section::table(
            label(&theme.alliance.plural),
            vec![label(&theme.alliance.singular), "From".into(), "To".into()],
            alliances,
        ),
    ]
}

/// The about page of an organisation's own site.
fn about_page(ctx: &mut Ctx, org: &Organisation) -> Page {
    let theme = &ctx.world.theme;
    let (o, id) = (TableRole::Organisation, org.id);
    let url = ctx.sites.org_url(id, "about");
    let mut d = Draft::new(url, format!("About {}", org.name), PageKind::Entity, None).about(o, id);
    let name = d.own_name(ctx, o, id);
    let home = d.reference(
        ctx,
        o,
        id,
        ColumnRole::Home,
        TableRole::Settlement,
        org.home,
    );
    let founded = d.year(ctx, o, id, ColumnRole::Founded, org.founded);
    let category = d.text(ctx, o, id, ColumnRole::Category, &org.category);
    let lead = vec![
        format!(
            "Welcome to {name}, {} from {home}, serving since {founded}.",
            with_article(&compound(&category, &theme.organisation.singular))
        ),
        format!(
            "Our {} members carry on the work begun by our founder.",
            fmt_count(org.member_count)
        ),
    ];
    let infobox = vec![("Established".into(), founded), ("Based in".into(), home)];
    article(d, lead, infobox, Vec::new(), Vec::new())
}

/// The people page of an organisation's own site: office holders and members.
fn people_page(ctx: &mut Ctx, org: &Organisation) -> Page {
    let w = ctx.world;
    let (o, p, id) = (TableRole::Organisation, TableRole::Person, org.id);
    let url = ctx.sites.org_url(id, "people");
    let mut d =
        Draft::new(url, format!("People of {}", org.name), PageKind::List, None).about(o, id);
    let name = d.own_name(ctx, o, id);
    let holders = w
        .tenures
        .iter()
        .filter(|x| x.organisation == id)
        .map(|t| {
            let cells = [
                Cell::Subject(ColumnRole::Organisation),
                Cell::Text(ColumnRole::Seat, &t.seat),
                Cell::Reference(ColumnRole::Person, p, t.person),
                Cell::Year(ColumnRole::StartYear, t.start),
                Cell::End(t.end),
            ];
            d.row(ctx, TableRole::Tenure, t.id, &cells)
        })
        .collect();
    let members = w
        .memberships
        .iter()
        .filter(|x| x.organisation == id)
        .map(|m| {
            let cells = [
                Cell::Subject(ColumnRole::Organisation),
                Cell::Reference(ColumnRole::Person, p, m.person),
                Cell::Text(ColumnRole::MemberRole, &m.role),
                Cell::Year(ColumnRole::Joined, m.joined),
            ];
            d.row(ctx, TableRole::Membership, m.id, &cells)
        })
        .collect();
    let lead = vec![format!("The people who lead and make up {name}.")];
    let sections = vec![
        Section::table(
            "Office holders",
            vec!["Seat".into(), "Holder".into(), "From".into(), "To".into()],
            holders,
        ),
        Section::table(
            "Members",
            vec!["Name".into(), "Role".into(), "Joined".into()],
            members,
        ),
    ];
    article(d, lead, Vec::new(), sections, Vec::new())
}

fn work_article(ctx: &mut Ctx, work: &Work) -> Page {
    let theme = &ctx.world.theme;
    let (wr, id) = (TableRole::Work, work.id);
    let mut d = entity_draft(ctx, wr, id, &work.name);
    let name = d.own_name(ctx, wr, id);
    let o = TableRole::Organisation;
    let org = d.reference(ctx, wr, id, ColumnRole::Organisation, o, work.organisation);
    let year = d.year(ctx, wr, id, ColumnRole::Year, work.year);
    let verb = theme.work.verb.clone().unwrap_or_default();
    let lead = vec![
        format!("{name} is {}.", with_article(&theme.work.singular)),
        say(
            ctx.rng,
            "work_made",
            &[
                ("subject", &name),
                ("verb", &verb),
                ("object", &org),
                ("value", &year),
            ],
        ),
    ];
    let mut infobox = vec![
        (label(&theme.organisation.singular), org),
        (label(&verb), year),
    ];
    infobox.extend(extras(&mut d, ctx, (wr, id), &theme.work, &work.extras));
    article(d, lead, infobox, Vec::new(), Vec::new())
}

fn event_article(ctx: &mut Ctx, event: &Event) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let (er, id) = (TableRole::Event, event.id);
    let mut d = entity_draft(ctx, er, id, &event.name);
    let name = d.own_name(ctx, er, id);
    let year = d.year(ctx, er, id, ColumnRole::Year, event.year);
    let host = d.reference(
        ctx,
        er,
        id,
        ColumnRole::Host,
        TableRole::Settlement,
        event.host,
    );
    let lead = vec![say(
        ctx.rng,
        "event_held",
        &[("subject", &name), ("value", &year), ("object", &host)],
    )];
    let infobox = vec![
        ("Year".into(), year),
        (format!("Host {}", theme.settlement.singular), host),
    ];
    let mut entries: Vec<_> = w.participations.iter().filter(|x| x.event == id).collect();
    entries.sort_by_key(|x| x.result);
    let rows = entries
        .into_iter()
        .map(|x| {
            let cells = [
                Cell::Subject(ColumnRole::Event),
                Cell::Count(ColumnRole::Result, x.result),
                Cell::Reference(
                    ColumnRole::Organisation,
                    TableRole::Organisation,
                    x.organisation,
                ),
            ];
            d.row(ctx, TableRole::Participation, x.id, &cells)
        })
        .collect();
    let result_label = theme
        .participation
        .result_label
        .as_deref()
        .unwrap_or("result");
    let columns = vec![label(result_label), label(&theme.organisation.singular)];
    let sections = vec![Section::table("Results", columns, rows)];
    article(d, lead, infobox, sections, Vec::new())
}

fn alliance_article(ctx: &mut Ctx, alliance: &Alliance) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let (ar, id) = (TableRole::Alliance, alliance.id);
    let mut d = entity_draft(ctx, ar, id, &alliance.name);
    let name = d.own_name(ctx, ar, id);
    let founded = d.year(ctx, ar, id, ColumnRole::Founded, alliance.founded);
    let seat = d.reference(
        ctx,
        ar,
        id,
        ColumnRole::Home,
        TableRole::Settlement,
        alliance.seat,
    );
    let lead = vec![
        format!(
            "{name} is {} of {}.",
            with_article(&theme.alliance.singular),
            theme.organisation.plural
        ),
        say(
            ctx.rng,
            "alliance_founded",
            &[("subject", &name), ("value", &founded), ("object", &seat)],
        ),
    ];
    let infobox = vec![("Founded".into(), founded), ("Seat".into(), seat)];
    let rows = w
        .alliance_memberships
        .iter()
        .filter(|x| x.alliance == id)
        .map(|m| {
            let cells = [
                Cell::Subject(ColumnRole::Alliance),
                Cell::Reference(
                    ColumnRole::Organisation,
                    TableRole::Organisation,
                    m.organisation,
                ),
                Cell::Year(ColumnRole::StartYear, m.start),
                Cell::End(m.end),
            ];
            d.row(ctx, TableRole::AllianceMembership, m.id, &cells)
        })
        .collect();
    let columns = vec![
        label(&theme.organisation.singular),
        "From".into(),
        "To".into(),
    ];
    let sections = vec![Section::table("Members", columns, rows)];
    article(d, lead, infobox, sections, Vec::new())
}

#[cfg(test)]
mod tests {
    use fabula_file::{ColumnRole, TableRole, Value};
    use fabula_world::schema;
    use fabula_world::{generate_world, theme};

    use crate::draft::{assert_facts_shown, with_ctx};

    use TableRole::*;

    /// The pages a case looks at, one per entity.
    #[derive(Clone, Copy)]
    enum Page {
        /// The encyclopedia article of each entity of a kind.
        Article(TableRole),
        /// The people page of each organisation's own site.
        People,
    }

    /// Renders the entity pages of world (`seed`, `world_id`) and checks the page of every entity
    /// the case looks at: it is titled after the entity, states every non-key cell of the entity's
    /// row (a people page only its name), states the cell of every `related` row that points at
    /// the entity, and shows the text of every fact it records.
    fn check(seed: u64, world_id: u32, page: Page, related: &[TableRole]) {
        let world = generate_world(seed, world_id, &theme::all().unwrap());
        let layout = schema::layout(&world);
        let role = match page {
            Page::Article(role) => role,
            Page::People => Organisation,
        };
        let table = layout.table(role);
        let rows = schema::table_rows(&world, role);
        assert!(!rows.is_empty(), "world has no {} rows", table.name);
        let (pages, titles) = with_ctx(&world, |ctx| {
            let mut pages = Vec::new();
            super::render(ctx, &mut pages);
            let url_and_title = |id: i64| match page {
                Page::Article(role) => {
                    let url = ctx.sites.entity(role, id).to_string();
                    (url, ctx.name(role, id).to_string())
                }
                Page::People => {
                    let url = format!("{}people", ctx.sites.org_sites[&id]);
                    (url, format!("People of {}", ctx.name(role, id)))
                }
            };
            let titles: Vec<_> = rows.iter().map(|row| url_and_title(int(&row[0]))).collect();
            (pages, titles)
        });
        for (row, (url, title)) in rows.iter().zip(titles) {
            let id = int(&row[0]);
            let rendered = pages
                .iter()
                .find(|p| p.url == url)
                .expect("a page per entity");
            assert_eq!(rendered.title, title);
            assert!(rendered.body.starts_with(&format!("# {title}\n")), "{url}");
            assert_facts_shown(rendered);
            let states = |table: &str, row: i64, column: &str| {
                let found = rendered.facts.iter().any(|f| {
                    (f.table.as_str(), f.row_id, f.column.as_str()) == (table, row, column)
                });
                assert!(found, "{url} does not state {table}.{column}#{row}");
            };
            for (column, value) in table.columns.iter().zip(row) {
                let own = match page {
                    Page::Article(_) => column.name != "id",
                    Page::People => column.role == ColumnRole::Name,
                };
                if own && *value != Value::Null {
                    states(&table.name, id, &column.name);
                }
            }
            for other in related.iter().map(|r| layout.table(*r)) {
                let pointers = other
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.references.as_deref() == Some(table.name.as_str()));
                for (i, column) in pointers {
                    for other_row in schema::table_rows(&world, other.role) {
                        if other_row[i] == Value::Int(id) {
                            states(&other.name, int(&other_row[0]), &column.name);
                        }
                    }
                }
            }
        }
    }

    fn int(value: &Value) -> i64 {
        let Value::Int(n) = value else {
            panic!("{value:?} is not an integer")
        };
        *n
    }

    #[test]
    fn region_articles_list_their_settlements() {
        check(1, 0, Page::Article(Region), &[Settlement]);
    }

    #[test]
    fn settlement_articles_list_natives_and_organisations() {
        check(1, 1, Page::Article(Settlement), &[Person, Organisation]);
    }

    #[test]
    fn person_articles_list_a_whole_career() {
        check(
            1,
            2,
            Page::Article(Person),
            &[Organisation, Tenure, Membership],
        );
    }

    #[test]
    fn organisation_articles_list_works_and_alliances() {
        check(
            2,
            4,
            Page::Article(Organisation),
            &[Work, AllianceMembership],
        );
    }

    #[test]
    fn people_pages_list_office_holders_and_members() {
        check(1, 3, Page::People, &[Tenure, Membership]);
    }

    #[test]
    fn work_articles_state_their_row() {
        check(1, 3, Page::Article(Work), &[]);
    }

    #[test]
    fn event_articles_list_results() {
        check(1, 0, Page::Article(Event), &[Participation]);
    }

    #[test]
    fn alliance_articles_list_members() {
        check(2, 4, Page::Article(Alliance), &[AllianceMembership]);
    }
}
