//! The HTTP search service over a directory of world files: the native REST API, sessions whose
//! seeded controls inject realistic faults, and the seam ([`Suite`], [`app_with`]) on which the
//! protocol crates mount their routes: `fabula-compat` (Search-R1, ASearcher, Tavily) and
//! `fabula-mcp` (the MCP tool sets). `fabula serve` mounts them all; [`app`] is the native API
//! alone.
//!
//! Routes (all bodies JSON; errors are `{"error": {"code", "message"}}` unless noted):
//!
//! | route                              | answer                                                 |
//! |------------------------------------|--------------------------------------------------------|
//! | `GET /health`                      | `{"status": "ok"/"degraded", "worlds", "sessions", "unavailable"}`; never needs a key |
//! | `GET /v1/worlds`                   | `{"worlds": [{"id", "name", "theme", "pages"}]}`       |
//! | `POST /v1/worlds/{id}/search`      | see below                                              |
//! | `POST /v1/worlds/{id}/extract`     | `{"url", "title", "date", "content", "next_start"}`    |
//! | `POST /v1/sessions`                | `{"session", "world", "seed", "controls"}`             |
//! | `POST /v1/sessions/{sid}/search`   | as the world's search, under the session's controls    |
//! | `POST /v1/sessions/{sid}/extract`  | as the world's extract, under the session's controls   |
//! | `GET /v1/sessions/{sid}/log`       | `{"session", "world", "seed", "calls", "forgotten", "entries"}` |
//! | `POST /v1/sessions/{sid}/tools/web_search`, `/web_extractor`, `/dict_memory` | Qwen-AgentWorld's tools: `{"tool", "text", "structured"}` ([`tools`], [`memory`]) |
//! | `DELETE /v1/sessions/{sid}`        | 204                                                    |
//! | `GET /metrics`                     | Prometheus text: observations served by renderer, world-model render counters |
//! | `GET /openapi.json`                | an OpenAPI 3.1 document of these routes and the mounted suites' ([`openapi`]) |
//!
//! Mounted by `fabula serve` from the protocol crates: `POST /retrieve` and
//! `/v1/worlds/{id}/retrieve` (Search-R1), `POST /access` and `/v1/worlds/{id}/access`
//! (ASearcher), `POST /compat/tavily/{id}/search`, `/extract` (and `/crawl`, `/map`, which
//! refuse) from `fabula-compat`; `/mcp/{world}`, `/mcp/{world}/deep-research`,
//! `/mcp/{world}/browsecomp-plus` and `/mcp/{world}/tongyi` (MCP over Streamable HTTP) from
//! `fabula-mcp`.
//!
//! Search takes `{"query": ".."}` or `{"queries": [..]}` (at most 100), `"top_k"` (1..=50,
//! default 10), `"page"` (1..=1000, default 1) and `"hiding"` (`"none"`, `"partial"` (default),
//! `"strict"`). A single `"query"` is answered with one object
//! `{"query", "results": [{"rank", "url", "title", "snippet", "date"}], "page", "has_more"}`; a
//! `"queries"` batch with `{"responses": [..]}`, one such object per query in order, where a query
//! that failed on its own (a session's `batch_failure_rate`) is `{"query", "error": {..}}`.
//! Extract takes `{"url", "start": 0, "max_chars": 8000}` (`max_chars` 1..=100,000).
//!
//! Runs of `/` in a path are read as one `/` (a client's base URL with a trailing slash).
//!
//! Errors: 400 `bad_request` (malformed JSON or HTTP, wrong field types, unknown fields on the
//! native and session routes, blank queries or queries over 2,000 characters, values out of
//! range), 413 `payload_too_large` (bodies over 64 KiB; over
//! [`wire::MAX_SEARCH_BODY_BYTES`], about 2.3 MiB, on the search routes and `web_search`, so
//! that no schema-valid search is refused), 414 `uri_too_long`, 431
//! `headers_too_large`, 401 `unauthorized`, 404 `world_not_found`, `url_not_found`,
//! `session_not_found`, `not_found`, 405 `method_not_allowed`, 408 `request_timeout` (the body
//! did not arrive within `--body-timeout`), 429 `too_many_sessions` (with `Retry-After`: the
//! session cap is reached and no session is idle past its time to live), 503 `world_unavailable`
//! (the world's file is missing, damaged, foreign or does not match the manifest's hash; the
//! reason is logged once), 503 `deadline_exceeded` (past `--request-timeout`), and from session
//! controls 429 `rate_limited` (with `Retry-After`), 500 `injected_server_error`, 504 `timeout`;
//! 409 `memory_full` when a `dict_memory` write passes the memory's bounds.
//! A 500 `internal` is a bug; its cause is logged, not returned; so is a 500 `handler_panicked`, a
//! handler that panicked ([`edge::panics`]). Every error body is JSON, even
//! hyper's own rejections of malformed HTTP ([`edge`]).
//!
//! With API keys configured, every route but `GET /health` needs `Authorization: Bearer KEY`
//! with one of them and answers 401 `unauthorized` without it (the health check stays open for
//! load balancers). A session belongs to the key that created it: with another key its routes
//! answer 404 `session_not_found`.
//!
//! Session ids are 128-bit random (`s_` and 32 hex digits). A session idle for `session_ttl`
//! expires and answers `session_not_found`; each session's log keeps at most
//! `session_log_limit` entries and `session_log_bytes` bytes, all logs together
//! `total_log_bytes`; entries beyond them are counted in `forgotten`. The world file of every
//! world is checked against the manifest (hash, world id) before its first use; `serve` refuses a
//! manifest whose count, ids or file names do not hold.
//!
//! Native and session search and extract answers carry `"rendered_by"` (`"template"` or `"lwm"`),
//! the renderer that produced them; see [`lwm`] for how the world model's text maps back into
//! them. The protocol crates' shapes are unchanged.
//!
//! The agent-facing API reads only the pages of the world a request names (or its session's
//! world); it never reads the tasks table.

pub mod api_error;
mod config;
pub mod controls;
pub mod edge;
mod error;
pub mod extractors;
pub mod lwm;
pub mod memory;
pub mod native;
pub mod openapi;
mod session_store;
pub mod sessions;
mod state;
mod suite;
pub mod tools;
pub mod wire;

use std::future::Future;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;

pub use crate::api_error::{ApiError, ErrorCode, TavilyError};
pub use crate::config::{ServeConfig, default_allowed_hosts};
pub use crate::error::{Error, Result};
pub use crate::state::{AppState, Cost, host_of};
pub use crate::suite::Suite;

/// The native API alone as a router, to serve or to drive in process with `tower::ServiceExt`.
pub fn app(state: AppState) -> Router {
    app_with(state, Vec::new())
}

/// The service with `suites` mounted beside the native API (the protocol crates' routes, the
/// world browser's HTML pages): they sit behind the same API key check, slash collapsing,
/// fallbacks and panic answer, and their document parts join `GET /openapi.json`.
pub fn app_with(state: AppState, suites: Vec<Suite>) -> Router {
    let parts: Vec<openapi::DocumentPart> =
        suites.iter().filter_map(|suite| suite.document).collect();
    let document = move || openapi::document_with(&parts);
    let mut router = Router::new()
        .route("/health", get(native::health))
        .route("/v1/worlds", get(native::list_worlds))
        .route(
            "/v1/worlds/{id}/search",
            post(native::search).layer(search_body_limit()),
        )
        .route("/v1/worlds/{id}/extract", post(native::extract))
        .route("/v1/sessions", post(sessions::create))
        .route("/v1/sessions/{sid}", delete(sessions::delete))
        .route(
            "/v1/sessions/{sid}/search",
            post(sessions::search).layer(search_body_limit()),
        )
        .route("/v1/sessions/{sid}/extract", post(sessions::extract))
        .route("/v1/sessions/{sid}/log", get(sessions::log))
        .route(
            "/v1/sessions/{sid}/tools/web_search",
            post(tools::tool_web_search).layer(search_body_limit()),
        )
        .route(
            "/v1/sessions/{sid}/tools/web_extractor",
            post(tools::tool_web_extractor),
        )
        .route(
            "/v1/sessions/{sid}/tools/dict_memory",
            post(tools::tool_dict_memory),
        )
        .route("/metrics", get(native::metrics))
        .route("/openapi.json", get(openapi::serve(document)));
    for suite in suites {
        router = router.merge(suite.router);
    }
    let mut router = router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(extractors::MAX_BODY_BYTES));
    if !state.api_keys().is_empty() {
        router = router.layer(middleware::from_fn_with_state(
            state.clone(),
            require_api_key,
        ));
    }
    // Routing sees paths with runs of `/` collapsed, so a base URL with a trailing slash
    // (`.../compat/tavily/0/` + `/search`) works; the rewrite must wrap the whole router.
    Router::new()
        .fallback_service(router.with_state(state))
        .layer(middleware::map_request(collapse_slashes))
        .layer(edge::panics::layer())
}

/// The search routes' own body limit, which replaces the router's 64 KiB (the innermost
/// `DefaultBodyLimit` wins): see [`wire::MAX_SEARCH_BODY_BYTES`]. The protocol crates' search
/// routes take it too.
pub fn search_body_limit() -> DefaultBodyLimit {
    DefaultBodyLimit::max(wire::MAX_SEARCH_BODY_BYTES)
}

/// Rewrites `//` (and longer runs) in the path to `/`; the query is kept as sent.
async fn collapse_slashes(mut request: Request) -> Request {
    let uri = request.uri();
    if !uri.path().contains("//") {
        return request;
    }
    let mut path = String::with_capacity(uri.path().len());
    for c in uri.path().chars() {
        if !(c == '/' && path.ends_with('/')) {
            path.push(c);
        }
    }
    if let Some(query) = uri.query() {
        path = format!("{path}?{query}");
    }
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = path.parse().ok();
    if let Ok(collapsed) = axum::http::Uri::from_parts(parts) {
        *request.uri_mut() = collapsed;
    }
    request
}

async fn not_found(request: Request) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!("no route for {}", request.uri().path()),
    )
}

/// The 405 fallback of a router: the method and path in the message (the admin router's too).
pub async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!(
            "{} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
}

/// Which of the configured API keys a request presented (its index in `ServeConfig::api_keys`),
/// put in the request's extensions by the key check. Absent when the API is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyId(pub usize);

/// Rejects requests without one of the configured bearer keys; `GET /health` stays open. A
/// request that passes carries its [`KeyId`].
async fn require_api_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if path == "/health" {
        return next.run(request).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    let matched = presented.and_then(|key| {
        // Every key is compared, so the time taken does not tell which one nearly matched.
        state
            .api_keys()
            .iter()
            .enumerate()
            .fold(None, |found, (idx, expected)| {
                let equal = bool::from(key.as_bytes().ct_eq(expected.as_bytes()));
                found.or(equal.then_some(idx))
            })
    });
    if let Some(idx) = matched {
        request.extensions_mut().insert(KeyId(idx));
        return next.run(request).await;
    }
    let error = ApiError::new(
        ErrorCode::Unauthorized,
        "missing or wrong API key: send `Authorization: Bearer KEY`",
    );
    if path.starts_with("/compat/tavily/") {
        TavilyError(error).into_response()
    } else {
        error.into_response()
    }
}

/// A server bound to its socket and ready to run.
pub struct BoundServer {
    listener: TcpListener,
    state: AppState,
    local_addr: SocketAddr,
    suites: Vec<Suite>,
}

impl BoundServer {
    /// The state the server answers from, to share with another listener (the trainers' one).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The address actually bound (the real port when the config asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Mounts `suite` beside the native API (see [`app_with`]).
    pub fn with_suite(mut self, suite: Suite) -> BoundServer {
        self.suites.push(suite);
        self
    }

    /// Serves until `shutdown` completes, then lets requests in flight finish within the drain
    /// timeout (see [`edge`]). Meanwhile the world files are checked against the manifest in
    /// the background: every one at start, then each one that changed, every
    /// `ServeConfig::world_check_interval` (see [`AppState::sweep_worlds`]).
    pub async fn run_until<F>(self, shutdown: F) -> Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let timeouts = self.state.timeouts();
        let sweeper = tokio::spawn(sweep_worlds(self.state.clone()));
        let router = app_with(self.state, self.suites);
        let served = edge::serve_router(self.listener, router, timeouts, shutdown).await;
        sweeper.abort();
        served?;
        Ok(())
    }
}

/// Checks the world files every `world_check_interval`, the first time at once.
async fn sweep_worlds(state: AppState) {
    let interval = state
        .world_check_interval()
        .max(std::time::Duration::from_millis(100));
    let mut first = true;
    loop {
        let started = std::time::Instant::now();
        match state.sweep_worlds().await {
            Ok(unavailable) if first => tracing::info!(
                worlds = state.worlds().len(),
                unavailable,
                seconds = started.elapsed().as_secs_f64(),
                "every world file checked against the manifest"
            ),
            Ok(_) => {}
            Err(error) => tracing::warn!(error = %error.message, "cannot check the world files"),
        }
        first = false;
        tokio::time::sleep(interval).await;
    }
}

/// Opens the corpus (its manifest only) and binds the socket, without serving yet.
pub async fn bind(config: ServeConfig) -> Result<BoundServer> {
    let state = AppState::open(&config)?;
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|source| Error::Bind {
            addr: config.addr,
            source,
        })?;
    let local_addr = listener.local_addr()?;
    Ok(BoundServer {
        listener,
        state,
        local_addr,
        suites: Vec::new(),
    })
}

/// Serves `config.worlds` on `config.addr` with `suites` beside the native API until SIGINT or
/// SIGTERM, then drains gracefully.
pub async fn serve(config: ServeConfig, suites: Vec<Suite>) -> Result<()> {
    let mut server = bind(config).await?;
    server.suites = suites;
    tracing::info!(addr = %server.local_addr(), "serving");
    server.run_until(edge::shutdown_signal()).await
}
