//! Dated pages: news articles about things that happened, yearbooks that state what was true
//! at the end of a year (who held each seat, which alliance each organisation belonged to), and
//! census reports that state each settlement's population as of their census year: older
//! reports state older values, none of them the present one on the settlement's own page.

use std::collections::BTreeMap;

use rand::RngExt;
use serde::Serialize;

use fabula_file::{ColumnRole, Page, PageKind, TableRole};
use fabula_world::World;
use fabula_world::model::{AllianceMembership, Event, Membership, Organisation, Tenure, Work};

use crate::draft::{Ctx, Draft, fmt_date};
use crate::english::{measure_sentence, repeats_word, upper_first, with_article};
use crate::phrases::say;
use crate::templates;

#[derive(Serialize)]
struct NewsPage<'a> {
    title: &'a str,
    site: &'a str,
    date: &'a str,
    paragraphs: Vec<String>,
}

#[derive(Serialize)]
struct HistorySection {
    heading: String,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct HistoryPage<'a> {
    title: &'a str,
    dateline: String,
    intro: String,
    sections: Vec<HistorySection>,
}

pub(crate) fn news(ctx: &Ctx, d: Draft, paragraphs: Vec<String>) -> Page {
    let title = d.title.clone();
    let date = d.published.clone().unwrap_or_default();
    let body = templates::render(
        "news.md.j2",
        NewsPage {
            title: &title,
            site: &ctx.sites.news_name,
            date: &date,
            paragraphs,
        },
    );
    d.finish(body)
}

/// The draft of a news article about something that happened in `year`, dated that year and, when
/// it mentions an organisation founded that year, on or after the news of the founding.
fn news_draft(ctx: &mut Ctx, year: i64, not_before: Option<&str>, title: String) -> Draft {
    let date = match not_before {
        Some(floor) if floor.starts_with(&format!("{year:04}-")) => ctx.date_from(floor),
        _ => ctx.date_in(year),
    };
    let url = ctx.sites.news_url(&date, &title);
    Draft::new(url, title, PageKind::News, Some(date))
}

/// The date of each organisation's founding news, by organisation id: no news mentions an
/// organisation before it.
type FoundingDates = BTreeMap<i64, String>;

/// Whether a relation with these bounds holds at the end of `year`.
pub fn holds_at_end_of(year: i64, start: i64, end: Option<i64>) -> bool {
    start <= year && end.is_none_or(|e| e > year)
}

/// Renders the news articles and the yearbooks.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let w = ctx.world;
    let mut founded = FoundingDates::new();
    for org in &w.organisations {
        let page = founding_news(ctx, org);
        founded.insert(org.id, page.published.clone().expect("news is dated"));
        pages.push(page);
    }
    for work in &w.works {
        pages.push(work_news(ctx, &founded, work));
    }
    for tenure in &w.tenures {
        pages.push(appointment_news(ctx, &founded, tenure));
    }
    for event in &w.events {
        pages.push(event_news(ctx, &founded, event));
    }
    for m in &w.alliance_memberships {
        pages.push(alliance_news(ctx, &founded, m));
    }
    // Membership news: a share of the joinings, more when the world would otherwise have few pages.
    let share = if pages.len() + w.memberships.len() / 2 < 330 {
        1.0
    } else {
        0.5
    };
    for m in &w.memberships {
        if ctx.rng.random_bool(share) {
            pages.push(membership_news(ctx, &founded, m));
        }
    }
    // Yearbooks every 8 to 20 years over the last century or so, from the first founding on, each
    // true at its date; a year with nothing to record has none.
    let first_founding = w.organisations.iter().map(|o| o.founded).min();
    let mut year = (w.present_year - ctx.rng.random_range(90..=130))
        .max(w.earliest_year + 20)
        .max(first_founding.unwrap_or(w.present_year));
    while year < w.present_year {
        pages.extend(yearbook(ctx, year));
        year += ctx.rng.random_range(8..=20);
    }
    for year in w.census_years() {
        pages.push(census_report(ctx, year));
    }
}

/// The report of the census of `year`: every settlement it counted, with its count, under the
/// heading of its region.
fn census_report(ctx: &mut Ctx, year: i64) -> Page {
    let w = ctx.world;
    let (cr, s) = (TableRole::Census, TableRole::Settlement);
    let title = format!("Census of {year}: {}", w.name);
    let url = ctx.sites.census_url(year);
    let date = ctx.date_in(year);
    let mut d = Draft::new(url, title, PageKind::History, Some(date.clone()));
    let theme = &w.theme.settlement;
    let intro = say(
        ctx.rng,
        "census_intro",
        &[
            ("year", &year.to_string()),
            ("world", &w.name),
            ("kind", &theme.singular),
            ("kinds", &theme.plural),
        ],
    );
    let mut sections = Vec::new();
    for region in &w.regions {
        let mut counted: Vec<_> = w
            .censuses
            .iter()
            .filter(|c| c.year == year && w.settlement(c.settlement).region == region.id)
            .collect();
        counted.sort_by_key(|c| std::cmp::Reverse(c.population));
        let lines = counted
            .iter()
            .map(|c| {
                d.year(ctx, cr, c.id, ColumnRole::Year, c.year);
                let place = d.reference(ctx, cr, c.id, ColumnRole::Settlement, s, c.settlement);
                d.reference(
                    ctx,
                    s,
                    c.settlement,
                    ColumnRole::Region,
                    TableRole::Region,
                    region.id,
                );
                let n = d.count(ctx, cr, c.id, ColumnRole::Population, c.population);
                format!("{place}: {n} people")
            })
            .collect();
        push_section(&mut sections, region.name.clone(), lines);
    }
    archive_page(w, d, &date, intro, sections)
}

/// An archive page (a yearbook or a census report): its draft's title, the archive's dateline,
/// an intro and the sections.
fn archive_page(
    w: &World,
    d: Draft,
    date: &str,
    intro: String,
    sections: Vec<HistorySection>,
) -> Page {
    let body = templates::render(
        "history.md.j2",
        HistoryPage {
            title: &d.title,
            dateline: format!("Archive of {}, {date}", w.name),
            intro,
            sections,
        },
    );
    d.finish(body)
}

fn founding_news(ctx: &mut Ctx, org: &Organisation) -> Page {
    let w = ctx.world;
    let kind = &w.theme.organisation.singular;
    let (p, o) = (TableRole::Person, TableRole::Organisation);
    // "New trading house House of Lai founded" would say "house" twice.
    let title = if repeats_word(kind, &org.name) {
        format!("{} founded", org.name)
    } else {
        format!("New {kind} {} founded", org.name)
    };
    let mut d = news_draft(ctx, org.founded, None, title).about(o, org.id);
    d.year(ctx, o, org.id, ColumnRole::Founded, org.founded);
    let subject = ctx.link(o, org.id);
    let place = d.reference(
        ctx,
        o,
        org.id,
        ColumnRole::Home,
        TableRole::Settlement,
        org.home,
    );
    let founder = d.reference(ctx, o, org.id, ColumnRole::Founder, p, org.founder);
    let category = d.text(ctx, o, org.id, ColumnRole::Category, &org.category);
    let f = w.person(org.founder);
    let occupation = d.text(ctx, p, f.id, ColumnRole::Occupation, &f.occupation);
    let paragraphs = vec![
        say(
            ctx.rng,
            "news_founding",
            &[
                ("subject", &subject),
                ("kind", kind),
                ("place", &place),
                ("object", &founder),
            ],
        ),
        say(
            ctx.rng,
            "news_founding_detail",
            &[
                ("occupation", &occupation),
                ("kind", kind),
                ("category", &category),
            ],
        ),
    ];
    news(ctx, d, paragraphs)
}

fn work_news(ctx: &mut Ctx, founded: &FoundingDates, work: &Work) -> Page {
    let theme = &ctx.world.theme;
    let (wr, o) = (TableRole::Work, TableRole::Organisation);
    let verb = theme.work.verb.clone().unwrap_or_default();
    let title = format!("{} {verb}", work.name);
    let not_before = founded.get(&work.organisation).map(String::as_str);
    let mut d = news_draft(ctx, work.year, not_before, title).about(wr, work.id);
    d.year(ctx, wr, work.id, ColumnRole::Year, work.year);
    let org = d.reference(
        ctx,
        wr,
        work.id,
        ColumnRole::Organisation,
        o,
        work.organisation,
    );
    let subject = ctx.link(wr, work.id);
    let mut paragraphs = vec![say(
        ctx.rng,
        "news_work",
        &[
            ("subject", &subject),
            ("object", &org),
            ("verb", &verb),
            ("kind", &theme.work.singular),
        ],
    )];
    if let Some(extra) = theme.work.extras.first() {
        let value = d.extra(ctx, wr, work.id, 0, work.extras[0]);
        paragraphs.push(measure_sentence(&extra.label, &value));
    }
    news(ctx, d, paragraphs)
}

fn appointment_news(ctx: &mut Ctx, founded: &FoundingDates, t: &Tenure) -> Page {
    let w = ctx.world;
    let (tr, p, o) = (
        TableRole::Tenure,
        TableRole::Person,
        TableRole::Organisation,
    );
    let org_name = &w.organisation(t.organisation).name;
    let title = format!("{org_name} names a new {}", t.seat);
    let not_before = founded.get(&t.organisation).map(String::as_str);
    let mut d = news_draft(ctx, t.start, not_before, title).about(o, t.organisation);
    d.year(ctx, tr, t.id, ColumnRole::StartYear, t.start);
    let person = d.reference(ctx, tr, t.id, ColumnRole::Person, p, t.person);
    let org = d.reference(ctx, tr, t.id, ColumnRole::Organisation, o, t.organisation);
    let seat = d.text(ctx, tr, t.id, ColumnRole::Seat, &t.seat);
    let holder = w.person(t.person);
    let born = d.year(ctx, p, holder.id, ColumnRole::BirthYear, holder.birth_year);
    let s = TableRole::Settlement;
    let place = d.reference(
        ctx,
        p,
        holder.id,
        ColumnRole::Birthplace,
        s,
        holder.birthplace,
    );
    let paragraphs = vec![
        say(
            ctx.rng,
            "news_appointment",
            &[("subject", &person), ("object", &org), ("seat", &seat)],
        ),
        say(
            ctx.rng,
            "news_appointment_detail",
            &[("seat", &seat), ("place", &place), ("born", &born)],
        ),
    ];
    news(ctx, d, paragraphs)
}

fn event_news(ctx: &mut Ctx, founded: &FoundingDates, event: &Event) -> Page {
    let w = ctx.world;
    let er = TableRole::Event;
    let title = format!("{} draws the crowds", event.name);
    let winner = w
        .participations
        .iter()
        .find(|x| x.event == event.id && x.result == 1);
    let not_before = winner.and_then(|x| founded.get(&x.organisation));
    let not_before = not_before.map(String::as_str);
    let mut d = news_draft(ctx, event.year, not_before, title).about(er, event.id);
    d.year(ctx, er, event.id, ColumnRole::Year, event.year);
    let place = d.reference(
        ctx,
        er,
        event.id,
        ColumnRole::Host,
        TableRole::Settlement,
        event.host,
    );
    let subject = ctx.link(er, event.id);
    let mut paragraphs = vec![say(
        ctx.rng,
        "news_event",
        &[("subject", &subject), ("place", &place)],
    )];
    if let Some(winner) = winner {
        let pr = TableRole::Participation;
        d.reference(ctx, pr, winner.id, ColumnRole::Event, er, event.id);
        let o = TableRole::Organisation;
        let org = d.reference(
            ctx,
            pr,
            winner.id,
            ColumnRole::Organisation,
            o,
            winner.organisation,
        );
        paragraphs.push(say(ctx.rng, "news_event_winner", &[("subject", &org)]));
    }
    news(ctx, d, paragraphs)
}

fn alliance_news(ctx: &mut Ctx, founded: &FoundingDates, m: &AllianceMembership) -> Page {
    let w = ctx.world;
    let (mr, o) = (TableRole::AllianceMembership, TableRole::Organisation);
    let org_name = &w.organisation(m.organisation).name;
    let title = format!(
        "{org_name} joins {}",
        with_article(&w.theme.alliance.singular)
    );
    let not_before = founded.get(&m.organisation).map(String::as_str);
    let mut d = news_draft(ctx, m.start, not_before, title).about(o, m.organisation);
    d.year(ctx, mr, m.id, ColumnRole::StartYear, m.start);
    let org = d.reference(ctx, mr, m.id, ColumnRole::Organisation, o, m.organisation);
    let alliance = d.reference(
        ctx,
        mr,
        m.id,
        ColumnRole::Alliance,
        TableRole::Alliance,
        m.alliance,
    );
    let paragraphs = vec![say(
        ctx.rng,
        "news_alliance",
        &[("subject", &alliance), ("object", &org)],
    )];
    news(ctx, d, paragraphs)
}

fn membership_news(ctx: &mut Ctx, founded: &FoundingDates, m: &Membership) -> Page {
    let (mr, p, o) = (
        TableRole::Membership,
        TableRole::Person,
        TableRole::Organisation,
    );
    let member = ctx.world.person(m.person);
    let title = format!("{} joins as {}", member.name, m.role);
    let not_before = founded.get(&m.organisation).map(String::as_str);
    let mut d = news_draft(ctx, m.joined, not_before, title).about(p, m.person);
    d.year(ctx, mr, m.id, ColumnRole::Joined, m.joined);
    let person = d.reference(ctx, mr, m.id, ColumnRole::Person, p, m.person);
    let org = d.reference(ctx, mr, m.id, ColumnRole::Organisation, o, m.organisation);
    let role = d.text(ctx, mr, m.id, ColumnRole::MemberRole, &m.role);
    let occupation = d.text(ctx, p, m.person, ColumnRole::Occupation, &member.occupation);
    let values = [
        ("subject", person.as_str()),
        ("occupation", &occupation),
        ("object", &org),
        ("role", &role),
    ];
    let paragraphs = vec![say(ctx.rng, "news_membership", &values)];
    news(ctx, d, paragraphs)
}

/// The yearbook of `year`: who held which seat, who belonged to which alliance, what was founded;
/// none when nothing of that was true at the end of the year.
fn yearbook(ctx: &mut Ctx, year: i64) -> Option<Page> {
    let w = ctx.world;
    let title = format!("{} yearbook {year}", w.name);
    let url = ctx.sites.archive_url(year);
    let date = fmt_date(year, 12, 31);
    let mut d = Draft::new(url, title, PageKind::History, Some(date.clone()));
    let mut sections = Vec::new();
    let lines = office_holder_lines(&mut d, ctx, year);
    push_section(&mut sections, "Office holders".into(), lines);
    let lines = alliance_lines(&mut d, ctx, year);
    let heading = upper_first(&w.theme.alliance.plural);
    push_section(&mut sections, heading, lines);
    let lines = founded_lines(&mut d, ctx, year);
    push_section(&mut sections, "Founded this year".into(), lines);
    if sections.is_empty() {
        return None;
    }
    let intro = format!(
        "The state of {} as of 31 December {year}, as recorded by the archive.",
        w.name
    );
    Some(archive_page(w, d, &date, intro, sections))
}

/// Adds a yearbook section unless it has no lines.
fn push_section(sections: &mut Vec<HistorySection>, heading: String, lines: Vec<String>) {
    if !lines.is_empty() {
        sections.push(HistorySection { heading, lines });
    }
}

/// "Seat of Organisation: Person" for every seat held at the end of `year`.
fn office_holder_lines(d: &mut Draft, ctx: &Ctx, year: i64) -> Vec<String> {
    let (tr, p, o) = (
        TableRole::Tenure,
        TableRole::Person,
        TableRole::Organisation,
    );
    ctx.world
        .tenures
        .iter()
        .filter(|t| holds_at_end_of(year, t.start, t.end))
        .map(|t| {
            let seat = d.text(ctx, tr, t.id, ColumnRole::Seat, &t.seat);
            let org = d.reference(ctx, tr, t.id, ColumnRole::Organisation, o, t.organisation);
            let person = d.reference(ctx, tr, t.id, ColumnRole::Person, p, t.person);
            format!("{seat} of {org}: {person}")
        })
        .collect()
}

/// "Organisation belonged to Alliance" for every alliance membership at the end of `year`.
fn alliance_lines(d: &mut Draft, ctx: &Ctx, year: i64) -> Vec<String> {
    let (mr, o) = (TableRole::AllianceMembership, TableRole::Organisation);
    ctx.world
        .alliance_memberships
        .iter()
        .filter(|m| holds_at_end_of(year, m.start, m.end))
        .map(|m| {
            let org = d.reference(ctx, mr, m.id, ColumnRole::Organisation, o, m.organisation);
            let alliance = d.reference(
                ctx,
                mr,
                m.id,
                ColumnRole::Alliance,
                TableRole::Alliance,
                m.alliance,
            );
            format!("{org} belonged to {alliance}")
        })
        .collect()
}

/// "Organisation was founded" for every organisation founded in `year`.
fn founded_lines(d: &mut Draft, ctx: &Ctx, year: i64) -> Vec<String> {
    let o = TableRole::Organisation;
    ctx.world
        .organisations
        .iter()
        .filter(|x| x.founded == year)
        .map(|org| {
            d.year(ctx, o, org.id, ColumnRole::Founded, org.founded);
            format!("{} was founded", ctx.link(o, org.id))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};
    use fabula_world::schema;
    use fabula_world::{World, generate_world, theme};

    use crate::draft::{assert_facts_shown, with_ctx};

    use TableRole::*;

    fn render_world(seed: u64, world_id: u32) -> (World, Vec<Page>, String) {
        let world = generate_world(seed, world_id, &theme::all().unwrap());
        let (pages, news_name) = with_ctx(&world, |ctx| {
            let mut pages = Vec::new();
            super::render(ctx, &mut pages);
            (pages, ctx.sites.news_name.clone())
        });
        (world, pages, news_name)
    }

    /// Renders the dated pages of world (`seed`, `world_id`) and checks that every row of `role`
    /// has exactly one news article, which states the row's `year_role` cell and is published
    /// in that year under the news site's dateline, and that every page shows the text of every
    /// fact it records.
    fn check(seed: u64, world_id: u32, role: TableRole, year_role: ColumnRole) {
        let (world, pages, news_name) = render_world(seed, world_id);
        let layout = schema::layout(&world);
        let table = layout.table(role);
        let year_column = table.column(year_role);
        let at = table
            .columns
            .iter()
            .position(|c| c.name == year_column.name)
            .expect("the year column is in the table");
        let rows = schema::table_rows(&world, role);
        assert!(!rows.is_empty(), "world has no {} rows", table.name);
        pages.iter().for_each(assert_facts_shown);
        for row in rows {
            let (Value::Int(id), Value::Int(year)) = (&row[0], &row[at]) else {
                panic!("{row:?} has no year")
            };
            let news: Vec<_> = pages
                .iter()
                .filter(|p| p.kind == PageKind::News)
                .filter(|p| {
                    p.facts.iter().any(|f| {
                        (&f.table, f.row_id, &f.column) == (&table.name, *id, &year_column.name)
                    })
                })
                .collect();
            let [page] = news[..] else {
                panic!("{}#{id} is in {} news articles", table.name, news.len())
            };
            let date = page.published.as_deref().expect("news is dated");
            assert!(
                date.starts_with(&format!("{year:04}-")),
                "{date} for {year}"
            );
            // Every news layout puts the year and month of the date in the path.
            let digits: String = page.url.chars().filter(char::is_ascii_digit).collect();
            assert!(digits.contains(&date[..7].replace('-', "")), "{}", page.url);
            let dateline = format!("*{news_name}, {date}*");
            assert!(
                page.body.contains(&dateline),
                "{} lacks {dateline}",
                page.url
            );
        }
    }

    #[test]
    fn every_organisation_has_founding_news() {
        check(1, 0, Organisation, ColumnRole::Founded);
    }

    #[test]
    fn every_work_has_launch_news() {
        check(1, 3, Work, ColumnRole::Year);
    }

    #[test]
    fn every_tenure_has_appointment_news() {
        check(1, 3, Tenure, ColumnRole::StartYear);
    }

    #[test]
    fn every_event_has_news() {
        check(2, 0, Event, ColumnRole::Year);
    }

    #[test]
    fn every_alliance_membership_has_news() {
        check(3, 3, AllianceMembership, ColumnRole::StartYear);
    }

    #[test]
    fn every_membership_of_a_small_world_has_news() {
        check(2, 2, Membership, ColumnRole::Joined);
    }

    #[test]
    fn yearbooks_state_every_seat_held_at_their_date() {
        let (world, pages, _) = render_world(3, 4);
        let tenure_table = schema::layout(&world).table(Tenure).name.clone();
        let yearbooks: Vec<_> = pages
            .iter()
            .filter(|p| p.kind == PageKind::History && !p.title.starts_with("Census of"))
            .collect();
        assert!(yearbooks.len() >= 3, "{} yearbooks", yearbooks.len());
        for page in yearbooks {
            let date = page.published.as_deref().expect("yearbooks are dated");
            assert!(date.ends_with("-12-31"), "{date}");
            let year: i64 = date[..4].parse().unwrap();
            for t in &world.tenures {
                let stated = page
                    .facts
                    .iter()
                    .any(|f| f.table == tenure_table && f.row_id == t.id);
                assert_eq!(
                    stated,
                    super::holds_at_end_of(year, t.start, t.end),
                    "{t:?} in {year}"
                );
            }
        }
    }

    /// Each census count is stated once, by the report of its year, dated in that year; no
    /// report states a settlement's present population.
    #[test]
    fn census_reports_state_each_count_as_of_their_year() {
        let (world, pages, _) = (0..)
            .map(|id| render_world(3, id))
            .find(|(w, _, _)| !w.censuses.is_empty())
            .unwrap();
        let layout = schema::layout(&world);
        let (census, settlement) = (layout.table(Census), layout.table(Settlement));
        let reports: Vec<&Page> = pages
            .iter()
            .filter(|p| p.title.starts_with("Census of"))
            .collect();
        assert_eq!(reports.len(), world.census_years().len());
        for c in &world.censuses {
            let stating: Vec<&&Page> = reports
                .iter()
                .filter(|p| {
                    p.facts.iter().any(|f| {
                        f.table == census.name && f.row_id == c.id && f.column == "population"
                    })
                })
                .collect();
            assert_eq!(stating.len(), 1, "census row {}", c.id);
            let page = stating[0];
            let date = page.published.as_deref().unwrap();
            assert!(date.starts_with(&format!("{:04}-", c.year)), "{date}");
            assert!(page.body.contains(&crate::draft::fmt_count(c.population)));
        }
        for page in reports {
            assert!(
                !page
                    .facts
                    .iter()
                    .any(|f| f.table == settlement.name && f.column == "population"),
                "{} states a present population",
                page.url
            );
        }
    }

    #[test]
    fn every_yearbook_records_something() {
        for (seed, world_id) in [(1, 0), (2, 3), (3, 4), (4, 7)] {
            let (_, pages, _) = render_world(seed, world_id);
            for page in pages.iter().filter(|p| p.kind == PageKind::History) {
                assert!(page.body.contains("\n## "), "{}", page.url);
                assert!(!page.facts.is_empty(), "{}", page.url);
            }
        }
    }

    #[test]
    fn news_of_an_organisation_never_predates_its_founding_news() {
        let mut same_year = 0;
        for (seed, world_id) in [(1, 0), (2, 5), (3, 4), (5, 1)] {
            let (world, pages, _) = render_world(seed, world_id);
            let table = schema::layout(&world).table(Organisation).clone();
            let founded_column = &table.column(ColumnRole::Founded).name;
            let news: Vec<_> = pages.iter().filter(|p| p.kind == PageKind::News).collect();
            let date_of = |p: &Page| p.published.clone().expect("news is dated");
            let founding: std::collections::BTreeMap<i64, String> = news
                .iter()
                .flat_map(|p| p.facts.iter().map(move |f| (p, f)))
                .filter(|(_, f)| f.table == table.name && &f.column == founded_column)
                .map(|(p, f)| (f.row_id, date_of(p)))
                .collect();
            assert_eq!(founding.len(), world.organisations.len());
            for page in &news {
                let date = date_of(page);
                for org in &world.organisations {
                    let mentions = page.facts.iter().any(|f| {
                        (f.table == table.name && f.row_id == org.id)
                            || (f.value_kind == fabula_file::ValueKind::Entity
                                && f.shown == org.name)
                    });
                    if !mentions {
                        continue;
                    }
                    let founded_on = &founding[&org.id];
                    assert!(date >= *founded_on, "{} predates {founded_on}", page.url);
                    same_year += usize::from(date[..4] == founded_on[..4]);
                }
            }
        }
        assert!(same_year > 20, "only {same_year} news in a founding year");
    }

    #[test]
    fn dates_from_a_floor_stay_in_its_year_and_after_it() {
        let world = generate_world(1, 0, &theme::all().unwrap());
        with_ctx(&world, |ctx| {
            for floor in ["1850-01-01", "1850-06-14", "1850-12-28"] {
                for _ in 0..200 {
                    let date = ctx.date_from(floor);
                    assert!(date.starts_with("1850-"), "{date}");
                    assert!(date.as_str() >= floor, "{date} before {floor}");
                    assert!(crate::draft::fmt_date(1850, 12, 28) >= date, "{date}");
                }
            }
        });
    }

    #[test]
    fn holds_at_end_of_counts_the_start_year_but_not_the_end_year() {
        let cases = [
            (2000, 2000, None, true),
            (2000, 2001, None, false),
            (2000, 1990, Some(2000), false),
            (2000, 1990, Some(2001), true),
        ];
        for (year, start, end, expect) in cases {
            assert_eq!(
                super::holds_at_end_of(year, start, end),
                expect,
                "{year} {start} {end:?}"
            );
        }
    }
}
