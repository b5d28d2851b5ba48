//! ASearcher's page access (`/access`, beside the Search-R1 `/retrieve` its local search client
//! also calls): `{"urls": [..]}` in, `{"result": [page or null, ..]}` out, one entry per url in
//! order, a page being `{"url", "title", "contents"}` (`contents` the whole page as Markdown, the
//! field ASearcher's client reads) and `null` for a url that is no page.
//!
//! `POST /access` serves the whole dataset, as `/retrieve` does: each url's world is the first
//! world (by id) with pages on its host (`AppState::world_of_host`), or the body's `world`
//! when given (a fabula extension). `POST /v1/worlds/{id}/access` reads one world. At most
//! [`MAX_URLS`] urls a request, each not blank and at most 2,000 characters (the search routes'
//! body limit holds the longest); unknown fields are ignored, as ASearcher's server does.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use fabula_server::api_error::{ApiError, ErrorCode};
use fabula_server::extractors::{ApiJson, ApiPath};
use fabula_server::wire::{UrlText, validate_url};
use fabula_server::{AppState, Cost, host_of};

/// The most urls one access request may carry.
pub const MAX_URLS: usize = 100;

/// The body of an access request.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct AccessRequest {
    /// The pages to read, 1 to 100, each not blank and at most 2,000 characters.
    #[schema(value_type = Vec<UrlText>, min_items = 1, max_items = 100)]
    pub urls: Vec<String>,
    /// A fabula extension for `/access`: read these urls in this world.
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: Option<u32>,
}

/// One page as ASearcher's page store holds it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AccessPage {
    pub url: String,
    pub title: String,
    /// The whole page as Markdown.
    pub contents: String,
}

/// The answer: one entry per url, in order; `null` for a url that is no page.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AccessResponse {
    pub result: Vec<Option<AccessPage>>,
}

/// `POST /access`.
#[utoipa::path(post, path = "/access", operation_id = "access", tag = "search-r1",
    summary = "ASearcher's page access over the whole dataset: each url's page, or null",
    request_body(content = AccessRequest, description = "Without `world`, each url is looked up in the world that serves its host"),
    responses((status = 200, description = "One page or null per url, in order", body = AccessResponse)))]
pub(crate) async fn access(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<AccessRequest>,
) -> Result<Json<AccessResponse>, ApiError> {
    check(&request)?;
    let mut result = Vec::with_capacity(request.urls.len());
    for url in request.urls {
        let world = match request.world {
            Some(world) => Some(world),
            None => match host_of(url.trim()) {
                Some(host) => state.world_of_host(host.to_owned()).await?,
                None => None,
            },
        };
        result.push(match world {
            Some(world) => read(&state, world, url).await?,
            None => None,
        });
    }
    Ok(Json(AccessResponse { result }))
}

/// `POST /v1/worlds/{id}/access`.
#[utoipa::path(post, path = "/v1/worlds/{id}/access", operation_id = "access_world", tag = "search-r1",
    summary = "ASearcher's page access in one world: each url's page, or null",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body(content = AccessRequest, description = "A `world` in the body is ignored"),
    responses((status = 200, description = "One page or null per url, in order", body = AccessResponse)))]
pub(crate) async fn access_world(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<AccessRequest>,
) -> Result<Json<AccessResponse>, ApiError> {
    check(&request)?;
    let mut result = Vec::with_capacity(request.urls.len());
    for url in request.urls {
        result.push(read(&state, world_id, url).await?);
    }
    Ok(Json(AccessResponse { result }))
}

fn check(request: &AccessRequest) -> Result<(), ApiError> {
    if request.urls.is_empty() || request.urls.len() > MAX_URLS {
        return Err(ApiError::bad_request(format!(
            "`urls` must hold 1 to {MAX_URLS} urls, not {}",
            request.urls.len()
        )));
    }
    request.urls.iter().try_for_each(|url| validate_url(url))
}

/// One page of one world, or `None` when the world has no such url.
async fn read(state: &AppState, world: u32, url: String) -> Result<Option<AccessPage>, ApiError> {
    let read = state
        .with_world(world, Cost::One, move |index| {
            let url = url.trim().to_owned();
            let title = index.extract(&url, 0, 1)?.title;
            let contents = index.markdown(&url)?;
            Ok(AccessPage {
                url,
                title,
                contents,
            })
        })
        .await;
    match read {
        Ok(page) => Ok(Some(page)),
        Err(error) if error.code == ErrorCode::UrlNotFound => Ok(None),
        Err(error) => Err(error),
    }
}
