//! Writing a world file: the fixed tables, the domain tables and their rows, pages with their
//! provenance, and tasks, in one transaction.
//!
//! The journal is off because the caller writes to a temporary path and renames the finished
//! file into place. Foreign keys are declared but not enforced while writing: rows go in parents
//! first, `fabula check` runs `PRAGMA foreign_key_check` over every file, and a lookup per
//! inserted row (a page's facts are most of a file's rows) cost about a tenth of the write.
//! Statements run in a fixed order (fixed tables, metadata, each domain table with its roles,
//! rows parents first, pages, tasks), so the same contents give the same bytes.

use std::path::Path;

use rusqlite::{Connection, Transaction, params};

use crate::rows::{Meta, Page, Table, Task, Value};
use crate::{Error, Result, TableRole};

/// The fixed tables every world file has, besides its domain tables.
const FIXED_TABLES: &str = "
CREATE TABLE fabula_meta (key TEXT PRIMARY KEY, value TEXT) STRICT;
CREATE TABLE fabula_tables (
  table_name TEXT PRIMARY KEY, role TEXT NOT NULL, singular TEXT NOT NULL, plural TEXT NOT NULL
) STRICT;
CREATE TABLE fabula_columns (
  table_name TEXT NOT NULL REFERENCES fabula_tables(table_name), column_name TEXT NOT NULL,
  position INTEGER NOT NULL, sql_type TEXT NOT NULL, role TEXT NOT NULL, nullable INTEGER NOT NULL,
  refers_to TEXT, derived_from TEXT, label TEXT NOT NULL,
  PRIMARY KEY (table_name, column_name)
) STRICT;
CREATE TABLE fabula_pages (
  id INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
  published TEXT, body TEXT NOT NULL
) STRICT;
CREATE TABLE fabula_page_facts (
  page_id INTEGER NOT NULL REFERENCES fabula_pages(id), table_name TEXT NOT NULL,
  row_id INTEGER NOT NULL, column_name TEXT NOT NULL, shown TEXT NOT NULL, value_kind TEXT NOT NULL,
  PRIMARY KEY (page_id, table_name, row_id, column_name)
) STRICT;
CREATE TABLE fabula_tasks (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL,
  evidence TEXT NOT NULL, hops INTEGER NOT NULL, sql TEXT NOT NULL, tier TEXT NOT NULL,
  effort TEXT
) STRICT;
";

/// Everything one world file holds.
#[derive(Debug, Clone, Copy)]
pub struct WorldContents<'a> {
    pub meta: &'a Meta,
    /// The domain tables, each with its rows (cells in column order).
    pub tables: &'a [(Table, Vec<Vec<Value>>)],
    /// Pages in id order: the page at index `i` gets id `i + 1`.
    pub pages: &'a [Page],
    pub tasks: &'a [Task],
}

/// Writes a complete world file at `path`, which must not exist yet.
pub fn write_world(path: &Path, contents: &WorldContents<'_>) -> Result<()> {
    let sqlite = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    if path.exists() {
        return Err(Error::BadFile {
            path: path.to_owned(),
            reason: "a world file is only written to a new path".to_owned(),
        });
    }
    let mut conn = Connection::open(path).map_err(sqlite)?;
    conn.execute_batch(
        "PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         PRAGMA foreign_keys = OFF;",
    )
    .map_err(sqlite)?;
    let tx = conn.transaction().map_err(sqlite)?;
    write_all(&tx, contents).map_err(sqlite)?;
    tx.commit().map_err(sqlite)?;
    conn.close().map_err(|(_, e)| sqlite(e))
}

fn write_all(tx: &Transaction<'_>, contents: &WorldContents<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(FIXED_TABLES)?;
    write_meta(tx, contents.meta)?;
    for (table, _) in contents.tables {
        write_table(tx, table)?;
    }
    // Rows go in after every table exists, parents first, so foreign keys hold at each insert.
    for role in TableRole::ALL {
        for (table, rows) in contents.tables.iter().filter(|(t, _)| t.role == role) {
            write_rows(tx, table, rows)?;
        }
    }
    write_pages(tx, contents.pages)?;
    write_tasks(tx, contents.tasks)
}

fn write_meta(tx: &Transaction<'_>, meta: &Meta) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare("INSERT INTO fabula_meta (key, value) VALUES (?1, ?2)")?;
    for (key, value) in meta.to_rows() {
        stmt.execute(params![key, value])?;
    }
    Ok(())
}

fn write_table(tx: &Transaction<'_>, table: &Table) -> rusqlite::Result<()> {
    tx.execute_batch(&table.create_sql())?;
    tx.execute(
        "INSERT INTO fabula_tables (table_name, role, singular, plural) VALUES (?1, ?2, ?3, ?4)",
        params![
            table.name,
            table.role.as_str(),
            table.singular,
            table.plural
        ],
    )?;
    let mut stmt = tx.prepare(
        "INSERT INTO fabula_columns (table_name, column_name, position, sql_type, role, nullable,
         refers_to, derived_from, label) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (pos, c) in table.columns.iter().enumerate() {
        stmt.execute(params![
            table.name,
            c.name,
            pos as i64,
            c.sql_type.as_str(),
            c.role.as_str(),
            c.nullable as i64,
            c.references,
            c.derived,
            c.label
        ])?;
    }
    Ok(())
}

fn to_sql(v: &Value) -> rusqlite::types::Value {
    match v {
        Value::Int(i) => rusqlite::types::Value::Integer(*i),
        Value::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Value::Null => rusqlite::types::Value::Null,
    }
}

fn write_rows(tx: &Transaction<'_>, table: &Table, rows: &[Vec<Value>]) -> rusqlite::Result<()> {
    let placeholders = vec!["?"; table.columns.len()].join(", ");
    let mut stmt = tx.prepare(&format!(
        "INSERT INTO {} VALUES ({placeholders})",
        table.name
    ))?;
    for row in rows {
        stmt.execute(rusqlite::params_from_iter(row.iter().map(to_sql)))?;
    }
    Ok(())
}

fn write_pages(tx: &Transaction<'_>, pages: &[Page]) -> rusqlite::Result<()> {
    let mut page_stmt = tx.prepare(
        "INSERT INTO fabula_pages (id, url, title, kind, published, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut fact_stmt = tx.prepare(
        "INSERT OR IGNORE INTO fabula_page_facts (page_id, table_name, row_id, column_name, shown, value_kind)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (i, page) in pages.iter().enumerate() {
        let id = i as i64 + 1;
        page_stmt.execute(params![
            id,
            page.url,
            page.title,
            page.kind.as_str(),
            page.published,
            page.body
        ])?;
        for f in &page.facts {
            fact_stmt.execute(params![
                id,
                f.table,
                f.row_id,
                f.column,
                f.shown,
                f.value_kind.as_str()
            ])?;
        }
    }
    Ok(())
}

fn write_tasks(tx: &Transaction<'_>, tasks: &[Task]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare(
        "INSERT INTO fabula_tasks (id, kind, question, answer, evidence, hops, sql, tier, effort)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for t in tasks {
        stmt.execute(params![
            t.id,
            t.kind.as_str(),
            t.question,
            t.answer,
            t.evidence,
            t.hops,
            t.sql,
            t.tier.as_str(),
            t.effort
                .map(|e| serde_json::to_string(&e).expect("an effort serialises"))
        ])?;
    }
    Ok(())
}
