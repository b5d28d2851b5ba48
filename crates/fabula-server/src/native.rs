//! The native REST endpoints: `/health`, `/v1/worlds`, `/v1/worlds/{id}/search` and `/extract`
//! (their shapes are in [`crate::wire`]), and the Prometheus text of `GET /metrics`.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use fabula_search::Hiding;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api_error::ApiError;
use crate::extractors::{ApiJson, ApiPath};
use crate::state::{AppState, Cost};
use crate::wire::{
    BatchItem, ExtractRequest, ExtractResponse, SearchAnswer, SearchRequest, query_response,
    search_options, search_response,
};

/// Whether every world used so far could be served.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum HealthStatus {
    /// No world is known unavailable.
    Ok,
    /// Some worlds answer 503 `world_unavailable`; the others are served.
    Degraded,
}

/// The body of `GET /health`.
#[derive(Serialize, ToSchema)]
struct Health {
    status: HealthStatus,
    /// The number of worlds in the manifest.
    worlds: usize,
    /// The number of sessions held.
    sessions: usize,
    /// The ids of the worlds found unavailable so far, sorted; worlds are checked at first use.
    unavailable: Vec<u32>,
}

/// `GET /health`: `{"status": "ok" | "degraded", "worlds": N, "sessions": M, "unavailable":
/// [ids]}`. It never needs the API key. `degraded` means some worlds answer 503
/// `world_unavailable` (their files failed the checks against the manifest) while the others are
/// served, so the status stays 200 and a load balancer keeps the instance. World files are
/// checked at their first use, not here: a world never used yet is not listed whatever its file
/// holds.
#[utoipa::path(get, path = "/health", operation_id = "health", tag = "native",
    summary = "Liveness and the worlds found unavailable; never needs a key",
    security(()),
    responses((status = 200, description = "Serving; `degraded` lists the worlds that answer 503 `world_unavailable`", body = Health)))]
pub(crate) async fn health(State(state): State<AppState>) -> Response {
    let unavailable = state.unavailable_worlds();
    let health = Health {
        status: if unavailable.is_empty() {
            HealthStatus::Ok
        } else {
            HealthStatus::Degraded
        },
        worlds: state.worlds().len(),
        sessions: state.sessions().len(),
        unavailable,
    };
    Json(health).into_response()
}

#[derive(Serialize, ToSchema)]
#[schema(as = World)]
struct WorldJson<'a> {
    id: u32,
    name: &'a str,
    theme: &'a str,
    pages: usize,
}

#[derive(Serialize, ToSchema)]
struct WorldList<'a> {
    worlds: Vec<WorldJson<'a>>,
}

/// `GET /v1/worlds`: `{"worlds": [{"id", "name", "theme", "pages"}]}`, sorted by id.
#[utoipa::path(get, path = "/v1/worlds", operation_id = "list_worlds", tag = "native",
    summary = "List the worlds, by id",
    responses((status = 200, description = "The worlds", body = WorldList)))]
pub(crate) async fn list_worlds(State(state): State<AppState>) -> Response {
    let worlds = state
        .worlds()
        .iter()
        .map(|info| WorldJson {
            id: info.id,
            name: &info.name,
            theme: &info.theme,
            pages: info.pages,
        })
        .collect();
    Json(WorldList { worlds }).into_response()
}

/// `POST /v1/worlds/{id}/search`.
#[utoipa::path(post, path = "/v1/worlds/{id}/search", operation_id = "search_world", tag = "native",
    summary = "Search one world",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body = SearchRequest,
    responses((status = 200, description = "One query's answer for `query`; the batch envelope for `queries`", body = SearchAnswer)))]
pub(crate) async fn search(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<SearchRequest>,
) -> Result<Response, ApiError> {
    let valid = request.validate()?;
    let hiding = valid.hiding.unwrap_or_default();
    let options = search_options(&valid, valid.top_k, hiding);
    let batch = valid.batch;
    let cost = Cost::of(valid.queries.len());
    let items = state
        .with_world(world_id, cost, move |index| {
            let mut items = Vec::with_capacity(valid.queries.len());
            for query in &valid.queries {
                let results = index.search(query, &options)?;
                items.push(BatchItem::Ok(query_response(query, results, valid.page)));
            }
            Ok(items)
        })
        .await?;
    let items = state.render_search(world_id, None, hiding, items).await;
    Ok(search_response(batch, items))
}

/// `POST /v1/worlds/{id}/extract`.
#[utoipa::path(post, path = "/v1/worlds/{id}/extract", operation_id = "extract_world", tag = "native",
    summary = "Read a window of one page as Markdown",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body = ExtractRequest,
    responses((status = 200, description = "The page window", body = ExtractResponse)))]
pub(crate) async fn extract(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<ExtractRequest>,
) -> Result<Json<ExtractResponse>, ApiError> {
    let (start, max_chars) = request.validate()?;
    let extract = state
        .with_world(world_id, Cost::One, move |index| {
            Ok(index.extract(&request.url, start, max_chars)?)
        })
        .await?;
    let response = state
        .render_extract(
            world_id,
            None,
            Hiding::default(),
            start,
            ExtractResponse::from(extract),
        )
        .await;
    Ok(Json(response))
}

/// `GET /metrics`: Prometheus text of the request and render counters.
#[utoipa::path(get, path = "/metrics", operation_id = "metrics", tag = "native",
    summary = "Prometheus metrics: observations served by renderer and world-model counters",
    responses((status = 200, description = "Prometheus text format 0.0.4", body = String,
        content_type = "text/plain; version=0.0.4; charset=utf-8")))]
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state
            .render_service()
            .metrics_text(state.unavailable_count()),
    )
        .into_response()
}
