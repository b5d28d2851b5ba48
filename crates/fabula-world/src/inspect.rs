//! `fabula inspect`: a readable overview of one world file.

use std::fmt::Write;
use std::path::Path;

use rusqlite::types::ValueRef;

use crate::Result;
use crate::check::WorldFile;

/// Renders the overview: name and theme, tables with row counts and relations, sample entities.
pub fn inspect(path: &Path, samples: usize) -> Result<String> {
    let wf = WorldFile::open(path)?;
    let mut out = String::new();
    let meta = |k: &str| wf.meta(k).unwrap_or_else(|| "?".into());
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
    writeln!(out).ok();
    writeln!(out, "Tables:").ok();
    let roles: Vec<(String, String)> = wf
        .tables
        .iter()
        .map(|(r, t)| (r.clone(), t.clone()))
        .collect();
    for t in wf.domain_tables()? {
        let n: i64 = wf
            .conn
            .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))?;
        let role = roles
            .iter()
            .find(|(_, name)| *name == t)
            .map_or("?", |(r, _)| r.as_str());
        let mut stmt = wf.conn.prepare(&format!(
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
    for (key, label) in [("n_pages", "pages"), ("n_tasks", "tasks")] {
        let table = if key == "n_pages" {
            "fabula_pages"
        } else {
            "fabula_tasks"
        };
        if let Ok(n) = wf
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
                r.get::<_, i64>(0)
            })
        {
            writeln!(out, "  {label:<28} {n:>4}").ok();
        }
    }
    writeln!(out).ok();
    writeln!(out, "Sample entities:").ok();
    for role in ["organisation", "person", "settlement"] {
        let Some(table) = wf.table(role) else {
            continue;
        };
        let mut stmt = wf.conn.prepare(&format!(
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
    }
    Ok(out)
}
