//! Encyclopedia articles, one per entity, and each organisation's own site.

use rand::RngExt;
use serde::Serialize;

use fabula_file::{ColumnRole, Page, PageKind, TableRole};
use fabula_world::model::{Organisation, Person};
use fabula_world::theme::EntityShape;

use crate::articles;
use crate::draft::{Cell, Ctx, Draft};
use crate::english::{compound, measure_sentence, with_article};
use crate::filler::Words;
use crate::phrases::say;
use crate::plan::Rows;
use crate::prose::{Alias, Prose, and_list};
use crate::templates;

/// How often an infobox leaves out a value its lead states, so that it is stated only in prose.
pub(crate) const PROSE_ONLY_SHARE: f64 = 0.6;
/// How many asides an article adds after its facts.
const ASIDES: std::ops::RangeInclusive<usize> = 2..=3;
/// How many sentences of background an article's background section holds.
const BACKGROUND: std::ops::RangeInclusive<usize> = 3..=6;
/// How often an organisation's article leaves out its member count, which its own about page
/// states: a fact found only by crossing to another site.
const MEMBERS_OWN_SITE_ONLY_SHARE: f64 = 0.35;
/// How often a section that lists linked entities is a sentence instead of a table.
const LIST_AS_PROSE_SHARE: f64 = 0.5;

/// One section of an article: prose, a table, or both.
#[derive(Serialize, Default)]
pub(crate) struct Section {
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

pub(crate) fn label(text: &str) -> String {
    crate::english::upper_first(text)
}

pub(crate) fn article(
    d: Draft,
    lead: Vec<String>,
    infobox: Vec<(String, String)>,
    sections: Vec<Section>,
    background: Option<Section>,
    see_also: Vec<String>,
) -> Page {
    let title = d.title.clone();
    // A heading over nothing says nothing: sections without rows or text are left out.
    let sections = sections
        .into_iter()
        .chain(background)
        .filter(|s| !s.rows.is_empty() || !s.text.is_empty())
        .collect();
    let body = templates::render(
        "entity.md.j2",
        Article {
            title: &title,
            lead: lead
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
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

/// Leaves out of an infobox, each with [`PROSE_ONLY_SHARE`], the rows labelled `stated`: values
/// the lead already states, which a reader then finds only in prose.
fn leave_to_prose(ctx: &mut Ctx, infobox: &mut Vec<(String, String)>, stated: &[&str]) {
    infobox.retain(|(label, _)| {
        !(stated.contains(&label.as_str()) && ctx.rng.random_bool(PROSE_ONLY_SHARE))
    });
}

/// How a listing section reads as prose: a paragraph about the page's subject, one sentence of
/// bank `key` with `{list}` and these other values.
pub(crate) struct ListSentence<'a> {
    pub(crate) prose: Prose,
    pub(crate) key: &'a str,
    pub(crate) values: &'a [(&'a str, &'a str)],
}

/// A section that lists linked entities, as a table or (when `sentence` is given) as one
/// sentence, `{list}` filled with the links of the rows' first cells.
pub(crate) fn listing(
    ctx: &mut Ctx,
    heading: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
    sentence: Option<ListSentence>,
) -> Section {
    let Some(ListSentence {
        mut prose,
        key,
        values,
    }) = sentence
    else {
        return Section::table(heading, columns, rows);
    };
    if rows.is_empty() {
        return Section::default();
    }
    let links: Vec<String> = rows
        .into_iter()
        .filter_map(|r| r.into_iter().next())
        .collect();
    let list = and_list(&links);
    let mut all = vec![("list", list.as_str())];
    all.extend_from_slice(values);
    prose.say(ctx.rng, key, &all);
    Section {
        heading,
        text: prose.finish(ctx.rng),
        ..Default::default()
    }
}

/// The asides about an article's subject: two or three after its facts, from the
/// `aside_{kind}` bank, and a section of three to six more under a heading of the
/// `heading_{kind}` bank, from the rest of that bank and `aside_any`. Background that states no
/// fact, no phrasing twice on one page, its filler words from the `fake` crate (see
/// [`crate::filler`]).
pub(crate) fn asides(
    ctx: &mut Ctx,
    name: &str,
    alias: Alias,
    kind: &str,
    noun: &str,
) -> (String, Section) {
    let banks = templates::banks();
    let phrasings = |key: &str| -> Vec<&'static str> {
        banks[key].phrases.iter().map(String::as_str).collect()
    };
    let mut pool = phrasings(&format!("aside_{kind}"));
    let n = ctx.rng.random_range(ASIDES);
    let mut lead = Prose::continued(name, alias.clone());
    say_asides(ctx, &mut lead, &mut pool, n, noun);
    pool.extend(phrasings("aside_any"));
    let n = ctx.rng.random_range(BACKGROUND);
    let mut background = Prose::continued(name, alias);
    say_asides(ctx, &mut background, &mut pool, n, noun);
    let heading = crate::phrases::pick(ctx.rng, &format!("heading_{kind}")).to_owned();
    let section = Section {
        heading,
        text: background.finish(ctx.rng),
        ..Default::default()
    };
    (lead.finish(ctx.rng), section)
}

/// Adds `n` asides to `prose`, each a phrasing taken at random out of `pool`.
fn say_asides(ctx: &mut Ctx, prose: &mut Prose, pool: &mut Vec<&str>, n: usize, noun: &str) {
    for _ in 0..n.min(pool.len()) {
        let phrasing = pool.swap_remove(ctx.rng.random_range(0..pool.len()));
        let words = Words::draw(ctx);
        let values = [
            ("kind", noun),
            ("profession", words.profession.as_str()),
            ("industry", words.industry.as_str()),
            ("phrase", words.phrase.as_str()),
            ("plan", words.plan.as_str()),
        ];
        prose.say_phrasing(ctx.rng, phrasing, &values);
    }
}

/// Whether the next listing section is a sentence rather than a table.
pub(crate) fn as_prose(ctx: &mut Ctx) -> bool {
    ctx.rng.random_bool(LIST_AS_PROSE_SHARE)
}

/// The draft of the encyclopedia article about an entity.
pub(crate) fn entity_draft(ctx: &Ctx, role: TableRole, id: i64, name: &str) -> Draft {
    let url = ctx.sites.entity(role, id).to_string();
    Draft::new(url, name, PageKind::Entity, None).about(role, id)
}

/// States the theme's extra columns of a row: each as a sentence of `prose` and an infobox row.
fn extras(
    d: &mut Draft,
    ctx: &Ctx,
    prose: &mut Prose,
    (role, id): (TableRole, i64),
    shape: &EntityShape,
    values: &[i64],
) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for (i, e) in shape.extras.iter().enumerate() {
        let shown = d.extra(ctx, role, id, i, values[i]);
        prose.plain(measure_sentence(&e.label, &shown));
        rows.push((label(&e.label), shown));
    }
    rows
}

/// Renders every entity article and organisation site: the articles of regions, settlements,
/// works, events and alliances from their plans (`articles.rs`), the rest here.
pub fn render(ctx: &mut Ctx, rows: &Rows, pages: &mut Vec<Page>) {
    let w = ctx.world;
    for role in [TableRole::Region, TableRole::Settlement] {
        articles::render(ctx, rows, role, pages);
    }
    for person in &w.people {
        pages.push(person_article(ctx, person));
    }
    for org in &w.organisations {
        pages.push(organisation_article(ctx, org));
        pages.push(about_page(ctx, org));
        pages.push(people_page(ctx, org));
    }
    for role in [TableRole::Work, TableRole::Event, TableRole::Alliance] {
        articles::render(ctx, rows, role, pages);
    }
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
    let alias = || Alias::person(&name, Some(&person.occupation));
    let mut prose = Prose::new(&name, Alias::person(&name, None));
    prose.say(
        ctx.rng,
        "person_born",
        &[("value", &born), ("object", &place)],
    );
    let mut infobox = vec![("Born".into(), born), ("Birthplace".into(), place)];
    if let Some(death) = person.death_year {
        let died = d.year(ctx, p, id, ColumnRole::DeathYear, death);
        prose.say(ctx.rng, "person_died", &[("value", &died)]);
        infobox.push(("Died".into(), died));
    }
    prose.say(ctx.rng, "person_occupation", &[("value", &occupation)]);
    let facts = prose.finish(ctx.rng);
    let (aside, background) = asides(ctx, &name, alias(), "person", &person.occupation);
    let lead = vec![facts, aside];
    infobox.push(("Occupation".into(), occupation));
    leave_to_prose(
        ctx,
        &mut infobox,
        &["Born", "Birthplace", "Died", "Occupation"],
    );
    let columns = vec![
        "Role".into(),
        label(&theme.organisation.singular),
        "From".into(),
        "To".into(),
    ];
    let rows = career(&mut d, ctx, id);
    let mut story = Prose::continued(&name, alias());
    let mut by_year: Vec<&(Step, Vec<String>)> = rows.iter().collect();
    by_year.sort_by_key(|(_, row)| row.get(2).cloned());
    for (step, row) in by_year {
        step.tell(&mut story, ctx, row);
    }
    let rows = rows.into_iter().map(|(_, row)| row).collect();
    let sections = vec![Section {
        text: story.finish_in_order(ctx.rng),
        ..Section::table("Career", columns, rows)
    }];
    article(d, lead, infobox, sections, Some(background), Vec::new())
}

/// What one row of a career table records.
enum Step {
    Founded,
    Seat { open: bool },
    Member,
}

impl Step {
    /// Tells a career row (role, organisation link, from, to) as a sentence of `story`.
    fn tell(&self, story: &mut Prose, ctx: &mut Ctx, row: &[String]) {
        let [role, org, from, to] = row else {
            return;
        };
        let (key, values): (&str, Vec<(&str, &str)>) = match self {
            Step::Founded => ("person_founded", vec![("object", org), ("value", from)]),
            Step::Seat { open: true } => (
                "person_seat_now",
                vec![("seat", role), ("object", org), ("value", from)],
            ),
            Step::Seat { open: false } => (
                "person_seat",
                vec![
                    ("seat", role),
                    ("object", org),
                    ("value", from),
                    ("extra", to),
                ],
            ),
            Step::Member => (
                "person_member",
                vec![("role", role), ("object", org), ("value", from)],
            ),
        };
        story.say(ctx.rng, key, &values);
    }
}

/// A person's career rows: the organisations they founded, the seats they held, the memberships.
fn career(d: &mut Draft, ctx: &Ctx, id: i64) -> Vec<(Step, Vec<String>)> {
    let w = ctx.world;
    let o = TableRole::Organisation;
    let mut rows = Vec::new();
    let mut add = |step: Step, (role, row): (TableRole, i64), cells: &[Cell]| {
        rows.push((step, d.row(ctx, role, row, cells)));
    };
    for org in w.organisations.iter().filter(|x| x.founder == id) {
        let cells = [
            Cell::Subject(ColumnRole::Founder),
            Cell::Plain("Founder"),
            Cell::Link,
            Cell::Year(ColumnRole::Founded, org.founded),
            Cell::Plain(""),
        ];
        add(Step::Founded, (o, org.id), &cells);
    }
    for t in w.tenures.iter().filter(|x| x.person == id) {
        let cells = [
            Cell::Subject(ColumnRole::Person),
            Cell::Text(ColumnRole::Seat, &t.seat),
            Cell::Reference(ColumnRole::Organisation, o, t.organisation),
            Cell::Year(ColumnRole::StartYear, t.start),
            Cell::End(t.end),
        ];
        let open = t.end.is_none();
        add(Step::Seat { open }, (TableRole::Tenure, t.id), &cells);
    }
    for m in w.memberships.iter().filter(|x| x.person == id) {
        let cells = [
            Cell::Subject(ColumnRole::Person),
            Cell::Text(ColumnRole::MemberRole, &m.role),
            Cell::Reference(ColumnRole::Organisation, o, m.organisation),
            Cell::Year(ColumnRole::Joined, m.joined),
            Cell::Plain(""),
        ];
        add(Step::Member, (TableRole::Membership, m.id), &cells);
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
    // Some articles leave the member count to the organisation's own about page.
    let members = (!ctx.rng.random_bool(MEMBERS_OWN_SITE_ONLY_SHARE))
        .then(|| d.count(ctx, o, id, ColumnRole::MemberCount, org.member_count));
    let kind = theme.organisation.singular.as_str();
    let mut prose = Prose::new(&name, Alias::thing(kind));
    let founding = [("value", founded.as_str()), ("object", &founder)];
    prose.say(ctx.rng, "org_founded", &founding);
    prose.say(ctx.rng, "org_home", &[("kind", kind), ("object", &home)]);
    prose.say(
        ctx.rng,
        "org_category",
        &[("kind", kind), ("value", &category)],
    );
    if let Some(members) = &members {
        prose.say(ctx.rng, "org_members", &[("value", members)]);
    }
    let (shape, values) = (&theme.organisation, &org.extras);
    let measures = extras(&mut d, ctx, &mut prose, (o, id), shape, values);
    let facts = prose.finish(ctx.rng);
    let (aside, background) = asides(ctx, &name, Alias::thing(kind), "org", kind);
    let lead = vec![facts, aside];
    let home_label = format!("Home {}", theme.settlement.singular);
    let mut infobox = vec![
        ("Category".into(), category),
        (home_label.clone(), home),
        ("Founder".into(), founder),
        ("Founded".into(), founded),
    ];
    infobox.extend(members.map(|m| ("Members".into(), m)));
    let stated = ["Category", &home_label, "Founder", "Founded", "Members"];
    leave_to_prose(ctx, &mut infobox, &stated);
    infobox.extend(measures);
    let sections = organisation_sections(&mut d, ctx, org);
    let (about, people) = (ctx.sites.about_url(id), ctx.sites.people_url(id));
    let see_also = vec![
        format!("[Official website of {}]({about})", org.name),
        format!("[People of {}]({people})", org.name),
    ];
    article(d, lead, infobox, sections, Some(background), see_also)
}

/// An organisation's works (a table with their years, or a sentence) and its alliance
/// memberships.
fn organisation_sections(d: &mut Draft, ctx: &mut Ctx, org: &Organisation) -> Vec<Section> {
    let w = ctx.world;
    let theme = &w.theme;
    let id = org.id;
    let in_prose = as_prose(ctx);
    let works = w
        .works
        .iter()
        .filter(|x| x.organisation == id)
        .map(|x| {
            let year = Cell::Year(ColumnRole::Year, x.year);
            let cells = [Cell::Subject(ColumnRole::Organisation), Cell::Link, year];
            let shown = if in_prose { &cells[..2] } else { &cells[..] };
            d.row(ctx, TableRole::Work, x.id, shown)
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
    let values = [("works", theme.work.plural.as_str()), ("verb", &verb)];
    let alias = Alias::thing(&theme.organisation.singular);
    let sentence = in_prose.then(|| ListSentence {
        prose: Prose::continued(&org.name, alias),
        key: "org_works",
        values: &values[..],
    });
    vec![
        listing(
            ctx,
            label(&theme.work.plural),
            vec!["Name".into(), label(&verb)],
            works,
            sentence,
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
    let url = ctx.sites.about_url(id);
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
    let members = d.count(ctx, o, id, ColumnRole::MemberCount, org.member_count);
    let kind = with_article(&compound(&category, &theme.organisation.singular));
    let welcome = say(
        ctx.rng,
        "about_welcome",
        &[
            ("subject", &name),
            ("kind", &kind),
            ("place", &home),
            ("founded", &founded),
        ],
    );
    let lead = vec![format!(
        "{welcome} {}",
        say(ctx.rng, "about_members", &[("value", &members)])
    )];
    let infobox = vec![("Established".into(), founded), ("Based in".into(), home)];
    article(d, lead, infobox, Vec::new(), None, Vec::new())
}

/// The people page of an organisation's own site: office holders and members.
fn people_page(ctx: &mut Ctx, org: &Organisation) -> Page {
    let w = ctx.world;
    let (o, p, id) = (TableRole::Organisation, TableRole::Person, org.id);
    let url = ctx.sites.people_url(id);
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
    article(d, lead, Vec::new(), sections, None, Vec::new())
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
        let (pages, titles, own_sites) = with_ctx(&world, |ctx| {
            let mut pages = Vec::new();
            let plan_rows = crate::plan::Rows::new(ctx);
            super::render(ctx, &plan_rows, &mut pages);
            let url_and_title = |id: i64| match page {
                Page::Article(role) => {
                    let url = ctx.sites.entity(role, id).to_string();
                    (url, ctx.name(role, id).to_string())
                }
                Page::People => {
                    let url = ctx.sites.people_url(id);
                    (url, format!("People of {}", ctx.name(role, id)))
                }
            };
            let titles: Vec<_> = rows.iter().map(|row| url_and_title(int(&row[0]))).collect();
            let own_sites: Vec<Option<String>> = rows
                .iter()
                .map(|row| (role == Organisation).then(|| ctx.sites.about_url(int(&row[0]))))
                .collect();
            (pages, titles, own_sites)
        });
        for ((row, (url, title)), own_site) in rows.iter().zip(titles).zip(own_sites) {
            let id = int(&row[0]);
            let find = |url: &str| pages.iter().find(|p| p.url == url);
            let rendered = find(&url).expect("a page per entity");
            assert_eq!(rendered.title, title);
            assert!(rendered.body.starts_with(&format!("# {title}\n")), "{url}");
            assert_facts_shown(rendered);
            let stated_on = |page: &fabula_file::Page, table: &str, row: i64, column: &str| {
                page.facts.iter().any(|f| {
                    (f.table.as_str(), f.row_id, f.column.as_str()) == (table, row, column)
                })
            };
            let states = |table: &str, row: i64, column: &str| {
                let found = stated_on(rendered, table, row, column);
                assert!(found, "{url} does not state {table}.{column}#{row}");
            };
            for (column, value) in table.columns.iter().zip(row) {
                let own = match page {
                    Page::Article(_) => column.name != "id",
                    Page::People => column.role == ColumnRole::Name,
                };
                if !own || *value == Value::Null {
                    continue;
                }
                // An organisation's member count may be left to its own about page.
                let site = own_site.as_deref().and_then(find);
                match (site, own_site.as_deref()) {
                    (Some(site), Some(own_site)) if column.role == ColumnRole::MemberCount => {
                        let found = stated_on(site, &table.name, id, &column.name)
                            || stated_on(rendered, &table.name, id, &column.name);
                        assert!(found, "neither {url} nor {own_site} states {}", column.name);
                    }
                    _ => states(&table.name, id, &column.name),
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
