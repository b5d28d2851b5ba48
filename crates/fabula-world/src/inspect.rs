//! `fabula inspect`: a readable overview of one world file.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use fabula_file::{Table, TableRole, WorldFile};
use rusqlite::types::ValueRef;

use crate::Result;

/// Renders the overview: name and theme, tables with row counts and relations, sample entities.
pub fn inspect(path: &Path, samples: usize) -> Result<String> {
    let file = WorldFile::open(path)?;
    let tables = file.tables()?;
    let mut out = String::new();
    write_header(&mut out, &file.meta_rows().unwrap_or_default());
    writeln!(out).ok();
    writeln!(out, "Tables:").ok();
    write_tables(&mut out, &file, &tables)?;
    write_counts(&mut out, &file);
    writeln!(out).ok();
    writeln!(out, "Sample entities:").ok();
    for role in [
        TableRole::Organisation,
        TableRole::Person,
        TableRole::Settlement,
    ] {
        // When several tables share a role, the last by name stands for it.
        if let Some(table) = tables.iter().rev().find(|t| t.role == role) {
            write_samples(&mut out, &file, &table.name, samples)?;
        }
    }
    Ok(out)
}

/// The world's name, id, theme, present year, seeds and generator.
fn write_header(out: &mut String, meta: &BTreeMap<String, String>) {
    let meta = |k: &str| meta.get(k).map_or("?", String::as_str);
    writeln!(
        out,
        "{}  (world {}, theme {}, present year {})",
        meta("name"),
        meta("world_id"),
        meta("theme"),
        meta("present_year")
    )
    .ok();
    writeln!(
        out,
        "seed {} / world seed {}, generator {}",
        meta("master_seed"),
        meta("world_seed"),
        meta("generator_version")
    )
    .ok();
}

/// One line per domain table: its row count, role and foreign keys.
fn write_tables(out: &mut String, file: &WorldFile, tables: &[Table]) -> Result<()> {
    let conn = file.connection();
    for t in file.domain_tables()? {
        let n: i64 = conn.query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))?;
        let role = tables
            .iter()
            .rev()
            .find(|table| table.name == t)
            .map_or("?", |table| table.role.as_str());
        let mut stmt = conn.prepare(&format!(
            "SELECT \"from\", \"table\" FROM pragma_foreign_key_list('{t}') ORDER BY id"
        ))?;
        let fks: Vec<String> = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{} -> {}",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let rel = if fks.is_empty() {
            String::new()
        } else {
            format!("  [{}]", fks.join(", "))
        };
        writeln!(out, "  {t:<28} {n:>4} rows  ({role}){rel}").ok();
    }
    Ok(())
}

/// The number of pages and tasks, each when the file's rows of it can be read.
fn write_counts(out: &mut String, file: &WorldFile) {
    if let Ok(pages) = file.pages() {
        writeln!(out, "  {:<28} {:>4}", "pages", pages.len()).ok();
    }
    if let Ok(tasks) = file.tasks() {
        writeln!(out, "  {:<28} {:>4}", "tasks", tasks.len()).ok();
    }
}

/// The first `samples` rows of a table, each as its name and its other cells.
fn write_samples(out: &mut String, file: &WorldFile, table: &str, samples: usize) -> Result<()> {
    let mut stmt = file.connection().prepare(&format!(
        "SELECT * FROM \"{table}\" ORDER BY id LIMIT {samples}"
    ))?;
    let names: Vec<String> = stmt
        .column_names()
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let mut facts = Vec::new();
        let mut title = String::new();
        for (i, col) in names.iter().enumerate() {
            let value = match row.get_ref(i)? {
                ValueRef::Null => "-".to_string(),
                ValueRef::Integer(v) => v.to_string(),
                ValueRef::Real(v) => v.to_string(),
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                ValueRef::Blob(_) => "<blob>".to_string(),
            };
            if col == "name" {
                title = value;
            } else if col != "id" {
                facts.push(format!("{col}={value}"));
            }
        }
        writeln!(out, "  {title} ({table}): {}", facts.join(", ")).ok();
    }
    Ok(())
}
