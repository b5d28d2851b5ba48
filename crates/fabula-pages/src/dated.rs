//! Dated pages: news items about things that happened (composed by `news.rs` from their plans),
//! yearbooks that state what was true at the end of a year (who held each seat, which alliance
//! each organisation belonged to; their sections planned in `templates/pages/yearbook.toml`), and
//! census reports that state each settlement's population as of their census year: older
//! reports state older values, none of them the present one on the settlement's own page.

use std::sync::OnceLock;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};
use fabula_world::World;

use crate::draft::{Ctx, Draft, fmt_date};
use crate::english::upper_first;
use crate::news;
use crate::phrases::{fill, say};
use crate::plan::{self, Item, RawSlot, Rows, Slot};
use crate::templates;

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

/// Whether a relation with these bounds holds at the end of `year`.
pub fn holds_at_end_of(year: i64, start: i64, end: Option<i64>) -> bool {
    start <= year && end.is_none_or(|e| e > year)
}

/// Renders the news items (as `news.toml` plans them), the yearbooks and the census reports.
pub fn render(ctx: &mut Ctx, rows: &Rows, pages: &mut Vec<Page>) {
    let w = ctx.world;
    news::render(ctx, rows, pages);
    // Yearbooks every 8 to 20 years over the last century or so, from the first founding on, each
    // true at its date; a year with nothing to record has none.
    let first_founding = w.organisations.iter().map(|o| o.founded).min();
    let mut year = (w.present_year - ctx.rng.random_range(90..=130))
        .max(w.earliest_year + 20)
        .max(first_founding.unwrap_or(w.present_year));
    while year < w.present_year {
        pages.extend(yearbook(ctx, rows, year));
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

/// One section of a yearbook, as `yearbook.toml` writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSection {
    #[serde(default)]
    heading: Option<String>,
    #[serde(default)]
    heading_noun: Option<String>,
    row: String,
    #[serde(default)]
    holding: bool,
    #[serde(default)]
    in_year: Option<String>,
    line: String,
    slots: Vec<RawSlot>,
}

#[derive(Deserialize)]
struct RawSections {
    section: Vec<RawSection>,
}

/// A checked plan of a yearbook section.
struct Section {
    heading: Heading,
    row: TableRole,
    when: When,
    line: String,
    slots: Vec<Slot>,
}

enum Heading {
    Text(String),
    /// A table's plural noun, capitalised.
    Noun(TableRole),
}

/// Which rows a section states in the yearbook of a year.
enum When {
    /// The relations that hold at the end of the year.
    Holding,
    /// The rows whose cell of this year column is the year.
    InYear(ColumnRole),
}

fn section(raw: &RawSection) -> Result<Section, String> {
    let heading = match (&raw.heading, &raw.heading_noun) {
        (Some(text), None) => Heading::Text(text.clone()),
        (None, Some(noun)) => Heading::Noun(plan::table_role(noun)?),
        _ => return Err("a section needs one of `heading` and `heading_noun`".into()),
    };
    let when = match (raw.holding, &raw.in_year) {
        (true, None) => When::Holding,
        (false, Some(column)) => When::InYear(plan::column_role(column)?),
        _ => return Err("a section needs one of `holding` and `in_year`".into()),
    };
    Ok(Section {
        heading,
        row: plan::table_role(&raw.row)?,
        when,
        line: raw.line.clone(),
        slots: plan::slots(&raw.slots, None)?,
    })
}

/// The yearbook's section plans, read and checked once.
fn sections() -> &'static [Section] {
    static SECTIONS: OnceLock<Vec<Section>> = OnceLock::new();
    SECTIONS.get_or_init(|| {
        let raw: RawSections =
            toml::from_str(templates::YEARBOOK).expect("yearbook.toml is valid TOML");
        plan::checked("yearbook.toml", "section", &raw.section, section)
    })
}

impl When {
    /// Whether row `id` of `role` belongs in the yearbook of `year`.
    fn admits(&self, rows: &Rows, role: TableRole, id: i64, year: i64) -> bool {
        let year_of = |column| match rows.cell(role, id, column) {
            Some((_, Value::Int(y))) => Some(*y),
            _ => None,
        };
        match self {
            When::Holding => year_of(ColumnRole::StartYear)
                .is_some_and(|start| holds_at_end_of(year, start, year_of(ColumnRole::EndYear))),
            When::InYear(column) => year_of(*column) == Some(year),
        }
    }
}

/// The yearbook of `year`: a section per plan of `yearbook.toml` (who held which seat, who
/// belonged to which alliance, what was founded); none when no section has a line.
fn yearbook(ctx: &mut Ctx, rows: &Rows, year: i64) -> Option<Page> {
    let w = ctx.world;
    let title = format!("{} yearbook {year}", w.name);
    let url = ctx.sites.archive_url(year);
    let date = fmt_date(year, 12, 31);
    let mut d = Draft::new(url, title, PageKind::History, Some(date.clone()));
    let mut out = Vec::new();
    for plan in sections() {
        let lines = rows
            .ids(plan.row)
            .into_iter()
            .filter(|&id| plan.when.admits(rows, plan.row, id, year))
            .map(|id| {
                let values = Item::new(rows, plan.row, id, None).fill(&mut d, ctx, &plan.slots);
                fill(&plan.line, &values.pairs())
            })
            .collect();
        let heading = match &plan.heading {
            Heading::Text(text) => text.clone(),
            Heading::Noun(role) => ctx
                .layout
                .get(*role)
                .map(|t| upper_first(&t.plural))
                .unwrap_or_default(),
        };
        push_section(&mut out, heading, lines);
    }
    if out.is_empty() {
        return None;
    }
    let intro = format!(
        "The state of {} as of 31 December {year}, as recorded by the archive.",
        w.name
    );
    Some(archive_page(w, d, &date, intro, out))
}

/// Adds a yearbook section unless it has no lines.
fn push_section(sections: &mut Vec<HistorySection>, heading: String, lines: Vec<String>) {
    if !lines.is_empty() {
        sections.push(HistorySection { heading, lines });
    }
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
            let rows = crate::plan::Rows::new(ctx);
            super::render(ctx, &rows, &mut pages);
            (pages, ctx.sites.news_name.clone())
        });
        (world, pages, news_name)
    }

    /// Renders the dated pages of world (`seed`, `world_id`) and checks that every row of `role`
    /// has exactly one news article, which states the row's `year_role` cell and is published
    /// in that year under the news site's dateline but not in its url, and that every page shows
    /// the text of every fact it records.
    fn check(seed: u64, world_id: u32, role: TableRole, year_role: ColumnRole) {
        check_rows(seed, world_id, role, year_role, |_| Box::new(|_| true));
    }

    /// [`check`] for the rows `reported` holds (by the world), and no news of the others.
    fn check_rows(
        seed: u64,
        world_id: u32,
        role: TableRole,
        year_role: ColumnRole,
        reported: impl Fn(&World) -> Box<dyn Fn(i64) -> bool + '_>,
    ) {
        let (world, pages, news_name) = render_world(seed, world_id);
        let reported = reported(&world);
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
            if !reported(*id) {
                assert!(news.is_empty(), "{}#{id} is in the news", table.name);
                continue;
            }
            let [page] = news[..] else {
                panic!("{}#{id} is in {} news articles", table.name, news.len())
            };
            let date = page.published.as_deref().expect("news is dated");
            assert!(
                date.starts_with(&format!("{year:04}-")),
                "{date} for {year}"
            );
            // No news layout puts the date in the path.
            let years = crate::sites::tests::years(&page.url);
            assert!(years.is_empty(), "{}", page.url);
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
    fn every_membership_of_a_notable_person_in_a_small_world_has_news_and_no_other() {
        check_rows(2, 2, Membership, ColumnRole::Joined, |world| {
            let notable: std::collections::BTreeSet<i64> = world
                .organisations
                .iter()
                .map(|o| o.founder)
                .chain(world.tenures.iter().map(|t| t.person))
                .collect();
            let of: std::collections::BTreeMap<i64, i64> =
                world.memberships.iter().map(|m| (m.id, m.person)).collect();
            assert!(
                of.values().any(|p| !notable.contains(p)),
                "every member is notable: the case tests nothing"
            );
            Box::new(move |id| notable.contains(&of[&id]))
        });
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
