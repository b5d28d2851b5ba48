//! The page rules of `fabula check`: the number of pages, their kinds and dates, coverage of
//! every domain cell by some page, provenance that holds (each fact names a real cell, shows
//! its value, and the page's text contains what it shows), and dates that follow what a page
//! reports (no dated page states a later year, or mentions an entity before its founding).
//!
//! Pages and facts are read through [`WorldFile`]; the cells they are checked against are read
//! with SQL from the domain tables.

use std::collections::{BTreeMap, BTreeSet};

use fabula_date::{DatePrecision, parse_date};
use fabula_file::{ColumnRole, PageFact, StoredPage, WorldFile};
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;

use super::{Checked, Violation, foreign_keys, q};

/// Pages: their count and dates, coverage of every domain cell, and provenance that holds.
pub(super) fn check_pages(
    w: &Checked<'_>,
    file: &WorldFile,
    present: i64,
    tables: &[String],
    out: &mut Vec<Violation>,
) {
    let Some(pages) = check_page_list(w, file, present, out) else {
        return;
    };
    let facts = match file.page_facts() {
        Ok(facts) => facts,
        Err(e) => {
            out.push(w.violation("fabula_page_facts", None, "format", &e.to_string()));
            return;
        }
    };
    let cells = Cells::read(w.conn, tables);
    check_coverage(w, &facts, &cells, out);
    let bodies = pages.iter().map(|s| (s.id, s.page.body.as_str())).collect();
    check_provenance(w, &facts, &cells, &bodies, out);
    let dates = pages
        .iter()
        .filter_map(|s| s.page.published.as_deref().map(|date| (s.id, date)))
        .collect();
    check_years_stated(w, &facts, &cells, &dates, out);
    check_founding_order(w, &facts, &cells, &dates, out);
}

/// The number of pages, their kinds and their dates. Returns the pages without their facts, or
/// `None` when the pages cannot be read.
fn check_page_list(
    w: &Checked<'_>,
    file: &WorldFile,
    present: i64,
    out: &mut Vec<Violation>,
) -> Option<Vec<StoredPage>> {
    let pages = match file.pages_without_facts() {
        Ok(pages) => pages,
        // The only value of `fabula_pages` the reader refuses is a kind it does not know.
        Err(fabula_file::Error::BadValue {
            table: "fabula_pages",
            row,
            reason,
            ..
        }) => {
            out.push(w.violation("fabula_pages", row.parse().ok(), "pages.kind", &reason));
            return None;
        }
        Err(e) => {
            out.push(w.violation("fabula_pages", None, "format", &e.to_string()));
            return None;
        }
    };
    if !(300..=2000).contains(&pages.len()) {
        let detail = format!("{} pages, want 300 to 2,000", pages.len());
        out.push(w.violation("fabula_pages", None, "pages.count", &detail));
    }
    for stored in &pages {
        let Some(date) = &stored.page.published else {
            continue;
        };
        if parse_iso_date(date).is_none_or(|year| year > present) {
            let detail = format!("`{date}` is not an ISO date up to present_year");
            out.push(w.violation("fabula_pages", Some(stored.id), "pages.date", &detail));
        }
    }
    Some(pages)
}

/// The year of a valid `YYYY-MM-DD` date (a real day of a real month), through the one date
/// parser, `fabula_date`.
fn parse_iso_date(date: &str) -> Option<i64> {
    let parsed = parse_date(date)?;
    (parsed.precision == DatePrecision::Day && parsed.iso() == date)
        .then_some(i64::from(parsed.year))
}

/// A domain cell's address: table, row id and column.
type Cell = (String, i64, String);

/// Every cell of the domain tables, and the parent table of each foreign-key column.
struct Cells {
    values: BTreeMap<Cell, SqlValue>,
    /// (table, column) -> the table the column points at.
    references: BTreeMap<(String, String), String>,
}

impl Cells {
    /// Reads every readable table; a table whose foreign keys or rows cannot be read is skipped.
    fn read(conn: &Connection, tables: &[String]) -> Cells {
        let mut cells = Cells {
            values: BTreeMap::new(),
            references: BTreeMap::new(),
        };
        for t in tables {
            let Ok(fks) = foreign_keys(conn, t) else {
                continue;
            };
            for (from, parent) in fks {
                cells.references.insert((t.clone(), from), parent);
            }
            cells.read_rows(conn, t);
        }
        cells
    }

    fn read_rows(&mut self, conn: &Connection, table: &str) {
        let Ok(mut stmt) = conn.prepare(&format!("SELECT * FROM {} ORDER BY id", q(table))) else {
            return;
        };
        let names: Vec<String> = stmt
            .column_names()
            .into_iter()
            .map(str::to_string)
            .collect();
        let Ok(mut rows) = stmt.query([]) else {
            return;
        };
        while let Ok(Some(row)) = rows.next() {
            let id: i64 = row.get("id").unwrap_or_default();
            for (i, name) in names.iter().enumerate() {
                let value: SqlValue = row.get(i).unwrap_or(SqlValue::Null);
                self.values
                    .insert((table.to_string(), id, name.clone()), value);
            }
        }
    }

    /// The texts a page may show for a cell: a referenced row's name, a number with or without
    /// thousands separators, or the text itself.
    fn accepted(&self, table: &str, column: &str, value: &SqlValue) -> Vec<String> {
        let parent = self
            .references
            .get(&(table.to_string(), column.to_string()));
        match (value, parent) {
            (SqlValue::Integer(id), Some(parent)) => {
                match self.values.get(&(parent.clone(), *id, "name".to_string())) {
                    Some(SqlValue::Text(name)) => vec![name.clone()],
                    _ => Vec::new(),
                }
            }
            (SqlValue::Integer(n), None) => crate::numbers::spellings(*n),
            (SqlValue::Text(t), _) => vec![t.clone()],
            _ => Vec::new(),
        }
    }
}

/// Coverage: every non-key, non-null cell of every domain table is stated on some page.
fn check_coverage(
    w: &Checked<'_>,
    facts: &[(i64, PageFact)],
    cells: &Cells,
    out: &mut Vec<Violation>,
) {
    let stated: BTreeSet<Cell> = facts
        .iter()
        .map(|(_, f)| (f.table.clone(), f.row_id, f.column.clone()))
        .collect();
    for (cell, value) in &cells.values {
        let (table, row, column) = cell;
        if column == "id" || matches!(value, SqlValue::Null) {
            continue;
        }
        if !stated.contains(cell) {
            let detail = format!("`{column}` is stated on no page");
            out.push(w.violation(table, Some(*row), "pages.coverage", &detail));
        }
    }
}

/// Provenance: each fact names a real cell, shows one of the texts the cell allows, and the page
/// text contains what it shows.
fn check_provenance(
    w: &Checked<'_>,
    facts: &[(i64, PageFact)],
    cells: &Cells,
    bodies: &BTreeMap<i64, &str>,
    out: &mut Vec<Violation>,
) {
    for (page, fact) in facts {
        let PageFact {
            table,
            row_id,
            column,
            shown,
            value_kind: _,
        } = fact;
        let row = Some(*row_id);
        let Some(value) = cells.values.get(&(table.clone(), *row_id, column.clone())) else {
            let detail = format!("page {page} cites missing cell `{column}`");
            out.push(w.violation(table, row, "pages.provenance", &detail));
            continue;
        };
        let accepted = cells.accepted(table, column, value);
        let body = bodies.get(page).copied().unwrap_or_default();
        if !accepted.contains(shown) {
            let detail =
                format!("page {page} shows `{shown}` for `{column}`, the cell holds {accepted:?}");
            out.push(w.violation(table, row, "pages.provenance", &detail));
        } else if !body.contains(shown.as_str()) {
            let detail = format!("page {page} does not contain `{shown}` for `{column}`");
            out.push(w.violation(table, row, "pages.provenance", &detail));
        }
    }
}

/// A dated page reports nothing later than its date: every year it states (a founding, a start,
/// a birth, the year of a work or an event) lies in or before the year it is published.
fn check_years_stated(
    w: &Checked<'_>,
    facts: &[(i64, PageFact)],
    cells: &Cells,
    dates: &BTreeMap<i64, &str>,
    out: &mut Vec<Violation>,
) {
    let year_columns = columns_with(w, &ColumnRole::YEARS);
    for (page, f) in facts {
        let Some(published) = dates.get(page).and_then(|d| parse_iso_date(d)) else {
            continue;
        };
        if !year_columns.contains(&(f.table.as_str(), f.column.as_str())) {
            continue;
        }
        let cell = (f.table.clone(), f.row_id, f.column.clone());
        if let Some(SqlValue::Integer(year)) = cells.values.get(&cell)
            && *year > published
        {
            let detail = format!(
                "page {page}, dated {}, states `{}` {year} of {} row {}",
                dates[page], f.column, f.table, f.row_id
            );
            out.push(w.violation("fabula_pages", Some(*page), "pages.date_order", &detail));
        }
    }
}

/// No dated page mentions an entity (states a cell of its row, or refers to it) before the
/// earliest dated page that reports its founding: news of a work, an appointment or a joining
/// comes on or after the news that the organisation was founded.
fn check_founding_order(
    w: &Checked<'_>,
    facts: &[(i64, PageFact)],
    cells: &Cells,
    dates: &BTreeMap<i64, &str>,
    out: &mut Vec<Violation>,
) {
    let founded_columns = columns_with(w, &[ColumnRole::Founded]);
    let dated = |page: &i64| {
        dates
            .get(page)
            .copied()
            .filter(|d| parse_iso_date(d).is_some())
    };
    // The earliest dated page that states each entity's founding year.
    let mut founding: BTreeMap<(&str, i64), (&str, i64)> = BTreeMap::new();
    for (page, f) in facts {
        let Some(date) = dated(page) else { continue };
        if founded_columns.contains(&(f.table.as_str(), f.column.as_str())) {
            let earliest = founding
                .entry((f.table.as_str(), f.row_id))
                .or_insert((date, *page));
            *earliest = (*earliest).min((date, *page));
        }
    }
    let mut reported = BTreeSet::new();
    for (page, f) in facts {
        let Some(date) = dated(page) else { continue };
        for (table, row) in mentioned(f, cells) {
            let Some(&(founded_on, founding_page)) = founding.get(&(table, row)) else {
                continue;
            };
            if date < founded_on && reported.insert((*page, table, row)) {
                let detail = format!(
                    "page {page}, dated {date}, mentions {table} row {row} before page \
                     {founding_page} reports its founding on {founded_on}"
                );
                out.push(w.violation("fabula_pages", Some(*page), "pages.founding_order", &detail));
            }
        }
    }
}

/// The entities a fact mentions: the row it states a cell of, and the row a reference points at.
fn mentioned<'a>(f: &'a PageFact, cells: &'a Cells) -> Vec<(&'a str, i64)> {
    let mut rows = vec![(f.table.as_str(), f.row_id)];
    let parent = cells.references.get(&(f.table.clone(), f.column.clone()));
    let value = cells
        .values
        .get(&(f.table.clone(), f.row_id, f.column.clone()));
    if let (Some(parent), Some(SqlValue::Integer(id))) = (parent, value) {
        rows.push((parent.as_str(), *id));
    }
    rows
}

/// The (table, column) names of every column whose role is one of `roles`.
fn columns_with<'a>(w: &'a Checked<'_>, roles: &[ColumnRole]) -> BTreeSet<(&'a str, &'a str)> {
    w.roles
        .tables
        .iter()
        .flat_map(|t| t.columns.iter().map(move |c| (t, c)))
        .filter(|(_, c)| roles.contains(&c.role))
        .map(|(t, c)| (t.name.as_str(), c.name.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(date: &str, expect: Option<i64>) {
        assert_eq!(parse_iso_date(date), expect, "{date}");
    }

    #[test]
    fn only_real_iso_days_are_dates() {
        check("2031-04-02", Some(2031));
        check("1869-12-06", Some(1869));
        check("2031-02-31", None);
        check("2031-13-01", None);
        check("2031-4-2", None);
        check("April 2, 2031", None);
        check("2031", None);
        check("", None);
    }
}
