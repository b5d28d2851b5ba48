//! The two tools OpenAI's deep research and ChatGPT connectors ask of an MCP server, over a
//! fabula session: `search` and `fetch`, each taking one string, each answering one text item
//! holding a JSON object (and the same object as `structuredContent`).
//!
//! - `search {"query"}` -> `{"results": [{"id", "title", "url"}]}`: the session's search, its
//!   first page of results (the session's `page_size` and faults apply). The id is the page's
//!   url, so a result is citable and fetchable as it stands.
//! - `fetch {"id"}` -> `{"id", "title", "text", "url", "metadata"}`: the whole page as Markdown
//!   (read window by window through the session's extract, so its controls apply), with
//!   `metadata` `{"world", "date"}` (`date` `YYYY-MM-DD`, or null for an undated page). An id
//!   that is no page of the world is a tool error with code `url_not_found`.
//!
//! Served at `/mcp/{world}/deep-research` (Streamable HTTP) and by `fabula mcp --tools
//! deep-research` (stdio), beside Qwen-AgentWorld's tools at `/mcp/{world}`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use fabula_server::AppState;
use fabula_server::api_error::ApiError;
use fabula_server::sessions::{read_page, session_hits};
use fabula_server::tools::{ToolOutput, parse_args};
use fabula_server::wire::MAX_QUERY_CHARS;

/// The name of the search tool.
pub const SEARCH: &str = "search";
/// The name of the page tool.
pub const FETCH: &str = "fetch";

/// What `search` does, for the tool list.
pub const SEARCH_DESCRIPTION: &str = "Search this fictional world's web with a query. Returns \
`{\"results\": [{\"id\", \"title\", \"url\"}]}`; give a result's `id` to `fetch` to read the page. \
Nothing here is known from memory: every fact is on the world's pages.";

/// What `fetch` does, for the tool list.
pub const FETCH_DESCRIPTION: &str = "Read one page of this fictional world's web by the `id` a \
`search` result gave. Returns `{\"id\", \"title\", \"text\", \"url\", \"metadata\"}`, the page's \
whole text as Markdown.";

/// The arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to search for.
    #[schemars(length(min = 1, max = MAX_QUERY_CHARS))]
    pub query: String,
}

/// The arguments of `fetch`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    /// The `id` of a `search` result.
    #[schemars(length(min = 1))]
    pub id: String,
}

/// Runs `search` or `fetch` in a session; any other name is a 400 `bad_request`.
pub async fn call_tool(
    state: &AppState,
    session_id: &str,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    let answer = match tool {
        SEARCH => search(state, session_id, parse_args(SEARCH, arguments)?).await?,
        FETCH => fetch(state, session_id, parse_args(FETCH, arguments)?).await?,
        other => {
            return Err(ApiError::bad_request(format!(
                "unknown tool `{other}`: use `{SEARCH}` or `{FETCH}`"
            )));
        }
    };
    Ok(ToolOutput {
        text: answer.to_string(),
        structured: answer,
    })
}

async fn search(state: &AppState, session_id: &str, args: SearchArgs) -> Result<Value, ApiError> {
    let hits = session_hits(state, session_id, args.query, None).await?;
    let results: Vec<Value> = hits
        .into_iter()
        .map(|hit| json!({ "id": hit.url, "title": hit.title, "url": hit.url }))
        .collect();
    Ok(json!({ "results": results }))
}

async fn fetch(state: &AppState, session_id: &str, args: FetchArgs) -> Result<Value, ApiError> {
    let page = read_page(state, session_id, args.id.trim()).await?;
    Ok(json!({
        "id": args.id,
        "title": page.title,
        "text": page.text,
        "url": page.url,
        "metadata": { "world": page.world, "date": page.date },
    }))
}
