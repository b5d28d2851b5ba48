//! The Model Context Protocol front end, four tool sets over the same sessions: Qwen-AgentWorld's
//! `web_search`, `web_extractor` and `dict_memory` ([`fabula_server::tools`]) at `/mcp/{world}`;
//! OpenAI deep research's `search` and `fetch` ([`deep_research`]) at
//! `/mcp/{world}/deep-research`; BrowseComp-Plus's `search` and `get_document`
//! ([`browsecomp_plus`]) at `/mcp/{world}/browsecomp-plus`; Tongyi DeepResearch's `search` and
//! `visit` ([`tongyi`]) at `/mcp/{world}/tongyi`. Served over stdio for one world and one session
//! ([`serve_stdio`], used by `fabula mcp --tools ...`) or as Streamable HTTP beside the REST API
//! ([`router`], [`suite`], mounted by `fabula serve`).
//!
//! Over HTTP each MCP session gets its own fabula session, created on its first tool call. Its
//! seed and controls come from the URL's query parameters (`seed`, and any control by name, e.g.
//! `?seed=7&error_rate=1&error_kinds=rate_limit,timeout&latency_ms=0,50`) or from the headers
//! `X-Fabula-Seed` and `X-Fabula-Controls` (a JSON object of controls); query parameters win.
//! A bad world or bad controls are refused before the MCP layer with the REST API's 4xx JSON.
//! Clients that negotiate the stateless protocol version `2026-07-28` have no MCP session, so each
//! of their requests gets a fresh fabula session (and a fresh, empty `dict_memory`).
//!
//! Controls apply exactly as on the REST sessions, because the tools call the same session code.
//! A failed call is an MCP tool error (`isError: true`) whose text reads
//! `Error CODE (STATUS): MESSAGE` and whose structured content is
//! `{"error": {"code", "message", "status"}}`, with the REST API's codes.
//!
//! The `Host` header is checked against an allowed list (default loopback only) against DNS
//! rebinding; `ServeConfig::mcp_allowed_hosts` widens it.
//!
//! Limits ([`http`]): at most `ServeConfig::max_mcp_sessions` MCP sessions at once (a new one
//! beyond it is 429 `too_many_sessions` with `Retry-After`), each closed after
//! `ServeConfig::mcp_session_ttl` without traffic; bodies of at most 64 KiB, an `initialize` of
//! at most [`http::MAX_INITIALIZE_BYTES`]. HTTP errors are the API's JSON errors (e.g. 406
//! `not_acceptable`, 415 `unsupported_media_type`, 404 `session_not_found`); a body that is not a
//! JSON-RPC message gets a JSON-RPC error (-32700 or -32600) with HTTP 400. DELETE of a session
//! answers 204. An unknown tool is a tool error, like a failed call.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use fabula_server::api_error::ApiError;
use fabula_server::controls::ControlsRequest;
use fabula_server::extractors::MAX_BODY_BYTES;
use fabula_server::sessions::Via;
use fabula_server::sessions::{CreateSessionRequest, close_session, create_session};
use fabula_server::tools;
use fabula_server::tools::input_schema;
use fabula_server::{AppState, Suite};

pub mod browsecomp_plus;
pub mod deep_research;
mod error;
pub mod http;
pub mod tongyi;

pub use crate::error::{Error, Result};

/// The header carrying a session's seed over HTTP.
pub const SEED_HEADER: &str = "x-fabula-seed";
/// The header carrying a session's controls over HTTP, as a JSON object.
pub const CONTROLS_HEADER: &str = "x-fabula-controls";

/// What an MCP session's fabula session is created from: its world, seed and controls.
#[derive(Debug, Clone)]
pub struct McpBinding {
    /// The world the session searches.
    pub world: u32,
    /// The seed of the session's controls.
    pub seed: u64,
    /// The controls, as a REST `POST /v1/sessions` would take them.
    pub controls: ControlsRequest,
}

impl McpBinding {
    /// Reads the world from the path `/mcp/{world}` and the seed and controls from the query and
    /// the headers; checks the controls' ranges so bad input is refused at once.
    pub fn from_request(
        world: &str,
        query: Option<&str>,
        headers: &HeaderMap,
    ) -> Result<McpBinding, ApiError> {
        let world: u32 = world
            .parse()
            .map_err(|_| ApiError::bad_request(format!("world id `{world}` is not a number")))?;
        let mut controls = match headers.get(CONTROLS_HEADER) {
            Some(value) => {
                let text = value.to_str().map_err(|_| {
                    ApiError::bad_request("the X-Fabula-Controls header is not text")
                })?;
                match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => map,
                    _ => {
                        return Err(ApiError::bad_request(
                            "the X-Fabula-Controls header must be a JSON object",
                        ));
                    }
                }
            }
            None => Map::new(),
        };
        let mut seed = match headers.get(SEED_HEADER) {
            Some(value) => Some(parse_seed(value.to_str().unwrap_or_default())?),
            None => None,
        };
        for (key, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            if key == "seed" {
                seed = Some(parse_seed(&value)?);
            } else {
                controls.insert(key.to_string(), query_value(&key, &value));
            }
        }
        let controls: ControlsRequest = serde_json::from_value(Value::Object(controls))
            .map_err(|error| ApiError::bad_request(format!("bad controls: {error}")))?;
        controls.clone().resolve()?;
        Ok(McpBinding {
            world,
            seed: seed.unwrap_or(0),
            controls,
        })
    }
}

fn parse_seed(text: &str) -> Result<u64, ApiError> {
    text.trim()
        .parse()
        .map_err(|_| ApiError::bad_request(format!("seed `{text}` is not a whole number")))
}

/// Turns one query parameter into the JSON value of that control: JSON when it parses, a
/// comma-separated list for the list-valued controls, else a string.
fn query_value(key: &str, value: &str) -> Value {
    if let Ok(parsed) = serde_json::from_str::<Value>(value) {
        return parsed;
    }
    match key {
        "error_kinds" | "latency_ms" => Value::Array(
            value
                .split(',')
                .map(|item| {
                    serde_json::from_str::<Value>(item.trim())
                        .unwrap_or_else(|_| Value::String(item.trim().to_owned()))
                })
                .collect(),
        ),
        _ => Value::String(value.to_owned()),
    }
}

/// The tools an MCP server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSet {
    /// Qwen-AgentWorld's `web_search`, `web_extractor` and `dict_memory` ([`fabula_server::tools`]).
    #[default]
    AgentWorld,
    /// OpenAI deep research's `search` and `fetch` ([`crate::deep_research`]).
    DeepResearch,
    /// BrowseComp-Plus's `search` and `get_document` ([`crate::browsecomp_plus`]).
    BrowseCompPlus,
    /// Tongyi DeepResearch's `search` and `visit` ([`crate::tongyi`]).
    Tongyi,
}

impl ToolSet {
    /// The set's name in a session's log (`via.suite`).
    pub fn suite(self) -> &'static str {
        match self {
            ToolSet::AgentWorld => "mcp",
            ToolSet::DeepResearch => "mcp/deep-research",
            ToolSet::BrowseCompPlus => "mcp/browsecomp-plus",
            ToolSet::Tongyi => "mcp/tongyi",
        }
    }

    /// The path suffix of the set's Streamable HTTP endpoint after `/mcp/{world}`.
    pub fn path_suffix(self) -> &'static str {
        match self {
            ToolSet::AgentWorld => "",
            ToolSet::DeepResearch => "/deep-research",
            ToolSet::BrowseCompPlus => "/browsecomp-plus",
            ToolSet::Tongyi => "/tongyi",
        }
    }

    const ALL: [ToolSet; 4] = [
        ToolSet::AgentWorld,
        ToolSet::DeepResearch,
        ToolSet::BrowseCompPlus,
        ToolSet::Tongyi,
    ];
}

/// The MCP server of one MCP session: the tools run inside one fabula session.
#[derive(Clone)]
pub struct FabulaMcp {
    state: AppState,
    tools: ToolSet,
    /// The fabula session, made on the first tool call (HTTP) or up front (stdio).
    session: Arc<SessionSlot>,
}

/// The fabula session of one MCP session. It ends with the MCP session: when rmcp drops the
/// session's server (closed by DELETE, idle past its time to live, or a stateless request
/// answered), the fabula session is removed from the store, so MCP traffic never fills the
/// REST session cap.
struct SessionSlot {
    state: AppState,
    id: OnceCell<String>,
}

impl Drop for SessionSlot {
    fn drop(&mut self) {
        if let Some(id) = self.id.get() {
            close_session(&self.state, id);
        }
    }
}

impl FabulaMcp {
    /// A server bound to an existing session, which ends when the server is dropped.
    pub fn for_session(state: AppState, session_id: String, tools: ToolSet) -> FabulaMcp {
        let slot = SessionSlot {
            state: state.clone(),
            id: OnceCell::new_with(Some(session_id)),
        };
        FabulaMcp {
            state,
            tools,
            session: Arc::new(slot),
        }
    }

    /// A server whose session is made on the first tool call from the HTTP request's
    /// [`McpBinding`].
    fn lazy(state: AppState, tools: ToolSet) -> FabulaMcp {
        let slot = SessionSlot {
            state: state.clone(),
            id: OnceCell::new(),
        };
        FabulaMcp {
            state,
            tools,
            session: Arc::new(slot),
        }
    }

    async fn session_id(&self, context: &RequestContext<RoleServer>) -> Result<String, ApiError> {
        let id = self
            .session
            .id
            .get_or_try_init(|| async {
                let binding = context
                    .extensions
                    .get::<Parts>()
                    .and_then(|parts| parts.extensions.get::<McpBinding>())
                    .cloned()
                    .ok_or_else(|| ApiError::internal(&"an MCP request without its binding"))?;
                let request = CreateSessionRequest {
                    world: binding.world,
                    seed: binding.seed,
                    controls: binding.controls,
                };
                create_session(&self.state, request).map(|created| created.session)
            })
            .await?;
        Ok(id.clone())
    }
}

/// A tool as a set lists it: name, description and the function that derives its input
/// schema.
type Spec = (&'static str, &'static str, fn() -> Value);

/// The tools of a set, in the order `tools/list` gives them.
fn specs(tools: ToolSet) -> &'static [Spec] {
    match tools {
        ToolSet::AgentWorld => &[
            (
                tools::WEB_SEARCH,
                tools::WEB_SEARCH_DESCRIPTION,
                tools::web_search_schema,
            ),
            (
                tools::WEB_EXTRACTOR,
                tools::WEB_EXTRACTOR_DESCRIPTION,
                tools::web_extractor_schema,
            ),
            (
                tools::DICT_MEMORY,
                tools::DICT_MEMORY_DESCRIPTION,
                tools::dict_memory_schema,
            ),
        ],
        ToolSet::DeepResearch => &[
            (
                deep_research::SEARCH,
                deep_research::SEARCH_DESCRIPTION,
                input_schema::<deep_research::SearchArgs>,
            ),
            (
                deep_research::FETCH,
                deep_research::FETCH_DESCRIPTION,
                input_schema::<deep_research::FetchArgs>,
            ),
        ],
        ToolSet::BrowseCompPlus => &[
            (
                browsecomp_plus::SEARCH,
                browsecomp_plus::SEARCH_DESCRIPTION,
                input_schema::<browsecomp_plus::SearchArgs>,
            ),
            (
                browsecomp_plus::GET_DOCUMENT,
                browsecomp_plus::GET_DOCUMENT_DESCRIPTION,
                input_schema::<browsecomp_plus::GetDocumentArgs>,
            ),
        ],
        ToolSet::Tongyi => &[
            (
                tongyi::SEARCH,
                tongyi::SEARCH_DESCRIPTION,
                input_schema::<tongyi::SearchArgs>,
            ),
            (
                tongyi::VISIT,
                tongyi::VISIT_DESCRIPTION,
                input_schema::<tongyi::VisitArgs>,
            ),
        ],
    }
}

/// The tools of a set as function definitions (`[{"type": "function", "function": {name,
/// description, parameters}}]`, the OpenAI tools layout chat templates render), for a system
/// prompt that lists the tools a world model simulates (AgentWorldBench's `{tool_definitions}`).
pub fn function_definitions(tools: ToolSet) -> Value {
    specs(tools)
        .iter()
        .map(|&(name, description, schema)| {
            serde_json::json!({"type": "function", "function": {
                "name": name, "description": description, "parameters": schema()}})
        })
        .collect()
}

/// The tools of a set as MCP lists them.
pub fn tool_list(tools: ToolSet) -> Vec<Tool> {
    specs(tools)
        .iter()
        .map(|&(name, description, schema)| {
            let schema = match schema() {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            Tool::new(name, description, schema)
        })
        .collect()
}

/// A failed call as an MCP tool error with the REST API's code.
fn tool_error(error: &ApiError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(tools::error_text(error))]);
    result.structured_content = Some(tools::error_json(error));
    result
}

impl ServerHandler for FabulaMcp {
    fn get_info(&self) -> ServerConfig {
        let instructions = match self.tools {
            ToolSet::AgentWorld => {
                "A fictional world's web. Search it with web_search, then read pages with \
                 web_extractor; snippets only hint at the facts. Keep notes with dict_memory."
            }
            ToolSet::DeepResearch => {
                "A fictional world's web. Search it with search, then read a result's page by \
                 its id with fetch."
            }
            ToolSet::BrowseCompPlus => {
                "A fictional world's documents. Search them with search, then read one by its \
                 docid with get_document."
            }
            ToolSet::Tongyi => {
                "A fictional world's web. Search it with search, then visit pages with a goal \
                 with visit."
            }
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fabula", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tool_list(self.tools)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tool_list(self.tools)
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let known = specs(self.tools).iter().any(|spec| spec.0 == name);
        if !known {
            let error = match self.tools {
                ToolSet::AgentWorld => tools::unknown_tool(&name),
                ToolSet::DeepResearch | ToolSet::BrowseCompPlus | ToolSet::Tongyi => {
                    let names: Vec<String> = specs(self.tools)
                        .iter()
                        .map(|spec| format!("`{}`", spec.0))
                        .collect();
                    ApiError::bad_request(format!(
                        "unknown tool `{name}`: use {}",
                        names.join(" or ")
                    ))
                }
            };
            return Ok(tool_error(&error).into());
        }
        let session_id = match self.session_id(&context).await {
            Ok(id) => id,
            Err(error) => return Ok(tool_error(&error).into()),
        };
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let via = Via::new(self.tools.suite(), &name, &arguments);
        let called = via
            .scope(async {
                match self.tools {
                    ToolSet::AgentWorld => {
                        tools::call_tool(&self.state, &session_id, &name, arguments).await
                    }
                    ToolSet::DeepResearch => {
                        deep_research::call_tool(&self.state, &session_id, &name, arguments).await
                    }
                    ToolSet::BrowseCompPlus => {
                        browsecomp_plus::call_tool(&self.state, &session_id, &name, arguments).await
                    }
                    ToolSet::Tongyi => {
                        tongyi::call_tool(&self.state, &session_id, &name, arguments).await
                    }
                }
            })
            .await;
        let result = match called {
            Ok(output) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
                result.structured_content = Some(output.structured);
                result
            }
            Err(error) => tool_error(&error),
        };
        Ok(result.into())
    }
}

/// Serves MCP over stdin and stdout for one new session until the client closes the stream.
/// A bad world or bad controls fail here, before anything is served.
pub async fn serve_stdio(
    state: AppState,
    request: CreateSessionRequest,
    tools: ToolSet,
) -> Result<()> {
    let created =
        create_session(&state, request).map_err(|error| Error::Mcp(tools::error_text(&error)))?;
    let server = FabulaMcp::for_session(state, created.session, tools);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| Error::Mcp(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| Error::Mcp(error.to_string()))?;
    Ok(())
}

/// The routes `/mcp/{world}` and one per other tool set (`/mcp/{world}/deep-research`, ...):
/// Streamable HTTP with a session per MCP session, behind the limits and JSON errors of [`http`].
pub fn router(state: &AppState) -> Router<AppState> {
    let config = StreamableHttpServerConfig::default().with_max_request_body_bytes(MAX_BODY_BYTES);
    let config = match state.mcp_allowed_hosts() {
        Some(hosts) => config.with_allowed_hosts(hosts.iter().cloned()),
        None => config.disable_allowed_hosts(),
    };
    let manager = Arc::new(http::session_manager(state.mcp_session_ttl()));
    let cap = Arc::new(http::SessionCap::new(
        Arc::clone(&manager),
        state.max_mcp_sessions(),
    ));
    // One session manager (and cap) for both tool sets: a session keeps the tools of the
    // endpoint that initialized it.
    let mut router = Router::new();
    for tools in ToolSet::ALL {
        let factory_state = state.clone();
        let service = StreamableHttpService::new(
            move || Ok(FabulaMcp::lazy(factory_state.clone(), tools)),
            Arc::clone(&manager),
            config.clone(),
        );
        router = router.route_service(&format!("/mcp/{{world}}{}", tools.path_suffix()), service);
    }
    // The last layer added runs first: the binding, then the body limit, the guard and the
    // JSON errors around rmcp.
    router
        .route_layer(middleware::from_fn(http::json_errors))
        .route_layer(middleware::from_fn_with_state(cap, http::guard_request))
        .route_layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .route_layer(middleware::from_fn_with_state(state.clone(), bind_request))
}

/// The routes as a suite to mount with `fabula_server::app_with`: no part of the OpenAPI
/// document (MCP clients learn the tools from `tools/list`), every endpoint's three methods
/// listed as undocumented.
pub fn suite(state: &AppState) -> Suite {
    Suite {
        router: router(state),
        document: None,
        undocumented: UNDOCUMENTED_ROUTES,
    }
}

/// The MCP endpoints, each answering GET (the SSE stream), POST (JSON-RPC) and DELETE (the
/// session's end): JSON-RPC messages, not REST operations.
pub const UNDOCUMENTED_ROUTES: &[(&str, &str)] = &[
    ("delete", "/mcp/{world}"),
    ("get", "/mcp/{world}"),
    ("post", "/mcp/{world}"),
    ("delete", "/mcp/{world}/deep-research"),
    ("get", "/mcp/{world}/deep-research"),
    ("post", "/mcp/{world}/deep-research"),
    ("delete", "/mcp/{world}/browsecomp-plus"),
    ("get", "/mcp/{world}/browsecomp-plus"),
    ("post", "/mcp/{world}/browsecomp-plus"),
    ("delete", "/mcp/{world}/tongyi"),
    ("get", "/mcp/{world}/tongyi"),
    ("post", "/mcp/{world}/tongyi"),
];

/// Checks the world and the controls of an MCP request and attaches its [`McpBinding`].
async fn bind_request(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let world = path.strip_prefix("/mcp/").unwrap_or_default();
    let world = ToolSet::ALL
        .iter()
        .filter(|tools| !tools.path_suffix().is_empty())
        .find_map(|tools| world.strip_suffix(tools.path_suffix()))
        .unwrap_or(world);
    let binding = match McpBinding::from_request(world, request.uri().query(), request.headers()) {
        Ok(binding) => binding,
        Err(error) => return error.into_response(),
    };
    // 404 `world_not_found`, or 503 `world_unavailable` for a world whose file failed its check.
    if let Err(error) = state.world_ready(binding.world).await {
        return error.into_response();
    }
    request.extensions_mut().insert(binding);
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabula_server::api_error::ErrorCode;

    #[test]
    fn query_parameters_become_controls() {
        let headers = HeaderMap::new();
        let binding = McpBinding::from_request(
            "3",
            Some("seed=9&error_rate=0.5&error_kinds=rate_limit,timeout&latency_ms=0,20&hiding=strict"),
            &headers,
        )
        .unwrap();
        assert_eq!(binding.world, 3);
        assert_eq!(binding.seed, 9);
        let controls = binding.controls.resolve().unwrap();
        assert_eq!(controls.error_rate, 0.5);
        assert_eq!(controls.latency_ms, [0, 20]);
        assert_eq!(controls.error_kinds.len(), 2);
    }

    #[test]
    fn headers_carry_controls_and_bad_ones_are_refused() {
        let mut headers = HeaderMap::new();
        headers.insert(CONTROLS_HEADER, r#"{"page_size": 3}"#.parse().unwrap());
        headers.insert(SEED_HEADER, "4".parse().unwrap());
        let binding = McpBinding::from_request("1", None, &headers).unwrap();
        assert_eq!(binding.seed, 4);
        assert_eq!(binding.controls.resolve().unwrap().page_size, Some(3));
        let bad = McpBinding::from_request("1", Some("error_rate=2"), &HeaderMap::new());
        assert_eq!(bad.unwrap_err().code, ErrorCode::BadRequest);
        let unknown = McpBinding::from_request("1", Some("eror_rate=0.1"), &HeaderMap::new());
        assert_eq!(unknown.unwrap_err().code, ErrorCode::BadRequest);
        let world = McpBinding::from_request("x", None, &HeaderMap::new());
        assert_eq!(world.unwrap_err().code, ErrorCode::BadRequest);
    }

    #[test]
    fn query_values_are_percent_decoded() {
        use fabula_server::controls::ErrorKind::{RateLimit, ServerError, Timeout};
        let check = |query: &str, expect: &[fabula_server::controls::ErrorKind]| {
            let binding = McpBinding::from_request("1", Some(query), &HeaderMap::new()).unwrap();
            let controls = binding.controls.resolve().unwrap();
            assert_eq!(controls.error_kinds, expect, "{query}");
        };
        check("error_kinds=rate_limit%2Ctimeout", &[RateLimit, Timeout]);
        check(
            "error_kinds=rate_limit,+server_error",
            &[RateLimit, ServerError],
        );
        check("seed=2&error_kinds=%5B%22timeout%22%5D", &[Timeout]);
    }
}
