//! The native REST endpoints: `/health`, `/v1/worlds`, `/v1/worlds/{id}/search` and `/extract`
//! (their shapes are in [`crate::wire`]), and the Prometheus text of `GET /metrics`.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use fabula_search::Hiding;
use serde::Serialize;

use crate::api_error::ApiError;
use crate::extractors::{ApiJson, ApiPath};
use crate::state::AppState;
use crate::wire::{
    BatchItem, ExtractRequest, ExtractResponse, SearchRequest, query_response, search_options,
    search_response,
};

#[derive(Serialize)]
struct Health {
    status: &'static str,
    worlds: usize,
    sessions: usize,
}

/// `GET /health`: `{"status": "ok", "worlds": N, "sessions": M}`. It never needs the API key.
pub(crate) async fn health(State(state): State<AppState>) -> Response {
    let health = Health {
        status: "ok",
        worlds: state.worlds().len(),
        sessions: state.sessions().len(),
    };
    Json(health).into_response()
}

#[derive(Serialize)]
struct WorldJson<'a> {
    id: u32,
    name: &'a str,
    theme: &'a str,
    pages: usize,
}

#[derive(Serialize)]
struct WorldList<'a> {
    worlds: Vec<WorldJson<'a>>,
}

/// `GET /v1/worlds`: `{"worlds": [{"id", "name", "theme", "pages"}]}`, sorted by id.
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
pub(crate) async fn search(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<SearchRequest>,
) -> Result<Response, ApiError> {
    let valid = request.validate()?;
    let hiding = valid.hiding.unwrap_or_default();
    let options = search_options(&valid, valid.top_k, hiding);
    let batch = valid.batch;
    let items = state
        .with_world(world_id, move |index| {
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
pub(crate) async fn extract(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<ExtractRequest>,
) -> Result<Json<ExtractResponse>, ApiError> {
    let (start, max_chars) = request.validate()?;
    let extract = state
        .with_world(world_id, move |index| {
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
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.render_service().metrics_text(),
    )
        .into_response()
}
