//! The Search-R1 retrieval shape (`POST /retrieve` and `POST /v1/worlds/{id}/retrieve`), as used by
//! verl's SearchTool: `{"queries": [str], "topk": int, "return_scores": bool}` in,
//! `{"result": [[{"document": {"id", "contents"}, "score"}]]}` out (bare documents without scores).
//!
//! Search-R1 and verl send every rollout's query in one call, so a batch may hold up to
//! [`MAX_RETRIEVE_QUERIES`] queries in a body of up to [`MAX_RETRIEVE_BODY_BYTES`] (these routes
//! only; every other route keeps the 64 KiB limit). A query that cannot be searched (blank, or
//! longer than 2,000 characters) gets an empty list in its slot: one bad rollout never fails the
//! batch, and the answer always has one list per query, as Search-R1's client indexes it.

use axum::extract::{DefaultBodyLimit, State};
use axum::routing::post;
use axum::{Json, Router};
use fabula_search::{Hiding, Hit, SearchOptions};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api_error::ApiError;
use crate::extractors::{ApiJson, ApiPath};
use crate::state::{AppState, Cost};
use crate::wire::{HidingName, MAX_TOP_K, validate_query, validate_top_k};

/// Search-R1's default `topk` (its `retrieval_topk`, also verl's default).
pub const DEFAULT_TOPK: usize = 3;

/// The most queries one retrieve call may carry: a training step's rollouts in one batch.
pub const MAX_RETRIEVE_QUERIES: usize = 4_096;

/// The largest retrieve body: room for [`MAX_RETRIEVE_QUERIES`] queries of 2,000 characters.
pub const MAX_RETRIEVE_BODY_BYTES: usize = 10 << 20;

/// The most hits one retrieve call may ask for (queries times `topk`): 4,096 queries at `topk`
/// 10, or 819 at the largest `topk`. At the few hundred bytes a hit takes (a url, a title and a
/// snippet of about 200 characters) an answer stays in the low tens of megabytes.
pub const MAX_RETRIEVE_HITS: usize = MAX_RETRIEVE_QUERIES * 10;

/// The Search-R1 request. Unknown fields are ignored, as Search-R1's server does.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct RetrieveRequest {
    /// At most 4,096 queries, one list of hits each, in order; a bad query gets an empty list.
    #[schema(max_items = 4096)]
    pub queries: Vec<String>,
    /// Results per query, 1..=50, default 3; `null` or 0 also mean the default, as in Search-R1.
    #[schema(minimum = 0, maximum = 50)]
    pub topk: Option<usize>,
    /// Whether each hit carries its BM25 score; default false.
    #[serde(default)]
    pub return_scores: bool,
    /// The world to search; needed on `/retrieve` unless the corpus holds exactly one world.
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: Option<u32>,
    /// A fabula extension: snippet hiding, default `"partial"`.
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// A Search-R1 document: the url as id, and `"Title"\nsnippet` as contents.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Document {
    pub id: String,
    pub contents: String,
}

/// One hit: a document with its score, or the bare document when scores were not asked for.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum RetrieveHit {
    Scored { document: Document, score: f32 },
    Bare(Document),
}

/// The Search-R1 response: one list of hits per query.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RetrieveResponse {
    pub result: Vec<Vec<RetrieveHit>>,
}

/// The two retrieve routes, with their own body limit: it replaces the router's 64 KiB for these
/// routes only (the innermost `DefaultBodyLimit` wins).
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/worlds/{id}/retrieve", post(retrieve_world))
        .route("/retrieve", post(retrieve))
        .layer(DefaultBodyLimit::max(MAX_RETRIEVE_BODY_BYTES))
}

/// `POST /retrieve`, with the world in the body.
#[utoipa::path(post, path = "/retrieve", operation_id = "retrieve", tag = "search-r1",
    summary = "Search-R1 retrieval; the world is named in the body",
    request_body(content = RetrieveRequest, description = "`world` is required unless the corpus holds exactly one world"),
    responses((status = 200, description = "One list of hits per query", body = RetrieveResponse)))]
pub(crate) async fn retrieve(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<RetrieveRequest>,
) -> Result<Json<RetrieveResponse>, ApiError> {
    let world_id = match (request.world, state.worlds()) {
        (Some(world_id), _) => world_id,
        (None, [only]) => only.id,
        (None, _) => {
            return Err(ApiError::bad_request(
                "missing field `world`: the corpus holds several worlds, so say which to search",
            ));
        }
    };
    run_retrieve(&state, world_id, request).await
}

/// `POST /v1/worlds/{id}/retrieve`; a `world` in the body is ignored.
#[utoipa::path(post, path = "/v1/worlds/{id}/retrieve", operation_id = "retrieve_world", tag = "search-r1",
    summary = "Search-R1 retrieval in one world",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body(content = RetrieveRequest, description = "A `world` in the body is ignored"),
    responses((status = 200, description = "One list of hits per query", body = RetrieveResponse)))]
pub(crate) async fn retrieve_world(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<RetrieveRequest>,
) -> Result<Json<RetrieveResponse>, ApiError> {
    run_retrieve(&state, world_id, request).await
}

async fn run_retrieve(
    state: &AppState,
    world_id: u32,
    request: RetrieveRequest,
) -> Result<Json<RetrieveResponse>, ApiError> {
    if request.queries.len() > MAX_RETRIEVE_QUERIES {
        return Err(ApiError::bad_request(format!(
            "`queries` holds {} queries; at most {MAX_RETRIEVE_QUERIES} are allowed",
            request.queries.len()
        )));
    }
    let topk = match request.topk {
        None | Some(0) => DEFAULT_TOPK,
        Some(topk) => validate_top_k(topk, "topk", MAX_TOP_K)?,
    };
    if request.queries.len() * topk > MAX_RETRIEVE_HITS {
        return Err(ApiError::bad_request(format!(
            "{} queries at topk {topk} ask for {} hits; at most {MAX_RETRIEVE_HITS} are allowed",
            request.queries.len(),
            request.queries.len() * topk
        )));
    }
    let hiding = request.hiding.unwrap_or_default();
    let options = SearchOptions {
        top_k: topk,
        offset: 0,
        hiding,
    };
    let cost = Cost::of(request.queries.len());
    let result = state
        .with_world(world_id, cost, move |index| {
            let mut result = Vec::with_capacity(request.queries.len());
            for query in &request.queries {
                if validate_query(query).is_err() {
                    result.push(Vec::new());
                    continue;
                }
                let hits = index.search(query, &options)?.hits;
                result.push(
                    hits.into_iter()
                        .map(|hit| retrieve_hit(hit, request.return_scores))
                        .collect(),
                );
            }
            Ok(result)
        })
        .await?;
    Ok(Json(RetrieveResponse { result }))
}

fn retrieve_hit(hit: Hit, return_scores: bool) -> RetrieveHit {
    let document = Document {
        id: hit.url,
        contents: format!("\"{}\"\n{}", hit.title, hit.snippet),
    };
    if return_scores {
        RetrieveHit::Scored {
            document,
            score: hit.score,
        }
    } else {
        RetrieveHit::Bare(document)
    }
}
