//! What the baseline agent reads off a page's Markdown: infobox rows, links and cell values, and
//! the answers of the steps that scan a page's tables. These are plain functions of the page text
//! (and of what was read before), so they are tested here without a server. Tables and links are
//! parsed by `fabula_score::markdown`, the parser that also reads agents' answer tables.

use std::collections::BTreeSet;

use fabula_score::markdown::{PipeTable, link, pipe_tables};

use super::plan::{Extreme, Side};

/// Values read on one page: the page's subject and the values, in the order asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Read {
    pub subject: String,
    pub values: Vec<String>,
}

/// Whether a table is an infobox: two columns, the second header cell empty.
fn is_infobox(table: &PipeTable) -> bool {
    table.header.len() == 2 && table.header[1].is_empty()
}

/// The rows of a page's infobox (its first infobox table), as (label, cell).
pub(crate) fn infobox(markdown: &str) -> Vec<(String, String)> {
    let Some(table) = pipe_tables(markdown).into_iter().find(is_infobox) else {
        return Vec::new();
    };
    let pairs = table
        .rows
        .into_iter()
        .filter_map(|row| <[String; 2]>::try_from(row).ok());
    pairs.map(|[label, cell]| (label, cell)).collect()
}

/// The infobox cell whose label equals `label` (lower-cased), or starts with it when `prefix`;
/// when the infobox leaves that value out, the text the prose states it with.
pub(crate) fn infobox_cell(markdown: &str, label: &str, prefix: bool) -> Option<String> {
    let cell = infobox(markdown).into_iter().find_map(|(key, cell)| {
        let key = key.to_lowercase();
        let hit = if prefix {
            key.starts_with(label)
        } else {
            key == label
        };
        hit.then_some(cell)
    });
    cell.or_else(|| fabula_vocab::read_stated(&prose(markdown), label, prefix))
}

/// A page's prose: its lines that are not headings, table rows or list items.
fn prose(markdown: &str) -> String {
    let lines = markdown.lines().map(str::trim).filter(|l| {
        !l.is_empty() && !l.starts_with('#') && !l.starts_with('|') && !l.starts_with("- ")
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// The links of the paragraphs under a page's `## ` headings (not "See also"), in page order.
fn section_links(markdown: &str) -> Vec<String> {
    let mut inside = false;
    let mut urls = Vec::new();
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            inside = !heading.trim().eq_ignore_ascii_case("see also");
            continue;
        }
        if line.starts_with("# ") {
            inside = false;
        }
        if inside {
            urls.extend(paragraph_links(line));
        }
    }
    urls
}

/// The links of the prose lines of `text` (not table rows or list items), in order.
fn paragraph_links(text: &str) -> Vec<String> {
    let prose = text
        .lines()
        .filter(|l| !l.starts_with('|') && !l.starts_with("- "));
    prose.flat_map(inline_links).collect()
}

/// The targets of the Markdown links `[text](url)` written inside a line of prose.
fn inline_links(line: &str) -> Vec<String> {
    let mut urls = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let url = &after[..end];
        if rest[..at].contains('[') && !url.is_empty() && !url.contains(char::is_whitespace) {
            urls.push(url.to_owned());
        }
        rest = &after[end + 1..];
    }
    urls
}

/// The target of a cell that is one Markdown link.
pub(crate) fn link_url(cell: &str) -> Option<String> {
    link(cell).map(|(_, url)| url.to_owned())
}

/// A cell's text: a link's text, else the cell; thousands separators dropped from numbers.
pub(crate) fn cell_value(cell: &str) -> String {
    let text = link(cell).map_or_else(|| cell.trim(), |(text, _)| text);
    let plain = text.replace(',', "");
    if !plain.is_empty() && plain.chars().all(|c| c.is_ascii_digit()) {
        plain
    } else {
        text.to_owned()
    }
}

/// The count a list line gives for `name`: the number after the colon of the first `- ...`
/// line whose linked text is exactly `name` ("- [Orrwick](url): 1,204 people" gives "1204").
pub(crate) fn listed_count(markdown: &str, name: &str) -> Option<String> {
    markdown.lines().find_map(|line| {
        let item = line.trim().strip_prefix("- ")?;
        let (entity, rest) = item.split_once(": ")?;
        if cell_value(entity) != name {
            return None;
        }
        let count = rest.split_whitespace().next()?;
        number(count).map(|n| n.to_string())
    })
}

/// An integer, with thousands separators allowed.
pub(crate) fn number(text: &str) -> Option<i64> {
    text.replace(',', "").trim().parse().ok()
}

/// The target of the first inline link whose text starts with "People of".
pub(crate) fn people_url(markdown: &str) -> Option<String> {
    link_starting(markdown, "People of")
}

/// The target of the first inline link whose text starts with "Official website of": the
/// subject's own site.
pub(crate) fn own_site_url(markdown: &str) -> Option<String> {
    link_starting(markdown, "Official website of")
}

/// The target of the first inline link whose text starts with `start`.
fn link_starting(markdown: &str, start: &str) -> Option<String> {
    let parts = markdown.split("](");
    parts
        .clone()
        .zip(parts.skip(1))
        .find_map(|(before, after)| {
            let text = before.rsplit('[').next()?;
            let url = after.split(')').next().unwrap_or_default();
            text.starts_with(start).then(|| url.to_owned())
        })
}

/// The link of the entity placed first: the second cell of the first two-cell row whose first
/// cell is `1`.
pub(crate) fn winner_url(markdown: &str) -> Option<String> {
    let rows = pipe_tables(markdown).into_iter().flat_map(|t| t.rows);
    rows.filter(|row| row.len() == 2 && row[0] == "1")
        .find_map(|row| link_url(&row[1]))
}

/// The entities a page lists: the link of the first cell of each row of its tables (not its
/// infobox), then the links of the sentences under its sections, each url once.
pub(crate) fn listed_urls(markdown: &str) -> Vec<String> {
    once_each(table_links(markdown).chain(section_links(markdown)))
}

/// The link of the first cell of each row of a page's tables (not its infobox).
fn table_links(markdown: &str) -> impl Iterator<Item = String> {
    let tables = pipe_tables(markdown).into_iter().filter(|t| !is_infobox(t));
    let first_cells = tables
        .flat_map(|t| t.rows)
        .filter_map(|row| row.into_iter().next());
    first_cells.filter_map(|cell| link_url(&cell))
}

/// Each url once, in the order first seen.
fn once_each(urls: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    urls.filter(|url| seen.insert(url.clone())).collect()
}

/// A table row as [`records`] gives it, from (header, cell) pairs: for tests.
#[cfg(test)]
pub(crate) fn test_row(cells: &[(&str, &str)]) -> Vec<(String, String)> {
    cells
        .iter()
        .map(|(h, c)| ((*h).to_owned(), (*c).to_owned()))
        .collect()
}

/// The rows of a page's tables (not its infobox), each as its (header, cell) pairs.
pub(crate) fn records(markdown: &str) -> Vec<Vec<(String, String)>> {
    let tables = pipe_tables(markdown).into_iter().filter(|t| !is_infobox(t));
    tables
        .flat_map(|t| {
            let header = t.header;
            t.rows
                .into_iter()
                .map(move |row| header.iter().cloned().zip(row).collect())
        })
        .collect()
}

/// The number of table rows under the section headed `heading` (compared case-insensitively):
/// from its `## ` line up to the next heading of that level or above.
pub(crate) fn section_rows(markdown: &str, heading: &str) -> usize {
    let Some(section) = section(markdown, heading) else {
        return 0;
    };
    let rows: usize = pipe_tables(&section).iter().map(|t| t.rows.len()).sum();
    rows + paragraph_links(&section).len()
}

/// The entities the section headed `heading` lists, in its tables or its sentences, each once.
pub(crate) fn section_urls(markdown: &str, heading: &str) -> Vec<String> {
    section(markdown, heading).map_or_else(Vec::new, |s| {
        once_each(table_links(&s).chain(paragraph_links(&s)))
    })
}

/// The next page of a list that goes on over pages: the link of its "Next page:" line.
pub(crate) fn next_page_url(markdown: &str) -> Option<String> {
    let line = markdown
        .lines()
        .find_map(|l| l.trim().strip_prefix("Next page:"))?;
    // The line holds one link, and a wiki url may hold parentheses: "..._(page_2)".
    let (_, rest) = line.split_once("](")?;
    let url = &rest[..rest.rfind(')')?];
    (!url.is_empty()).then(|| url.to_owned())
}

/// The entities a settlement's article lists as based there: its section whose heading ends
/// with "based here" ("Guilds based here").
pub(crate) fn based_here_urls(markdown: &str) -> Vec<String> {
    let heading = markdown.lines().find_map(|l| {
        let heading = l.strip_prefix("## ")?.trim();
        heading
            .to_lowercase()
            .ends_with(" based here")
            .then_some(heading)
    });
    heading.map_or_else(Vec::new, |h| section_urls(markdown, h))
}

/// The text of the section headed `heading` (compared case-insensitively): from its `## ` line
/// up to the next heading of that level or above.
fn section(markdown: &str, heading: &str) -> Option<String> {
    let wanted = heading.trim().to_lowercase();
    let mut lines = markdown.lines();
    let found = lines.by_ref().any(|l| {
        l.strip_prefix("## ")
            .is_some_and(|h| h.trim().to_lowercase() == wanted)
    });
    let section: Vec<&str> = lines
        .take_while(|l| !(l.starts_with("# ") || l.starts_with("## ")))
        .collect();
    found.then(|| section.join("\n"))
}

/// The text of the first link of the first row whose `From`-`To` years enclose `year` (an
/// open `To` encloses every later year) and that holds `filter` as a cell, when given.
pub(crate) fn during(markdown: &str, year: i64, filter: Option<&str>) -> Option<String> {
    for table in pipe_tables(markdown) {
        let col = |name: &str| table.header.iter().position(|h| h == name);
        let (Some(from), Some(to)) = (col("From"), col("To")) else {
            continue;
        };
        for row in &table.rows {
            let start = row.get(from).and_then(|c| number(c));
            let end = row.get(to).map(|c| number(c).unwrap_or(i64::MAX));
            let (Some(start), Some(end)) = (start, end) else {
                continue;
            };
            if !(start..=end).contains(&year) || !holds(row, filter) {
                continue;
            }
            if let Some((text, _)) = row.iter().find_map(|c| link(c)) {
                return Some(text.to_owned());
            }
        }
    }
    None
}

/// Whether a row holds `filter` as a whole cell; every row does when there is no filter.
fn holds(row: &[String], filter: Option<&str>) -> bool {
    filter.is_none_or(|f| row.iter().any(|c| c == f))
}

/// The first cell's value of the row with the smallest or largest value in column `name`
/// (the first such row), among the rows that hold `filter`.
pub(crate) fn column_extreme(
    markdown: &str,
    name: &str,
    extreme: Extreme,
    filter: Option<&str>,
) -> Option<String> {
    let mut best: Option<(i64, String)> = None;
    for table in pipe_tables(markdown) {
        let Some(col) = table.header.iter().position(|h| h == name) else {
            continue;
        };
        for row in table.rows.iter().filter(|row| holds(row, filter)) {
            let (Some(value), Some(first)) = (row.get(col).and_then(|c| number(c)), row.first())
            else {
                continue;
            };
            let better = best.as_ref().is_none_or(|(b, _)| match extreme {
                Extreme::Min => value < *b,
                Extreme::Max => value > *b,
            });
            if better {
                best = Some((value, cell_value(first)));
            }
        }
    }
    best.map(|(_, name)| name)
}

/// The rows of the page's tables whose `column` value lies before or after `year`: each row's
/// first cell is the subject, its other cells, in order, the values.
pub(crate) fn rows_around(markdown: &str, column: &str, side: Side, year: i64) -> Vec<Read> {
    let rows = rows_beside(markdown, column, side, year);
    let reads = rows.iter().filter_map(|row| {
        let (first, rest) = row.split_first()?;
        Some(Read {
            subject: cell_value(first),
            values: rest.iter().map(|c| cell_value(c)).collect(),
        })
    });
    reads.collect()
}

/// The first-cell links of the rows of the page's tables whose `column` value lies before or
/// after `year`, each once, in page order.
pub(crate) fn row_urls(markdown: &str, column: &str, side: Side, year: i64) -> Vec<String> {
    first_links(&rows_beside(markdown, column, side, year))
}

/// The first-cell links of the rows of the page's tables whose `column` value is `value`
/// (ignoring case), each once, in page order.
pub(crate) fn matching_row_urls(markdown: &str, column: &str, value: &str) -> Vec<String> {
    first_links(&rows_where(markdown, column, |cell| {
        cell_value(cell).eq_ignore_ascii_case(value)
    }))
}

/// The links of the rows' first cells, each once, in row order.
fn first_links(rows: &[Vec<String>]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let urls = rows.iter().filter_map(|row| link_url(row.first()?));
    urls.filter(|url| seen.insert(url.clone())).collect()
}

/// The rows of the page's tables whose `column` value (the header compared ignoring case)
/// lies before or after `year`.
fn rows_beside(markdown: &str, column: &str, side: Side, year: i64) -> Vec<Vec<String>> {
    rows_where(markdown, column, |cell| {
        number(cell).is_some_and(|value| match side {
            Side::Before => value < year,
            Side::After => value > year,
        })
    })
}

/// The rows of the page's tables whose cell in `column` (the header compared ignoring case)
/// passes `test`.
fn rows_where(markdown: &str, column: &str, test: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for table in pipe_tables(markdown) {
        let Some(col) = table
            .header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(column))
        else {
            continue;
        };
        let passes = |row: &Vec<String>| row.get(col).is_some_and(|c| test(c));
        rows.extend(table.rows.into_iter().filter(passes));
    }
    rows
}

/// The subject whose first value is the smallest (the first such) or largest (the last such).
pub(crate) fn pick(reads: &[Read], extreme: Extreme) -> Option<String> {
    let numbered = reads
        .iter()
        .filter_map(|r| Some((number(r.values.first()?)?, &r.subject)));
    let best = match extreme {
        Extreme::Min => numbered.min_by_key(|(n, _)| *n),
        Extreme::Max => numbered.max_by_key(|(n, _)| *n),
    };
    best.map(|(_, subject)| subject.clone())
}

/// How many reads have a first value before `year`.
pub(crate) fn count_before(reads: &[Read], year: i64) -> usize {
    let first = |r: &Read| r.values.first().and_then(|f| number(f));
    reads
        .iter()
        .filter(|r| first(r).is_some_and(|f| f < year))
        .count()
}

/// The subjects of the reads, each once in reading order; with a year, only those whose first
/// value lies before it.
pub(crate) fn names(reads: &[Read], before: Option<i64>) -> Vec<String> {
    let first = |r: &Read| r.values.first().and_then(|f| number(f));
    let mut names: Vec<String> = Vec::new();
    for read in reads {
        let kept = before.is_none_or(|year| first(read).is_some_and(|f| f < year));
        if kept && !names.contains(&read.subject) {
            names.push(read.subject.clone());
        }
    }
    names
}

/// The sum of the first values of the reads.
pub(crate) fn total(reads: &[Read]) -> i64 {
    reads.iter().filter_map(|r| number(r.values.first()?)).sum()
}

/// The sum of the second values of the reads whose first value lies before `year`.
pub(crate) fn sum_before(reads: &[Read], year: i64) -> i64 {
    let before = reads.iter().filter(|r| {
        let first = r.values.first().and_then(|f| number(f));
        first.is_some_and(|f| f < year)
    });
    before.filter_map(|r| number(r.values.get(1)?)).sum()
}

/// A Markdown table of the reads: one row per subject, the subject first.
pub(crate) fn answer_table(header: &[String], reads: &[Read]) -> String {
    let mut table = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for read in reads {
        let cells: Vec<&str> = std::iter::once(read.subject.as_str())
            .chain(read.values.iter().map(String::as_str))
            .collect();
        table.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# Vess Hall\n\nVess Hall is a guild. See [People of Vess Hall](https://w/wiki/People_of_Vess_Hall).\n\n\
| Vess Hall | |\n|---|---|\n| Founder | [Amo Tal](https://w/wiki/Amo_Tal) |\n| Members | 1,204 |\n| Home town | [Orrwick](https://w/wiki/Orrwick) |\n\n\
## Office holders\n\n| Seat | Holder | From | To |\n|---|---|---|---|\n\
| Warden | [Ila Orr](https://w/wiki/Ila_Orr) | 1700 | 1712 |\n| Keeper | [Kel Orr](https://w/wiki/Kel_Orr) | 1705 | |\n\
| Warden | [Amo Tal](https://w/wiki/Amo_Tal) | 1713 | 1720 |\n\n\
## Members\n\n| Member | Founded | Population |\n|---|---|---|\n\
| [Kest](https://w/wiki/Kest) | 1650 | 12,000 |\n| [Orrwick](https://w/wiki/Orrwick) | 1702 | 800 |\n| [Lind](https://w/wiki/Lind) | 1650 | 3,100 |\n\n\
## Results\n\n| Place | Guild |\n|---|---|\n| 2 | [Lind](https://w/wiki/Lind) |\n| 1 | [Kest](https://w/wiki/Kest) |\n";

    fn reads(rows: &[(&str, &[&str])]) -> Vec<Read> {
        let read = |(subject, values): &(&str, &[&str])| Read {
            subject: subject.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        };
        rows.iter().map(read).collect()
    }

    /// Checks one reading of [`PAGE`] (or of the reads it gives), shown as text.
    fn check(got: impl std::fmt::Debug, expect: &str) {
        assert_eq!(format!("{got:?}"), expect);
    }

    #[test]
    fn listed_count_reads_the_line_of_one_name() {
        let report = "# Census of 1710: Vess\n\n## Upper Vess\n\n\
- [Orrwick](https://w/wiki/Orrwick): 1,204 people\n- [Kest](https://w/wiki/Kest): 800 people\n\
- [Kest Ford](https://w/wiki/Kest_Ford): 95 people\n";
        check(listed_count(report, "Kest"), r#"Some("800")"#);
        check(listed_count(report, "Orrwick"), r#"Some("1204")"#);
        check(listed_count(report, "Kest Ford"), r#"Some("95")"#);
        check(listed_count(report, "Lind"), "None");
        check(listed_count(PAGE, "Kest"), "None");
    }

    #[test]
    fn section_rows_count_the_rows_under_one_heading() {
        assert_eq!(section_rows(PAGE, "Office holders"), 3);
        assert_eq!(section_rows(PAGE, "members"), 3);
        assert_eq!(section_rows(PAGE, "Results"), 2);
        assert_eq!(section_rows(PAGE, "Notable people born here"), 0);
        check(
            section_urls(PAGE, "members"),
            r#"["https://w/wiki/Kest", "https://w/wiki/Orrwick", "https://w/wiki/Lind"]"#,
        );
        check(section_urls(PAGE, "Results"), "[]");
        check(section_urls(PAGE, "Nowhere"), "[]");
    }

    #[test]
    fn rows_around_a_year_give_their_links() {
        check(
            row_urls(PAGE, "Founded", Side::Before, 1700),
            r#"["https://w/wiki/Kest", "https://w/wiki/Lind"]"#,
        );
        check(
            row_urls(PAGE, "Founded", Side::After, 1650),
            r#"["https://w/wiki/Orrwick"]"#,
        );
        check(row_urls(PAGE, "Opened", Side::After, 1650), "[]");
        check(
            matching_row_urls(PAGE, "founded", "1650"),
            r#"["https://w/wiki/Kest", "https://w/wiki/Lind"]"#,
        );
        check(matching_row_urls(PAGE, "Founded", "1651"), "[]");
        check(
            row_urls(PAGE, "founded", Side::After, 1650),
            r#"["https://w/wiki/Orrwick"]"#,
        );
    }

    #[test]
    fn counts_and_totals_of_reads() {
        let read = reads(&[
            ("a", &["1700"]),
            ("b", &["1,650"]),
            ("c", &[""]),
            ("d", &["1701"]),
        ]);
        assert_eq!(count_before(&read, 1701), 2);
        assert_eq!(total(&read), 5051);
        assert_eq!(total(&[]), 0);
        assert_eq!(names(&read, Some(1701)), ["a", "b"]);
        assert_eq!(names(&read, None), ["a", "b", "c", "d"]);
        assert_eq!(names(&reads(&[("a", &["1"]), ("a", &["2"])]), None), ["a"]);
    }

    #[test]
    fn infobox_rows_links_and_values() {
        check(
            infobox(PAGE).first(),
            r#"Some(("Founder", "[Amo Tal](https://w/wiki/Amo_Tal)"))"#,
        );
        check(infobox_cell(PAGE, "members", false), r#"Some("1,204")"#);
        check(
            infobox_cell(PAGE, "home", true),
            r#"Some("[Orrwick](https://w/wiki/Orrwick)")"#,
        );
        check(infobox_cell(PAGE, "home", false), "None");
        check(infobox("| A | B |\n|---|---|\n| x | y |"), "[]");
        check(cell_value("1,204"), r#""1204""#);
        check(
            cell_value(" [Amo Tal](https://w/wiki/Amo_Tal) "),
            r#""Amo Tal""#,
        );
        check(cell_value("Kel, Upper"), r#""Kel, Upper""#);
        check(
            link_url("[Amo Tal](https://w/wiki/Amo_Tal)"),
            r#"Some("https://w/wiki/Amo_Tal")"#,
        );
        check(number(" 12,345 "), "Some(12345)");
        check(number("c. 1700"), "None");
    }

    /// A settlement article whose infobox leaves its founding year and population to the lead,
    /// and whose natives are a sentence, not a table.
    const PROSE_PAGE: &str = "# Kest\n\nKest lies in [Upper Vess](https://w/wiki/Upper_Vess); the town \
was founded in 1650. It counts 12,000 inhabitants.\n\n\
| Kest | |\n|---|---|\n| Region | [Upper Vess](https://w/wiki/Upper_Vess) |\n\n\
## Notable people born here\n\nNatives of Kest include townsfolk such as [Ila Orr](https://w/wiki/Ila_Orr) \
and [Kel Orr](https://w/wiki/Kel_Orr).\n\n## See also\n\n- [Vess](https://w/wiki/Vess)\n";

    #[test]
    fn values_left_out_of_the_infobox_are_read_from_prose() {
        check(
            infobox_cell(PROSE_PAGE, "founded", false),
            r#"Some("1650")"#,
        );
        check(
            infobox_cell(PROSE_PAGE, "population", false),
            r#"Some("12,000")"#,
        );
        check(
            infobox_cell(PROSE_PAGE, "region", false),
            r#"Some("[Upper Vess](https://w/wiki/Upper_Vess)")"#,
        );
        check(infobox_cell(PROSE_PAGE, "members", false), "None");
        check(
            section_urls(PROSE_PAGE, "Notable people born here"),
            r#"["https://w/wiki/Ila_Orr", "https://w/wiki/Kel_Orr"]"#,
        );
        assert_eq!(section_rows(PROSE_PAGE, "notable people born here"), 2);
        check(
            listed_urls(PROSE_PAGE),
            r#"["https://w/wiki/Ila_Orr", "https://w/wiki/Kel_Orr"]"#,
        );
    }

    #[test]
    fn records_pair_each_cell_with_its_header() {
        let records = records(PAGE);
        assert_eq!(records.len(), 8);
        check(
            &records[1],
            r#"[("Seat", "Keeper"), ("Holder", "[Kel Orr](https://w/wiki/Kel_Orr)"), ("From", "1705"), ("To", "")]"#,
        );
        check(
            records.last(),
            r#"Some([("Place", "1"), ("Guild", "[Kest](https://w/wiki/Kest)")])"#,
        );
    }

    #[test]
    fn pages_to_open() {
        check(
            people_url(PAGE),
            r#"Some("https://w/wiki/People_of_Vess_Hall")"#,
        );
        check(people_url("No people here."), "None");
        check(
            own_site_url("- [Official website of Kest Hall](https://kest.org/about)"),
            r#"Some("https://kest.org/about")"#,
        );
        check(own_site_url(PAGE), "None");
        check(winner_url(PAGE), r#"Some("https://w/wiki/Kest")"#);
        check(
            listed_urls(PAGE),
            r#"["https://w/wiki/Kest", "https://w/wiki/Orrwick", "https://w/wiki/Lind"]"#,
        );
    }

    #[test]
    fn answers_from_tables() {
        check(during(PAGE, 1706, None), r#"Some("Ila Orr")"#);
        check(during(PAGE, 1706, Some("Keeper")), r#"Some("Kel Orr")"#);
        check(during(PAGE, 1800, None), r#"Some("Kel Orr")"#);
        check(during(PAGE, 1600, None), "None");
        check(
            column_extreme(PAGE, "Founded", Extreme::Min, None),
            r#"Some("Kest")"#,
        );
        check(
            column_extreme(PAGE, "Population", Extreme::Max, None),
            r#"Some("Kest")"#,
        );
        check(
            column_extreme(PAGE, "Population", Extreme::Min, Some("1650")),
            r#"Some("Lind")"#,
        );
        check(column_extreme(PAGE, "Area", Extreme::Min, None), "None");
        check(
            rows_around(PAGE, "Founded", Side::Before, 1700),
            r#"[Read { subject: "Kest", values: ["1650", "12000"] }, Read { subject: "Lind", values: ["1650", "3100"] }]"#,
        );
        check(
            rows_around(PAGE, "Founded", Side::After, 1700),
            r#"[Read { subject: "Orrwick", values: ["1702", "800"] }]"#,
        );
    }

    #[test]
    fn answers_from_reads() {
        let read = reads(&[
            ("Kest", &["1650", "12000"]),
            ("Orrwick", &["1702", "800"]),
            ("Lind", &["1650", "3100"]),
        ]);
        check(pick(&read, Extreme::Min), r#"Some("Kest")"#);
        check(pick(&read, Extreme::Max), r#"Some("Orrwick")"#);
        check(
            pick(&reads(&[("Ties", &["1"]), ("Last", &["1"])]), Extreme::Max),
            r#"Some("Last")"#,
        );
        check(pick(&reads(&[("None", &["n/a"])]), Extreme::Min), "None");
        check(sum_before(&read, 1700), "15100");
        check(sum_before(&read, 1600), "0");
        check(
            answer_table(&["Town".into(), "Founded".into()], &read[..2]),
            r#""| Town | Founded |\n|---|---|\n| Kest | 1650 | 12000 |\n| Orrwick | 1702 | 800 |\n""#,
        );
    }
}

#[cfg(test)]
mod next_page_tests {
    #[test]
    fn next_pages_keep_parentheses_in_urls() {
        let check = |page: &str, expect: Option<&str>| {
            assert_eq!(super::next_page_url(page).as_deref(), expect, "{page}");
        };
        check(
            "| a |\n\nNext page: [List of players (page 2)](https://w/wiki/List_of_players_(page_2))\n",
            Some("https://w/wiki/List_of_players_(page_2)"),
        );
        check(
            "Next page: [List of guilds (page 3)](https://w/article/list-of-guilds-page-3)",
            Some("https://w/article/list-of-guilds-page-3"),
        );
        check("| a |\n| b |\n", None);
    }
}
