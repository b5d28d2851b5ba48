//! The world as the task builder reads it: the rows of its domain tables by role, row id and
//! column role, and the SQL pieces (aliases, joins, literals) its queries are made of.
//!
//! Reading answers through the same layout the world file is written with keeps each gold
//! answer and the query that recomputes it in step.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::{Column, ColumnRole, Table, TableRole, Value};
use fabula_world::World;
use fabula_world::schema::{self, Layout};

use super::family::{Hop, Path};

/// One domain cell: (table, row id, column).
pub(super) type Cell = (String, i64, String);

/// The rows of every domain table of a world.
pub(super) struct Db {
    layout: Layout,
    rows: BTreeMap<TableRole, Vec<Vec<Value>>>,
}

impl Db {
    pub(super) fn new(world: &World) -> Db {
        let layout = schema::layout(world);
        let rows = layout
            .tables
            .iter()
            .map(|t| (t.role, schema::table_rows(world, t.role)))
            .collect();
        Db { layout, rows }
    }

    /// The table of a role. Panics when the world lacks it.
    pub(super) fn table(&self, role: TableRole) -> &Table {
        self.layout.table(role)
    }

    /// The column of a table with a column role. Panics when the table lacks it.
    pub(super) fn column(&self, role: TableRole, column: ColumnRole) -> &Column {
        self.table(role).column(column)
    }

    /// Whether the world has the table.
    pub(super) fn has_table(&self, role: TableRole) -> bool {
        self.layout.get(role).is_some()
    }

    /// Whether the world has the table and the table has the column.
    pub(super) fn has(&self, role: TableRole, column: ColumnRole) -> bool {
        self.layout
            .get(role)
            .is_some_and(|t| t.get(column).is_some())
    }

    /// The ids of a table's rows in order (they count from 1); none when the world lacks it.
    pub(super) fn ids(&self, role: TableRole) -> Vec<i64> {
        let n = self.rows.get(&role).map_or(0, Vec::len);
        (1..=n as i64).collect()
    }

    fn value(&self, role: TableRole, id: i64, column: ColumnRole) -> &Value {
        let position = self
            .table(role)
            .columns
            .iter()
            .position(|c| c.role == column)
            .unwrap_or_else(|| panic!("{} has no `{column}` column", role.as_str()));
        &self.rows[&role][usize::try_from(id - 1).expect("ids count from 1")][position]
    }

    /// An integer cell; `None` when it is NULL.
    pub(super) fn int(&self, role: TableRole, id: i64, column: ColumnRole) -> Option<i64> {
        match self.value(role, id, column) {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// Every value a column holds in the world: the values a stated threshold must avoid.
    pub(super) fn values(&self, role: TableRole, column: ColumnRole) -> BTreeSet<i64> {
        self.ids(role)
            .into_iter()
            .filter_map(|id| self.int(role, id, column))
            .collect()
    }

    /// A cell as answer text (integers as plain digits); `None` when it is NULL.
    pub(super) fn text(&self, role: TableRole, id: i64, column: ColumnRole) -> Option<String> {
        match self.value(role, id, column) {
            Value::Int(i) => Some(i.to_string()),
            Value::Text(t) => Some(t.clone()),
            Value::Null => None,
        }
    }

    /// Every row name, with the number of rows of its table (the smallest table's when two
    /// tables share a name): the odds of guessing it among its table's rows.
    pub(super) fn name_table_sizes(&self) -> BTreeMap<String, usize> {
        let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
        for table in &self.layout.tables {
            if table.get(ColumnRole::Name).is_none() {
                continue;
            }
            let rows = self.ids(table.role);
            for id in &rows {
                let size = sizes
                    .entry(self.name(table.role, *id))
                    .or_insert(rows.len());
                *size = (*size).min(rows.len());
            }
        }
        sizes
    }

    /// The name of a row.
    pub(super) fn name(&self, role: TableRole, id: i64) -> String {
        self.text(role, id, ColumnRole::Name).unwrap_or_default()
    }

    pub(super) fn cell(&self, role: TableRole, id: i64, column: ColumnRole) -> Cell {
        let table = self.table(role);
        (table.name.clone(), id, table.column(column).name.clone())
    }

    /// The value at the end of a path from a row, and the cells that state it: each reference
    /// followed and the value itself (a name reached through a reference is stated by that
    /// reference). `None` when a cell on the way is NULL.
    pub(super) fn follow(
        &self,
        role: TableRole,
        id: i64,
        path: &Path,
    ) -> Option<(String, Vec<Cell>)> {
        let (id, mut cells) = self.walk(role, id, path.hops)?;
        let role = path.end(role);
        if path.hops.is_empty() || path.column != ColumnRole::Name {
            cells.push(self.cell(role, id, path.column));
        }
        Some((self.text(role, id, path.column)?, cells))
    }
}

impl Db {
    /// The row that `hops` lead to from a row, and the cells of the references followed.
    /// `None` when a reference on the way is NULL.
    pub(super) fn walk(&self, role: TableRole, id: i64, hops: &[Hop]) -> Option<(i64, Vec<Cell>)> {
        let (mut role, mut id) = (role, id);
        let mut cells = Vec::new();
        for hop in hops {
            cells.push(self.cell(role, id, hop.column));
            id = self.int(role, id, hop.column)?;
            role = hop.target;
        }
        Some((id, cells))
    }
}

/// The alias of a table in a query with joins.
fn alias(role: TableRole) -> char {
    match role {
        TableRole::Work | TableRole::Participation => 'x',
        TableRole::AllianceMembership => 'm',
        _ => role.as_str().chars().next().unwrap_or('t'),
    }
}

/// Quotes a SQL string literal.
pub(super) fn lit(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The FROM clause of a query: a base table and the references it joins. Tables are aliased
/// ([`alias`]) once there is a join; add every join before writing any column.
pub(super) struct Query<'a> {
    db: &'a Db,
    base: TableRole,
    joins: Vec<(TableRole, Hop)>,
}

impl<'a> Query<'a> {
    pub(super) fn new(db: &'a Db, base: TableRole) -> Query<'a> {
        Query {
            db,
            base,
            joins: Vec::new(),
        }
    }

    /// Joins the target of a reference of `from`, once.
    pub(super) fn join(&mut self, from: TableRole, hop: Hop) {
        let known = self
            .joins
            .iter()
            .any(|(f, h)| *f == from && h.column == hop.column && h.target == hop.target);
        if !known {
            self.joins.push((from, hop));
        }
    }

    /// Joins every reference of a path from `from`.
    pub(super) fn join_path(&mut self, from: TableRole, path: &Path) {
        self.join_hops(from, path.hops);
    }

    /// Joins references in turn, the first from `from`, each next one from the last target.
    pub(super) fn join_hops<'h>(
        &mut self,
        from: TableRole,
        hops: impl IntoIterator<Item = &'h Hop>,
    ) {
        let mut role = from;
        for hop in hops {
            self.join(role, *hop);
            role = hop.target;
        }
    }

    /// A column as the query writes it: `s.founded_year`, or `founded_year` without joins.
    pub(super) fn col(&self, role: TableRole, column: ColumnRole) -> String {
        let name = &self.db.column(role, column).name;
        if self.joins.is_empty() {
            name.clone()
        } else {
            format!("{}.{name}", alias(role))
        }
    }

    /// `FROM t a JOIN u b ON b.id = a.u_id ...`, or `FROM t` without joins.
    pub(super) fn from(&self) -> String {
        let base = &self.db.table(self.base).name;
        if self.joins.is_empty() {
            return format!("FROM {base}");
        }
        let mut text = format!("FROM {base} {}", alias(self.base));
        for (from, hop) in &self.joins {
            let b = alias(hop.target);
            text.push_str(&format!(
                " JOIN {} {b} ON {b}.id = {}.{}",
                self.db.table(hop.target).name,
                alias(*from),
                self.db.column(*from, hop.column).name
            ));
        }
        text
    }
}
