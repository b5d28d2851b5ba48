//! Finding the answer table in an agent's Markdown, the way WideSearch's evaluator does.

use crate::prediction::PredictedTable;

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
    let mut lines = block.lines().map(str::trim).filter(|line| {
        line.contains('|') && !line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
    });
    let columns = split_row(lines.next()?);
    let rows = lines.map(split_row).collect();
    Some(PredictedTable {
        columns: Some(columns),
        rows,
    })
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

    #[test]
    fn no_table() {
        assert_eq!(extract_table("just | one | pipe"), None);
        assert_eq!(extract_table("no pipes at all"), None);
        assert_eq!(extract_table("```markdown\nno table here\n```"), None);
    }
}
