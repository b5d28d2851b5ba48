//! The trainers' listener: gold answers and scoring, served apart from the agent-facing API.
//!
//! Gold answers must never reach an agent, so they live on a second listener with its own address
//! and a required token, in a crate the agent-facing server does not depend on. It answers from the
//! agent-facing server's own [`fabula_server::AppState`], so one process holds one corpus. Routes:
//!
//! | route | what |
//! | --- | --- |
//! | `GET /admin/worlds/{id}/tasks` | `{"world", "tasks": [{"id", "kind", "question", "answer", "evidence", "hops"}]}` |
//! | `POST /admin/score` | `{"task_id", "answer"}` -> `{"task_id", "kind", "reward", "score": {...}}` |
//! | `POST /v1/env/reset`, `POST /v1/env/step`, `GET /v1/env/state` | the OpenEnv-style episode API of [`env`](mod@env) |
//! | `GET /`, `GET /ui/...` | the world browser with tasks, tiers and sessions ([`fabula_browse`]); HTML |
//! | `POST /reset`, `POST /step`, `GET /state`, `GET /ws`, `GET /metadata`, `GET /schema`, `GET /health` | OpenEnv's own protocol, for openenv-core's clients ([`openenv`]) |
//! | `GET /openapi.json` | an OpenAPI 3.1 document of these routes but the browser's ([`openapi`]) |
//!
//! Every route but `GET /health` needs the token, as `Authorization: Bearer TOKEN` or as the
//! password of HTTP Basic auth (what a WebSocket client sends for `http://user:TOKEN@host`).
//! Requests and answers are typed ([`wire`](mod@wire) and the handlers' request types). Errors are
//! the agent-facing listener's `{"error": {"code", "message"}}` with codes of its
//! [`fabula_server::ErrorCode`]: `unauthorized` (401), `world_not_found`, `task_not_found`,
//! `episode_not_found` and `not_found` (404), `bad_request` (400), `method_not_allowed` (405),
//! `episode_done` and `episode_not_started` (409: a step after the episode's end, or naming no
//! episode before any reset), `payload_too_large` (413, bodies over [`MAX_BODY_BYTES`]),
//! `too_many_sessions` (429), and `internal` or `handler_panicked` (500: a bug; the cause is
//! logged with `tracing`, not returned).

mod api_error;
pub mod env;
mod episodes;
mod error;
mod gold;
pub mod openapi;
pub mod openenv;
mod state;
pub mod wire;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use fabula_server::openapi::serve as serve_openapi;
use subtle::ConstantTimeEq;

pub use crate::api_error::{ApiError, CHALLENGE, ErrorCode};
pub use crate::error::{Error, Result};
pub use crate::state::{AdminState, world_of_task};

/// The largest request body accepted, in bytes (axum's default, stated).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The admin router, with the world browser's admin views (see [`fabula_browse`]).
pub fn admin_app(state: AdminState) -> Router {
    let browse = fabula_browse::Browse::admin(state.search.clone());
    admin_app_with(state, &browse)
}

/// The admin router with a given browser, so the caller can warm its tier summary.
pub fn admin_app_with(state: AdminState, browse: &fabula_browse::Browse) -> Router {
    let router = Router::new()
        .route("/admin/worlds/{id}/tasks", get(gold::list_tasks))
        .route("/admin/score", post(gold::score))
        .route("/v1/env/reset", post(env::reset))
        .route("/v1/env/step", post(env::step))
        .route("/v1/env/state", get(env::get_state))
        .route("/reset", post(openenv::reset))
        .route("/step", post(openenv::step))
        .route("/state", get(openenv::get_state))
        .route("/ws", get(openenv::websocket))
        .route("/metadata", get(openenv::metadata))
        .route("/schema", get(openapi::openenv_schema))
        .route("/health", get(openenv::health))
        .route("/openapi.json", get(serve_openapi(openapi::document)));
    with_edge(browse.mount(router), state)
}

/// The admin routes with what every one of them shares: the JSON 404 for unknown paths and 405
/// for unknown methods, the body limit, the token check, and a JSON 500 `handler_panicked` for a
/// handler that panics.
fn with_edge(routes: Router<AdminState>, state: AdminState) -> Router {
    routes
        .fallback(|| async { ApiError::new(ErrorCode::NotFound, "no such admin route") })
        .method_not_allowed_fallback(fabula_server::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(state.clone(), require_token))
        .layer(fabula_server::edge::panics::layer())
        .with_state(state)
}

async fn require_token(State(state): State<AdminState>, request: Request, next: Next) -> Response {
    if request.uri().path() == "/health" {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(presented_token)
        .unwrap_or_default();
    if !bool::from(given.as_bytes().ct_eq(state.token.as_bytes())) {
        return api_error::unauthorized();
    }
    next.run(request).await
}

/// The token of an `Authorization` header: a bearer token, or the password of Basic auth.
fn presented_token(value: &str) -> Option<String> {
    if let Some(token) = value.strip_prefix("Bearer ") {
        return Some(token.to_owned());
    }
    let decoded = BASIC_AUTH
        .decode(value.strip_prefix("Basic ")?.trim())
        .ok()?;
    let credentials = String::from_utf8(decoded).ok()?;
    let (_user, password) = credentials.split_once(':')?;
    Some(password.to_owned())
}

/// Standard base64 with or without padding, as clients write Basic auth.
const BASIC_AUTH: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The admin listener bound to its socket.
pub struct BoundAdmin {
    listener: tokio::net::TcpListener,
    router: Router,
    timeouts: fabula_server::edge::Timeouts,
}

impl BoundAdmin {
    /// The address actually bound.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` completes, then drains like the agent-facing listener.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        fabula_server::edge::serve_router(self.listener, self.router, self.timeouts, shutdown)
            .await?;
        Ok(())
    }
}

/// Binds the admin listener over the agent-facing server's state (see [`AdminState::new`]).
pub async fn bind(
    search: fabula_server::AppState,
    addr: SocketAddr,
    token: &str,
) -> Result<BoundAdmin> {
    let timeouts = search.timeouts();
    let state = AdminState::new(search, token)?;
    let browse = fabula_browse::Browse::admin(state.search.clone());
    // The dataset view's tiers search every task's question once: start now, in the background.
    tokio::spawn({
        let browse = browse.clone();
        async move { browse.warm().await }
    });
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })?;
    Ok(BoundAdmin {
        listener,
        router: admin_app_with(state, &browse),
        timeouts,
    })
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::StatusCode;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;

    /// Admin state over a dataset of no worlds.
    fn empty_state(dir: &std::path::Path) -> AdminState {
        let manifest = serde_json::json!({"format_version": fabula_file::FORMAT_VERSION,
            "generator_version": "test", "master_seed": 0, "count": 0, "worlds": []});
        std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
        let config = fabula_server::ServeConfig {
            worlds: dir.to_owned(),
            ..fabula_server::ServeConfig::default()
        };
        AdminState::new(fabula_server::AppState::open(&config).unwrap(), "tok").unwrap()
    }

    #[tokio::test]
    async fn a_handler_that_panics_answers_a_json_500() {
        let dir = tempfile::tempdir().unwrap();
        async fn boom() -> &'static str {
            panic!("a bug in a handler")
        }
        let routes = Router::new().route("/boom", get(boom));
        let app = with_edge(routes, empty_state(dir.path()));
        let request = Request::builder()
            .uri("/boom")
            .header(header::AUTHORIZATION, "Bearer tok")
            .body(Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], "handler_panicked", "{body}");
        assert!(!body.to_string().contains("bug"), "{body}");
    }

    #[test]
    fn tokens_come_from_bearer_and_basic_auth() {
        let check = |header: &str, expect: Option<&str>| {
            assert_eq!(presented_token(header).as_deref(), expect, "{header}");
        };
        check("Bearer s3cret", Some("s3cret"));
        // base64("fabula:s3cret") and base64(":tok")
        check("Basic ZmFidWxhOnMzY3JldA==", Some("s3cret"));
        check("Basic OnRvaw", Some("tok"));
        check("Basic bm9jb2xvbg==", None);
        check("Basic !!!", None);
        check("Token s3cret", None);
    }
}
