//! News items, composed from the plans in `templates/pages/news.toml`.
//!
//! A plan says which rows get an item, how it is dated and what it is about, which cells its
//! slots state (`plan.rs`) and which phrase banks its paragraphs come from; the file's header
//! documents every field. This module reads the plans once, checking every table, column and bank
//! they name, and follows them over a world's rows. A new kind of news is a few lines of TOML.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};

use crate::draft::{Ctx, Draft};
use crate::english::upper_first;
use crate::phrases::{fill, fills, say};
use crate::plan::{self, Item, Join, Path, RawJoin, RawSlot, Rows, Slot};
use crate::templates;

/// Below this many pages (counting the rows of the kind at hand, half of them), a kind with a
/// `share` gives every row an item: a small world would otherwise be a thin web.
const FEW_PAGES: usize = 330;

/// The name the plan file gives a paragraph that states the row's first theme number.
const MEASURE: &str = "measure";

/// One kind of news item, as `news.toml` writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKind {
    row: String,
    section: String,
    #[serde(default)]
    share: Option<f64>,
    #[serde(default)]
    notable: bool,
    date: String,
    #[serde(default)]
    founding: bool,
    #[serde(default)]
    after: Option<String>,
    about: String,
    #[serde(default)]
    join: Option<RawJoin>,
    titles: Vec<String>,
    slots: Vec<RawSlot>,
    paragraphs: Vec<String>,
}

#[derive(Deserialize)]
struct RawPlans {
    kind: Vec<RawKind>,
}

/// A checked plan of one kind of news item.
#[derive(Debug)]
pub(crate) struct Kind {
    row: TableRole,
    /// The news site's section, a word of its urls.
    section: String,
    share: Option<f64>,
    /// Only the rows about notable people ([`Rows::notable`]): the news reports on them alone.
    notable: bool,
    date: ColumnRole,
    founding: bool,
    after: Option<Path>,
    about: Path,
    join: Option<Join>,
    titles: Vec<String>,
    slots: Vec<Slot>,
    paragraphs: Vec<String>,
}

fn kind(raw: &RawKind) -> Result<Kind, String> {
    let join = raw.join.as_ref().map(plan::join).transpose()?;
    for bank in raw.paragraphs.iter().filter(|p| *p != MEASURE) {
        if !templates::banks().contains_key(bank) {
            return Err(format!("no phrase bank `{bank}`"));
        }
    }
    if raw.titles.is_empty() {
        return Err("a kind needs a title".into());
    }
    let path = |text: &str| plan::path(text, join.as_ref());
    if raw.section.is_empty() || !raw.section.chars().all(|c| c.is_ascii_lowercase()) {
        return Err(format!(
            "section `{}` is not a lower-case word",
            raw.section
        ));
    }
    Ok(Kind {
        row: plan::table_role(&raw.row)?,
        section: raw.section.clone(),
        share: raw.share,
        notable: raw.notable,
        date: plan::column_role(&raw.date)?,
        founding: raw.founding,
        after: raw.after.as_deref().map(path).transpose()?,
        about: path(&raw.about)?,
        slots: plan::slots(&raw.slots, join.as_ref())?,
        join,
        titles: raw.titles.clone(),
        paragraphs: raw.paragraphs.clone(),
    })
}

/// The news plans, read and checked once.
pub(crate) fn plans() -> &'static [Kind] {
    static PLANS: OnceLock<Vec<Kind>> = OnceLock::new();
    PLANS.get_or_init(|| {
        let raw: RawPlans = toml::from_str(templates::NEWS).expect("news.toml is valid TOML");
        plan::checked("news.toml", "kind", &raw.kind, kind)
    })
}

#[derive(Serialize)]
struct NewsPage<'a> {
    title: &'a str,
    site: &'a str,
    date: &'a str,
    paragraphs: Vec<String>,
}

/// Finishes a news page: the draft's title under the news site's dateline, and the paragraphs.
pub(crate) fn page(ctx: &Ctx, d: Draft, paragraphs: Vec<String>) -> Page {
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

/// Whether row `id` of `role` is about a notable person (its `person` cell).
fn about_notable(rows: &Rows, role: TableRole, id: i64) -> bool {
    match rows.cell(role, id, ColumnRole::Person) {
        Some((_, Value::Int(person))) => rows.notable(*person),
        _ => false,
    }
}

/// Renders every kind of news item, in plan order; `pages` holds the pages rendered so far.
pub(crate) fn render(ctx: &mut Ctx, rows: &Rows, pages: &mut Vec<Page>) {
    // The date of each organisation's founding news, by id: no item mentions one before it.
    let mut founded: BTreeMap<i64, String> = BTreeMap::new();
    for kind in plans() {
        let ids = rows.ids(kind.row);
        let share = match kind.share {
            Some(share) if pages.len() + ids.len() / 2 >= FEW_PAGES => share,
            _ => 1.0,
        };
        for id in ids {
            if kind.notable && !about_notable(rows, kind.row, id) {
                continue;
            }
            if kind.share.is_some() && !ctx.rng.random_bool(share) {
                continue;
            }
            let item = Item::new(rows, kind.row, id, kind.join.as_ref());
            let page = news_item(ctx, kind, &item, &founded);
            if kind.founding {
                founded.insert(id, page.published.clone().expect("news is dated"));
            }
            pages.push(page);
        }
    }
}

/// One item of `kind` about `item`'s row.
fn news_item(ctx: &mut Ctx, kind: &Kind, item: &Item, founded: &BTreeMap<i64, String>) -> Page {
    let year = match item.rows.cell(kind.row, item.row.1, kind.date) {
        Some((_, Value::Int(year))) => *year,
        other => panic!("a {} row has no year: {other:?}", kind.row.as_str()),
    };
    // The slots first, which draw nothing: the draft's subject decides how references are
    // recorded, and the title and url come from the slots.
    let about = item.entity(&kind.about).expect("an item has a subject");
    let mut d = Draft::new(String::new(), "", PageKind::News, None).about(about.0, about.1);
    let values = item.fill(&mut d, ctx, &kind.slots);
    let values = values.pairs();
    d.title = title(&kind.titles, &values);
    let not_before = kind
        .after
        .as_ref()
        .and_then(|p| item.entity(p))
        .filter(|(role, _)| *role == TableRole::Organisation)
        .and_then(|(_, org)| founded.get(&org));
    let date = match not_before {
        Some(floor) if floor.starts_with(&format!("{year:04}-")) => ctx.date_from(floor),
        _ => ctx.date_in(year),
    };
    d.url = ctx.sites.news_url(&kind.section, &d.title);
    d.published = Some(date);
    let mut paragraphs = Vec::new();
    for bank in &kind.paragraphs {
        if bank == MEASURE {
            paragraphs.extend(item.measure(&mut d, ctx));
        } else if fills(bank, &values, &[]) {
            paragraphs.push(say(ctx.rng, bank, &values));
        }
    }
    page(ctx, d, paragraphs)
}

/// The first title phrasing whose filled text has no word twice in a row, else the last.
fn title(titles: &[String], values: &[(&str, &str)]) -> String {
    let filled: Vec<String> = titles
        .iter()
        .map(|t| upper_first(&fill(t, values)))
        .collect();
    let repeats = |text: &str| {
        let words: Vec<String> = text.split(' ').map(str::to_lowercase).collect();
        words.windows(2).any(|w| w[0] == w[1])
    };
    let at = filled
        .iter()
        .position(|t| !repeats(t))
        .unwrap_or(filled.len() - 1);
    filled[at].clone()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::plan::Source;

    /// Every placeholder of a kind's titles and paragraphs is one of its slots, so no item shows
    /// an unfilled brace; every kind states its own date cell.
    #[test]
    fn every_plan_fills_its_titles_and_paragraphs() {
        let plans = plans();
        assert!(plans.len() >= 6, "{} kinds", plans.len());
        for kind in plans {
            let names: BTreeSet<&str> = kind
                .slots
                .iter()
                .filter_map(|s| s.name.as_deref())
                .collect();
            let values: Vec<(&str, &str)> = names.iter().map(|n| (*n, "x")).collect();
            for text in kind.titles.iter().map(String::as_str).chain(
                kind.paragraphs
                    .iter()
                    .filter(|p| *p != MEASURE)
                    .flat_map(|b| templates::banks()[b].phrases.iter().map(String::as_str)),
            ) {
                assert!(!fill(text, &values).contains('{'), "{kind:?}: {text}");
            }
            let date = Path {
                from_join: false,
                steps: vec![kind.date],
            };
            assert!(
                kind.slots
                    .iter()
                    .any(|s| matches!(&s.source, Source::State(p) if *p == date)),
                "{} items do not state their date",
                kind.row.as_str()
            );
        }
    }

    fn check_title(titles: &[&str], values: &[(&str, &str)], expect: &str) {
        let titles: Vec<String> = titles.iter().map(|t| t.to_string()).collect();
        assert_eq!(title(&titles, values), expect);
    }

    #[test]
    fn titles_never_say_a_word_twice_in_a_row() {
        let titles = ["New {kind} {name} founded", "{name} founded"];
        check_title(
            &titles,
            &[("kind", "trading house"), ("name", "House of Lai")],
            "House of Lai founded",
        );
        check_title(
            &titles,
            &[("kind", "trading house"), ("name", "Lai Company")],
            "New trading house Lai Company founded",
        );
        check_title(
            &["{org} joins a {kind}"],
            &[("org", "Lai"), ("kind", "alliance")],
            "Lai joins an alliance",
        );
    }
}
