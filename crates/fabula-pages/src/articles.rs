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

use fabula_file::{ColumnRole, Page, PageKind, TableRole, Value};

use crate::draft::{Ctx, Draft};
use crate::english::measure_sentence;
use crate::entity::{
    ListSentence, PROSE_ONLY_SHARE, Section, article, as_prose, asides, entity_draft, label,
    listing, mention,
};
use crate::phrases::{fill, fills, say};
use crate::plan::{self, Item, OwnPage, RawSlot, Rows, Slot, Source, Values};
use crate::prose::{Alias, Prose};
use crate::templates;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArticle {
    row: String,
    #[serde(default)]
    page: Option<String>,
    alias: String,
    #[serde(default)]
    asides: Option<String>,
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
    #[serde(default)]
    see_also: Vec<String>,
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
    /// One part's fields, for a section of one table's rows.
    #[serde(default)]
    rows: Option<String>,
    #[serde(default)]
    by: Option<String>,
    #[serde(default)]
    sort: Option<String>,
    #[serde(default)]
    notable: bool,
    #[serde(default)]
    cells: Vec<String>,
    #[serde(default)]
    parts: Vec<RawPart>,
    columns: Vec<String>,
    #[serde(default)]
    prose: Option<RawProse>,
    #[serde(default)]
    story: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPart {
    rows: String,
    by: String,
    #[serde(default)]
    sort: Option<String>,
    #[serde(default)]
    notable: bool,
    cells: Vec<String>,
    #[serde(default)]
    tell: Option<RawTell>,
    #[serde(default)]
    tell_open: Option<RawTell>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTell {
    bank: String,
    cells: BTreeMap<String, usize>,
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
    /// The encyclopedia article, or a page of the row's own site.
    page: Option<OwnPage>,
    alias: AliasKind,
    /// The kind of the asides' banks; none for a page without asides or background.
    asides: Option<String>,
    compose: bool,
    slots: Vec<Slot>,
    lead: Vec<Sentence>,
    extras: bool,
    infobox: Vec<InfoboxRow>,
    sections: Vec<Listing>,
    see_also: Vec<String>,
}

/// How the prose refers back to the subject (see [`aliases`]).
#[derive(Debug, Clone, Copy)]
enum AliasKind {
    /// "it", "the colony".
    Kind,
    /// By name only.
    Name,
    /// A surname, then "the" and the occupation slot's value ("the miner").
    Person,
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
    parts: Vec<Part>,
    columns: Vec<String>,
    /// Tell the rows as a story too, in the order of this shown cell.
    story: Option<usize>,
    /// The sentence the section may be instead.
    prose: Option<ListProse>,
}

/// The rows of one table that refer to the subject, and how each is told in a story.
#[derive(Debug)]
struct Part {
    rows: TableRole,
    by: ColumnRole,
    sort: Option<ColumnRole>,
    /// Only the rows about notable people ([`Rows::notable`]): the list is partial.
    notable: bool,
    cells: Vec<RowCell>,
    tell: Option<Tell>,
    /// How a row is told while it holds (its end year is empty), when not as `tell`.
    tell_open: Option<Tell>,
}

/// A bank whose placeholders take a row's shown cells, by position.
#[derive(Debug)]
struct Tell {
    bank: String,
    cells: Vec<(String, usize)>,
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
    /// Fixed text that states nothing.
    Plain(String),
    /// A cell shown (and stated) only when the section is a table, not a sentence.
    TableOnly(Box<RowCell>),
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
    if let Some(rest) = text.strip_prefix("table:") {
        return Ok(RowCell::TableOnly(Box::new(row_cell(rest)?)));
    }
    match (text, text.split_once(':')) {
        ("subject", _) => Ok(RowCell::Subject),
        ("link", _) => Ok(RowCell::Link),
        ("end", _) => Ok(RowCell::End),
        (_, Some(("state", column))) => Ok(RowCell::State(plan::column_role(column)?)),
        (_, Some(("report", column))) => Ok(RowCell::Report(plan::column_role(column)?)),
        (_, Some(("plain", text))) => Ok(RowCell::Plain(text.to_string())),
        _ => Err(format!("`{text}` is no row cell")),
    }
}

fn tell(raw: &RawTell) -> Result<Tell, String> {
    Ok(Tell {
        bank: bank(&raw.bank)?,
        cells: raw.cells.iter().map(|(p, i)| (p.clone(), *i)).collect(),
    })
}

fn part(raw: &RawPart) -> Result<Part, String> {
    Ok(Part {
        rows: plan::table_role(&raw.rows)?,
        by: plan::column_role(&raw.by)?,
        sort: raw.sort.as_deref().map(plan::column_role).transpose()?,
        notable: raw.notable,
        cells: raw
            .cells
            .iter()
            .map(|c| row_cell(c))
            .collect::<Result<_, _>>()?,
        tell: raw.tell.as_ref().map(tell).transpose()?,
        tell_open: raw.tell_open.as_ref().map(tell).transpose()?,
    })
}

fn listing_plan(raw: &RawSection) -> Result<Listing, String> {
    let own = match (&raw.rows, &raw.by) {
        (Some(rows), Some(by)) => Some(RawPart {
            rows: rows.clone(),
            by: by.clone(),
            sort: raw.sort.clone(),
            notable: raw.notable,
            cells: raw.cells.clone(),
            tell: None,
            tell_open: None,
        }),
        (None, None) => None,
        _ => {
            return Err(format!(
                "section `{}` needs both `rows` and `by`",
                raw.heading
            ));
        }
    };
    let parts: Vec<Part> = own
        .iter()
        .chain(&raw.parts)
        .map(part)
        .collect::<Result<_, _>>()?;
    if parts.is_empty() {
        return Err(format!("section `{}` lists no rows", raw.heading));
    }
    Ok(Listing {
        heading: raw.heading.clone(),
        parts,
        columns: raw.columns.clone(),
        story: raw.story,
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
    let alias = match raw.alias.as_str() {
        "kind" => AliasKind::Kind,
        "name" => AliasKind::Name,
        "person" => AliasKind::Person,
        other => return Err(format!("alias `{other}` is not kind, name or person")),
    };
    if raw.extras && !raw.compose {
        return Err(
            "theme numbers are sentences of composed prose: `extras` needs `compose`".into(),
        );
    }
    Ok(Plan {
        row: plan::table_role(&raw.row)?,
        page: raw.page.as_deref().map(OwnPage::parse).transpose()?,
        alias,
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
        see_also: raw.see_also.clone(),
    })
}

/// The article plans, read and checked once.
pub(crate) fn plans() -> &'static [Plan] {
    static PLANS: OnceLock<Vec<Plan>> = OnceLock::new();
    PLANS.get_or_init(|| {
        let raw: RawPlans =
            toml::from_str(templates::ARTICLES).expect("articles.toml is valid TOML");
        plan::checked("articles.toml", "article", &raw.article, article_plan)
    })
}

/// Renders every planned page: table after table in the order of their first plan, and per row
/// one page per plan of its table, in plan order (an organisation's article, then its own site's
/// pages).
pub(crate) fn render(ctx: &mut Ctx, rows: &Rows, pages: &mut Vec<Page>) {
    let mut tables: Vec<TableRole> = Vec::new();
    for plan in plans() {
        if !tables.contains(&plan.row) {
            tables.push(plan.row);
        }
    }
    for role in tables {
        render_table(ctx, rows, role, pages);
    }
}

/// Renders the pages of every row of `role`.
fn render_table(ctx: &mut Ctx, rows: &Rows, role: TableRole, pages: &mut Vec<Page>) {
    let planned: Vec<&Plan> = plans().iter().filter(|p| p.row == role).collect();
    for id in rows.ids(role) {
        for plan in &planned {
            pages.push(article_page(ctx, rows, plan, id));
        }
    }
}

/// A page's draft: the row's encyclopedia article, or a page of its own site.
fn page_draft(ctx: &Ctx, plan: &Plan, id: i64) -> Draft {
    let (role, name) = (plan.row, ctx.name(plan.row, id));
    let (url, title, kind) = match plan.page {
        None => return entity_draft(ctx, role, id, name),
        Some(OwnPage::About) => (
            OwnPage::About.url(ctx, id),
            format!("About {name}"),
            PageKind::Entity,
        ),
        Some(OwnPage::People) => (
            OwnPage::People.url(ctx, id),
            format!("People of {name}"),
            PageKind::List,
        ),
    };
    Draft::new(url, title, kind, None).about(role, id)
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

/// How an article's prose refers back to its subject, and the noun of its asides.
fn aliases(ctx: &Ctx, plan: &Plan, name: &str, values: &Values) -> (Alias, Alias, String) {
    let noun = ctx.layout.table(plan.row).singular.clone();
    match plan.alias {
        AliasKind::Kind => (Alias::thing(&noun), Alias::thing(&noun), noun),
        AliasKind::Name => (Alias::Name, Alias::Name, noun),
        AliasKind::Person => {
            let occupation = values.get("occupation").unwrap_or_default().to_string();
            let later = Alias::person(name, Some(&occupation));
            (Alias::person(name, None), later, occupation)
        }
    }
}

/// The article about row `id` of the plan's table.
fn article_page(ctx: &mut Ctx, rows: &Rows, plan: &Plan, id: i64) -> Page {
    let role = plan.row;
    let mut d = page_draft(ctx, plan, id);
    let name = d.own_name(ctx, role, id);
    let item = Item::new(rows, role, id, None);
    let mut values = item.fill(&mut d, ctx, &plan.slots);
    if plan.page.is_none() {
        unlink_some(ctx, rows, plan, &mut values);
    }
    values.push("name", name.clone());
    let (first, alias, noun) = aliases(ctx, plan, &name, &values);
    let (facts, measures) = lead(ctx, &mut d, plan, &item, &values, first);
    let (aside, background) = match &plan.asides {
        Some(kind) => {
            let (aside, background) = asides(ctx, &name, alias.clone(), kind, &noun);
            (Some(aside), Some(background))
        }
        None => (None, None),
    };
    let mut infobox = infobox(ctx, plan, &values);
    infobox.extend(measures);
    let subject = Subject {
        row: (role, id),
        name: &name,
        alias: &alias,
        values: &values,
    };
    let sections = sections(ctx, &mut d, rows, plan, &subject);
    let see_also = plan
        .see_also
        .iter()
        .map(|link| fill(link, &values.pairs()))
        .collect();
    let lead = [Some(facts), aside].into_iter().flatten().collect();
    article(d, lead, infobox, sections, background, see_also)
}

/// Writes a share of an article's mentions of other entities as plain names: each slot that
/// states a reference of the row to an entity whose own article links back (lists the row in a
/// section), so the relation stays one link away from the other side while a reader here
/// searches the name. The reference is stated all the same: its name is the fact's text.
fn unlink_some(ctx: &mut Ctx, rows: &Rows, plan: &Plan, values: &mut Values) {
    for slot in &plan.slots {
        let (Some(name), Source::State(path)) = (&slot.name, &slot.source) else {
            continue;
        };
        let (&[column], false) = (path.steps.as_slice(), path.from_join) else {
            continue;
        };
        let linked = rows
            .target(plan.row, column)
            .is_some_and(|target| linked_back(plan.row, column, target));
        if let Some(value) = values.get(name).filter(|_| linked) {
            let value = mention(ctx, value);
            values.replace(name, value);
        }
    }
}

/// Whether the article of a `target` row links every row of `role` whose `column` refers to
/// it: a section of its plan lists them all (not only the notable ones) by a `link` cell.
fn linked_back(role: TableRole, column: ColumnRole, target: TableRole) -> bool {
    plans()
        .iter()
        .filter(|p| p.row == target && p.page.is_none())
        .flat_map(|p| &p.sections)
        .flat_map(|s| &s.parts)
        .any(|part| {
            (part.rows, part.by) == (role, column)
                && !part.notable
                && part.cells.iter().any(|c| matches!(c, RowCell::Link))
        })
}

/// The infobox's rows: those whose value has all its slots, less the `prose_only` rows the draw
/// leaves to the lead.
fn infobox(ctx: &mut Ctx, plan: &Plan, values: &Values) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for row in &plan.infobox {
        let value = fill(&row.value, &values.pairs());
        if value.contains('{') {
            continue; // a slot without a value: the row has nothing to show
        }
        let value = if row.capital { label(&value) } else { value };
        if row.prose_only && ctx.rng.random_bool(PROSE_ONLY_SHARE) {
            continue;
        }
        out.push((label(&fill(&row.label, &values.pairs())), value));
    }
    out
}

/// What a page's sections say about its subject.
struct Subject<'s> {
    row: (TableRole, i64),
    name: &'s str,
    /// How sentences after the lead refer to it.
    alias: &'s Alias,
    values: &'s Values,
}

/// The page's sections: every section's form (a table or a sentence) and rows first, then the
/// sentences, in plan order.
fn sections(
    ctx: &mut Ctx,
    d: &mut Draft,
    rows: &Rows,
    plan: &Plan,
    subject: &Subject,
) -> Vec<Section> {
    let mut drafted = Vec::new();
    for listed in &plan.sections {
        let as_sentence = listed
            .prose
            .as_ref()
            .is_some_and(|p| p.always || as_prose(ctx));
        let table = section_rows(ctx, d, rows, listed, subject.row, as_sentence);
        drafted.push((listed, table, as_sentence));
    }
    drafted
        .into_iter()
        .map(|(listed, table, as_sentence)| section(ctx, listed, table, as_sentence, subject))
        .collect()
}

/// One section: a table (with its story, for a section that tells one) or a sentence.
fn section(
    ctx: &mut Ctx,
    listed: &Listing,
    table: Vec<(Vec<String>, Option<&Tell>)>,
    as_sentence: bool,
    subject: &Subject,
) -> Section {
    let values = subject.values.pairs();
    let heading = label(&fill(&listed.heading, &values));
    let columns = listed
        .columns
        .iter()
        .map(|c| label(&fill(c, &values)))
        .collect();
    let continued = || Prose::continued(subject.name, subject.alias.clone());
    if let Some(at) = listed.story {
        let text = story(ctx, &table, at, continued());
        let rows = table.into_iter().map(|(row, _)| row).collect();
        return Section {
            text,
            ..Section::table(heading, columns, rows)
        };
    }
    let with: Vec<(&str, &str)> = listed
        .prose
        .iter()
        .flat_map(|p| &p.with)
        .filter_map(|s| Some((s.as_str(), subject.values.get(s)?)))
        .collect();
    let sentence = match &listed.prose {
        Some(p) if as_sentence => Some(ListSentence {
            prose: continued(),
            key: p.bank.as_str(),
            values: &with,
        }),
        _ => None,
    };
    let table = table.into_iter().map(|(row, _)| row).collect();
    listing(ctx, heading, columns, table, sentence)
}

/// Tells a section's rows in the order of their shown cell `at` (a year), each as one sentence
/// of its part's bank, the sentences in that order.
fn story(
    ctx: &mut Ctx,
    table: &[(Vec<String>, Option<&Tell>)],
    at: usize,
    mut prose: Prose,
) -> String {
    let mut by_year: Vec<&(Vec<String>, Option<&Tell>)> = table.iter().collect();
    by_year.sort_by_key(|(row, _)| row.get(at).cloned());
    for (row, tell) in by_year {
        let Some(tell) = tell else { continue };
        // The table beside the story links every row; the story names some in plain text.
        let told: Vec<(&str, String)> = tell
            .cells
            .iter()
            .filter_map(|(p, i)| Some((p.as_str(), mention(ctx, row.get(*i)?))))
            .collect();
        let values: Vec<(&str, &str)> = told.iter().map(|(p, v)| (*p, v.as_str())).collect();
        prose.say(ctx.rng, &tell.bank, &values);
    }
    prose.finish_in_order(ctx.rng)
}

/// The lead's facts, as one paragraph, and the infobox rows of the row's theme numbers. A bank
/// sentence whose slot has no value (a living person's death year) is left out.
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
        let mut said = Vec::new();
        for s in &plan.lead {
            match s {
                Sentence::Fixed(text) => said.push(fill(text, &values.pairs())),
                Sentence::Bank(key, set) if fills(key, &bound(set, values), &["subject"]) => {
                    said.push(say(ctx.rng, key, &bound(set, values)));
                }
                Sentence::Bank(..) => {}
            }
        }
        return (said.join(" "), Vec::new());
    }
    let mut prose = Prose::new(&name, alias);
    for s in &plan.lead {
        match s {
            Sentence::Fixed(text) => prose.fixed(fill(text, &values.pairs())),
            Sentence::Bank(key, set) if fills(key, &bound(set, values), &["subject"]) => {
                prose.say(ctx.rng, key, &bound(set, values));
            }
            Sentence::Bank(..) => {}
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

/// The rows of a section, part after part: each related row's shown cells, and how the row is
/// told in a story.
fn section_rows<'p>(
    ctx: &Ctx,
    d: &mut Draft,
    rows: &Rows,
    listed: &'p Listing,
    subject: (TableRole, i64),
    as_sentence: bool,
) -> Vec<(Vec<String>, Option<&'p Tell>)> {
    let mut out = Vec::new();
    for part in &listed.parts {
        for rid in referring(rows, part, subject.1) {
            let item = Item::new(rows, part.rows, rid, None);
            let shown = part
                .cells
                .iter()
                .filter(|cell| !(as_sentence && matches!(cell, RowCell::TableOnly(_))))
                .filter_map(|cell| row_cell_text(ctx, d, &item, part, cell, subject))
                .collect();
            let open = rows.cell(part.rows, rid, ColumnRole::EndYear).is_none();
            let tell = match &part.tell_open {
                Some(tell) if open => Some(tell),
                _ => part.tell.as_ref(),
            };
            out.push((shown, tell));
        }
    }
    out
}

/// The ids of a part's rows whose `by` cell refers to row `subject`, sorted by the part's
/// `sort` column when it has one; of a `notable` part, only the rows about notable people.
fn referring(rows: &Rows, part: &Part, subject: i64) -> Vec<i64> {
    let mut ids = rows.referring(part.rows, part.by, subject).to_vec();
    if part.notable {
        ids.retain(|&r| {
            let person = match part.rows {
                TableRole::Person => Some(r),
                role => match rows.cell(role, r, ColumnRole::Person) {
                    Some((_, Value::Int(p))) => Some(*p),
                    _ => None,
                },
            };
            person.is_some_and(|p| rows.notable(p))
        });
    }
    if let Some(sort) = part.sort {
        ids.sort_by_key(|&r| match rows.cell(part.rows, r, sort) {
            Some((_, Value::Int(n))) => *n,
            _ => i64::MAX,
        });
    }
    ids
}

/// The text one cell of a related row shows, after stating what it states; `None` for a cell
/// that shows nothing.
fn row_cell_text(
    ctx: &Ctx,
    d: &mut Draft,
    item: &Item,
    part: &Part,
    cell: &RowCell,
    subject: (TableRole, i64),
) -> Option<String> {
    let (role, rid) = item.row;
    match cell {
        RowCell::Subject => {
            d.reference(ctx, role, rid, part.by, subject.0, subject.1);
            None
        }
        RowCell::Link => Some(ctx.link(role, rid)),
        RowCell::Plain(text) => Some(text.clone()),
        RowCell::State(column) => item.state_column(d, ctx, *column),
        RowCell::Report(column) => {
            let Some((_, Value::Int(year))) = item.rows.cell(role, rid, *column) else {
                return None;
            };
            let shown = d.year(ctx, role, rid, *column, *year);
            Some(format!("[{shown}]({})", ctx.sites.census_url(*year)))
        }
        RowCell::TableOnly(cell) => row_cell_text(ctx, d, item, part, cell, subject),
        RowCell::End => Some(match item.rows.cell(role, rid, ColumnRole::EndYear) {
            Some((_, Value::Int(y))) => d.year(ctx, role, rid, ColumnRole::EndYear, *y),
            _ => "present".to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every plan reads, each bank's placeholders are slots (or the subject and a listing's
    /// `{list}`), and no two plans make the same page of a row.
    #[test]
    fn every_article_plan_fills_its_sentences() {
        let plans = plans();
        let mut pages: Vec<(&str, Option<OwnPage>)> =
            plans.iter().map(|p| (p.row.as_str(), p.page)).collect();
        pages.dedup();
        assert_eq!(pages.len(), plans.len(), "two plans of one page");
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

#[cfg(test)]
mod pages {
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
    /// the entity (of a `partial` table, exactly those about notable people: founders and seat
    /// holders), and shows the text of every fact it records.
    fn check(seed: u64, world_id: u32, page: Page, related: &[TableRole], partial: &[TableRole]) {
        let world = generate_world(seed, world_id, &theme::all().unwrap());
        let layout = schema::layout(&world);
        // The notable people, read from the rows rather than through `Rows::notable`.
        let mut notable = std::collections::BTreeSet::new();
        for (role, column) in [
            (Organisation, ColumnRole::Founder),
            (Tenure, ColumnRole::Person),
        ] {
            let at = layout
                .table(role)
                .columns
                .iter()
                .position(|c| c.role == column);
            for row in schema::table_rows(&world, role) {
                if let Some(Value::Int(p)) = at.map(|at| &row[at]) {
                    notable.insert(*p);
                }
            }
        }
        let listed = |other: &fabula_file::Table, row: &[Value]| -> bool {
            if !partial.contains(&other.role) {
                return true;
            }
            let person = if other.role == Person {
                Some(int(&row[0]))
            } else {
                let at = other
                    .columns
                    .iter()
                    .position(|c| c.role == ColumnRole::Person);
                at.map(|at| int(&row[at]))
            };
            person.is_some_and(|p| notable.contains(&p))
        };
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
                        if other_row[i] != Value::Int(id) {
                            continue;
                        }
                        let other_id = int(&other_row[0]);
                        if listed(other, &other_row) {
                            states(&other.name, other_id, &column.name);
                        } else {
                            let found = stated_on(rendered, &other.name, other_id, &column.name);
                            assert!(
                                !found,
                                "{url} lists {} #{other_id}, who is not notable",
                                other.name
                            );
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
        check(1, 0, Page::Article(Region), &[Settlement], &[]);
    }

    #[test]
    fn settlement_articles_list_natives_and_organisations() {
        check(
            1,
            1,
            Page::Article(Settlement),
            &[Person, Organisation],
            &[Person],
        );
    }

    #[test]
    fn person_articles_list_a_whole_career() {
        check(
            1,
            2,
            Page::Article(Person),
            &[Organisation, Tenure, Membership],
            &[],
        );
    }

    #[test]
    fn organisation_articles_list_works_and_alliances() {
        check(
            2,
            4,
            Page::Article(Organisation),
            &[Work, AllianceMembership],
            &[],
        );
    }

    #[test]
    fn people_pages_list_office_holders_and_members() {
        check(1, 3, Page::People, &[Tenure, Membership], &[Membership]);
    }

    #[test]
    fn work_articles_state_their_row() {
        check(1, 3, Page::Article(Work), &[], &[]);
    }

    #[test]
    fn event_articles_list_results() {
        check(1, 0, Page::Article(Event), &[Participation], &[]);
    }

    #[test]
    fn alliance_articles_list_members() {
        check(2, 4, Page::Article(Alliance), &[AllianceMembership], &[]);
    }
}
