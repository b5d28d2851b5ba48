//! List pages (every entity of a kind) and category pages (entities grouped by a shared value).

use std::collections::BTreeMap;

use serde::Serialize;

use fabula_file::{ColumnRole, Page, PageKind, TableRole};
use fabula_world::model::Region;

use crate::draft::{Cell, Ctx, Draft};
use crate::english::with_article;
use crate::templates;

#[derive(Serialize)]
struct ListPage<'a> {
    title: &'a str,
    intro: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn list(d: Draft, intro: String, columns: Vec<String>, rows: Vec<Vec<String>>) -> Page {
    let title = d.title.clone();
    let body = templates::render(
        "list.md.j2",
        ListPage {
            title: &title,
            intro,
            columns,
            rows,
        },
    );
    d.finish(body)
}

fn cap(text: &str) -> String {
    crate::english::upper_first(text)
}

/// The draft of the list page of every entity of a kind.
fn list_draft(ctx: &mut Ctx, plural: &str) -> Draft {
    let title = format!("List of {plural}");
    Draft::new(ctx.sites.wiki_url(&title), &title, PageKind::List, None)
}

/// Renders the list and category pages.
pub fn render(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let w = ctx.world;
    pages.push(region_list(ctx));
    pages.push(settlement_list(ctx));
    pages.push(person_list(ctx));
    pages.push(organisation_list(ctx));
    if w.groups.works {
        pages.push(work_list(ctx));
    }
    if w.groups.events {
        pages.push(event_list(ctx));
    }
    if w.groups.alliances {
        pages.push(alliance_list(ctx));
    }
    // Category pages: settlements by region, organisations by category, people by occupation.
    for region in &w.regions {
        pages.push(region_category(ctx, region));
    }
    for grouping in groupings(ctx) {
        for (value, ids) in &grouping.groups {
            pages.push(text_category(ctx, &grouping, value, ids));
        }
    }
}

fn region_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let r = TableRole::Region;
    let mut d = list_draft(ctx, &w.theme.region.plural);
    let rows = w
        .regions
        .iter()
        .map(|x| {
            let cells = [
                Cell::Name,
                Cell::Link,
                Cell::Count(ColumnRole::Population, x.population),
            ];
            d.row(ctx, r, x.id, &cells)
        })
        .collect();
    let intro = format!("The {} of {}.", w.theme.region.plural, w.name);
    list(d, intro, vec!["Name".into(), "Population".into()], rows)
}

fn settlement_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let s = TableRole::Settlement;
    let mut d = list_draft(ctx, &theme.settlement.plural);
    let rows = w
        .settlements
        .iter()
        .map(|x| {
            let cells = [
                Cell::Name,
                Cell::Link,
                Cell::Reference(ColumnRole::Region, TableRole::Region, x.region),
                Cell::Year(ColumnRole::Founded, x.founded),
                Cell::Count(ColumnRole::Population, x.population),
            ];
            d.row(ctx, s, x.id, &cells)
        })
        .collect();
    let intro = format!(
        "Every {} of {}, with its {}.",
        theme.settlement.singular, w.name, theme.region.singular
    );
    let columns = vec![
        "Name".into(),
        cap(&theme.region.singular),
        "Founded".into(),
        "Population".into(),
    ];
    list(d, intro, columns, rows)
}

fn person_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let p = TableRole::Person;
    let mut d = list_draft(ctx, &w.theme.person.plural);
    let rows = w
        .people
        .iter()
        .map(|x| {
            let cells = [
                Cell::Name,
                Cell::Link,
                Cell::Year(ColumnRole::BirthYear, x.birth_year),
                Cell::Text(ColumnRole::Occupation, &x.occupation),
            ];
            d.row(ctx, p, x.id, &cells)
        })
        .collect();
    let intro = format!("Notable {} of {}.", w.theme.person.plural, w.name);
    let columns = vec!["Name".into(), "Born".into(), "Occupation".into()];
    list(d, intro, columns, rows)
}

fn organisation_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let o = TableRole::Organisation;
    let mut d = list_draft(ctx, &w.theme.organisation.plural);
    let rows = w
        .organisations
        .iter()
        .map(|x| {
            let cells = [
                Cell::Name,
                Cell::Link,
                Cell::Text(ColumnRole::Category, &x.category),
                Cell::Year(ColumnRole::Founded, x.founded),
            ];
            d.row(ctx, o, x.id, &cells)
        })
        .collect();
    let intro = format!("The {} of {}.", w.theme.organisation.plural, w.name);
    let columns = vec!["Name".into(), "Category".into(), "Founded".into()];
    list(d, intro, columns, rows)
}

fn work_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let wr = TableRole::Work;
    let mut d = list_draft(ctx, &w.theme.work.plural);
    let rows = w
        .works
        .iter()
        .map(|x| {
            d.row(
                ctx,
                wr,
                x.id,
                &[Cell::Name, Cell::Link, Cell::Year(ColumnRole::Year, x.year)],
            )
        })
        .collect();
    let verb = w.theme.work.verb.as_deref().unwrap_or_default();
    let intro = format!("{} of {}.", cap(&w.theme.work.plural), w.name);
    list(d, intro, vec!["Name".into(), cap(verb)], rows)
}

fn event_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let er = TableRole::Event;
    let mut d = list_draft(ctx, &w.theme.event.plural);
    let rows = w
        .events
        .iter()
        .map(|x| {
            d.row(
                ctx,
                er,
                x.id,
                &[Cell::Name, Cell::Link, Cell::Year(ColumnRole::Year, x.year)],
            )
        })
        .collect();
    let intro = format!("{} held in {}.", cap(&w.theme.event.plural), w.name);
    list(d, intro, vec!["Name".into(), "Year".into()], rows)
}

fn alliance_list(ctx: &mut Ctx) -> Page {
    let w = ctx.world;
    let ar = TableRole::Alliance;
    let mut d = list_draft(ctx, &w.theme.alliance.plural);
    let rows = w
        .alliances
        .iter()
        .map(|x| {
            let cells = [
                Cell::Name,
                Cell::Link,
                Cell::Year(ColumnRole::Founded, x.founded),
            ];
            d.row(ctx, ar, x.id, &cells)
        })
        .collect();
    let intro = format!("{} of {}.", cap(&w.theme.alliance.plural), w.name);
    list(d, intro, vec!["Name".into(), "Founded".into()], rows)
}

/// The category page of the settlements in a region.
fn region_category(ctx: &mut Ctx, region: &Region) -> Page {
    let w = ctx.world;
    let theme = &w.theme;
    let (r, s) = (TableRole::Region, TableRole::Settlement);
    let title = format!(
        "Category:{} of {}",
        cap(&theme.settlement.plural),
        region.name
    );
    let url = ctx.sites.wiki_url(&title);
    let mut d = Draft::new(url, &title, PageKind::Category, None).about(r, region.id);
    let rows = w
        .settlements
        .iter()
        .filter(|x| x.region == region.id)
        .map(|x| {
            let cells = [Cell::Subject(ColumnRole::Region), Cell::Name, Cell::Link];
            d.row(ctx, s, x.id, &cells)
        })
        .collect();
    let intro = format!(
        "{} in {}.",
        cap(&theme.settlement.plural),
        ctx.link(r, region.id)
    );
    list(d, intro, vec![cap(&theme.settlement.singular)], rows)
}

/// Category pages that group the entities of a kind by the text of one column.
struct Grouping<'a> {
    role: TableRole,
    column_role: ColumnRole,
    plural: &'a str,
    /// The header of the page's one column.
    header: String,
    /// What the intro says the members share, before the value: "whose field is", or "known as"
    /// before an occupation with its article.
    share: &'static str,
    /// Entity ids by value, in value order.
    groups: BTreeMap<&'a str, Vec<i64>>,
}

/// Organisations by category, then people by occupation.
fn groupings<'a>(ctx: &Ctx<'a>) -> [Grouping<'a>; 2] {
    let w = ctx.world;
    let theme = &w.theme;
    let mut categories: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for x in &w.organisations {
        categories.entry(&x.category).or_default().push(x.id);
    }
    let mut occupations: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for x in &w.people {
        occupations.entry(&x.occupation).or_default().push(x.id);
    }
    [
        Grouping {
            role: TableRole::Organisation,
            column_role: ColumnRole::Category,
            plural: &theme.organisation.plural,
            header: cap(&theme.organisation.singular),
            share: "whose field is",
            groups: categories,
        },
        Grouping {
            role: TableRole::Person,
            column_role: ColumnRole::Occupation,
            plural: &theme.person.plural,
            header: "Name".into(),
            share: "known as",
            groups: occupations,
        },
    ]
}

/// The category page of the entities whose column holds `value`.
fn text_category(ctx: &mut Ctx, by: &Grouping, value: &str, ids: &[i64]) -> Page {
    let title = format!("Category:{} ({})", cap(value), by.plural);
    let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, PageKind::Category, None);
    let rows = ids
        .iter()
        .map(|&id| {
            // The value is what the page is about, so rows state it without showing it.
            d.text(ctx, by.role, id, by.column_role, value);
            d.row(ctx, by.role, id, &[Cell::Name, Cell::Link])
        })
        .collect();
    let shared = match by.column_role {
        // One occupation per person: "known as an engineer".
        ColumnRole::Occupation => with_article(value),
        _ => value.to_string(),
    };
    let intro = format!("{} {} {shared}.", cap(by.plural), by.share);
    list(d, intro, vec![by.header.clone()], rows)
}

#[cfg(test)]
mod tests {
    use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};
    use fabula_world::schema;
    use fabula_world::{generate_world, theme};

    use crate::draft::{assert_facts_shown, with_ctx};

    use TableRole::*;

    /// Where a case expects each entity of a kind to be listed.
    #[derive(Clone, Copy)]
    enum Listing {
        /// On the kind's one list page, or on none when the world lacks the kind.
        List,
        /// On exactly one category page, which states the cell of `column_role` it groups by.
        Category(ColumnRole),
    }

    /// Renders the list and category pages of world (`seed`, `world_id`) and checks that every
    /// entity of `role` is linked, with its name stated, where `listing` says, and that every page
    /// shows the text of every fact it records.
    fn check(seed: u64, world_id: u32, role: TableRole, listing: Listing) {
        let world = generate_world(seed, world_id, &theme::all().unwrap());
        let layout = schema::layout(&world);
        let plural = match role {
            Work => &world.theme.work.plural,
            Event => &world.theme.event.plural,
            Alliance => &world.theme.alliance.plural,
            _ => &layout.table(role).plural,
        };
        let rows = layout.get(role).map(|_| schema::table_rows(&world, role));
        let (pages, links) = with_ctx(&world, |ctx| {
            let mut pages = Vec::new();
            super::render(ctx, &mut pages);
            let ids = rows.iter().flatten().map(|row| int(&row[0]));
            let links: Vec<_> = ids.map(|id| (id, ctx.link(role, id))).collect();
            (pages, links)
        });
        pages.iter().for_each(assert_facts_shown);
        let list_title = format!("List of {plural}");
        let Some(table) = layout.get(role) else {
            assert!(!pages.iter().any(|p| p.title == list_title), "{list_title}");
            return;
        };
        assert!(!links.is_empty(), "world has no {} rows", table.name);
        let states = |page: &Page, id: i64, column_role: ColumnRole| {
            let column = &table.column(column_role).name;
            page.facts
                .iter()
                .any(|f| (&f.table, f.row_id, &f.column) == (&table.name, id, column))
        };
        let kind = match listing {
            Listing::List => PageKind::List,
            Listing::Category(_) => PageKind::Category,
        };
        for (id, link) in links {
            let row = format!("| {link} |");
            let listed: Vec<_> = pages
                .iter()
                .filter(|p| p.kind == kind && p.body.lines().any(|l| l.starts_with(&row)))
                .collect();
            let [page] = listed[..] else {
                panic!("{link} is listed {} times", listed.len())
            };
            assert!(
                states(page, id, ColumnRole::Name),
                "{} lacks the name of {link}",
                page.url
            );
            match listing {
                Listing::List => assert_eq!(page.title, list_title),
                Listing::Category(column_role) => {
                    assert!(
                        states(page, id, column_role),
                        "{} lacks {column_role}",
                        page.url
                    );
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
    fn every_region_is_listed() {
        check(1, 0, Region, Listing::List);
    }

    #[test]
    fn every_settlement_is_listed() {
        check(1, 1, Settlement, Listing::List);
    }

    #[test]
    fn every_person_is_listed() {
        check(1, 2, Person, Listing::List);
    }

    #[test]
    fn every_organisation_is_listed() {
        check(1, 3, Organisation, Listing::List);
    }

    #[test]
    fn every_work_is_listed() {
        check(1, 2, Work, Listing::List);
    }

    #[test]
    fn a_world_without_works_has_no_list_of_them() {
        check(1, 0, Work, Listing::List);
    }

    #[test]
    fn every_event_is_listed() {
        check(1, 0, Event, Listing::List);
    }

    #[test]
    fn a_world_without_events_has_no_list_of_them() {
        check(2, 2, Event, Listing::List);
    }

    #[test]
    fn every_alliance_is_listed() {
        check(2, 5, Alliance, Listing::List);
    }

    #[test]
    fn settlements_are_categorised_by_region() {
        check(2, 0, Settlement, Listing::Category(ColumnRole::Region));
    }

    #[test]
    fn organisations_are_categorised_by_field() {
        check(2, 1, Organisation, Listing::Category(ColumnRole::Category));
    }

    #[test]
    fn people_are_categorised_by_occupation() {
        check(2, 4, Person, Listing::Category(ColumnRole::Occupation));
    }
}
