//! Reading a world file: the one place that runs SQL against `fabula_meta`, `fabula_tables`,
//! `fabula_columns`, `fabula_pages`, `fabula_page_facts` and `fabula_tasks`.
//!
//! Files are opened read-only. Every stored name (page kind, value kind, table and column role,
//! task kind) is parsed into its enum, and a value the format does not allow is an error that
//! names its table and row, so a damaged file is reported, never half-read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};

use crate::rows::{Column, Meta, Page, PageFact, PageHead, StoredPage, Table, Task, Value};
use crate::{ColumnRole, Error, PageKind, Result, SqlType, TableRole, TaskKind, Tier, ValueKind};

/// One world file opened read-only.
pub struct WorldFile {
    path: PathBuf,
    conn: Connection,
}

impl std::fmt::Debug for WorldFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl WorldFile {
    /// Opens a world file read-only. A missing file is an I/O error (SQLite would only say
    /// "unable to open").
    pub fn open(path: &Path) -> Result<WorldFile> {
        std::fs::metadata(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|source| Error::Sqlite {
            path: path.to_owned(),
            source,
        })?;
        Ok(WorldFile {
            path: path.to_owned(),
            conn,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The read-only connection, for the SQL rules of `fabula check` over the domain tables.
    /// The `fabula_*` tables are read through the typed methods of this type only.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The names of the domain tables, in name order: every table whose name starts with neither
    /// `fabula_` nor `sqlite_`, declared in `fabula_tables` or not.
    pub fn domain_tables(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table'
                 AND name NOT LIKE 'fabula\\_%' ESCAPE '\\'
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            )
            .map_err(self.sqlite())?;
        let names = stmt
            .query_map([], |row| row.get(0))
            .map_err(self.sqlite())?;
        names
            .collect::<rusqlite::Result<_>>()
            .map_err(self.sqlite())
    }

    /// Every `fabula_meta` row, by key.
    pub fn meta_rows(&self) -> Result<BTreeMap<String, String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, value FROM fabula_meta ORDER BY key")
            .map_err(self.sqlite())?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get(0)?,
                    row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                ))
            })
            .map_err(self.sqlite())?;
        rows.collect::<rusqlite::Result<_>>().map_err(self.sqlite())
    }

    /// One metadata value, if the file has it.
    pub fn meta_value(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT value FROM fabula_meta WHERE key = ?1",
                [key],
                |row| row.get(0),
            )
            .optional()
            .map_err(self.sqlite())
    }

    /// The typed metadata; an error names the first missing or malformed key.
    pub fn meta(&self) -> Result<Meta> {
        Meta::from_rows(&self.meta_rows()?)
            .map_err(|reason| self.bad_value("fabula_meta", "", reason))
    }

    /// The domain tables with their columns, tables in `fabula_tables` order of name, columns in
    /// position order.
    pub fn tables(&self) -> Result<Vec<Table>> {
        let mut tables = self.read_tables()?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT table_name, column_name, sql_type, role, nullable, refers_to, derived_from,
                 label FROM fabula_columns ORDER BY table_name, position",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let table_name: String = row.get(0).map_err(self.sqlite())?;
            let column = self.column_row(row)?;
            let Some(table) = tables.iter_mut().find(|t| t.name == table_name) else {
                let reason = format!("column {} of unknown table {table_name}", column.name);
                return Err(self.bad_value("fabula_columns", &table_name, reason));
            };
            table.columns.push(column);
        }
        Ok(tables)
    }

    fn read_tables(&self) -> Result<Vec<Table>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT table_name, role, singular, plural FROM fabula_tables ORDER BY table_name",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut tables = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let name: String = row.get(0).map_err(self.sqlite())?;
            let role: String = row.get(1).map_err(self.sqlite())?;
            let role = TableRole::parse(&role).ok_or_else(|| {
                self.bad_value(
                    "fabula_tables",
                    &name,
                    format!("unknown table role `{role}`"),
                )
            })?;
            tables.push(Table {
                role,
                name,
                singular: row.get(2).map_err(self.sqlite())?,
                plural: row.get(3).map_err(self.sqlite())?,
                columns: Vec::new(),
            });
        }
        Ok(tables)
    }

    fn column_row(&self, row: &Row<'_>) -> Result<Column> {
        let name: String = row.get(1).map_err(self.sqlite())?;
        let sql_type: String = row.get(2).map_err(self.sqlite())?;
        let role: String = row.get(3).map_err(self.sqlite())?;
        let bad = |reason: String| self.bad_value("fabula_columns", &name, reason);
        Ok(Column {
            sql_type: SqlType::parse(&sql_type)
                .ok_or_else(|| bad(format!("unknown sql type `{sql_type}`")))?,
            role: ColumnRole::parse(&role)
                .ok_or_else(|| bad(format!("unknown column role `{role}`")))?,
            nullable: row.get::<_, i64>(4).map_err(self.sqlite())? != 0,
            references: row.get(5).map_err(self.sqlite())?,
            derived: row.get(6).map_err(self.sqlite())?,
            label: row.get(7).map_err(self.sqlite())?,
            name,
        })
    }

    /// Every page with its facts, in id order.
    pub fn pages(&self) -> Result<Vec<StoredPage>> {
        let mut facts = self.facts_by_page()?;
        let mut pages = self.pages_without_facts()?;
        for stored in &mut pages {
            stored.page.facts = facts.remove(&stored.id).unwrap_or_default();
        }
        Ok(pages)
    }

    /// Every page in id order, with its `facts` left empty: for readers that need only the
    /// pages themselves, or that read [`WorldFile::page_facts`] on their own.
    pub fn pages_without_facts(&self) -> Result<Vec<StoredPage>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, url, title, kind, published, body FROM fabula_pages ORDER BY id")
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut pages = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            pages.push(self.page_row(row)?);
        }
        Ok(pages)
    }

    /// The pages whose title starts with `prefix`, in id order, their `facts` left empty: a
    /// reader after one kind of page (`fabula check`'s glossaries) need not read every body.
    pub fn pages_titled(&self, prefix: &str) -> Result<Vec<StoredPage>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, url, title, kind, published, body FROM fabula_pages \
                 WHERE substr(title, 1, length(?1)) = ?1 ORDER BY id",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([prefix]).map_err(self.sqlite())?;
        let mut pages = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            pages.push(self.page_row(row)?);
        }
        Ok(pages)
    }

    /// The page at `url` with its facts, if the world has one.
    pub fn page(&self, url: &str) -> Result<Option<StoredPage>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, url, title, kind, published, body FROM fabula_pages WHERE url = ?1",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([url]).map_err(self.sqlite())?;
        let Some(row) = rows.next().map_err(self.sqlite())? else {
            return Ok(None);
        };
        let mut stored = self.page_row(row)?;
        stored.page.facts = self.facts_of(stored.id)?;
        Ok(Some(stored))
    }

    fn page_row(&self, row: &Row<'_>) -> Result<StoredPage> {
        let id: i64 = row.get(0).map_err(self.sqlite())?;
        let kind = self.page_kind(id, row)?;
        Ok(StoredPage {
            id,
            page: Page {
                url: row.get(1).map_err(self.sqlite())?,
                title: row.get(2).map_err(self.sqlite())?,
                kind,
                published: row.get(4).map_err(self.sqlite())?,
                body: row.get(5).map_err(self.sqlite())?,
                facts: Vec::new(),
            },
        })
    }

    /// The page kind in column 3 of a `fabula_pages` row.
    fn page_kind(&self, id: i64, row: &Row<'_>) -> Result<PageKind> {
        let kind: String = row.get(3).map_err(self.sqlite())?;
        PageKind::parse(&kind).ok_or_else(|| {
            let reason = format!("unknown page kind `{kind}`");
            self.bad_value("fabula_pages", &id.to_string(), reason)
        })
    }

    /// Every provenance row with its page id, in (page id, table, row, column) order.
    pub fn page_facts(&self) -> Result<Vec<(i64, PageFact)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT page_id, table_name, row_id, column_name, shown, value_kind
                 FROM fabula_page_facts ORDER BY page_id, table_name, row_id, column_name",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut facts = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let page_id: i64 = row.get(0).map_err(self.sqlite())?;
            facts.push((page_id, self.fact_row(row)?));
        }
        Ok(facts)
    }

    fn facts_by_page(&self) -> Result<BTreeMap<i64, Vec<PageFact>>> {
        let mut by_page: BTreeMap<i64, Vec<PageFact>> = BTreeMap::new();
        for (page_id, fact) in self.page_facts()? {
            by_page.entry(page_id).or_default().push(fact);
        }
        Ok(by_page)
    }

    fn facts_of(&self, page_id: i64) -> Result<Vec<PageFact>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT page_id, table_name, row_id, column_name, shown, value_kind
                 FROM fabula_page_facts WHERE page_id = ?1 ORDER BY table_name, row_id, column_name",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([page_id]).map_err(self.sqlite())?;
        let mut facts = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            facts.push(self.fact_row(row)?);
        }
        Ok(facts)
    }

    fn fact_row(&self, row: &Row<'_>) -> Result<PageFact> {
        let page_id: i64 = row.get(0).map_err(self.sqlite())?;
        let kind: String = row.get(5).map_err(self.sqlite())?;
        let value_kind = ValueKind::parse(&kind).ok_or_else(|| {
            let reason = format!("unknown value kind `{kind}`");
            self.bad_value("fabula_page_facts", &page_id.to_string(), reason)
        })?;
        Ok(PageFact {
            table: row.get(1).map_err(self.sqlite())?,
            row_id: row.get(2).map_err(self.sqlite())?,
            column: row.get(3).map_err(self.sqlite())?,
            shown: row.get(4).map_err(self.sqlite())?,
            value_kind,
        })
    }

    /// Every task, in id order.
    pub fn tasks(&self) -> Result<Vec<Task>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, question, answer, evidence, hops, sql, tier, effort FROM fabula_tasks \
                 ORDER BY id",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut tasks = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let id: String = row.get(0).map_err(self.sqlite())?;
            let kind: String = row.get(1).map_err(self.sqlite())?;
            let kind = TaskKind::parse(&kind).ok_or_else(|| {
                self.bad_value("fabula_tasks", &id, format!("unknown task kind `{kind}`"))
            })?;
            let tier: String = row.get(7).map_err(self.sqlite())?;
            let tier = Tier::parse(&tier).ok_or_else(|| {
                self.bad_value("fabula_tasks", &id, format!("unknown tier `{tier}`"))
            })?;
            let effort: Option<String> = row.get(8).map_err(self.sqlite())?;
            let effort = effort
                .map(|text| {
                    serde_json::from_str(&text).map_err(|e| {
                        self.bad_value("fabula_tasks", &id, format!("effort `{text}`: {e}"))
                    })
                })
                .transpose()?;
            tasks.push(Task {
                id,
                kind,
                tier,
                effort,
                question: row.get(2).map_err(self.sqlite())?,
                answer: row.get(3).map_err(self.sqlite())?,
                evidence: row.get(4).map_err(self.sqlite())?,
                hops: row.get(5).map_err(self.sqlite())?,
                sql: row.get(6).map_err(self.sqlite())?,
            });
        }
        Ok(tasks)
    }

    /// Every page's head (id, url, title, kind, date) in id order, without bodies or facts: for
    /// readers that only link to pages.
    pub fn page_heads(&self) -> Result<Vec<PageHead>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, url, title, kind, published FROM fabula_pages ORDER BY id")
            .map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut heads = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let id: i64 = row.get(0).map_err(self.sqlite())?;
            heads.push(PageHead {
                id,
                kind: self.page_kind(id, row)?,
                url: row.get(1).map_err(self.sqlite())?,
                title: row.get(2).map_err(self.sqlite())?,
                published: row.get(4).map_err(self.sqlite())?,
            });
        }
        Ok(heads)
    }

    /// The provenance rows of one domain row: every page (by id) that states one of its cells,
    /// in (page id, column) order.
    pub fn facts_of_row(&self, table: &str, row_id: i64) -> Result<Vec<(i64, PageFact)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT page_id, table_name, row_id, column_name, shown, value_kind
                 FROM fabula_page_facts WHERE table_name = ?1 AND row_id = ?2
                 ORDER BY page_id, column_name",
            )
            .map_err(self.sqlite())?;
        let mut rows = stmt
            .query(rusqlite::params![table, row_id])
            .map_err(self.sqlite())?;
        let mut facts = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let page_id: i64 = row.get(0).map_err(self.sqlite())?;
            facts.push((page_id, self.fact_row(row)?));
        }
        Ok(facts)
    }

    /// Every row of a domain table, in id order, with its cells in the order of
    /// `table.columns`. The table and its columns must come from [`WorldFile::tables`].
    pub fn table_rows(&self, table: &Table) -> Result<Vec<Vec<Value>>> {
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|c| format!("\"{}\"", c.name.replace('"', "\"\"")))
            .collect();
        let sql = format!(
            "SELECT {} FROM \"{}\" ORDER BY 1",
            columns.join(", "),
            table.name.replace('"', "\"\"")
        );
        let mut stmt = self.conn.prepare(&sql).map_err(self.sqlite())?;
        let mut rows = stmt.query([]).map_err(self.sqlite())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.sqlite())? {
            let mut cells = Vec::with_capacity(columns.len());
            for i in 0..columns.len() {
                cells.push(match row.get_ref(i).map_err(self.sqlite())? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => Value::Int(n),
                    other => Value::Text(cell_text(other)),
                });
            }
            out.push(cells);
        }
        Ok(out)
    }

    /// Runs a read-only query (a task's `sql`) and returns its rows as text: integers in
    /// decimal, text as stored, NULL as the empty string. The error says why, in words.
    pub fn query_text(&self, sql: &str) -> Result<Vec<Vec<String>>, String> {
        let mut stmt = self
            .conn
            .prepare(sql)
            .map_err(|e| format!("query does not prepare: {e}"))?;
        if !stmt.readonly() {
            return Err("query is not read-only".to_owned());
        }
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |row| {
                (0..n)
                    .map(|i| row.get_ref(i).map(cell_text))
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .map_err(|e| format!("query fails: {e}"))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| format!("query fails: {e}"))
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |source| Error::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn bad_value(&self, table: &'static str, row: &str, reason: String) -> Error {
        Error::BadValue {
            path: self.path.clone(),
            table,
            row: row.to_owned(),
            reason,
        }
    }
}

/// A result cell as text: integers as plain digits, NULL as the empty string.
fn cell_text(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}
