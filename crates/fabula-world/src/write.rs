//! Writing a world, its pages and its tasks into one SQLite file.
//!
//! The file is self-describing: besides the domain tables it holds `fabula_meta` (ids, seeds,
//! versions), `fabula_tables` and `fabula_columns` (the role of every table and column), the pages
//! with their provenance, and the tasks. Writing goes through one transaction with the journal off,
//! because the caller writes to a temporary path and renames the finished file into place.

use std::path::Path;

use rusqlite::{Connection, params};

use crate::model::World;
use crate::records::{PageRecord, TaskRecord};
use crate::schema::{self, TableRole, Value};
use crate::{FORMAT_VERSION, GENERATOR_VERSION, Result};

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
  evidence TEXT NOT NULL, hops INTEGER NOT NULL, sql TEXT NOT NULL
) STRICT;
";

/// The metadata rows of a world, in key order.
pub fn meta_rows(world: &World) -> Vec<(&'static str, String)> {
    vec![
        ("earliest_year", world.earliest_year.to_string()),
        ("format_version", FORMAT_VERSION.to_string()),
        ("generator_version", GENERATOR_VERSION.to_string()),
        ("master_seed", world.master_seed.to_string()),
        ("name", world.name.clone()),
        ("present_year", world.present_year.to_string()),
        ("theme", world.theme.id.clone()),
        ("theme_label", world.theme.label.clone()),
        ("world_id", world.id.to_string()),
        ("world_seed", world.world_seed.to_string()),
    ]
}

fn to_sql(v: &Value) -> rusqlite::types::Value {
    match v {
        Value::Int(i) => rusqlite::types::Value::Integer(*i),
        Value::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Value::Null => rusqlite::types::Value::Null,
    }
}

/// Writes a complete world file at `path`, which must not exist yet.
pub fn write_world(
    path: &Path,
    world: &World,
    pages: &[PageRecord],
    tasks: &[TaskRecord],
) -> Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(
        "PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         PRAGMA foreign_keys = ON;",
    )?;
    let tx = conn.transaction()?;
    tx.execute_batch(FIXED_TABLES)?;
    {
        let mut stmt = tx.prepare("INSERT INTO fabula_meta (key, value) VALUES (?1, ?2)")?;
        for (key, value) in meta_rows(world) {
            stmt.execute(params![key, value])?;
        }
    }
    let layout = schema::layout(world);
    for table in &layout.tables {
        tx.execute_batch(&table.create_sql())?;
        tx.execute(
            "INSERT INTO fabula_tables (table_name, role, singular, plural) VALUES (?1, ?2, ?3, ?4)",
            params![table.name, table.role.as_str(), table.singular, table.plural],
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
                c.role,
                c.nullable as i64,
                c.references,
                c.derived,
                c.label
            ])?;
        }
    }
    // Rows go in after every table exists, parents first, so foreign keys hold at each insert.
    for role in TableRole::ALL {
        let Some(table) = layout.get(role) else {
            continue;
        };
        let placeholders = vec!["?"; table.columns.len()].join(", ");
        let mut stmt = tx.prepare(&format!(
            "INSERT INTO {} VALUES ({placeholders})",
            table.name
        ))?;
        for row in schema::table_rows(world, role) {
            stmt.execute(rusqlite::params_from_iter(row.iter().map(to_sql)))?;
        }
    }
    {
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
                page.kind,
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
        let mut task_stmt = tx.prepare(
            "INSERT INTO fabula_tasks (id, kind, question, answer, evidence, hops, sql)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for t in tasks {
            task_stmt.execute(params![
                t.id, t.kind, t.question, t.answer, t.evidence, t.hops, t.sql
            ])?;
        }
    }
    tx.commit()?;
    conn.close().map_err(|(_, e)| e)?;
    Ok(())
}
