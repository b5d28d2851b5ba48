//! One world's domain rows, read once per request through `fabula_file::WorldFile`, with the
//! lookups the views need: a row by id, the name (or a short label) of any row, and the rows
//! that refer to a row.

use fabula_file::{Column, ColumnRole, Meta, Table, Value, WorldFile};

use crate::error::Result;

/// The meta data, tables and rows of one world.
pub(crate) struct WorldData {
    pub meta: Meta,
    pub tables: Vec<Table>,
    /// Per table (same order as `tables`), its rows in id order, cells in column order.
    pub rows: Vec<Vec<Vec<Value>>>,
}

impl WorldData {
    pub(crate) fn load(file: &WorldFile) -> Result<WorldData> {
        let meta = file.meta()?;
        let tables = file.tables()?;
        let rows = tables
            .iter()
            .map(|table| file.table_rows(table))
            .collect::<fabula_file::Result<Vec<_>>>()?;
        Ok(WorldData { meta, tables, rows })
    }

    /// The index of a table by its SQL name.
    pub(crate) fn table_index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|table| table.name == name)
    }

    /// One row by id (the first column, which is the id).
    pub(crate) fn row(&self, table_idx: usize, id: i64) -> Option<&[Value]> {
        let rows = &self.rows[table_idx];
        let at = rows
            .binary_search_by_key(&id, |row| match row.first() {
                Some(Value::Int(id)) => *id,
                _ => i64::MIN,
            })
            .ok()?;
        Some(&rows[at])
    }

    /// The name of a row, or for a row without a name (a membership, a tenure) its singular
    /// and the names of the rows it refers to: "office holder: Kest Line, Ava Orm".
    pub(crate) fn label(&self, table_idx: usize, id: i64) -> String {
        let table = &self.tables[table_idx];
        let Some(row) = self.row(table_idx, id) else {
            return format!("{} #{id}", table.singular);
        };
        if let Some(name) = name_cell(table, row) {
            return name.to_owned();
        }
        let parts: Vec<String> = table
            .columns
            .iter()
            .zip(row)
            .filter(|(column, _)| column.references.is_some())
            .map(|(column, value)| self.cell_text(column, value))
            .collect();
        format!("{}: {}", table.singular, parts.join(", "))
    }

    /// A cell as a reader sees it: a referenced row's label, a number, text, or "—" for NULL.
    pub(crate) fn cell_text(&self, column: &Column, value: &Value) -> String {
        match (value, &column.references) {
            (Value::Int(id), Some(target)) => match self.table_index(target) {
                Some(target_idx) => self.label(target_idx, *id),
                None => id.to_string(),
            },
            (Value::Int(n), None) => n.to_string(),
            (Value::Text(text), _) => text.clone(),
            (Value::Null, _) => "—".to_owned(),
        }
    }

    /// The rows that refer to `(table, id)`: (their table index, their id, the referring
    /// column), in table then id order.
    pub(crate) fn referrers(&self, table: &str, id: i64) -> Vec<(usize, i64, &Column)> {
        let mut found = Vec::new();
        for (table_idx, other) in self.tables.iter().enumerate() {
            for (col_idx, column) in other.columns.iter().enumerate() {
                if column.references.as_deref() != Some(table) {
                    continue;
                }
                for row in &self.rows[table_idx] {
                    if row.get(col_idx) == Some(&Value::Int(id))
                        && let Some(Value::Int(row_id)) = row.first()
                    {
                        found.push((table_idx, *row_id, column));
                    }
                }
            }
        }
        found
    }

    /// The ids of a table's rows, in order.
    pub(crate) fn ids(&self, table_idx: usize) -> impl Iterator<Item = i64> + '_ {
        self.rows[table_idx]
            .iter()
            .filter_map(|row| match row.first() {
                Some(Value::Int(id)) => Some(*id),
                _ => None,
            })
    }
}

/// The value of a table's name column in `row`, when it has one.
pub(crate) fn name_cell<'a>(table: &Table, row: &'a [Value]) -> Option<&'a str> {
    let at = table
        .columns
        .iter()
        .position(|column| column.role == ColumnRole::Name)?;
    match row.get(at) {
        Some(Value::Text(name)) => Some(name),
        _ => None,
    }
}
