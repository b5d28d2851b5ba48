//! Parsing and writing observation text: search result blocks and extracted Markdown pages.
//!
//! A search observation is one or more sections, each optionally headed by `## Query: <query>`,
//! holding result blocks in Qwen-AgentWorld's layout:
//!
//! ```text
//! [1] https://kest.fab/wiki/Kest
//! Title: Kest
//! Snippet: Kest is a river city-state on the …
//! Date: N/A
//! ```
//!
//! Dates are written as the seed writes them, `Date: Jun 18, 2024` (`N/A` for an undated page);
//! [`ResultBlock::date`] holds the page's `YYYY-MM-DD`, and parsing reads either form back to it.
//!
//! An extractor observation is the page as Markdown, opening with a `# Title` heading.

use std::fmt::Write as _;

/// One search hit as the agent sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultBlock {
    pub rank: usize,
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// The page's date as `YYYY-MM-DD` (written `Jun 18, 2024`); None when the block says
    /// `Date: N/A`.
    pub date: Option<String>,
}

/// The results of one query of a `web_search` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchSection {
    /// The query from a `## Query:` heading; None when the text has no heading.
    pub query: Option<String>,
    pub results: Vec<ResultBlock>,
}

/// An extracted page split into its heading and the Markdown after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedPage {
    pub title: String,
    pub body: String,
}

/// Writes search sections in the result-block format. Sections with a query get a
/// `## Query:` heading.
pub fn format_search(sections: &[SearchSection]) -> String {
    let mut out = String::new();
    for section in sections {
        if let Some(query) = &section.query {
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "## Query: {query}");
        }
        for block in &section.results {
            if !out.is_empty() {
                out.push('\n');
            }
            let date = block
                .date
                .as_deref()
                .map_or("N/A".into(), fabula_date::observation_date);
            let _ = writeln!(out, "[{}] {}", block.rank, block.url);
            let _ = writeln!(out, "Title: {}", block.title);
            let _ = writeln!(out, "Snippet: {}", block.snippet);
            let _ = writeln!(out, "Date: {date}");
        }
    }
    out
}

/// Parses a search observation. Every non-blank line must belong to a query heading or a result
/// block; at least one block is required. Errors say what was wrong and where.
pub fn parse_search(text: &str) -> Result<Vec<SearchSection>, String> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut sections: Vec<SearchSection> = Vec::new();
    let mut idx = 0;
    while idx < lines.len() {
        let line = lines[idx].trim_start();
        if line.is_empty() {
            idx += 1;
            continue;
        }
        if let Some(query) = line.strip_prefix("## Query:") {
            sections.push(SearchSection {
                query: Some(query.trim().to_string()),
                results: Vec::new(),
            });
            idx += 1;
            continue;
        }
        let Some((rank, url)) = parse_block_head(line) else {
            return Err(format!(
                "line {}: expected `[n] URL`, found {line:?}",
                idx + 1
            ));
        };
        let field = |offset: usize, name: &str| -> Result<String, String> {
            let line_no = idx + offset;
            let line = lines.get(line_no).map(|l| l.trim_start()).unwrap_or("");
            match line.strip_prefix(name) {
                Some(value) => Ok(value.trim().to_string()),
                None => Err(format!(
                    "line {}: expected `{name}`, found {line:?}",
                    line_no + 1
                )),
            }
        };
        let title = field(1, "Title:")?;
        let snippet = field(2, "Snippet:")?;
        let date = field(3, "Date:")?;
        if title.is_empty() {
            return Err(format!("line {}: empty title", idx + 2));
        }
        if date.is_empty() {
            return Err(format!("line {}: empty date", idx + 4));
        }
        if sections.is_empty() {
            sections.push(SearchSection {
                query: None,
                results: Vec::new(),
            });
        }
        let section = sections.last_mut().expect("a section was just ensured");
        if section.results.last().is_some_and(|prev| prev.rank >= rank) {
            return Err(format!("line {}: rank {rank} does not increase", idx + 1));
        }
        section.results.push(ResultBlock {
            rank,
            url,
            title,
            snippet,
            // The seed's `Jun 18, 2024` reads back as the page's ISO date; a date in no
            // known form stays as written, for the verifier to refuse.
            date: (date != "N/A").then(|| fabula_date::observation_date_iso(&date).unwrap_or(date)),
        });
        idx += 4;
    }
    if sections.iter().all(|s| s.results.is_empty()) {
        return Err("no result blocks".to_string());
    }
    Ok(sections)
}

/// Parses `[n] URL`.
fn parse_block_head(line: &str) -> Option<(usize, String)> {
    let rest = line.strip_prefix('[')?;
    let (rank, rest) = rest.split_once(']')?;
    let rank: usize = rank.parse().ok()?;
    let url = rest.strip_prefix(' ')?.trim();
    if url.is_empty() || url.contains(char::is_whitespace) || !url.contains("://") {
        return None;
    }
    Some((rank, url.to_string()))
}

/// Parses an extracted page: the first non-blank line must be a `# ` heading and some text must
/// follow it.
pub fn parse_page(text: &str) -> Result<ParsedPage, String> {
    let text = text.trim();
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let Some(title) = first.trim().strip_prefix("# ") else {
        return Err(format!("expected a `# Title` heading, found {first:?}"));
    };
    let title = title.trim();
    if title.is_empty() {
        return Err("empty title heading".to_string());
    }
    let body = rest.trim();
    if body.is_empty() {
        return Err("no text after the heading".to_string());
    }
    if body
        .lines()
        .any(|line| parse_block_head(line.trim()).is_some())
    {
        return Err("a page must not contain search result blocks".to_string());
    }
    Ok(ParsedPage {
        title: title.to_string(),
        body: body.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(rank: usize, url: &str) -> ResultBlock {
        ResultBlock {
            rank,
            url: url.to_string(),
            title: format!("Page {rank}"),
            snippet: "Some … text".to_string(),
            date: rank.is_multiple_of(2).then(|| "2031-04-02".to_string()),
        }
    }

    #[test]
    fn format_then_parse_round_trips() {
        let sections = vec![
            SearchSection {
                query: Some("river city".to_string()),
                results: vec![block(1, "https://a.fab/1"), block(2, "https://a.fab/2")],
            },
            SearchSection {
                query: Some("harbour".to_string()),
                results: vec![block(1, "https://a.fab/3")],
            },
        ];
        let text = format_search(&sections);
        assert!(text.contains("\nDate: Apr 2, 2031\n"), "{text}");
        assert_eq!(parse_search(&text).unwrap(), sections);
        // An ISO date, as older observations wrote it, reads the same.
        let iso = text.replace("Apr 2, 2031", "2031-04-02");
        assert_eq!(parse_search(&iso).unwrap(), sections);
    }

    #[test]
    fn headless_blocks_parse() {
        let text = "[1] https://a.fab/x\nTitle: X\nSnippet: \nDate: N/A\n";
        let sections = parse_search(text).unwrap();
        assert_eq!(sections[0].query, None);
        assert_eq!(sections[0].results[0].snippet, "");
    }

    #[test]
    fn stray_text_is_rejected() {
        let text = "Here are results:\n[1] https://a.fab/x\nTitle: X\nSnippet: s\nDate: N/A\n";
        assert!(parse_search(text).unwrap_err().contains("line 1"));
        assert!(parse_search("").is_err());
        let missing_date = "[1] https://a.fab/x\nTitle: X\nSnippet: s\n";
        assert!(parse_search(missing_date).unwrap_err().contains("Date:"));
    }

    #[test]
    fn pages_need_a_heading_and_text() {
        assert_eq!(
            parse_page("# Kest\n\nKest is a city.").unwrap(),
            ParsedPage {
                title: "Kest".to_string(),
                body: "Kest is a city.".to_string()
            }
        );
        assert!(parse_page("Kest is a city.").is_err());
        assert!(parse_page("# Kest\n").is_err());
    }
}
