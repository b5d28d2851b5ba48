//! The tools of BrowseComp-Plus's MCP retrieval server (`searcher/mcp_server.py` with
//! `--get-document`), over a fabula session: `search` and `get_document`, as its FastMCP
//! server answers them.
//!
//! - `search {"query"}` -> a JSON list of the top [`K`] hits, `[{"docid", "score", "snippet"}]`
//!   (its server's default `--k 5`; the docid is the page's url, the score the search's BM25
//!   score, the snippet the session's snippet, which hides what its controls hide), in one text
//!   item, and as `structuredContent` `{"result": [..]}` (FastMCP wraps a list so).
//! - `get_document {"docid"}` -> `{"docid", "text"}`, the whole page as Markdown, or `null` for
//!   a docid that is no page of the world (its searchers answer `None`).
//!
//! Served at `/mcp/{world}/browsecomp-plus` (Streamable HTTP) and by `fabula mcp --tools
//! browsecomp-plus` (stdio).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use fabula_server::AppState;
use fabula_server::api_error::{ApiError, ErrorCode};
use fabula_server::sessions::{read_page, session_hits};
use fabula_server::tools::{ToolOutput, parse_args};
use fabula_server::wire::MAX_QUERY_CHARS;

/// The name of the search tool.
pub const SEARCH: &str = "search";
/// The name of the document tool.
pub const GET_DOCUMENT: &str = "get_document";
/// The hits one search returns, as BrowseComp-Plus's server does by default.
pub const K: usize = 5;

/// What `search` does, for the tool list.
pub const SEARCH_DESCRIPTION: &str = "Perform a search on a knowledge source. Returns the top 5 \
hits as a JSON list of {docid, score, snippet}; the snippet only hints at the document, so read \
a promising one with get_document.";

/// What `get_document` does, for the tool list.
pub const GET_DOCUMENT_DESCRIPTION: &str = "Retrieve the full text of a document by its docid: \
{docid, text}, or null when there is no such document.";

/// The arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Search query string.
    #[schemars(length(min = 1, max = MAX_QUERY_CHARS))]
    pub query: String,
}

/// The arguments of `get_document`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocumentArgs {
    /// Document ID to retrieve.
    #[schemars(length(min = 1))]
    pub docid: String,
}

/// Runs `search` or `get_document` in a session; any other name is a 400 `bad_request`.
pub async fn call_tool(
    state: &AppState,
    session_id: &str,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    match tool {
        SEARCH => {
            let args: SearchArgs = parse_args(SEARCH, arguments)?;
            let hits = search(state, session_id, args).await?;
            Ok(ToolOutput {
                text: hits.to_string(),
                structured: json!({ "result": hits }),
            })
        }
        GET_DOCUMENT => {
            let args: GetDocumentArgs = parse_args(GET_DOCUMENT, arguments)?;
            let document = match read_page(state, session_id, args.docid.trim()).await {
                Ok(page) => json!({ "docid": args.docid, "text": page.text }),
                Err(error) if error.code == ErrorCode::UrlNotFound => Value::Null,
                Err(error) => return Err(error),
            };
            let structured = match &document {
                Value::Null => json!({ "result": null }),
                _ => document.clone(),
            };
            Ok(ToolOutput {
                text: document.to_string(),
                structured,
            })
        }
        other => Err(ApiError::bad_request(format!(
            "unknown tool `{other}`: use `{SEARCH}` or `{GET_DOCUMENT}`"
        ))),
    }
}

async fn search(state: &AppState, session_id: &str, args: SearchArgs) -> Result<Value, ApiError> {
    let hits = session_hits(state, session_id, args.query, Some(K)).await?;
    Ok(hits
        .into_iter()
        .map(|hit| json!({ "docid": hit.url, "score": hit.score, "snippet": hit.snippet }))
        .collect())
}
