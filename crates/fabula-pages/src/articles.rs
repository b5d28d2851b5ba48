//! Encyclopedia articles composed from the plans in `templates/pages/articles.toml`.
//!
//! A plan gives an article's slots (`plan.rs`), the sentences of its lead (fixed or from phrase
//! banks, composed by `prose.rs`), its infobox rows and which of them may be left to the prose,
//! and its sections of related rows (a table, or half the time a sentence); the file's header
//! documents every field. The parts every article shares (asides, background, listings, the
//! page template) are `entity.rs`'s, which also composes the kinds a plan cannot say.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rand::RngExt;
use serde::Deserialize;

use fabula_file::{ColumnRole, Page, TableRole, Value};

use crate::draft::{Ctx, Draft};
use crate::english::measure_sentence;
use crate::entity::{
    ListSentence, PROSE_ONLY_SHARE, article, as_prose, asides, entity_draft, label, listing,
};
use crate::phrases::{fill, say};
use crate::plan::{self, Item, RawSlot, Rows, Slot, Values};
use crate::prose::{Alias, Prose};
use crate::templates;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArticle {
    row: String,
    alias: String,
    asides: String,
    #[serde(default = "yes")]
    compose: bool,
    slots: Vec<RawSlot>,
    lead: Vec<RawSentence>,
    #[serde(default)]
    extras: bool,
    #[serde(default)]
    infobox: Vec<RawInfobox>,
    #[serde(default)]
    sections: Vec<RawSection>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSentence {
    #[serde(default)]
    fixed: Option<String>,
    #[serde(default)]
    bank: Option<String>,
    #[serde(default)]
    set: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInfobox {
    label: String,
    value: String,
    #[serde(default)]
    capital: bool,
    #[serde(default)]
    prose_only: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSection {
    heading: String,
    rows: String,
    by: String,
    #[serde(default)]
    sort: Option<String>,
    cells: Vec<String>,
    columns: Vec<String>,
    #[serde(default)]
    prose: Option<RawProse>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProse {
    bank: String,
    #[serde(default)]
    with: Vec<String>,
    #[serde(default)]
    always: bool,
}

#[derive(Deserialize)]
struct RawPlans {
    article: Vec<RawArticle>,
}

/// A checked article plan.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) row: TableRole,
    by_name: bool,
    asides: String,
    compose: bool,
    slots: Vec<Slot>,
    lead: Vec<Sentence>,
    extras: bool,
    infobox: Vec<InfoboxRow>,
    sections: Vec<Listing>,
}

#[derive(Debug)]
enum Sentence {
    Fixed(String),
    /// A bank, with the slot filling each placeholder `set` names.
    Bank(String, Vec<(String, String)>),
}

#[derive(Debug)]
struct InfoboxRow {
    label: String,
    value: String,
    capital: bool,
    prose_only: bool,
}

/// A section of related rows.
#[derive(Debug)]
struct Listing {
    heading: String,
    rows: TableRole,
    by: ColumnRole,
    sort: Option<ColumnRole>,
    cells: Vec<RowCell>,
    columns: Vec<String>,
    /// The sentence the section may be instead.
    prose: Option<ListProse>,
}

#[derive(Debug)]
struct ListProse {
    bank: String,
    /// The slots its phrasings fill besides the subject and `{list}`.
    with: Vec<String>,
    /// Always a sentence, never a table.
    always: bool,
}

#[derive(Debug)]
enum RowCell {
    /// The row's reference to the page's subject: stated, not shown.
    Subject,
    State(ColumnRole),
    Link,
    End,
    /// A year, linked to the census report of that year.
    Report(ColumnRole),
}

fn bank(key: &str) -> Result<String, String> {
    match templates::banks().contains_key(key) {
        true => Ok(key.to_string()),
        false => Err(format!("no phrase bank `{key}`")),
    }
}

fn sentence(raw: &RawSentence) -> Result<Sentence, String> {
    match (&raw.fixed, &raw.bank) {
        (Some(text), None) if raw.set.is_empty() => Ok(Sentence::Fixed(text.clone())),
        (None, Some(key)) => Ok(Sentence::Bank(
            bank(key)?,
            raw.set
                .iter()
                .map(|(p, s)| (p.clone(), s.clone()))
                .collect(),
        )),
        _ => Err("a lead sentence is `fixed` or a `bank` (with `set`)".into()),
    }
}

fn row_cell(text: &str) -> Result<RowCell, String> {
    match (text, text.split_once(':')) {
        ("subject", _) => Ok(RowCell::Subject),
        ("link", _) => Ok(RowCell::Link),
        ("end", _) => Ok(RowCell::End),
        (_, Some(("state", column))) => Ok(RowCell::State(plan::column_role(column)?)),
        (_, Some(("report", column))) => Ok(RowCell::Report(plan::column_role(column)?)),
        _ => Err(format!("`{text}` is no row cell")),
    }
}

fn listing_plan(raw: &RawSection) -> Result<Listing, String> {
    Ok(Listing {
        heading: raw.heading.clone(),
        rows: plan::table_role(&raw.rows)?,
        by: plan::column_role(&raw.by)?,
        sort: raw.sort.as_deref().map(plan::column_role).transpose()?,
        cells: raw
            .cells
            .iter()
            .map(|c| row_cell(c))
            .collect::<Result<_, _>>()?,
        columns: raw.columns.clone(),
        prose: match &raw.prose {
            Some(p) => Some(ListProse {
                bank: bank(&p.bank)?,
                with: p.with.clone(),
                always: p.always,
            }),
            None => None,
        },
    })
}

fn article_plan(raw: &RawArticle) -> Result<Plan, String> {
    let by_name = match raw.alias.as_str() {
        "kind" => false,
        "name" => true,
        other => return Err(format!("alias `{other}` is neither kind nor name")),
    };
    if raw.extras && !raw.compose {
        return Err(
            "theme numbers are sentences of composed prose: `extras` needs `compose`".into(),
        );
    }
    Ok(Plan {
        row: plan::table_role(&raw.row)?,
        by_name,
        asides: raw.asides.clone(),
        compose: raw.compose,
        slots: plan::slots(&raw.slots, None)?,
        lead: raw.lead.iter().map(sentence).collect::<Result<_, _>>()?,
        extras: raw.extras,
        infobox: raw
            .infobox
            .iter()
            .map(|r| InfoboxRow {
                label: r.label.clone(),
                value: r.value.clone(),
                capital: r.capital,
                prose_only: r.prose_only,
            })
            .collect(),
        sections: raw
            .sections
            .iter()
            .map(listing_plan)
            .collect::<Result<_, _>>()?,
    })
}

/// The article plans, read and checked once.
pub(crate) fn plans() -> &'static [Plan] {
    static PLANS: OnceLock<Vec<Plan>> = OnceLock::new();
    PLANS.get_or_init(|| {
        let raw: RawPlans =
            toml::from_str(templates::ARTICLES).expect("articles.toml is valid TOML");
        raw.article
            .iter()
            .enumerate()
            .map(|(i, a)| {
                article_plan(a).unwrap_or_else(|e| panic!("articles.toml article {}: {e}", i + 1))
            })
            .collect()
    })
}

/// Renders the article of every row of `role`, which has a plan.
pub(crate) fn render(ctx: &mut Ctx, rows: &Rows, role: TableRole, pages: &mut Vec<Page>) {
    let plan = plans()
        .iter()
        .find(|p| p.row == role)
        .unwrap_or_else(|| panic!("no article plan for {}", role.as_str()));
    for id in rows.ids(role) {
        pages.push(article_page(ctx, rows, plan, id));
    }
}

/// The values a bank's placeholders take: those `set` names, then every slot by its own name.
fn bound<'v>(set: &'v [(String, String)], values: &'v Values) -> Vec<(&'v str, &'v str)> {
    let mut out: Vec<(&str, &str)> = set
        .iter()
        .filter_map(|(p, slot)| Some((p.as_str(), values.get(slot)?)))
        .collect();
    out.extend(values.pairs());
    out
}

/// The article about row `id` of the plan's table.
fn article_page(ctx: &mut Ctx, rows: &Rows, plan: &Plan, id: i64) -> Page {
    let role = plan.row;
    let title = ctx.name(role, id).to_string();
    let mut d = entity_draft(ctx, role, id, &title);
    let name = d.own_name(ctx, role, id);
    let item = Item::new(rows, role, id, None);
    let mut values = item.fill(&mut d, ctx, &plan.slots);
    values.push("name", name.clone());
    let noun = ctx.layout.table(role).singular.clone();
    let alias = || match plan.by_name {
        true => Alias::Name,
        false => Alias::thing(&noun),
    };
    let (facts, measures) = lead(ctx, &mut d, plan, &item, &values, alias());
    let (aside, background) = asides(ctx, &name, alias(), &plan.asides, &noun);
    let mut infobox = Vec::new();
    for row in &plan.infobox {
        let value = fill(&row.value, &values.pairs());
        let value = if row.capital { label(&value) } else { value };
        if row.prose_only && ctx.rng.random_bool(PROSE_ONLY_SHARE) {
            continue;
        }
        infobox.push((label(&fill(&row.label, &values.pairs())), value));
    }
    infobox.extend(measures);
    // Every section's rows and form (a table or a sentence) first, then the sentences.
    let mut drafted = Vec::new();
    for listed in &plan.sections {
        let table = section_rows(ctx, &mut d, rows, listed, (role, id));
        let as_sentence = listed
            .prose
            .as_ref()
            .map(|p| p.always || as_prose(ctx))
            .unwrap_or(false);
        drafted.push((listed, table, as_sentence));
    }
    let mut sections = Vec::new();
    for (listed, table, as_sentence) in drafted {
        let with: Vec<(&str, &str)> = listed
            .prose
            .iter()
            .flat_map(|p| &p.with)
            .filter_map(|s| Some((s.as_str(), values.get(s)?)))
            .collect();
        let sentence = match &listed.prose {
            Some(p) if as_sentence => Some(ListSentence {
                prose: Prose::continued(&name, alias()),
                key: p.bank.as_str(),
                values: &with,
            }),
            _ => None,
        };
        let heading = label(&fill(&listed.heading, &values.pairs()));
        let columns = listed
            .columns
            .iter()
            .map(|c| label(&fill(c, &values.pairs())))
            .collect();
        sections.push(listing(ctx, heading, columns, table, sentence));
    }
    article(
        d,
        vec![facts, aside],
        infobox,
        sections,
        Some(background),
        Vec::new(),
    )
}

/// The lead's facts, as one paragraph, and the infobox rows of the row's theme numbers.
fn lead(
    ctx: &mut Ctx,
    d: &mut Draft,
    plan: &Plan,
    item: &Item,
    values: &Values,
    alias: Alias,
) -> (String, Vec<(String, String)>) {
    let name = values.get("name").unwrap_or_default().to_string();
    if !plan.compose {
        let said: Vec<String> = plan
            .lead
            .iter()
            .map(|s| match s {
                Sentence::Fixed(text) => fill(text, &values.pairs()),
                Sentence::Bank(key, set) => say(ctx.rng, key, &bound(set, values)),
            })
            .collect();
        return (said.join(" "), Vec::new());
    }
    let mut prose = Prose::new(&name, alias);
    for s in &plan.lead {
        match s {
            Sentence::Fixed(text) => prose.fixed(fill(text, &values.pairs())),
            Sentence::Bank(key, set) => prose.say(ctx.rng, key, &bound(set, values)),
        }
    }
    let mut measures = Vec::new();
    if plan.extras {
        let (role, id) = item.row;
        for (i, (column, n)) in item.rows.extras(role, id).into_iter().enumerate() {
            let shown = d.extra(ctx, role, id, i, n);
            prose.plain(measure_sentence(&column.label, &shown));
            measures.push((label(&column.label), shown));
        }
    }
    (prose.finish(ctx.rng), measures)
}

/// The rows of a section: each related row's shown cells.
fn section_rows(
    ctx: &Ctx,
    d: &mut Draft,
    rows: &Rows,
    listed: &Listing,
    subject: (TableRole, i64),
) -> Vec<Vec<String>> {
    let refers = |rid: i64| {
        rows.cell(listed.rows, rid, listed.by)
            .is_some_and(|(_, v)| *v == Value::Int(subject.1))
    };
    let mut ids: Vec<i64> = rows
        .ids(listed.rows)
        .into_iter()
        .filter(|&r| refers(r))
        .collect();
    if let Some(sort) = listed.sort {
        ids.sort_by_key(|&r| match rows.cell(listed.rows, r, sort) {
            Some((_, Value::Int(n))) => *n,
            _ => i64::MAX,
        });
    }
    ids.into_iter()
        .map(|rid| {
            let item = Item::new(rows, listed.rows, rid, None);
            listed
                .cells
                .iter()
                .filter_map(|cell| match cell {
                    RowCell::Subject => {
                        d.reference(ctx, listed.rows, rid, listed.by, subject.0, subject.1);
                        None
                    }
                    RowCell::Link => Some(ctx.link(listed.rows, rid)),
                    RowCell::Report(column) => {
                        let year = match rows.cell(listed.rows, rid, *column) {
                            Some((_, Value::Int(y))) => *y,
                            _ => return None,
                        };
                        let shown = d.year(ctx, listed.rows, rid, *column, year);
                        Some(format!("[{shown}]({})", ctx.sites.census_url(year)))
                    }
                    RowCell::State(column) => item.state_column(d, ctx, *column),
                    RowCell::End => Some(match rows.cell(listed.rows, rid, ColumnRole::EndYear) {
                        Some((_, Value::Int(y))) => {
                            d.year(ctx, listed.rows, rid, ColumnRole::EndYear, *y)
                        }
                        _ => "present".to_string(),
                    }),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every plan reads, each bank's placeholders are slots (or the subject and a listing's
    /// `{list}`), and no two plans share a table.
    #[test]
    fn every_article_plan_fills_its_sentences() {
        let plans = plans();
        let mut tables: Vec<&str> = plans.iter().map(|p| p.row.as_str()).collect();
        tables.sort();
        tables.dedup();
        assert_eq!(tables.len(), plans.len());
        for plan in plans {
            let mut names: Vec<(&str, &str)> = plan
                .slots
                .iter()
                .filter_map(|s| s.name.as_deref())
                .map(|n| (n, "x"))
                .collect();
            names.extend([("name", "x"), ("subject", "x"), ("list", "x")]);
            for s in &plan.lead {
                let (texts, set): (Vec<&str>, &[(String, String)]) = match s {
                    Sentence::Fixed(text) => (vec![text.as_str()], &[]),
                    Sentence::Bank(key, set) => (
                        templates::banks()[key]
                            .phrases
                            .iter()
                            .map(String::as_str)
                            .collect(),
                        set,
                    ),
                };
                let mut all: Vec<(&str, &str)> =
                    set.iter().map(|(p, _)| (p.as_str(), "x")).collect();
                all.extend(names.iter().copied());
                for text in texts {
                    assert!(
                        !fill(text, &all).contains('{'),
                        "{}: {text}",
                        plan.row.as_str()
                    );
                }
            }
        }
    }
}
