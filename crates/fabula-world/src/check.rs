//! `fabula check`: verifies a dataset directory by re-reading every world file.
//!
//! The checks read only the files: the roles of tables and columns come from `fabula_tables` and
//! `fabula_columns`, the rules are SQL over the domain tables, and nothing calls the generator. Each
//! violation names its world, table, row and rule, so a corrupt copy says exactly what is wrong.
//! Later stages add their own rules (pages, tasks) through [`ExtraCheck`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::dataset::{self, Manifest};
use crate::{Error, Result, blocklist};

/// The metadata keys every world file has.
pub const META_KEYS: &[&str] = &[
    "world_id",
    "name",
    "theme",
    "master_seed",
    "world_seed",
    "generator_version",
    "format_version",
    "present_year",
];

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

/// Extra rules that later stages run on each open world file.
pub trait ExtraCheck: Sync {
    fn check(&self, conn: &Connection, world: &str, out: &mut Vec<Violation>);
}

/// A world file opened for checking, with the roles of its tables and columns.
pub struct WorldFile {
    pub name: String,
    pub conn: Connection,
    /// Table role -> table name.
    pub tables: BTreeMap<String, String>,
    /// (table name, column role) -> column names, in position order.
    pub columns: BTreeMap<(String, String), Vec<String>>,
    /// Table name -> derived rules by column.
    pub derived: Vec<(String, String, String)>,
}

impl WorldFile {
    /// Opens a world file read-only.
    pub fn open(path: &Path) -> Result<WorldFile> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !path.exists() {
            return Err(Error::io(
                path,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let not_a_world = |message: &str| Error::NotAWorld {
            path: path.to_path_buf(),
            message: message.into(),
        };
        let mut tables = BTreeMap::new();
        {
            let mut stmt = conn
                .prepare("SELECT role, table_name FROM fabula_tables ORDER BY table_name")
                .map_err(|_| not_a_world("no fabula_tables"))?;
            let rows =
                stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
            for row in rows {
                let (role, table) = row?;
                tables.insert(role, table);
            }
        }
        let mut columns: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        let mut derived = Vec::new();
        {
            let mut stmt = conn
                .prepare("SELECT table_name, column_name, role, derived_from FROM fabula_columns ORDER BY table_name, position")
                .map_err(|_| not_a_world("no fabula_columns"))?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })?;
            for row in rows {
                let (table, column, role, rule) = row?;
                if let Some(rule) = rule {
                    derived.push((table.clone(), column.clone(), rule));
                }
                columns.entry((table, role)).or_default().push(column);
            }
        }
        Ok(WorldFile {
            name,
            conn,
            tables,
            columns,
            derived,
        })
    }

    /// The table of a role, if the world has one.
    pub fn table(&self, role: &str) -> Option<&str> {
        self.tables.get(role).map(String::as_str)
    }

    /// The first column of a role in a table.
    pub fn column(&self, table: &str, role: &str) -> Option<&str> {
        self.columns
            .get(&(table.to_string(), role.to_string()))
            .and_then(|c| c.first())
            .map(String::as_str)
    }

    /// A metadata value.
    pub fn meta(&self, key: &str) -> Option<String> {
        self.conn
            .query_row("SELECT value FROM fabula_meta WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .ok()
            .flatten()
    }

    /// Names of the domain tables (every table not starting with `fabula_`).
    pub fn domain_tables(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'fabula\\_%' ESCAPE '\\'
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )?;
        let names = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(names)
    }
}

fn q(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Checks every world of a directory against its manifest.
pub fn check_dir(dir: &Path, jobs: usize, extra: &[&dyn ExtraCheck]) -> Result<Report> {
    let manifest = dataset::read_manifest(dir)?;
    let mut report = Report::default();
    let files: Vec<(PathBuf, String, Option<String>)> = manifest_files(dir, &manifest);
    let results: Vec<(usize, Vec<Violation>)> = parallel_map(&files, jobs, |(path, name, sha)| {
        let mut out = Vec::new();
        if !path.exists() {
            out.push(violation(
                name,
                "-",
                None,
                "manifest.missing",
                "listed in the manifest but absent",
            ));
            return (0, out);
        }
        if let Some(sha) = sha {
            match dataset::sha256_file(path) {
                Ok(actual) if &actual == sha => {}
                Ok(actual) => out.push(violation(
                    name,
                    "-",
                    None,
                    "manifest.hash",
                    &format!("sha256 {actual} != manifest {sha}"),
                )),
                Err(e) => out.push(violation(name, "-", None, "manifest.hash", &e.to_string())),
            }
        }
        let rows = match WorldFile::open(path) {
            Ok(wf) => {
                let rows = check_world(&wf, &mut out);
                for check in extra {
                    check.check(&wf.conn, name, &mut out);
                }
                rows
            }
            Err(e) => {
                out.push(violation(name, "-", None, "format", &e.to_string()));
                0
            }
        };
        (rows, out)
    });
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

/// Maps items on `jobs` threads, keeping the input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { return };
                    *slots[i].lock().expect("lock") = Some(f(item));
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().expect("lock").expect("filled"))
        .collect()
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

/// Runs every domain rule on one open world file; returns its domain row count.
pub fn check_world(wf: &WorldFile, out: &mut Vec<Violation>) -> usize {
    let w = wf.name.as_str();
    let sql_error = |out: &mut Vec<Violation>, e: rusqlite::Error| {
        out.push(violation(
            w,
            "-",
            None,
            "format",
            &format!("query failed: {e}"),
        ));
    };

    // Integrity and foreign keys.
    match wf
        .conn
        .query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
    {
        Ok(s) if s == "ok" => {}
        Ok(s) => out.push(violation(w, "-", None, "integrity", &s)),
        Err(e) => out.push(violation(w, "-", None, "integrity", &e.to_string())),
    }
    match fk_violations(&wf.conn) {
        Ok(list) => {
            for (table, row, parent) in list {
                out.push(violation(
                    w,
                    &table,
                    row,
                    "foreign_key",
                    &format!("references a missing row of {parent}"),
                ));
            }
        }
        Err(e) => sql_error(out, e),
    }

    // Metadata.
    for key in META_KEYS {
        if wf.meta(key).is_none_or(|v| v.is_empty()) {
            out.push(violation(
                w,
                "fabula_meta",
                None,
                "meta",
                &format!("missing key `{key}`"),
            ));
        }
    }
    let present: i64 = wf
        .meta("present_year")
        .and_then(|v| v.parse().ok())
        .unwrap_or(i64::MAX);

    // Table and row bounds, strictness, shape.
    let tables = match wf.domain_tables() {
        Ok(t) => t,
        Err(e) => {
            out.push(violation(w, "-", None, "format", &e.to_string()));
            return 0;
        }
    };
    if !(6..=10).contains(&tables.len()) {
        out.push(violation(
            w,
            "-",
            None,
            "bounds.tables",
            &format!("{} domain tables, want 6 to 10", tables.len()),
        ));
    }
    let mut n_rows = 0usize;
    for t in &tables {
        let n: i64 = wf
            .conn
            .query_row(&format!("SELECT count(*) FROM {}", q(t)), [], |r| r.get(0))
            .unwrap_or(0);
        n_rows += n as usize;
        let strict: i64 = wf
            .conn
            .query_row(
                "SELECT strict FROM pragma_table_list WHERE name = ?1",
                [t],
                |r| r.get(0),
            )
            .unwrap_or(0);
        if strict != 1 {
            out.push(violation(w, t, None, "strict", "table is not STRICT"));
        }
    }
    if !(300..=500).contains(&n_rows) {
        out.push(violation(
            w,
            "-",
            None,
            "bounds.rows",
            &format!("{n_rows} domain rows, want 300 to 500"),
        ));
    }
    check_shape(wf, &tables, out);

    // Names: unique across the world and never real.
    let mut seen: BTreeMap<String, (String, i64)> = BTreeMap::new();
    for table in wf.tables.values() {
        let Some(name_col) = wf.column(table, "name") else {
            continue;
        };
        let sql = format!("SELECT id, {} FROM {} ORDER BY id", q(name_col), q(table));
        let rows: Vec<(i64, String)> = match wf.conn.prepare(&sql).and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        }) {
            Ok(rows) => rows,
            Err(e) => {
                sql_error(out, e);
                continue;
            }
        };
        for (id, name) in rows {
            let folded = blocklist::fold(&name);
            if let Some((t2, id2)) = seen.get(&folded) {
                out.push(violation(
                    w,
                    table,
                    Some(id),
                    "name.unique",
                    &format!("`{name}` also names {t2} row {id2}"),
                ));
            } else {
                seen.insert(folded, (table.clone(), id));
            }
            if blocklist::is_blocked(&name) || name.split_whitespace().any(blocklist::is_blocked) {
                out.push(violation(
                    w,
                    table,
                    Some(id),
                    "name.blocklist",
                    &format!("`{name}` is a real-world name"),
                ));
            }
        }
    }

    // Time order and ranges.
    for rule in time_rules(wf, present) {
        match rows_of(&wf.conn, &rule.sql) {
            Ok(ids) => {
                for id in ids {
                    out.push(violation(w, &rule.table, Some(id), rule.rule, rule.detail));
                }
            }
            Err(e) => sql_error(out, e),
        }
    }
    check_overlaps(wf, out);
    check_pages(wf, present, out);

    // Derived values equal their sources.
    for (table, column, rule) in &wf.derived {
        let sql = derived_sql(wf, table, column, rule);
        match sql.map(|sql| rows_of(&wf.conn, &sql)) {
            Some(Ok(ids)) => {
                for id in ids {
                    out.push(violation(
                        w,
                        table,
                        Some(id),
                        "derived",
                        &format!("{column} differs from {rule}"),
                    ));
                }
            }
            Some(Err(e)) => sql_error(out, e),
            None => out.push(violation(
                w,
                table,
                None,
                "derived",
                &format!("cannot read rule `{rule}`"),
            )),
        }
    }
    n_rows
}

fn rows_of(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare(sql)?;
    stmt.query_map([], |r| r.get(0))?.collect()
}

fn fk_violations(conn: &Connection) -> rusqlite::Result<Vec<(String, Option<i64>, String)>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect()
}

/// The foreign-key graph must have a many-to-many table and a path of 3 or more hops.
fn check_shape(wf: &WorldFile, tables: &[String], out: &mut Vec<Violation>) {
    let w = wf.name.as_str();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut link_tables = 0;
    for t in tables {
        let parents: Vec<String> = wf
            .conn
            .prepare(&format!(
                "SELECT \"table\" FROM pragma_foreign_key_list({})",
                sql_str(t)
            ))
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .unwrap_or_default();
        let has_name = wf
            .conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM pragma_table_info({}) WHERE name = 'name'",
                    sql_str(t)
                ),
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_or(0)
            > 0;
        let distinct: BTreeSet<String> = parents.iter().cloned().collect();
        if !has_name && distinct.len() >= 2 {
            link_tables += 1;
        }
        edges.entry(t.clone()).or_default().extend(distinct);
    }
    if link_tables == 0 {
        out.push(violation(
            w,
            "-",
            None,
            "shape.link_table",
            "no many-to-many link table",
        ));
    }
    let longest = tables
        .iter()
        .map(|t| longest_path(&edges, t, &mut BTreeSet::new()))
        .max()
        .unwrap_or(0);
    if longest < 3 {
        out.push(violation(
            w,
            "-",
            None,
            "shape.fk_path",
            &format!("longest foreign-key path has {longest} hops, want 3"),
        ));
    }
}

fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
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

struct TimeRule {
    table: String,
    rule: &'static str,
    detail: &'static str,
    /// Returns the ids of the offending rows.
    sql: String,
}

/// The time order and range rules, as SQL over the roles the file declares.
fn time_rules(wf: &WorldFile, present: i64) -> Vec<TimeRule> {
    let mut rules = Vec::new();
    let mut add = |table: &str, rule: &'static str, detail: &'static str, sql: String| {
        rules.push(TimeRule {
            table: table.to_string(),
            rule,
            detail,
            sql,
        });
    };
    // Nothing happens after the present year, or absurdly long before it.
    for ((table, role), cols) in &wf.columns {
        if [
            "founded",
            "birth_year",
            "death_year",
            "joined",
            "start_year",
            "end_year",
            "year",
        ]
        .contains(&role.as_str())
        {
            for c in cols {
                add(
                    table,
                    "time.future",
                    "a year lies after present_year",
                    format!("SELECT id FROM {} WHERE {} > {present}", q(table), q(c)),
                );
                add(
                    table,
                    "range.year",
                    "a year lies over 2,000 years before present_year",
                    format!(
                        "SELECT id FROM {} WHERE {} < {}",
                        q(table),
                        q(c),
                        present - 2000
                    ),
                );
            }
        }
        match role.as_str() {
            "population" => add(
                table,
                "range.population",
                "population outside 1..=100,000,000",
                format!(
                    "SELECT id FROM {} WHERE {c} < 1 OR {c} > 100000000",
                    q(table),
                    c = q(&cols[0])
                ),
            ),
            "extra" => {
                for c in cols {
                    add(
                        table,
                        "range.extra",
                        "negative count or amount",
                        format!("SELECT id FROM {} WHERE {} < 0", q(table), q(c)),
                    );
                }
            }
            "result" => add(
                table,
                "range.result",
                "placing below 1",
                format!("SELECT id FROM {} WHERE {} < 1", q(table), q(&cols[0])),
            ),
            _ => {}
        }
    }
    let col = |t: &str, r: &str| wf.column(t, r).map(q);
    let (Some(person), Some(settlement), Some(org)) = (
        wf.table("person"),
        wf.table("settlement"),
        wf.table("organisation"),
    ) else {
        return rules;
    };
    let (pt, st, ot) = (q(person), q(settlement), q(org));
    if let (Some(birth), Some(death), Some(place), Some(sfounded)) = (
        col(person, "birth_year"),
        col(person, "death_year"),
        col(person, "birthplace"),
        col(settlement, "founded"),
    ) {
        add(
            person,
            "time.order",
            "died before being born, or lived over 110 years",
            format!(
                "SELECT id FROM {pt} WHERE {death} IS NOT NULL AND ({death} < {birth} OR {death} - {birth} > 110)"
            ),
        );
        add(
            person,
            "time.order",
            "still alive at over 110 years",
            format!("SELECT id FROM {pt} WHERE {death} IS NULL AND {present} - {birth} > 110"),
        );
        add(
            person,
            "time.birthplace",
            "born before the birthplace was founded",
            format!(
                "SELECT p.id FROM {pt} p JOIN {st} s ON s.id = p.{place} WHERE p.{birth} < s.{sfounded}"
            ),
        );
        if let (Some(founder), Some(founded), Some(home)) =
            (col(org, "founder"), col(org, "founded"), col(org, "home"))
        {
            add(org, "time.founder", "founder not an adult or not alive at the founding",
                format!("SELECT o.id FROM {ot} o JOIN {pt} p ON p.id = o.{founder}
                         WHERE o.{founded} < p.{birth} + 18 OR (p.{death} IS NOT NULL AND o.{founded} > p.{death})"));
            add(
                org,
                "time.founded",
                "founded before its home settlement",
                format!(
                    "SELECT o.id FROM {ot} o JOIN {st} s ON s.id = o.{home} WHERE o.{founded} < s.{sfounded}"
                ),
            );
            if let Some(m) = wf.table("membership")
                && let (Some(mp), Some(mo), Some(joined)) =
                    (col(m, "person"), col(m, "organisation"), col(m, "joined"))
            {
                add(m, "time.membership", "joined before the founding, as a child, or after death",
                        format!("SELECT m.id FROM {} m JOIN {ot} o ON o.id = m.{mo} JOIN {pt} p ON p.id = m.{mp}
                                 WHERE m.{joined} < o.{founded} OR m.{joined} < p.{birth} + 14
                                 OR (p.{death} IS NOT NULL AND m.{joined} > p.{death})", q(m)));
            }
            if let Some(t) = wf.table("tenure")
                && let (Some(tp), Some(to), Some(start), Some(end)) = (
                    col(t, "person"),
                    col(t, "organisation"),
                    col(t, "start_year"),
                    col(t, "end_year"),
                )
            {
                add(t, "time.tenure", "term starts before the founding, with a minor or dead holder, or ends after death",
                        format!("SELECT t.id FROM {} t JOIN {ot} o ON o.id = t.{to} JOIN {pt} p ON p.id = t.{tp}
                                 WHERE t.{start} < o.{founded} OR t.{start} < p.{birth} + 18
                                 OR (p.{death} IS NOT NULL AND (t.{start} > p.{death} OR t.{end} IS NULL OR t.{end} > p.{death}))", q(t)));
                add(
                    t,
                    "time.order",
                    "term ends before it starts",
                    format!("SELECT id FROM {} WHERE {end} < {start}", q(t)),
                );
            }
            if let Some(wt) = wf.table("work")
                && let (Some(wo), Some(year)) = (col(wt, "organisation"), col(wt, "year"))
            {
                add(
                    wt,
                    "time.work",
                    "made before its maker was founded",
                    format!(
                        "SELECT w.id FROM {} w JOIN {ot} o ON o.id = w.{wo} WHERE w.{year} < o.{founded}",
                        q(wt)
                    ),
                );
            }
            if let (Some(et), Some(pt2)) = (wf.table("event"), wf.table("participation"))
                && let (Some(year), Some(host), Some(pe), Some(po)) = (
                    col(et, "year"),
                    col(et, "host"),
                    col(pt2, "event"),
                    col(pt2, "organisation"),
                )
            {
                add(
                    et,
                    "time.event",
                    "held before its host settlement was founded",
                    format!(
                        "SELECT e.id FROM {} e JOIN {st} s ON s.id = e.{host} WHERE e.{year} < s.{sfounded}",
                        q(et)
                    ),
                );
                add(
                    pt2,
                    "time.participation",
                    "took part before being founded",
                    format!(
                        "SELECT x.id FROM {} x JOIN {} e ON e.id = x.{pe} JOIN {ot} o ON o.id = x.{po} WHERE e.{year} < o.{founded}",
                        q(pt2),
                        q(et)
                    ),
                );
            }
            if let (Some(at), Some(amt)) = (wf.table("alliance"), wf.table("alliance_membership"))
                && let (Some(afounded), Some(seat), Some(ma), Some(mo), Some(start), Some(end)) = (
                    col(at, "founded"),
                    col(at, "home"),
                    col(amt, "alliance"),
                    col(amt, "organisation"),
                    col(amt, "start_year"),
                    col(amt, "end_year"),
                )
            {
                add(
                    at,
                    "time.founded",
                    "founded before its seat settlement",
                    format!(
                        "SELECT a.id FROM {} a JOIN {st} s ON s.id = a.{seat} WHERE a.{afounded} < s.{sfounded}",
                        q(at)
                    ),
                );
                add(amt, "time.alliance_membership", "joined before the founding of either side, or ended before starting",
                        format!("SELECT m.id FROM {} m JOIN {} a ON a.id = m.{ma} JOIN {ot} o ON o.id = m.{mo}
                                 WHERE m.{start} < a.{afounded} OR m.{start} < o.{founded} OR m.{end} < m.{start}", q(amt), q(at)));
            }
        }
    }
    rules
}

/// Terms of one seat, and one organisation's alliance memberships, must not overlap.
fn check_overlaps(wf: &WorldFile, out: &mut Vec<Violation>) {
    let w = wf.name.as_str();
    let pairs = [
        ("tenure", &["organisation", "seat"][..]),
        ("alliance_membership", &["organisation"][..]),
    ];
    for (role, keys) in pairs {
        let Some(t) = wf.table(role) else { continue };
        let cols: Option<Vec<String>> = keys.iter().map(|k| wf.column(t, k).map(q)).collect();
        let (Some(cols), Some(start), Some(end)) = (
            cols,
            wf.column(t, "start_year").map(q),
            wf.column(t, "end_year").map(q),
        ) else {
            continue;
        };
        let same = cols
            .iter()
            .map(|c| format!("a.{c} = b.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let sql = format!(
            "SELECT DISTINCT b.id FROM {t} a JOIN {t} b ON {same} AND a.id < b.id
             WHERE b.{start} < COALESCE(a.{end}, 1e18) AND a.{start} < COALESCE(b.{end}, 1e18)
             ORDER BY b.id",
            t = q(t)
        );
        match rows_of(&wf.conn, &sql) {
            Ok(ids) => {
                for id in ids {
                    out.push(violation(
                        w,
                        t,
                        Some(id),
                        "time.overlap",
                        "overlaps another term of the same seat",
                    ));
                }
            }
            Err(e) => out.push(violation(w, t, None, "format", &e.to_string())),
        }
    }
}

/// SQL returning the ids of rows whose derived column differs from its source.
fn derived_sql(wf: &WorldFile, table: &str, column: &str, rule: &str) -> Option<String> {
    let (kind, source) = rule.split_once(':')?;
    let fk_to = |child: &str| -> Option<String> {
        let mut stmt = wf
            .conn
            .prepare(&format!(
                "SELECT \"from\" FROM pragma_foreign_key_list({}) WHERE \"table\" = {}",
                sql_str(child),
                sql_str(table)
            ))
            .ok()?;
        stmt.query_row([], |r| r.get::<_, String>(0)).ok()
    };
    match kind {
        "sum" => {
            let (child, child_col) = source.split_once('.')?;
            let link = fk_to(child)?;
            Some(format!(
                "SELECT t.id FROM {} t WHERE t.{} IS NOT (SELECT COALESCE(SUM(c.{}), 0) FROM {} c WHERE c.{} = t.id)",
                q(table),
                q(column),
                q(child_col),
                q(child),
                q(&link)
            ))
        }
        "count" => {
            let link = fk_to(source)?;
            Some(format!(
                "SELECT t.id FROM {} t WHERE t.{} IS NOT (SELECT count(*) FROM {} c WHERE c.{} = t.id)",
                q(table),
                q(column),
                q(source),
                q(&link)
            ))
        }
        _ => None,
    }
}

/// The page kinds a world file may hold.
pub const PAGE_KINDS: &[&str] = &["entity", "list", "category", "news", "history"];

/// Pages: their count and dates, coverage of every domain cell, and provenance that holds.
fn check_pages(wf: &WorldFile, present: i64, out: &mut Vec<Violation>) {
    let w = wf.name.as_str();
    let pages: Vec<(i64, String, String, Option<String>)> = match wf
        .conn
        .prepare("SELECT id, kind, body, published FROM fabula_pages ORDER BY id")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect()
        }) {
        Ok(p) => p,
        Err(e) => {
            out.push(violation(w, "fabula_pages", None, "format", &e.to_string()));
            return;
        }
    };
    if !(300..=2000).contains(&pages.len()) {
        out.push(violation(
            w,
            "fabula_pages",
            None,
            "pages.count",
            &format!("{} pages, want 300 to 2,000", pages.len()),
        ));
    }
    let mut bodies: BTreeMap<i64, &str> = BTreeMap::new();
    for (id, kind, body, published) in &pages {
        bodies.insert(*id, body);
        if !PAGE_KINDS.contains(&kind.as_str()) {
            out.push(violation(
                w,
                "fabula_pages",
                Some(*id),
                "pages.kind",
                &format!("unknown kind `{kind}`"),
            ));
        }
        if let Some(date) = published {
            let year = parse_iso_date(date);
            if year.is_none_or(|y| y > present) {
                out.push(violation(
                    w,
                    "fabula_pages",
                    Some(*id),
                    "pages.date",
                    &format!("`{date}` is not an ISO date up to present_year"),
                ));
            }
        }
    }

    // Coverage: every non-key, non-null cell of every domain table is stated on some page.
    let mut stated: BTreeSet<(String, i64, String)> = BTreeSet::new();
    let facts: Vec<(i64, String, i64, String, String)> = match wf
        .conn
        .prepare("SELECT page_id, table_name, row_id, column_name, shown FROM fabula_page_facts")
        .and_then(|mut s| {
            s.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect()
        }) {
        Ok(f) => f,
        Err(e) => {
            out.push(violation(
                w,
                "fabula_page_facts",
                None,
                "format",
                &e.to_string(),
            ));
            return;
        }
    };
    for (_, table, row, column, _) in &facts {
        stated.insert((table.clone(), *row, column.clone()));
    }
    let Ok(tables) = wf.domain_tables() else {
        return;
    };
    let mut cells: BTreeMap<(String, i64, String), rusqlite::types::Value> = BTreeMap::new();
    let mut references: BTreeMap<(String, String), String> = BTreeMap::new();
    for t in &tables {
        let Ok(fks) = wf
            .conn
            .prepare(&format!(
                "SELECT \"from\", \"table\" FROM pragma_foreign_key_list({})",
                sql_str(t)
            ))
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
        else {
            continue;
        };
        for (from, parent) in fks {
            references.insert((t.clone(), from), parent);
        }
        let Ok(mut stmt) = wf
            .conn
            .prepare(&format!("SELECT * FROM {} ORDER BY id", q(t)))
        else {
            continue;
        };
        let names: Vec<String> = stmt
            .column_names()
            .into_iter()
            .map(str::to_string)
            .collect();
        let Ok(mut rows) = stmt.query([]) else {
            continue;
        };
        while let Ok(Some(row)) = rows.next() {
            let id: i64 = row.get("id").unwrap_or_default();
            for (i, name) in names.iter().enumerate() {
                let value: rusqlite::types::Value =
                    row.get(i).unwrap_or(rusqlite::types::Value::Null);
                cells.insert((t.clone(), id, name.clone()), value);
            }
        }
    }
    for ((table, row, column), value) in &cells {
        if column == "id" || matches!(value, rusqlite::types::Value::Null) {
            continue;
        }
        if !stated.contains(&(table.clone(), *row, column.clone())) {
            out.push(violation(
                w,
                table,
                Some(*row),
                "pages.coverage",
                &format!("`{column}` is stated on no page"),
            ));
        }
    }

    // Provenance: each fact names a real cell, and the page text contains its value.
    for (page, table, row, column, shown) in &facts {
        let Some(value) = cells.get(&(table.clone(), *row, column.clone())) else {
            out.push(violation(
                w,
                table,
                Some(*row),
                "pages.provenance",
                &format!("page {page} cites missing cell `{column}`"),
            ));
            continue;
        };
        let accepted: Vec<String> = match (value, references.get(&(table.clone(), column.clone())))
        {
            (rusqlite::types::Value::Integer(id), Some(parent)) => cells
                .get(&(parent.clone(), *id, "name".to_string()))
                .and_then(|v| {
                    if let rusqlite::types::Value::Text(n) = v {
                        Some(vec![n.clone()])
                    } else {
                        None
                    }
                })
                .unwrap_or_default(),
            (rusqlite::types::Value::Integer(n), None) => {
                vec![n.to_string(), crate::records::group_thousands(*n)]
            }
            (rusqlite::types::Value::Text(t), _) => vec![t.clone()],
            _ => Vec::new(),
        };
        let body = bodies.get(page).copied().unwrap_or_default();
        if !accepted.contains(shown) {
            out.push(violation(
                w,
                table,
                Some(*row),
                "pages.provenance",
                &format!("page {page} shows `{shown}` for `{column}`, the cell holds {accepted:?}"),
            ));
        } else if !body.contains(shown.as_str()) {
            out.push(violation(
                w,
                table,
                Some(*row),
                "pages.provenance",
                &format!("page {page} does not contain `{shown}` for `{column}`"),
            ));
        }
    }
}

/// The year of a valid `YYYY-MM-DD` date.
fn parse_iso_date(date: &str) -> Option<i64> {
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (year, month, day): (i64, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(year)
}
