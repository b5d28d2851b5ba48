//! The two tools of Tongyi DeepResearch's agent (Alibaba-NLP/DeepResearch, `inference/
//! tool_search.py` and `tool_visit.py`; WebSailor's agents use the same pair), over a fabula
//! session, answering in their texts.
//!
//! - `search {"query": ".." | [..]}`: per query `A Google search for 'Q' found N results:` then
//!   `## Web Results` and numbered entries `1. [Title](url)`, `Date published: Jun 18, 2024`
//!   for dated pages, and the snippet (the session's, hiding what its controls hide); `No results
//!   found for 'Q'. Try with a more general query.` when there are none; several queries joined
//!   by `\n=======\n`.
//! - `visit {"url": ".." | [..], "goal"}`: per url `The useful information in URL for user goal
//!   GOAL as follows:`, `Evidence in page:` and `Summary:`, several urls joined by `\n=======\n`;
//!   a url that is no page of the world gets the original's "could not be accessed" text.
//!   The original asks a language model to pick the evidence and write the summary; here both are
//!   extractive, so no model is needed and nothing is invented: the evidence is the page's lines
//!   (paragraphs, infobox and table rows) that share the most words with the goal, in page
//!   order, and the summary is the page's title and its opening paragraph.
//!
//! Served at `/mcp/{world}/tongyi` (Streamable HTTP) and by `fabula mcp --tools tongyi` (stdio).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use fabula_server::AppState;
use fabula_server::api_error::{ApiError, ErrorCode};
use fabula_server::sessions::{read_page, session_hits};
use fabula_server::tools::{ToolOutput, parse_args};
use fabula_server::wire::MAX_QUERIES;

/// The name of the search tool.
pub const SEARCH: &str = "search";
/// The name of the page tool.
pub const VISIT: &str = "visit";

/// What `search` does, for the tool list (the original's words).
pub const SEARCH_DESCRIPTION: &str = "Performs batched web searches: supply an array 'query'; the \
tool retrieves the top 10 results for each query in one call.";

/// What `visit` does, for the tool list (the original's words).
pub const VISIT_DESCRIPTION: &str = "Visit webpage(s) and return the summary of the content.";

/// Joins the answers of several queries or urls, as the originals do.
const SEPARATOR: &str = "\n=======\n";
/// The most lines of evidence a visit quotes.
const EVIDENCE_LINES: usize = 8;
/// The longest summary, in characters (it ends at a sentence when it can).
const SUMMARY_CHARS: usize = 600;
/// The most urls one visit reads.
const MAX_URLS: usize = 10;

/// One string or several.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    /// The strings; a 400 naming the argument `name` unless there are 1 to `max` of them.
    fn into_vec(self, name: &str, max: usize) -> Result<Vec<String>, ApiError> {
        let all = match self {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        };
        if all.is_empty() || all.len() > max {
            return Err(ApiError::bad_request(format!(
                "`{name}` must hold 1 to {max} values, not {}",
                all.len()
            )));
        }
        Ok(all)
    }
}

/// The arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Array of query strings. Include multiple complementary search queries in a single call.
    pub query: OneOrMany,
}

/// The arguments of `visit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VisitArgs {
    /// The URL(s) of the webpage(s) to visit. Can be a single URL or an array of URLs.
    pub url: OneOrMany,
    /// The goal of the visit for webpage(s).
    pub goal: String,
}

/// Runs `search` or `visit` in a session; any other name is a 400 `bad_request`.
pub async fn call_tool(
    state: &AppState,
    session_id: &str,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    match tool {
        SEARCH => {
            let args: SearchArgs = parse_args(SEARCH, arguments)?;
            let queries = args.query.into_vec("query", MAX_QUERIES)?;
            let mut texts = Vec::new();
            let mut structured = Vec::new();
            for query in queries {
                let (text, hits) = search(state, session_id, query.clone()).await?;
                texts.push(text);
                structured.push(json!({ "query": query, "results": hits }));
            }
            Ok(ToolOutput {
                text: texts.join(SEPARATOR),
                structured: json!({ "responses": structured }),
            })
        }
        VISIT => {
            let args: VisitArgs = parse_args(VISIT, arguments)?;
            let urls = args.url.into_vec("url", MAX_URLS)?;
            let mut texts = Vec::new();
            for url in &urls {
                texts.push(visit(state, session_id, url, &args.goal).await?);
            }
            Ok(ToolOutput {
                text: texts.join(SEPARATOR).trim().to_owned(),
                structured: json!({ "urls": urls, "goal": args.goal }),
            })
        }
        other => Err(ApiError::bad_request(format!(
            "unknown tool `{other}`: use `{SEARCH}` or `{VISIT}`"
        ))),
    }
}

async fn search(
    state: &AppState,
    session_id: &str,
    query: String,
) -> Result<(String, Value), ApiError> {
    let hits = session_hits(state, session_id, query.clone(), None).await?;
    let entries: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(at, hit)| {
            let date = hit.date.as_deref().map_or(String::new(), |date| {
                format!("\nDate published: {}", fabula_date::observation_date(date))
            });
            format!(
                "{}. [{}]({}){date}\n\n{}",
                at + 1,
                hit.title,
                hit.url,
                hit.snippet
            )
        })
        .collect();
    let text = if entries.is_empty() {
        format!("No results found for '{query}'. Try with a more general query.")
    } else {
        format!(
            "A Google search for '{query}' found {} results:\n\n## Web Results\n{}",
            entries.len(),
            entries.join("\n\n")
        )
    };
    let hits: Vec<Value> = hits
        .into_iter()
        .map(|hit| json!({ "title": hit.title, "url": hit.url, "date": hit.date, "snippet": hit.snippet }))
        .collect();
    Ok((text, Value::Array(hits)))
}

async fn visit(
    state: &AppState,
    session_id: &str,
    url: &str,
    goal: &str,
) -> Result<String, ApiError> {
    let head = format!("The useful information in {url} for user goal {goal} as follows: \n\n");
    let page = match read_page(state, session_id, url.trim()).await {
        Ok(page) => page,
        Err(error) if error.code == ErrorCode::UrlNotFound => {
            return Ok(format!(
                "{head}Evidence in page: \nThe provided webpage content could not be accessed. \
                 Please check the URL or file format.\n\nSummary: \nThe webpage content could \
                 not be processed, and therefore, no information is available.\n\n"
            ));
        }
        Err(error) => return Err(error),
    };
    let evidence = evidence(&page.text, goal);
    let summary = summary(&page.title, &page.text);
    Ok(format!(
        "{head}Evidence in page: \n{evidence}\n\nSummary: \n{summary}\n\n"
    ))
}

/// Words too common to tell lines apart.
const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "was",
    "were",
    "are",
    "who",
    "what",
    "which",
    "when",
    "where",
    "how",
    "with",
    "from",
    "that",
    "this",
    "its",
    "his",
    "her",
    "their",
    "find",
    "about",
    "page",
    "information",
    "out",
    "into",
    "does",
    "did",
    "has",
    "had",
    "have",
    "any",
    "all",
];

/// The lower-case words of at least three letters or digits in `text`, stopwords left out.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|word| !STOPWORDS.contains(&word.as_str()))
        .collect()
}

/// The page's lines (bare urls and table rules left out) that share the most words with `goal`,
/// at most [`EVIDENCE_LINES`], in page order; the opening lines when none does.
fn evidence(markdown: &str, goal: &str) -> String {
    let goal = words(goal);
    let lines: Vec<&str> = markdown
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !is_rule(line) && !line.starts_with("http"))
        .collect();
    let mut scored: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .map(|(at, line)| (words(line).intersection(&goal).count(), at))
        .filter(|&(shared, _)| shared > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = scored
        .into_iter()
        .take(EVIDENCE_LINES)
        .map(|(_, at)| at)
        .collect();
    if chosen.is_empty() {
        chosen = (0..lines.len().min(3)).collect();
    }
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|at| lines[at])
        .collect::<Vec<_>>()
        .join("\n")
}

/// A table's separator row (`|---|---|`).
fn is_rule(line: &str) -> bool {
    line.starts_with('|') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The page's title and its first paragraph of prose, cut at a sentence within
/// [`SUMMARY_CHARS`].
fn summary(title: &str, markdown: &str) -> String {
    let lead = markdown
        .lines()
        .map(str::trim)
        .find(|line| {
            !line.is_empty()
                && !line.starts_with(['#', '|', '-', '*', '>'])
                && !line.starts_with("http")
                && line.split_whitespace().count() >= 5
        })
        .unwrap_or_default();
    let mut text: String = lead.chars().take(SUMMARY_CHARS).collect();
    if text.len() < lead.len()
        && let Some(end) = text.rfind(". ")
    {
        text.truncate(end + 1);
    }
    if text.is_empty() {
        title.to_owned()
    } else {
        format!("{title}: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "Kest\nhttps://w.fab/wiki/Kest\n\n# Kest\n\nKest is a river city on the \
        Amsel delta, founded in 1204 by the guild of lantern makers.\n\n| Kest | |\n|---|---|\n| \
        Founded | 1204 |\n| Population | 12,345 |\n\n## Daily life\n\nThe streets smell of fish.\n";

    #[test]
    fn evidence_is_the_lines_that_share_the_goals_words_in_page_order() {
        let found = evidence(
            PAGE,
            "When was Kest founded, and how many people live there?",
        );
        assert_eq!(
            found,
            "Kest\n# Kest\nKest is a river city on the Amsel delta, founded in 1204 by the guild \
             of lantern makers.\n| Kest | |\n| Founded | 1204 |"
        );
        // No shared word: the opening lines (a bare url is no evidence).
        assert_eq!(
            evidence(PAGE, "zzz"),
            "Kest\n# Kest\nKest is a river city on the Amsel delta, founded in 1204 by the guild \
             of lantern makers."
        );
    }

    #[test]
    fn the_summary_is_the_title_and_the_opening_paragraph() {
        assert_eq!(
            summary("Kest", PAGE),
            "Kest: Kest is a river city on the Amsel delta, founded in 1204 by the guild of \
             lantern makers."
        );
        assert_eq!(summary("Empty", "# Empty\n"), "Empty");
    }
}
