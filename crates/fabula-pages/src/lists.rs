//! List pages (every entity of a kind) and category pages (entities grouped by a shared value),
//! composed from the plans in `templates/pages/lists.toml` (the file's header documents them).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};

use crate::draft::{Ctx, Draft};
use crate::english::{upper_first, with_article};
use crate::phrases::fill;
use crate::plan::{self, Item, Rows};
use crate::templates;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawList {
    row: String,
    intro: String,
    columns: Vec<String>,
    cells: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCategory {
    row: String,
    by: String,
    title: String,
    intro: String,
    columns: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlans {
    list: Vec<RawList>,
    category: Vec<RawCategory>,
}

/// The most rows one list page shows; a longer list goes on over further pages.
const PAGE_ROWS: usize = 25;

/// The page of every row of a table.
struct ListPlan {
    row: TableRole,
    intro: String,
    columns: Vec<String>,
    cells: Vec<ListCell>,
}

enum ListCell {
    /// The row's name: stated, not shown (the link shows it).
    Name,
    Link,
    State(ColumnRole),
}

/// Pages grouping a table's rows by one column.
struct CategoryPlan {
    row: TableRole,
    by: ColumnRole,
    title: String,
    intro: String,
    columns: Vec<String>,
}

struct Plans {
    lists: Vec<ListPlan>,
    categories: Vec<CategoryPlan>,
}

fn list_cell(text: &str) -> Result<ListCell, String> {
    match (text, text.strip_prefix("state:")) {
        ("name", _) => Ok(ListCell::Name),
        ("link", _) => Ok(ListCell::Link),
        (_, Some(column)) => Ok(ListCell::State(plan::column_role(column)?)),
        _ => Err(format!("`{text}` is no list cell")),
    }
}

fn read_plans(raw: &RawPlans) -> Result<Plans, String> {
    let lists = raw
        .list
        .iter()
        .map(|l| {
            Ok(ListPlan {
                row: plan::table_role(&l.row)?,
                intro: l.intro.clone(),
                columns: l.columns.clone(),
                cells: l
                    .cells
                    .iter()
                    .map(|c| list_cell(c))
                    .collect::<Result<_, String>>()?,
            })
        })
        .collect::<Result<_, String>>()?;
    let categories = raw
        .category
        .iter()
        .map(|c| {
            Ok(CategoryPlan {
                row: plan::table_role(&c.row)?,
                by: plan::column_role(&c.by)?,
                title: c.title.clone(),
                intro: c.intro.clone(),
                columns: c.columns.clone(),
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(Plans { lists, categories })
}

/// The list and category plans, read and checked once.
fn plans() -> &'static Plans {
    static PLANS: OnceLock<Plans> = OnceLock::new();
    PLANS.get_or_init(|| {
        let raw: RawPlans = toml::from_str(templates::LISTS).expect("lists.toml is valid TOML");
        read_plans(&raw).unwrap_or_else(|e| panic!("lists.toml: {e}"))
    })
}

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

/// The words a list plan's texts fill: the nouns of `role` (plural, singular, each also with a
/// capital), the singular of every table under its role's name ("{region}", "{Region}"), the
/// world's name and the work verb.
fn words(ctx: &Ctx, role: TableRole) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |name: &str, value: &str| {
        out.push((name.to_string(), value.to_string()));
        out.push((upper_first(name), upper_first(value)));
    };
    if let Some(table) = ctx.layout.get(role) {
        add("plural", &table.plural);
        add("singular", &table.singular);
    }
    for table in &ctx.layout.tables {
        add(table.role.as_str(), &table.singular);
    }
    add(
        "verb",
        ctx.world.theme.work.verb.as_deref().unwrap_or_default(),
    );
    out.push(("world".into(), ctx.world.name.clone()));
    out
}

fn pairs(words: &[(String, String)]) -> Vec<(&str, &str)> {
    words
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect()
}

fn filled(text: &str, words: &[(String, String)]) -> String {
    fill(text, &pairs(words))
}

/// Renders the list pages, then the category pages.
pub fn render(ctx: &mut Ctx, rows: &Rows, pages: &mut Vec<Page>) {
    let plans = plans();
    for plan in plans
        .lists
        .iter()
        .filter(|p| ctx.layout.get(p.row).is_some())
    {
        list_pages(ctx, rows, plan, pages);
    }
    for plan in &plans.categories {
        match rows.target(plan.row, plan.by) {
            Some(group_role) => reference_categories(ctx, rows, plan, group_role, pages),
            None => text_categories(ctx, rows, plan, pages),
        }
    }
    glossaries(ctx, pages);
}

/// The title of the glossary page that defines a field of the theme: which occupations (of
/// people) or categories (of organisations) its phrase covers.
fn glossary_title(role: TableRole, singular: &str, plural: &str, phrase: &str) -> String {
    match role {
        TableRole::Person => format!("Glossary: {plural} who worked {phrase}"),
        _ => format!("Glossary: {} {phrase}", with_article(singular)),
    }
}

/// One glossary page per field of the theme (`fields` of its people and organisations): the
/// words a blurred clue uses ("in the rhythm section", "moving what grows") defined inside the
/// world, each occupation or category it covers named and linked to its category page, so that
/// no reader has to guess which trades a phrase takes in. Rendered after the category pages,
/// whose urls it links.
fn glossaries(ctx: &mut Ctx, pages: &mut Vec<Page>) {
    let theme = &ctx.world.theme;
    let fields = [
        (TableRole::Person, theme.person.fields.clone(), "Occupation"),
        (
            TableRole::Organisation,
            theme.organisation.fields.clone(),
            "Field",
        ),
    ];
    for (role, fields, column) in fields {
        let Some(table) = ctx.layout.get(role) else {
            continue;
        };
        let (singular, plural) = (table.singular.clone(), table.plural.clone());
        for field in fields {
            let title = glossary_title(role, &singular, &plural, &field.phrase);
            let d = Draft::new(ctx.sites.wiki_url(&title), &title, PageKind::Category, None);
            let rows = field
                .members
                .iter()
                .map(|value| {
                    let category = format!("Category:{} ({plural})", upper_first(value));
                    let cell = match pages.iter().find(|p| p.title == category) {
                        Some(page) => format!("[{value}]({})", page.url),
                        None => value.clone(),
                    };
                    vec![cell]
                })
                .collect();
            let world = &ctx.world.name;
            let phrase = &field.phrase;
            let intro = match role {
                TableRole::Person => format!(
                    "In {world}, {plural} who worked {phrase} are those known by one of these \
                     occupations, and no others. Wherever this wiki speaks of {plural} who \
                     worked {phrase}, it means exactly these; each links to its category page, \
                     which names everyone known by it."
                ),
                _ => {
                    let one = with_article(&singular);
                    format!(
                        "In {world}, {one} {phrase} is one whose field is one of these, and no \
                         other. Wherever this wiki speaks of {one} {phrase}, it means exactly \
                         these fields; each links to its category page, which names every \
                         {singular} in it."
                    )
                }
            };
            pages.push(list(d, intro, vec![column.to_string()], rows));
        }
    }
}

/// The pages "List of ...", "List of ... (page 2)", ... of every row of the plan's table,
/// [`PAGE_ROWS`] rows a page, each page but the last linking the next.
fn list_pages(ctx: &mut Ctx, rows: &Rows, plan: &ListPlan, pages: &mut Vec<Page>) {
    let words = words(ctx, plan.row);
    let first = filled("List of {plural}", &words);
    let ids = rows.ids(plan.row);
    let parts: Vec<&[i64]> = ids.chunks(PAGE_ROWS).collect();
    let titles: Vec<String> = (1..=parts.len())
        .map(|n| match n {
            1 => first.clone(),
            n => format!("{first} (page {n})"),
        })
        .collect();
    // A url is handed out once per title, so each page's url is taken before any link to it.
    let urls: Vec<String> = titles.iter().map(|t| ctx.sites.wiki_url(t)).collect();
    let columns: Vec<String> = plan.columns.iter().map(|c| filled(c, &words)).collect();
    for (n, part) in parts.iter().enumerate() {
        let title = &titles[n];
        let mut d = Draft::new(urls[n].clone(), title, PageKind::List, None);
        let table = part
            .iter()
            .map(|&id| list_row(ctx, rows, plan, &mut d, id))
            .collect();
        let mut intro = upper_first(&filled(&plan.intro, &words));
        if n > 0 {
            intro = format!("{intro} Page {} of {}.", n + 1, parts.len());
        }
        let mut page = list(d, intro, columns.clone(), table);
        if let (Some(next), Some(url)) = (titles.get(n + 1), urls.get(n + 1)) {
            let link = format!("[{next}]({url})");
            page.body.push_str(&format!("\nNext page: {link}\n"));
        }
        pages.push(page);
    }
}

/// One row of a list page: its cells, stated on the draft.
fn list_row(ctx: &mut Ctx, rows: &Rows, plan: &ListPlan, d: &mut Draft, id: i64) -> Vec<String> {
    let item = Item::new(rows, plan.row, id, None);
    plan.cells
        .iter()
        .filter_map(|cell| match cell {
            ListCell::Name => {
                d.own_name(ctx, plan.row, id);
                None
            }
            ListCell::Link => Some(ctx.link(plan.row, id)),
            ListCell::State(column) => item.state_column(d, ctx, *column),
        })
        .collect()
}

/// One category page per row of `group_role`, the table the plan's `by` column refers to, about
/// that row.
fn reference_categories(
    ctx: &mut Ctx,
    rows: &Rows,
    plan: &CategoryPlan,
    group_role: TableRole,
    pages: &mut Vec<Page>,
) {
    for group in rows.ids(group_role) {
        let mut words = words(ctx, plan.row);
        words.push(("group".into(), ctx.name(group_role, group).to_string()));
        words.push(("group_link".into(), ctx.link(group_role, group)));
        let title = filled(&plan.title, &words);
        let url = ctx.sites.wiki_url(&title);
        let mut d = Draft::new(url, &title, PageKind::Category, None).about(group_role, group);
        let table = rows
            .referring(plan.row, plan.by, group)
            .iter()
            .map(|&id| {
                d.reference(ctx, plan.row, id, plan.by, group_role, group);
                d.own_name(ctx, plan.row, id);
                vec![ctx.link(plan.row, id)]
            })
            .collect();
        pages.push(category_page(d, plan, &words, table));
    }
}

/// A category page of the plan: its intro and columns filled with `words`, then the rows.
fn category_page(
    d: Draft,
    plan: &CategoryPlan,
    words: &[(String, String)],
    table: Vec<Vec<String>>,
) -> Page {
    let columns = plan.columns.iter().map(|c| filled(c, words)).collect();
    list(d, upper_first(&filled(&plan.intro, words)), columns, table)
}

/// One category page per value of the plan's `by` text column, in value order.
fn text_categories(ctx: &mut Ctx, rows: &Rows, plan: &CategoryPlan, pages: &mut Vec<Page>) {
    let mut groups: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for id in rows.ids(plan.row) {
        if let Some((_, Value::Text(value))) = rows.cell(plan.row, id, plan.by) {
            groups.entry(value.clone()).or_default().push(id);
        }
    }
    for (value, ids) in groups {
        let mut words = words(ctx, plan.row);
        words.push(("value".into(), value.clone()));
        words.push(("Value".into(), upper_first(&value)));
        let title = filled(&plan.title, &words);
        let mut d = Draft::new(ctx.sites.wiki_url(&title), &title, PageKind::Category, None);
        let table = ids
            .iter()
            .map(|&id| {
                // The value is what the page is about, so rows state it without showing it.
                d.text(ctx, plan.row, id, plan.by, &value);
                d.own_name(ctx, plan.row, id);
                vec![ctx.link(plan.row, id)]
            })
            .collect();
        pages.push(category_page(d, plan, &words, table));
    }
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
            let plan_rows = crate::plan::Rows::new(ctx);
            super::render(ctx, &plan_rows, &mut pages);
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
                // Long lists go on over pages "List of ... (page 2)" and so on.
                Listing::List => assert!(page.title.starts_with(&list_title), "{}", page.title),
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

    /// Every field of every theme has its glossary page, which names exactly the occupations or
    /// categories the field covers, each linked to its category page where the world has one.
    #[test]
    fn every_field_is_defined_on_a_glossary_page() {
        let themes = theme::all().unwrap();
        for world_id in 0..u32::try_from(themes.len() * 2).unwrap() {
            let world = generate_world(7, world_id, &themes);
            let pages = with_ctx(&world, |ctx| {
                let mut pages = Vec::new();
                let plan_rows = crate::plan::Rows::new(ctx);
                super::render(ctx, &plan_rows, &mut pages);
                pages
            });
            let layout = schema::layout(&world);
            let fields = [
                (Person, &world.theme.person.fields),
                (Organisation, &world.theme.organisation.fields),
            ];
            for (role, fields) in fields {
                let table = layout.table(role);
                for field in fields {
                    let title =
                        super::glossary_title(role, &table.singular, &table.plural, &field.phrase);
                    let page = pages.iter().find(|p| p.title == title);
                    let page = page.unwrap_or_else(|| panic!("no page {title}"));
                    assert!(page.body.contains(&field.phrase), "{title}");
                    let rows: Vec<&str> = page
                        .body
                        .lines()
                        .filter(|l| {
                            l.starts_with("| ")
                                && !l.starts_with("| Occupation")
                                && !l.starts_with("| Field")
                        })
                        .collect();
                    assert_eq!(rows.len(), field.members.len(), "{title}: {rows:?}");
                    for (row, value) in rows.iter().zip(&field.members) {
                        assert!(
                            row.starts_with(&format!("| [{value}]("))
                                || *row == format!("| {value} |"),
                            "{row}"
                        );
                        let category = format!(
                            "Category:{} ({})",
                            crate::english::upper_first(value),
                            table.plural
                        );
                        if let Some(c) = pages.iter().find(|p| p.title == category) {
                            assert!(row.contains(&format!("]({})", c.url)), "{row}");
                        }
                    }
                }
            }
        }
    }
}
