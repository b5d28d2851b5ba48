//! The three agent tools of Qwen-AgentWorld's search environment, `web_search`,
//! `web_extractor` and `dict_memory` ([`crate::memory`]), run inside a session and rendered as
//! the text an agent reads. The MCP server (`fabula-mcp`), the REST routes
//! `POST /v1/sessions/{sid}/tools/{web_search,web_extractor,dict_memory}` and the trainers' episode API share them, so an agent
//! sees the same observations whichever front end it talks to.
//!
//! `web_search` answers in Qwen-AgentWorld's block format, one block per hit, numbered across the
//! whole answer:
//!
//! ```text
//! [1] https://example.fab/people/ada-lovelace
//! Title: Ada Lovelace
//! Snippet: ...
//! Date: N/A
//! ```
//!
//! Dated pages say `Date: Jun 18, 2024`, as the seed writes dates; the JSON keeps `YYYY-MM-DD`.
//!
//! `web_extractor` answers with the page as Markdown and, when the window was cut, a hint naming
//! the next `start_index`, like the reference MCP `fetch` server.

use axum::extract::State;
use axum::{Extension, Json};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::KeyId;
use crate::api_error::ApiError;
use crate::extractors::{ApiJson, ApiPath};
use crate::memory::DictMemoryArgs;
use crate::session_store::Via;
use crate::sessions::{session_extract_as, session_search_as};
use crate::state::AppState;
use crate::wire::{
    BatchItem, DEFAULT_MAX_CHARS, DEFAULT_TOP_K, ExtractRequest, ExtractResponse, MAX_MAX_CHARS,
    MAX_QUERIES, MAX_QUERY_CHARS, MAX_TOP_K, QueryText, SearchRequest, UrlText,
};

/// The name of the search tool.
pub const WEB_SEARCH: &str = "web_search";
/// The name of the page reader tool.
pub const WEB_EXTRACTOR: &str = "web_extractor";
/// The name of the session's key-value memory tool.
pub const DICT_MEMORY: &str = "dict_memory";

/// What `web_search` does, for an agent's tool list.
pub const WEB_SEARCH_DESCRIPTION: &str = "Search this world's web. Give `queries`, a list of \
search queries (or one `query`); each query returns up to `top_k` results (default 10), each as \
a block `[n] URL` / `Title:` / `Snippet:` / `Date:`. Snippets only hint at the facts: open a \
result's URL with `web_extractor` to read the page.";

/// What `web_extractor` does, for an agent's tool list.
pub const WEB_EXTRACTOR_DESCRIPTION: &str = "Read one page of this world's web as Markdown. Give \
the `url` of a search result. Long pages come in windows: when the text is cut, the answer ends \
with a hint naming the `start_index` to ask for next.";

/// What `dict_memory` does, for an agent's tool list.
pub const DICT_MEMORY_DESCRIPTION: &str = "A key-value notebook kept for this session. Give \
`operation`: `add` or `update` with `dict` (the pairs to store), `retrieve` or `remove` with \
`key_list`, `retrieve_all` or `remove_all` with nothing else. Keys not kept answer `Key not \
found`.";

/// The JSON schema of `dict_memory`'s arguments, derived from [`DictMemoryArgs`].
pub fn dict_memory_schema() -> Value {
    input_schema::<DictMemoryArgs>()
}

/// The JSON schema of `web_search`'s arguments, derived from [`WebSearchArgs`].
pub fn web_search_schema() -> Value {
    input_schema::<WebSearchArgs>()
}

/// The JSON schema of `web_extractor`'s arguments, derived from [`WebExtractorArgs`].
pub fn web_extractor_schema() -> Value {
    input_schema::<WebExtractorArgs>()
}

/// A tool's input schema as rmcp's tool macros make it (JSON Schema 2020-12 of what the type
/// deserializes: a root `type: object` with `properties`, and `required` when a field is; the
/// type's title and doc left out), less what only Rust knows: the `$schema` dialect (2020-12 is
/// MCP's default), integer `format`s (`uint`: the bounds say it) and the `null` default of an
/// `Option` field (a client leaves the field out). Generated with schemars directly, as rmcp
/// does, so the server links no MCP library (`fabula-mcp` serves these schemas).
pub fn input_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let Ok(Value::Object(mut schema)) = serde_json::to_value(generator.into_root_schema_for::<T>())
    else {
        unreachable!("a schema is a JSON object");
    };
    for rust_only in ["$schema", "title", "description"] {
        schema.remove(rust_only);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut().filter_map(Value::as_object_mut) {
            property.remove("format");
            if property.get("default") == Some(&Value::Null) {
                property.remove("default");
            }
        }
    }
    Value::Object(schema)
}

/// The arguments of `web_search`: one of `query` and `queries`, checked by the session's search.
/// Two schemas derive from it: MCP's (`schemars`, [`web_search_schema`]) and the REST
/// document's (`utoipa`, with the REST routes' query text).
#[derive(Debug, Clone, Deserialize, JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// A single search query, instead of `queries`.
    #[serde(default)]
    #[schemars(with = "String", length(min = 1, max = MAX_QUERY_CHARS))]
    #[schema(value_type = Option<QueryText>)]
    pub query: Option<String>,
    /// Search queries, run one by one; results come back in the same order.
    #[serde(default)]
    #[schemars(
        with = "Vec<String>",
        length(min = 1, max = MAX_QUERIES),
        inner(length(min = 1, max = MAX_QUERY_CHARS))
    )]
    #[schema(value_type = Option<Vec<QueryText>>, min_items = 1, max_items = 100)]
    pub queries: Option<Vec<String>>,
    /// Results per query.
    #[serde(default)]
    #[schemars(with = "usize", range(min = 1, max = MAX_TOP_K), extend("default" = DEFAULT_TOP_K))]
    #[schema(minimum = 1, maximum = 50)]
    pub top_k: Option<usize>,
}

/// The arguments of `web_extractor`.
#[derive(Debug, Clone, Deserialize, JsonSchema, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebExtractorArgs {
    /// The URL of the page to read, as a search result gave it.
    #[schemars(length(min = 1))]
    #[schema(value_type = UrlText)]
    pub url: String,
    /// The character to start reading from; use the one the previous answer's hint names.
    #[serde(default)]
    #[schemars(with = "usize", extend("default" = 0))]
    #[schema(maximum = 18446744073709551615_u64)]
    pub start_index: Option<usize>,
    /// The most characters to return.
    #[serde(default)]
    #[schemars(with = "usize", range(min = 1, max = MAX_MAX_CHARS), extend("default" = DEFAULT_MAX_CHARS))]
    #[schema(minimum = 1, maximum = 100000)]
    pub max_length: Option<usize>,
}

/// A tool's answer: the text an agent reads and the same answer as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The observation text.
    pub text: String,
    /// The REST API's JSON answer for the same call.
    pub structured: Value,
}

/// Runs one tool by name with JSON arguments inside a session that belongs to no API key (MCP's
/// and the episode API's). An unknown tool or bad arguments are a 400 `bad_request`; the
/// session's injected faults come back as their own codes (they reach the search and the page
/// reader; the memory holds no page and never fails but for its bounds).
pub async fn call_tool(
    state: &AppState,
    session_id: &str,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    call_tool_as(state, session_id, None, tool, arguments).await
}

/// [`call_tool`] on behalf of the API key `key`.
pub(crate) async fn call_tool_as(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    let via = Via::new("agentworld", tool, &arguments);
    via.scope(call_in_session(state, session_id, key, tool, arguments))
        .await
}

/// The work of [`call_tool_as`], under its logged call.
async fn call_in_session(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    tool: &str,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    match tool {
        WEB_SEARCH => web_search(state, session_id, key, arguments).await,
        WEB_EXTRACTOR => web_extractor(state, session_id, key, arguments).await,
        DICT_MEMORY => {
            let args: DictMemoryArgs = parse_args(DICT_MEMORY, arguments)?;
            let session = state.sessions().get(session_id, key)?;
            let answer = session.memory().run(args)?;
            Ok(ToolOutput {
                text: answer.text,
                structured: answer.structured,
            })
        }
        other => Err(unknown_tool(other)),
    }
}

/// The answer to a tool name that is none of the three.
pub fn unknown_tool(name: &str) -> ApiError {
    ApiError::bad_request(format!(
        "unknown tool `{name}`: use `{WEB_SEARCH}`, `{WEB_EXTRACTOR}` or `{DICT_MEMORY}`"
    ))
}

/// Reads a tool's arguments as the REST routes read their bodies: a whole number written with a
/// fraction (`top_k: 5.0`) is the integer it is, as the tool's JSON Schema `integer` counts it.
pub fn parse_args<T: serde::de::DeserializeOwned>(
    tool: &str,
    arguments: Value,
) -> Result<T, ApiError> {
    let mut arguments = match arguments {
        Value::Null => Value::Object(serde_json::Map::new()),
        other => other,
    };
    crate::extractors::read_whole_numbers(&mut arguments);
    serde_json::from_value(arguments)
        .map_err(|error| ApiError::bad_request(format!("bad arguments for `{tool}`: {error}")))
}

/// `web_search`: the session's search, rendered as result blocks.
async fn web_search(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    let args: WebSearchArgs = parse_args(WEB_SEARCH, arguments)?;
    let request = SearchRequest {
        query: args.query,
        queries: args.queries,
        top_k: args.top_k,
        page: None,
        hiding: None,
    };
    let answer = session_search_as(state, session_id, key, request).await?;
    let text = render_search(&answer.items);
    let structured = json!({ "responses": answer.items });
    Ok(ToolOutput { text, structured })
}

/// Renders search answers as Qwen-AgentWorld blocks, numbered across all queries.
pub fn render_search(items: &[BatchItem]) -> String {
    let mut text = String::new();
    let mut n = 0;
    for item in items {
        if !text.is_empty() {
            text.push('\n');
        }
        match item {
            BatchItem::Ok(response) => {
                text.push_str(&format!("Results for \"{}\":\n", response.query));
                if response.results.is_empty() {
                    text.push_str("No results.\n");
                }
                for hit in &response.results {
                    n += 1;
                    text.push_str(&format!(
                        "\n[{n}] {}\nTitle: {}\nSnippet: {}\nDate: {}\n",
                        hit.url,
                        hit.title,
                        hit.snippet,
                        hit.date
                            .as_deref()
                            .map_or("N/A".into(), fabula_date::observation_date)
                    ));
                }
            }
            BatchItem::Failed { query, error } => {
                text.push_str(&format!(
                    "Results for \"{query}\":\nError {}: {}\n",
                    error.code.as_str(),
                    error.message
                ));
            }
        }
    }
    text
}

/// `web_extractor`: the session's extract, rendered as Markdown with a continuation hint.
async fn web_extractor(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    arguments: Value,
) -> Result<ToolOutput, ApiError> {
    let args: WebExtractorArgs = parse_args(WEB_EXTRACTOR, arguments)?;
    let request = ExtractRequest {
        url: args.url,
        start: args.start_index,
        max_chars: args.max_length,
    };
    let extract = session_extract_as(state, session_id, key, request).await?;
    let text = render_extract(&extract);
    let structured = serde_json::to_value(&extract).map_err(|error| ApiError::internal(&error))?;
    Ok(ToolOutput { text, structured })
}

/// Renders an extract like the reference `fetch` server: a header, the Markdown, and a hint
/// naming the next `start_index` when the page goes on.
pub fn render_extract(extract: &ExtractResponse) -> String {
    let mut text = format!(
        "Contents of {}:\nTitle: {}\nDate: {}\n\n{}",
        extract.url,
        extract.title,
        extract
            .date
            .as_deref()
            .map_or("N/A".into(), fabula_date::observation_date),
        extract.content
    );
    if let Some(next_start) = extract.next_start {
        text.push_str(&format!(
            "\n\n<error>Content truncated. Call {WEB_EXTRACTOR} with a start_index of \
             {next_start} to get more content.</error>"
        ));
    }
    text
}

/// The answer of the session tool routes, `POST /v1/sessions/{sid}/tools/{tool}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ToolAnswer {
    /// The tool that ran.
    pub tool: String,
    /// The observation as the agent reads it: result blocks, the page as Markdown, or the
    /// memory's answer.
    pub text: String,
    /// The same answer as JSON (for `web_search` and `web_extractor`, the REST routes' answer).
    #[schema(value_type = Object)]
    pub structured: Value,
}

#[utoipa::path(post, path = "/v1/sessions/{sid}/tools/web_search", operation_id = "tool_web_search", tag = "sessions",
    summary = "Qwen-AgentWorld's `web_search` in the session: the search as result blocks",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    request_body = WebSearchArgs,
    responses((status = 200, description = "The result blocks an agent reads, and the search's answer as JSON", body = ToolAnswer)))]
pub(crate) async fn tool_web_search(
    State(state): State<AppState>,
    key: Option<Extension<KeyId>>,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(arguments): ApiJson<Value>,
) -> Result<Json<ToolAnswer>, ApiError> {
    run_tool(&state, key, &session_id, WEB_SEARCH, arguments).await
}

#[utoipa::path(post, path = "/v1/sessions/{sid}/tools/web_extractor", operation_id = "tool_web_extractor", tag = "sessions",
    summary = "Qwen-AgentWorld's `web_extractor` in the session: the page as Markdown",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    request_body = WebExtractorArgs,
    responses((status = 200, description = "The page as an agent reads it, and the extract as JSON", body = ToolAnswer)))]
pub(crate) async fn tool_web_extractor(
    State(state): State<AppState>,
    key: Option<Extension<KeyId>>,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(arguments): ApiJson<Value>,
) -> Result<Json<ToolAnswer>, ApiError> {
    run_tool(&state, key, &session_id, WEB_EXTRACTOR, arguments).await
}

#[utoipa::path(post, path = "/v1/sessions/{sid}/tools/dict_memory", operation_id = "tool_dict_memory", tag = "sessions",
    summary = "Qwen-AgentWorld's `dict_memory` in the session: a key-value notebook",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    request_body = DictMemoryArgs,
    responses((status = 200, description = "The memory's answer as the seed words it (`Key not found` included), and as JSON", body = ToolAnswer)))]
pub(crate) async fn tool_dict_memory(
    State(state): State<AppState>,
    key: Option<Extension<KeyId>>,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(arguments): ApiJson<Value>,
) -> Result<Json<ToolAnswer>, ApiError> {
    run_tool(&state, key, &session_id, DICT_MEMORY, arguments).await
}

/// Runs `tool` for one of the routes above.
async fn run_tool(
    state: &AppState,
    key: Option<Extension<KeyId>>,
    session_id: &str,
    tool: &str,
    arguments: Value,
) -> Result<Json<ToolAnswer>, ApiError> {
    let output = call_tool_as(
        state,
        session_id,
        key.map(|Extension(key)| key),
        tool,
        arguments,
    )
    .await?;
    Ok(Json(ToolAnswer {
        tool: tool.to_owned(),
        text: output.text,
        structured: output.structured,
    }))
}

/// The text an agent reads for a failed call: `Error CODE (STATUS): MESSAGE`.
pub fn error_text(error: &ApiError) -> String {
    let mut text = format!(
        "Error {} ({}): {}",
        error.code.as_str(),
        error.code.status().as_u16(),
        error.message
    );
    if let Some(seconds) = error.retry_after_s {
        text.push_str(&format!(" (retry after {seconds} s)"));
    }
    text
}

/// A failed call as JSON: `{"error": {"code", "message", "status", "retry_after_s"?}}`.
pub fn error_json(error: &ApiError) -> Value {
    let mut body = json!({
        "code": error.code.as_str(),
        "message": error.message,
        "status": error.code.status().as_u16(),
    });
    if let Some(seconds) = error.retry_after_s {
        body["retry_after_s"] = json!(seconds);
    }
    json!({ "error": body })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_written_with_a_fraction_are_integers() {
        let check = |arguments: Value, top_k: Option<Option<usize>>| {
            let parsed = parse_args::<WebSearchArgs>(WEB_SEARCH, arguments.clone());
            assert_eq!(parsed.ok().map(|args| args.top_k), top_k, "{arguments}");
        };
        check(json!({"query": "a", "top_k": 5.0}), Some(Some(5)));
        check(json!({"query": "a", "top_k": 5}), Some(Some(5)));
        check(json!({"query": "a"}), Some(None));
        check(json!({"query": "a", "top_k": 2.5}), None);
        check(json!({"query": "a", "top_k": -1.0}), None);
    }
}
