//! Page plans: the parts of `templates/pages/*.toml` that say which cells a page states.
//!
//! A plan names cells by paths of column roles from a row ("founder.occupation": the occupation
//! of the row's founder) and fills named slots with them, each from one source (a stated cell, a
//! link, a plain name, a table's noun, the work verb). [`Rows`] holds a world's rows as the world
//! file stores them (`schema::table_rows`), so a plan can reach any cell of any table; [`Item`]
//! follows paths from one row and states what they end at on a [`Draft`]. The news items
//! (`news.rs`) and the yearbooks' sections (`dated.rs`) are composed this way.

use std::collections::BTreeMap;

use rand::RngExt;
use serde::Deserialize;

use fabula_file::{Column, ColumnRole, TableRole, Value};
use fabula_world::schema;

use crate::draft::{Ctx, Draft};
use crate::english::{compound, measure_sentence, with_article};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawJoin {
    pub(crate) name: String,
    pub(crate) table: String,
    pub(crate) by: String,
    #[serde(default, rename = "where")]
    pub(crate) cells: BTreeMap<String, i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSlot {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) state: Option<String>,
    #[serde(default)]
    pub(crate) link: Option<String>,
    #[serde(default)]
    pub(crate) name_of: Option<String>,
    #[serde(default)]
    pub(crate) noun: Option<String>,
    #[serde(default)]
    pub(crate) verb: bool,
    #[serde(default)]
    pub(crate) plural: Option<String>,
    #[serde(default)]
    pub(crate) world: bool,
    #[serde(default)]
    pub(crate) label_of: Option<String>,
    #[serde(default)]
    pub(crate) own_site: Option<String>,
    #[serde(default)]
    pub(crate) kind_of: Option<String>,
    #[serde(default)]
    pub(crate) leave: Option<f64>,
}

/// The other row a plan reads: the first of `table` whose `by` cell refers to the item's row and
/// whose `cells` hold the given numbers.
#[derive(Debug)]
pub(crate) struct Join {
    pub(crate) name: String,
    pub(crate) table: TableRole,
    pub(crate) by: ColumnRole,
    pub(crate) cells: Vec<(ColumnRole, i64)>,
}

/// A chain of columns from the item's row, or from its join row when `from_join`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Path {
    pub(crate) from_join: bool,
    pub(crate) steps: Vec<ColumnRole>,
}

#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) name: Option<String>,
    pub(crate) source: Source,
    /// The chance the slot is left empty, its fact left to another page.
    pub(crate) leave: Option<f64>,
}

#[derive(Debug)]
pub(crate) enum Source {
    State(Path),
    Link(Path),
    Name(Path),
    Noun(TableRole),
    /// A table's plural noun.
    Plural(TableRole),
    Verb,
    /// The world's name.
    World,
    /// A column's label.
    LabelOf(TableRole, ColumnRole),
    /// The url of a page of the row's own site (an organisation's `about` or `people` page).
    OwnSite(OwnPage),
    /// The row's noun qualified by a text column's value, with its article ("a mining guild").
    KindOf(ColumnRole),
}

/// A page of an organisation's own site.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum OwnPage {
    About,
    People,
}

impl OwnPage {
    pub(crate) fn parse(text: &str) -> Result<OwnPage, String> {
        match text {
            "about" => Ok(OwnPage::About),
            "people" => Ok(OwnPage::People),
            _ => Err(format!(
                "`{text}` is no page of an own site (about, people)"
            )),
        }
    }

    /// The page's url for organisation `id`.
    pub(crate) fn url(self, ctx: &Ctx, id: i64) -> String {
        match self {
            OwnPage::About => ctx.sites.about_url(id),
            OwnPage::People => ctx.sites.people_url(id),
        }
    }
}

pub(crate) fn table_role(text: &str) -> Result<TableRole, String> {
    TableRole::parse(text).ok_or_else(|| format!("`{text}` is no table role"))
}

pub(crate) fn column_role(text: &str) -> Result<ColumnRole, String> {
    ColumnRole::parse(text).ok_or_else(|| format!("`{text}` is no column role"))
}

pub(crate) fn path(text: &str, join: Option<&Join>) -> Result<Path, String> {
    let (from_join, rest) = match text.split_once(':') {
        Some((name, rest)) if join.is_some_and(|j| j.name == name) => (true, rest),
        Some((name, _)) => return Err(format!("`{name}` in `{text}` names no join")),
        None => (false, text),
    };
    let steps = match rest {
        "." => Vec::new(),
        _ => rest.split('.').map(column_role).collect::<Result<_, _>>()?,
    };
    Ok(Path { from_join, steps })
}

fn slot(raw: &RawSlot, join: Option<&Join>) -> Result<Slot, String> {
    let sources = [
        raw.state
            .as_deref()
            .map(|p| path(p, join).map(Source::State)),
        raw.link.as_deref().map(|p| path(p, join).map(Source::Link)),
        raw.name_of
            .as_deref()
            .map(|p| path(p, join).map(Source::Name)),
        raw.noun.as_deref().map(|t| table_role(t).map(Source::Noun)),
        raw.verb.then_some(Ok(Source::Verb)),
        raw.plural
            .as_deref()
            .map(|t| table_role(t).map(Source::Plural)),
        raw.world.then_some(Ok(Source::World)),
        raw.label_of.as_deref().map(label_of),
        raw.own_site
            .as_deref()
            .map(|p| OwnPage::parse(p).map(Source::OwnSite)),
        raw.kind_of
            .as_deref()
            .map(|c| column_role(c).map(Source::KindOf)),
    ];
    let mut given = sources.into_iter().flatten();
    let (Some(source), None) = (given.next(), given.next()) else {
        return Err(format!("slot {:?} needs exactly one source", raw.name));
    };
    let source = source?;
    if let Source::State(Path { steps, .. }) = &source
        && steps.is_empty()
    {
        return Err("a `state` path ends at a column, not at the row".into());
    }
    if raw.name.is_none() && !matches!(source, Source::State(_)) {
        return Err("only a `state` slot may go without a name".into());
    }
    if raw.leave.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
        return Err("`leave` is a probability".into());
    }
    Ok(Slot {
        name: raw.name.clone(),
        source,
        leave: raw.leave,
    })
}

/// Reads a `TABLE.COLUMN` label source.
fn label_of(text: &str) -> Result<Source, String> {
    let (table, column) = text
        .split_once('.')
        .ok_or_else(|| format!("`{text}` is not TABLE.COLUMN"))?;
    Ok(Source::LabelOf(table_role(table)?, column_role(column)?))
}

/// Checks the items of a plan file, in order: a bad item panics naming the file, the item's kind
/// and its number (plans are compiled in, so this is a bug caught by the first render).
pub(crate) fn checked<R, P>(
    file: &str,
    item: &str,
    raw: &[R],
    check: impl Fn(&R) -> Result<P, String>,
) -> Vec<P> {
    raw.iter()
        .enumerate()
        .map(|(i, r)| check(r).unwrap_or_else(|e| panic!("{file} {item} {}: {e}", i + 1)))
        .collect()
}

/// Reads a plan's join.
pub(crate) fn join(raw: &RawJoin) -> Result<Join, String> {
    Ok(Join {
        name: raw.name.clone(),
        table: table_role(&raw.table)?,
        by: column_role(&raw.by)?,
        cells: raw
            .cells
            .iter()
            .map(|(c, n)| Ok((column_role(c)?, *n)))
            .collect::<Result<_, String>>()?,
    })
}

/// Reads a plan's slots.
pub(crate) fn slots(raw: &[RawSlot], join: Option<&Join>) -> Result<Vec<Slot>, String> {
    raw.iter().map(|s| slot(s, join)).collect()
}

/// The rows of every table of a world, by role and id, as the world file stores them.
pub(crate) struct Rows<'a> {
    pub(crate) layout: &'a schema::Layout,
    pub(crate) rows: BTreeMap<TableRole, BTreeMap<i64, Vec<Value>>>,
    /// For every reference column (by table and column role) and referenced id, the ids of the
    /// rows that refer to it, in id order: what an article's sections list.
    referrers: BTreeMap<(TableRole, ColumnRole, i64), Vec<i64>>,
}

impl<'a> Rows<'a> {
    pub(crate) fn new(ctx: &Ctx<'a>) -> Rows<'a> {
        let rows = ctx
            .layout
            .tables
            .iter()
            .map(|t| {
                let by_id = schema::table_rows(ctx.world, t.role)
                    .into_iter()
                    .map(|row| (id_of(&row), row))
                    .collect();
                (t.role, by_id)
            })
            .collect();
        let mut out = Rows {
            layout: ctx.layout,
            rows,
            referrers: BTreeMap::new(),
        };
        out.referrers = out.index_references();
        out
    }

    fn index_references(&self) -> BTreeMap<(TableRole, ColumnRole, i64), Vec<i64>> {
        let mut index: BTreeMap<_, Vec<i64>> = BTreeMap::new();
        for table in &self.layout.tables {
            let references = table
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.references.is_some());
            for (at, column) in references {
                for (id, row) in self.rows.get(&table.role).into_iter().flatten() {
                    if let Value::Int(target) = row[at] {
                        index
                            .entry((table.role, column.role, target))
                            .or_default()
                            .push(*id);
                    }
                }
            }
        }
        index
    }

    /// The ids of the rows of `role` whose reference column `column` holds `target`, in id
    /// order.
    pub(crate) fn referring(&self, role: TableRole, column: ColumnRole, target: i64) -> &[i64] {
        self.referrers
            .get(&(role, column, target))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether a person is notable: founded an organisation or held a seat. Natives and
    /// members lists name notable people only (`notable` parts of `articles.toml`), so an
    /// agent cannot read every candidate off one list; `fabula-tasks`' frontier cost model
    /// (`People::notable`) follows the same rule.
    pub(crate) fn notable(&self, person: i64) -> bool {
        !self
            .referring(TableRole::Organisation, ColumnRole::Founder, person)
            .is_empty()
            || !self
                .referring(TableRole::Tenure, ColumnRole::Person, person)
                .is_empty()
    }

    /// The ids of a table's rows, in id order; none when the world lacks the table.
    pub(crate) fn ids(&self, role: TableRole) -> Vec<i64> {
        self.rows
            .get(&role)
            .map(|r| r.keys().copied().collect())
            .unwrap_or_default()
    }

    /// A cell of a row, with its column; `None` when the column is missing or the cell is null.
    pub(crate) fn cell(
        &self,
        role: TableRole,
        id: i64,
        column: ColumnRole,
    ) -> Option<(&'a Column, &Value)> {
        let table = self.layout.get(role)?;
        let at = table.columns.iter().position(|c| c.role == column)?;
        let value = &self.rows.get(&role)?.get(&id)?[at];
        (*value != Value::Null).then_some((&table.columns[at], value))
    }

    /// The theme-specific numbers of a row, in column order, with their columns.
    pub(crate) fn extras(&self, role: TableRole, id: i64) -> Vec<(&'a Column, i64)> {
        let (Some(table), Some(row)) = (
            self.layout.get(role),
            self.rows.get(&role).and_then(|r| r.get(&id)),
        ) else {
            return Vec::new();
        };
        table
            .columns
            .iter()
            .zip(row)
            .filter(|(c, _)| c.role == ColumnRole::Extra)
            .filter_map(|(c, v)| match v {
                Value::Int(n) => Some((c, *n)),
                _ => None,
            })
            .collect()
    }

    /// The first row of the join whose `by` cell is `id` and whose other cells match.
    fn join(&self, join: &Join, id: i64) -> Option<i64> {
        let matches = |row: i64, column: ColumnRole, n: i64| {
            self.cell(join.table, row, column)
                .is_some_and(|(_, v)| *v == Value::Int(n))
        };
        self.ids(join.table).into_iter().find(|&row| {
            matches(row, join.by, id) && join.cells.iter().all(|&(c, n)| matches(row, c, n))
        })
    }

    /// The table a reference column of `role` points at.
    pub(crate) fn target(&self, role: TableRole, column: ColumnRole) -> Option<TableRole> {
        let table = self.layout.get(role)?;
        let target = table
            .columns
            .iter()
            .find(|c| c.role == column)?
            .references
            .as_deref()?;
        Some(self.layout.tables.iter().find(|t| t.name == target)?.role)
    }

    /// Where a reference cell points: its target table and row.
    pub(crate) fn follow(
        &self,
        role: TableRole,
        id: i64,
        column: ColumnRole,
    ) -> Option<(TableRole, i64)> {
        let target = self.target(role, column)?;
        match self.cell(role, id, column)? {
            (_, Value::Int(n)) => Some((target, *n)),
            _ => None,
        }
    }
}

fn id_of(row: &[Value]) -> i64 {
    match row.first() {
        Some(Value::Int(id)) => *id,
        other => panic!("a row starts with its id, not {other:?}"),
    }
}

/// Named slot values, as the phrase filler takes them.
pub(crate) struct Values(Vec<(String, String)>);

impl Values {
    /// Adds a value; it fills its placeholder before any value added earlier of the same name.
    pub(crate) fn push(&mut self, name: &str, value: String) {
        self.0.insert(0, (name.to_string(), value));
    }

    /// Replaces the value of a slot, when it has one.
    pub(crate) fn replace(&mut self, name: &str, value: String) {
        if let Some((_, v)) = self.0.iter_mut().find(|(n, _)| n == name) {
            *v = value;
        }
    }

    /// The value of a slot.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The values as `(name, text)` pairs.
    pub(crate) fn pairs(&self) -> Vec<(&str, &str)> {
        self.0
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect()
    }
}

/// One item's row, its join row, and the rows its paths end at.
pub(crate) struct Item<'r, 'a> {
    pub(crate) rows: &'r Rows<'a>,
    pub(crate) row: (TableRole, i64),
    pub(crate) join: Option<(TableRole, i64)>,
}

impl<'r, 'a> Item<'r, 'a> {
    /// The item of row `id` of `role`, with its join row when the plan has a join.
    pub(crate) fn new(rows: &'r Rows<'a>, role: TableRole, id: i64, join: Option<&Join>) -> Self {
        Item {
            rows,
            row: (role, id),
            join: join.and_then(|j| Some((j.table, rows.join(j, id)?))),
        }
    }

    /// Fills the named slots, stating the cells of `state` slots on `d` (unnamed ones too); a
    /// slot whose path ends nowhere (a null cell, an absent join row) is left out.
    pub(crate) fn fill(&self, d: &mut Draft, ctx: &mut Ctx, slots: &[Slot]) -> Values {
        let mut values = Vec::new();
        for slot in slots {
            if slot.leave.is_some_and(|p| ctx.rng.random_bool(p)) {
                continue;
            }
            let value = match &slot.source {
                Source::State(path) => self.state(d, ctx, path),
                Source::Link(path) => self.entity(path).map(|(r, id)| ctx.link(r, id)),
                Source::Name(path) => self.entity(path).map(|(r, id)| ctx.name(r, id).to_string()),
                Source::Noun(role) => ctx.layout.get(*role).map(|t| t.singular.clone()),
                Source::Plural(role) => ctx.layout.get(*role).map(|t| t.plural.clone()),
                Source::Verb => Some(ctx.world.theme.work.verb.clone().unwrap_or_default()),
                Source::World => Some(ctx.world.name.clone()),
                Source::LabelOf(role, column) => self
                    .rows
                    .layout
                    .get(*role)
                    .and_then(|t| t.columns.iter().find(|c| c.role == *column))
                    .map(|c| c.label.clone()),
                Source::OwnSite(page) => Some(page.url(ctx, self.row.1)),
                Source::KindOf(column) => self.kind_of(ctx, *column),
            };
            if let (Some(name), Some(value)) = (&slot.name, value) {
                values.push((name.clone(), value));
            }
        }
        Values(values)
    }

    /// The row a path starts from, and the row its steps but the last lead to.
    fn walk(&self, path: &Path, keep_last: bool) -> Option<(TableRole, i64)> {
        let mut at = if path.from_join { self.join? } else { self.row };
        let n = path.steps.len() - usize::from(keep_last);
        for &step in &path.steps[..n] {
            at = self.rows.follow(at.0, at.1, step)?;
        }
        Some(at)
    }

    /// The entity a path ends at.
    pub(crate) fn entity(&self, path: &Path) -> Option<(TableRole, i64)> {
        self.walk(path, false)
    }

    /// The row's noun qualified by a text cell, with its article.
    fn kind_of(&self, ctx: &Ctx, column: ColumnRole) -> Option<String> {
        let (role, id) = self.row;
        let (_, Value::Text(modifier)) = self.rows.cell(role, id, column)? else {
            return None;
        };
        let noun = &ctx.layout.get(role)?.singular;
        Some(with_article(&compound(modifier, noun)))
    }

    /// States a cell of the item's own row, returning its text.
    pub(crate) fn state_column(
        &self,
        d: &mut Draft,
        ctx: &Ctx,
        column: ColumnRole,
    ) -> Option<String> {
        let path = Path {
            from_join: false,
            steps: vec![column],
        };
        self.state(d, ctx, &path)
    }

    /// States the cell a path ends at, returning its text.
    pub(crate) fn state(&self, d: &mut Draft, ctx: &Ctx, path: &Path) -> Option<String> {
        let (role, id) = self.walk(path, true)?;
        let column = *path.steps.last()?;
        let (col, value) = self.rows.cell(role, id, column)?;
        if let Some((target, target_id)) = self.rows.follow(role, id, column) {
            return Some(d.reference(ctx, role, id, column, target, target_id));
        }
        Some(match value {
            Value::Int(n) if ColumnRole::YEARS.contains(&col.role) => {
                d.year(ctx, role, id, column, *n)
            }
            Value::Int(n) => d.count(ctx, role, id, column, *n),
            Value::Text(text) => d.text(ctx, role, id, column, text),
            Value::Null => return None,
        })
    }

    /// The sentence stating the row's first theme-specific number, in its table's label.
    pub(crate) fn measure(&self, d: &mut Draft, ctx: &Ctx) -> Option<String> {
        let (role, id) = self.row;
        let (column, n) = self.rows.extras(role, id).into_iter().next()?;
        let value = d.extra(ctx, role, id, 0, n);
        Some(measure_sentence(&column.label, &value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_path(text: &str, expect: Result<Path, &str>) {
        let join = Join {
            name: "winner".into(),
            table: TableRole::Participation,
            by: ColumnRole::Event,
            cells: Vec::new(),
        };
        assert_eq!(
            path(text, Some(&join)),
            expect.map_err(str::to_string),
            "{text}"
        );
    }

    #[test]
    fn paths_name_column_roles_from_the_row_or_the_join() {
        let steps = |s: &[ColumnRole]| s.to_vec();
        use ColumnRole::*;
        check_path(
            ".",
            Ok(Path {
                from_join: false,
                steps: vec![],
            }),
        );
        check_path(
            "founder.occupation",
            Ok(Path {
                from_join: false,
                steps: steps(&[Founder, Occupation]),
            }),
        );
        check_path(
            "winner:organisation",
            Ok(Path {
                from_join: true,
                steps: steps(&[Organisation]),
            }),
        );
        check_path(
            "loser:organisation",
            Err("`loser` in `loser:organisation` names no join"),
        );
        check_path("founder.colour", Err("`colour` is no column role"));
    }
}
