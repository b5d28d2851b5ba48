//! `fabula check`: verifies a dataset directory by re-reading every world file.
//!
//! The checks read only the files, through [`fabula_file::WorldFile`]: the roles of tables and
//! columns, the metadata, the pages, their facts and the tasks come from its typed rows, the rules
//! are SQL over the domain tables, and nothing calls the generator. Each violation names its world,
//! table, row and rule, so a corrupt copy says exactly what is wrong. The domain rules live here,
//! the time rules in `time`, the plausibility rules (the theme's limits on people, ratios) in
//! `plausible`, the page rules in `pages` and the task rules in `tasks` (with the threshold
//! rule in `threshold`).
//!
//! The crate links no generator crate: every rule it shares with the generator is re-derived
//! here, so a bug in a generator helper shows as a violation instead of passing both. Its own
//! are the number formatting (`numbers`), the blocklist matching (`blocklist`, over the shared
//! data file), what an answer is and what a page must state ([`answer`]), which questions are
//! frontier ones ([`frontier`]), the counted clues of a frontier question ([`search_space`],
//! which `fabula audit` uses too) and the numbers a dataset promises ([`contract`]).

pub mod answer;
mod blocklist;
pub mod contract;
pub mod frontier;
mod glossary;
mod numbers;
mod pages;
mod plausible;
pub mod search_space;
mod tasks;
mod threshold;
mod time;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fabula_file::{ColumnRole, Table, TableRole};
use rayon::prelude::*;
use rusqlite::Connection;

use fabula_file::{META_KEYS, Manifest, WorldFile};

/// An error that stops a whole check (a broken rule is a [`Violation`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The manifest cannot be read.
    #[error(transparent)]
    Manifest(#[from] fabula_file::Error),
    /// The worker threads could not start.
    #[error("cannot start {jobs} worker threads: {source}")]
    Threads {
        jobs: usize,
        source: rayon::ThreadPoolBuildError,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub world: String,
    pub table: String,
    pub row: Option<i64>,
    pub rule: String,
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let row = self.row.map_or(String::new(), |r| format!(" row {r}"));
        write!(
            f,
            "{} {}{}: [{}] {}",
            self.world, self.table, row, self.rule, self.detail
        )
    }
}

/// The outcome of checking a directory.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub worlds: usize,
    pub rows: usize,
    pub violations: Vec<Violation>,
}

impl Report {
    /// Violation counts by rule, in rule order.
    pub fn by_rule(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for v in &self.violations {
            *counts.entry(v.rule.clone()).or_insert(0) += 1;
        }
        counts
    }
}

/// Builds a violation.
pub fn violation(
    world: &str,
    table: &str,
    row: Option<i64>,
    rule: &str,
    detail: &str,
) -> Violation {
    Violation {
        world: world.into(),
        table: table.into(),
        row,
        rule: rule.into(),
        detail: detail.into(),
    }
}

/// Checks every world of a directory against its manifest.
pub fn check_dir(dir: &Path, jobs: usize) -> Result<Report> {
    let manifest = fabula_file::read_manifest(dir)?;
    let files = manifest_files(dir, &manifest);
    let results = parallel_map(&files, jobs, |(path, name, sha)| {
        check_file(path, name, sha.as_deref())
    })?;
    let mut report = Report::default();
    for (rows, violations) in results {
        report.worlds += 1;
        report.rows += rows;
        report.violations.extend(violations);
    }
    report.violations.sort();
    Ok(report)
}

fn manifest_files(dir: &Path, manifest: &Manifest) -> Vec<(PathBuf, String, Option<String>)> {
    manifest
        .worlds
        .iter()
        .map(|w| (dir.join(&w.file), w.file.clone(), Some(w.sha256.clone())))
        .collect()
}

/// Checks one world file that the manifest lists as `name`: that it exists and has the listed
/// hash, then every rule. Returns its domain row count and violations.
fn check_file(path: &Path, name: &str, sha: Option<&str>) -> (usize, Vec<Violation>) {
    let mut out = Vec::new();
    if !path.exists() {
        let detail = "listed in the manifest but absent";
        out.push(violation(name, "-", None, "manifest.missing", detail));
        return (0, out);
    }
    if let Some(sha) = sha {
        match fabula_file::sha256_file(path) {
            Ok(actual) if actual == sha => {}
            Ok(actual) => {
                let detail = format!("sha256 {actual} != manifest {sha}");
                out.push(violation(name, "-", None, "manifest.hash", &detail));
            }
            Err(e) => out.push(violation(name, "-", None, "manifest.hash", &e.to_string())),
        }
    }
    let rows = match WorldFile::open(path) {
        Ok(file) => {
            let rows = check_world(&file, &mut out);
            tasks::check_tasks(&file, name, &mut out);
            rows
        }
        Err(e) => {
            out.push(violation(name, "-", None, "format", &e.to_string()));
            0
        }
    };
    (rows, out)
}

/// Maps items on a pool of `jobs` threads, keeping the input order.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Result<Vec<R>> {
    let jobs = jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|source| Error::Threads { jobs, source })?;
    Ok(pool.install(|| items.par_iter().map(&f).collect()))
}

/// The domain tables of a world file with their roles, as `fabula_tables` and `fabula_columns`
/// declare them.
struct Roles {
    /// Every declared table, in name order.
    tables: Vec<Table>,
    /// The table of each role (the last by name when several share one), by the role's name.
    by_role: BTreeMap<&'static str, usize>,
}

impl Roles {
    fn new(tables: Vec<Table>) -> Roles {
        let by_role = tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.role.as_str(), i))
            .collect();
        Roles { tables, by_role }
    }

    /// The table of a role, if the world has one.
    fn table(&self, role: TableRole) -> Option<&Table> {
        self.by_role.get(role.as_str()).map(|&i| &self.tables[i])
    }

    /// One table per role, in the order of the roles' names.
    fn by_role_name(&self) -> impl Iterator<Item = &Table> {
        self.by_role.values().map(|&i| &self.tables[i])
    }
}

/// One world file under check: its name in violations, its connection and its roles.
struct Checked<'a> {
    world: &'a str,
    conn: &'a Connection,
    roles: Roles,
}

impl Checked<'_> {
    fn violation(&self, table: &str, row: Option<i64>, rule: &str, detail: &str) -> Violation {
        violation(self.world, table, row, rule, detail)
    }

    /// The `format` violation of a rule's query that failed.
    fn query_failed(&self, e: &rusqlite::Error) -> Violation {
        self.violation("-", None, "format", &format!("query failed: {e}"))
    }
}

/// Runs every domain and page rule on one open world file; returns its domain row count.
pub fn check_world(file: &WorldFile, out: &mut Vec<Violation>) -> usize {
    let world = file
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let roles = match file.tables() {
        Ok(tables) => Roles::new(tables),
        Err(e) => {
            out.push(violation(&world, "-", None, "format", &e.to_string()));
            return 0;
        }
    };
    let w = Checked {
        world: &world,
        conn: file.connection(),
        roles,
    };
    check_integrity(&w, out);
    let present = check_meta(&w, file, out);
    let tables = match file.domain_tables() {
        Ok(tables) => tables,
        Err(e) => {
            out.push(w.violation("-", None, "format", &e.to_string()));
            return 0;
        }
    };
    let n_rows = check_sizes(&w, &tables, out);
    check_shape(&w, &tables, out);
    check_names(&w, out);
    time::check_time(&w, present, out);
    time::check_overlaps(&w, out);
    plausible::check_plausible(&w, file, present, out);
    pages::check_pages(&w, file, present, &tables, out);
    check_derived(&w, out);
    n_rows
}

/// SQLite's own integrity check, and foreign keys that point at missing rows.
fn check_integrity(w: &Checked<'_>, out: &mut Vec<Violation>) {
    match w
        .conn
        .query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
    {
        Ok(s) if s == "ok" => {}
        Ok(s) => out.push(w.violation("-", None, "integrity", &s)),
        Err(e) => out.push(w.violation("-", None, "integrity", &e.to_string())),
    }
    match fk_violations(w.conn) {
        Ok(list) => {
            for (table, row, parent) in list {
                let detail = format!("references a missing row of {parent}");
                out.push(w.violation(&table, row, "foreign_key", &detail));
            }
        }
        Err(e) => out.push(w.query_failed(&e)),
    }
}

fn fk_violations(conn: &Connection) -> rusqlite::Result<Vec<(String, Option<i64>, String)>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect()
}

/// Every metadata key is present and not empty. Returns the present year, or `i64::MAX` when the
/// file has none, so that no year counts as in the future.
fn check_meta(w: &Checked<'_>, file: &WorldFile, out: &mut Vec<Violation>) -> i64 {
    let meta = file.meta_rows().unwrap_or_default();
    for key in META_KEYS {
        if meta.get(key).is_none_or(|v| v.is_empty()) {
            let detail = format!("missing key `{key}`");
            out.push(w.violation("fabula_meta", None, "meta", &detail));
        }
    }
    meta.get("present_year")
        .and_then(|v| v.parse().ok())
        .unwrap_or(i64::MAX)
}

/// Table and row counts within bounds, and every domain table STRICT. Returns the row count.
fn check_sizes(w: &Checked<'_>, tables: &[String], out: &mut Vec<Violation>) -> usize {
    if !(6..=12).contains(&tables.len()) {
        let detail = format!("{} domain tables, want 6 to 12", tables.len());
        out.push(w.violation("-", None, "bounds.tables", &detail));
    }
    let mut n_rows = 0usize;
    for t in tables {
        let n: i64 = w
            .conn
            .query_row(&format!("SELECT count(*) FROM {}", q(t)), [], |r| r.get(0))
            .unwrap_or(0);
        n_rows += n as usize;
        let strict: i64 = w
            .conn
            .query_row(
                "SELECT strict FROM pragma_table_list WHERE name = ?1",
                [t],
                |r| r.get(0),
            )
            .unwrap_or(0);
        if strict != 1 {
            out.push(w.violation(t, None, "strict", "table is not STRICT"));
        }
    }
    if !(300..=500).contains(&n_rows) {
        let detail = format!("{n_rows} domain rows, want 300 to 500");
        out.push(w.violation("-", None, "bounds.rows", &detail));
    }
    n_rows
}

/// The foreign-key graph must have a many-to-many table and a path of 3 or more hops.
fn check_shape(w: &Checked<'_>, tables: &[String], out: &mut Vec<Violation>) {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut link_tables = 0;
    for t in tables {
        let parents: BTreeSet<String> = foreign_keys(w.conn, t)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, parent)| parent)
            .collect();
        if !has_name_column(w.conn, t) && parents.len() >= 2 {
            link_tables += 1;
        }
        edges.entry(t.clone()).or_default().extend(parents);
    }
    if link_tables == 0 {
        let detail = "no many-to-many link table";
        out.push(w.violation("-", None, "shape.link_table", detail));
    }
    let longest = tables
        .iter()
        .map(|t| longest_path(&edges, t, &mut BTreeSet::new()))
        .max()
        .unwrap_or(0);
    if longest < 3 {
        let detail = format!("longest foreign-key path has {longest} hops, want 3");
        out.push(w.violation("-", None, "shape.fk_path", &detail));
    }
}

/// The foreign keys of a table as (column, parent table).
fn foreign_keys(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let sql = format!(
        "SELECT \"from\", \"table\" FROM pragma_foreign_key_list({})",
        sql_str(table)
    );
    let mut stmt = conn.prepare(&sql)?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

fn has_name_column(conn: &Connection, table: &str) -> bool {
    let sql = format!(
        "SELECT count(*) FROM pragma_table_info({}) WHERE name = 'name'",
        sql_str(table)
    );
    conn.query_row(&sql, [], |r| r.get::<_, i64>(0))
        .unwrap_or(0)
        > 0
}

fn longest_path(
    edges: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    seen: &mut BTreeSet<String>,
) -> usize {
    if !seen.insert(from.to_string()) {
        return 0;
    }
    let best = edges
        .get(from)
        .map(|next| {
            next.iter()
                .filter(|n| n.as_str() != from)
                .map(|n| {
                    if seen.contains(n) {
                        0
                    } else {
                        1 + longest_path(edges, n, seen)
                    }
                })
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0);
    seen.remove(from);
    best
}

/// Names are unique across the world (folded) and never real.
fn check_names(w: &Checked<'_>, out: &mut Vec<Violation>) {
    let mut seen: BTreeMap<String, (String, i64)> = BTreeMap::new();
    for table in w.roles.by_role_name() {
        let Some(name_col) = table.get(ColumnRole::Name) else {
            continue;
        };
        let sql = format!(
            "SELECT id, {} FROM {} ORDER BY id",
            q(&name_col.name),
            q(&table.name)
        );
        let rows: Vec<(i64, String)> = match w.conn.prepare(&sql).and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        }) {
            Ok(rows) => rows,
            Err(e) => {
                out.push(w.query_failed(&e));
                continue;
            }
        };
        for (id, name) in rows {
            let t = table.name.as_str();
            let folded = blocklist::folded(&name);
            if let Some((t2, id2)) = seen.get(&folded) {
                let detail = format!("`{name}` also names {t2} row {id2}");
                out.push(w.violation(t, Some(id), "name.unique", &detail));
            } else {
                seen.insert(folded, (table.name.clone(), id));
            }
            if blocklist::is_real(&name) {
                let detail = format!("`{name}` is a real-world name");
                out.push(w.violation(t, Some(id), "name.blocklist", &detail));
            }
        }
    }
}

/// Derived values equal their sources.
fn check_derived(w: &Checked<'_>, out: &mut Vec<Violation>) {
    for table in &w.roles.tables {
        for column in &table.columns {
            let Some(rule) = &column.derived else {
                continue;
            };
            // A ratio bounds a value rather than fixing it; `plausible` checks it.
            if rule.starts_with("ratio:") {
                continue;
            }
            let (t, c) = (table.name.as_str(), column.name.as_str());
            match derived_sql(w.conn, t, c, rule).map(|sql| ids_of(w.conn, &sql)) {
                Some(Ok(ids)) => {
                    for id in ids {
                        let detail = format!("{c} differs from {rule}");
                        out.push(w.violation(t, Some(id), "derived", &detail));
                    }
                }
                Some(Err(e)) => out.push(w.query_failed(&e)),
                None => {
                    let detail = format!("cannot read rule `{rule}`");
                    out.push(w.violation(t, None, "derived", &detail));
                }
            }
        }
    }
}

/// SQL returning the ids of rows whose derived column differs from its source.
fn derived_sql(conn: &Connection, table: &str, column: &str, rule: &str) -> Option<String> {
    let (kind, source) = rule.split_once(':')?;
    let fk_to = |child: &str| -> Option<String> {
        let sql = format!(
            "SELECT \"from\" FROM pragma_foreign_key_list({}) WHERE \"table\" = {}",
            sql_str(child),
            sql_str(table)
        );
        conn.query_row(&sql, [], |r| r.get::<_, String>(0)).ok()
    };
    let (t, c) = (q(table), q(column));
    match kind {
        "sum" => {
            let (child, child_col) = source.split_once('.')?;
            let link = q(&fk_to(child)?);
            Some(format!(
                "SELECT t.id FROM {t} t WHERE t.{c} IS NOT (SELECT COALESCE(SUM(c.{}), 0) FROM {} c WHERE c.{link} = t.id)",
                q(child_col),
                q(child),
            ))
        }
        "count" => {
            let link = q(&fk_to(source)?);
            Some(format!(
                "SELECT t.id FROM {t} t WHERE t.{c} IS NOT (SELECT count(*) FROM {} c WHERE c.{link} = t.id)",
                q(source),
            ))
        }
        _ => None,
    }
}

/// The ids a rule's query returns: the offending rows.
fn ids_of(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare(sql)?;
    stmt.query_map([], |r| r.get(0))?.collect()
}

/// An SQL identifier, quoted.
fn q(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// An SQL string literal.
fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests;
