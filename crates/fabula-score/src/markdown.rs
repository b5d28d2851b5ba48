//! Reading Markdown tables and links: the answer table in an agent's Markdown, the way
//! WideSearch's evaluator finds it, and every pipe table of a page, the way the baseline agent
//! reads pages. Both split rows with the same rules.

pub use crate::normalize::link;
use crate::prediction::PredictedTable;

/// A pipe table of a Markdown document: its header cells and its rows of cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipeTable {
    /// The cells of the first line.
    pub header: Vec<String>,
    /// The cells of every later line that is not a separator.
    pub rows: Vec<Vec<String>>,
}

/// Extracts the answer table from free text, or `None` when the text holds no table.
///
/// Following WideSearch: the content of the first ` ```markdown ` fenced block (up to the next
/// ` ``` `) is used when there is one; otherwise, when the text holds at least four `|`, the run
/// of lines from the first `|` onwards in which every following line starts with `|` (fabula
/// also accepts leading spaces before that `|`). In the chosen text, lines made only of `|`,
/// `-`, `:` and spaces (separators, blank lines) and lines without `|` are skipped; the first
/// remaining line is the header. A leading and a trailing `|` are dropped from each line, the
/// rest is split on `|` (an escaped `\|` stays in the cell) and each cell is trimmed. As in
/// WideSearch, outside a fenced block the table starts at the first `|`, so a table whose lines
/// do not begin with `|` loses its first column there.
///
/// ```
/// use fabula_score::markdown::extract_table;
/// let text = "Here you go:\n\n| Name | Founded |\n|---|---|\n| Vess | 1021 |\n\nDone.";
/// let table = extract_table(text).unwrap();
/// assert_eq!(table.columns.unwrap(), ["Name", "Founded"]);
/// assert_eq!(table.rows, [["Vess", "1021"]]);
/// ```
pub fn extract_table(text: &str) -> Option<PredictedTable> {
    let block = fenced_markdown(text).or_else(|| pipe_run(text))?;
    let mut lines = block
        .lines()
        .map(str::trim)
        .filter(|line| line.contains('|') && !is_separator(line));
    let columns = split_row(lines.next()?);
    let rows = lines.map(split_row).collect();
    Some(PredictedTable {
        columns: Some(columns),
        rows,
    })
}

/// Every pipe table of a Markdown document, in order.
///
/// A table is a run of lines that start and end with `|` (after trimming); any other line ends
/// it. Its first line is the header; separator lines (only `|`, `-`, `:` and spaces) are
/// skipped; cells are split as in [`extract_table`].
///
/// ```
/// use fabula_score::markdown::pipe_tables;
/// let page = "# Vess\n\n| Vess | |\n|---|---|\n| Founded | 1021 |\n\nText.\n\n| A |\n|---|\n| b |\n";
/// let tables = pipe_tables(page);
/// assert_eq!(tables.len(), 2);
/// assert_eq!(tables[0].header, ["Vess", ""]);
/// assert_eq!(tables[0].rows, [["Founded", "1021"]]);
/// ```
pub fn pipe_tables(markdown: &str) -> Vec<PipeTable> {
    let mut tables = Vec::new();
    let mut current: Option<PipeTable> = None;
    for line in markdown.lines().map(str::trim) {
        let is_row = line.len() >= 2 && line.starts_with('|') && line.ends_with('|');
        if !is_row {
            tables.extend(current.take());
            continue;
        }
        match current.as_mut() {
            None => {
                current = Some(PipeTable {
                    header: split_row(line),
                    rows: Vec::new(),
                });
            }
            Some(_) if is_separator(line) => {}
            Some(table) => table.rows.push(split_row(line)),
        }
    }
    tables.extend(current);
    tables
}

/// Whether a table line is a separator (or blank): only `|`, `-`, `:` and spaces.
fn is_separator(line: &str) -> bool {
    line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The content of the first ` ```markdown ` block that is closed.
fn fenced_markdown(text: &str) -> Option<&str> {
    const OPEN: &str = "```markdown";
    let start = text.find(OPEN)? + OPEN.len();
    let len = text[start..].find("```")?;
    Some(&text[start..start + len])
}

/// WideSearch's fallback: from the first `|`, the lines that continue the pipe table.
fn pipe_run(text: &str) -> Option<&str> {
    if text.matches('|').count() < 4 {
        return None;
    }
    let start = text.find('|')?;
    let rest = &text[start..];
    let mut end = rest.find('\n').unwrap_or(rest.len());
    while end < rest.len() {
        let next_start = end + 1;
        let next_end = rest[next_start..]
            .find('\n')
            .map_or(rest.len(), |len| next_start + len);
        if !rest[next_start..next_end].trim_start().starts_with('|') {
            break;
        }
        end = next_end;
    }
    Some(&rest[..end])
}

/// Splits one table line into trimmed cells.
fn split_row(line: &str) -> Vec<String> {
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = if line.ends_with('|') && !line.ends_with("\\|") {
        &line[..line.len() - 1]
    } else {
        line
    };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(table: &PredictedTable) -> (Vec<String>, Vec<Vec<String>>) {
        (table.columns.clone().unwrap(), table.rows.clone())
    }

    #[test]
    fn prefers_the_markdown_block() {
        let text =
            "| x | y |\n|---|---|\n| 1 | 2 |\n```markdown\n| Name |\n|:--|\n\n| Vess |\n```\n";
        let table = extract_table(text).unwrap();
        assert_eq!(
            cells(&table),
            (vec!["Name".into()], vec![vec!["Vess".into()]])
        );
    }

    #[test]
    fn pipe_run_stops_at_the_first_non_table_line() {
        let text = "Table: | a | b |\n|---|---|\n  | 1 | 2 |\n\n| 3 | 4 |";
        let table = extract_table(text).unwrap();
        assert_eq!(
            cells(&table),
            (
                vec!["a".into(), "b".into()],
                vec![vec!["1".into(), "2".into()]]
            )
        );
    }

    #[test]
    fn lines_without_outer_pipes_and_escapes() {
        let text = "```markdown\na | b\n--|--\nx \\| y | z\n| | w |\n```";
        let table = extract_table(text).unwrap();
        assert_eq!(
            cells(&table),
            (
                vec!["a".into(), "b".into()],
                vec![
                    vec!["x | y".into(), "z".into()],
                    vec!["".into(), "w".into()]
                ]
            )
        );
    }

    /// Checks [`pipe_tables`]: each expected table is its header and rows, cells joined by `,`.
    fn check_pipe_tables(markdown: &str, expect: &[(&str, &[&str])]) {
        let got: Vec<(String, Vec<String>)> = pipe_tables(markdown)
            .into_iter()
            .map(|t| {
                let rows = t.rows.iter().map(|r| r.join(",")).collect();
                (t.header.join(","), rows)
            })
            .collect();
        let expect: Vec<(String, Vec<String>)> = expect
            .iter()
            .map(|(header, rows)| {
                (
                    header.to_string(),
                    rows.iter().map(|r| r.to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(got, expect, "{markdown:?}");
    }

    #[test]
    fn pipe_tables_of_a_page() {
        check_pipe_tables("no tables here", &[]);
        check_pipe_tables(
            "# Vess\n\n| Vess | |\n|---|---|\n| Founder | [Amo](https://w/Amo) |\n| Members | 1,204 |\n",
            &[("Vess,", &["Founder,[Amo](https://w/Amo)", "Members,1,204"])],
        );
        // Any line that is not a table line ends the table; separators are skipped anywhere.
        check_pipe_tables(
            "| A | B |\n|:--|--:|\n| 1 | 2 |\ntext\n  | C |  \n| 3 |\n|---|\n",
            &[("A,B", &["1,2"]), ("C", &["3"])],
        );
        // A line must start and end with a pipe; an escaped pipe stays in its cell.
        check_pipe_tables("| A | B\n| x \\| y | z |\n|", &[("x | y,z", &[])]);
    }

    #[test]
    fn links_are_whole_cells() {
        assert_eq!(
            link("[Vess](https://w/Vess)"),
            Some(("Vess", "https://w/Vess"))
        );
        assert_eq!(link("  [Vess](/wiki/Vess)  "), Some(("Vess", "/wiki/Vess")));
        assert_eq!(link("[Vess](https://w/Vess) and more"), None);
        assert_eq!(link("[a [b]](x)"), None);
        assert_eq!(link("[Vess](has space)"), None);
        assert_eq!(link("Vess"), None);
    }

    #[test]
    fn no_table() {
        assert_eq!(extract_table("just | one | pipe"), None);
        assert_eq!(extract_table("no pipes at all"), None);
        assert_eq!(extract_table("```markdown\nno table here\n```"), None);
    }
}
