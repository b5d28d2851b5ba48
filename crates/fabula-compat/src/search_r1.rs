//! The Search-R1 retrieval shape (`POST /retrieve` and `POST /v1/worlds/{id}/retrieve`), as used by
//! verl's SearchTool: `{"queries": [str], "topk": int, "return_scores": bool}` in,
//! `{"result": [[{"document": {"id", "contents"}, "score"}]]}` out (bare documents without scores).
//!
//! Like Search-R1's Wikipedia server, it returns passages: about 100 words of a page each, as
//! `"Title"\ntext`, with the id `URL#pN` (see `fabula_search::Corpus::retrieve`). `/retrieve`
//! without a `world` searches every world of the dataset at once, one fictional encyclopedia in
//! which a question finds its own world's pages (names are unique across worlds), so verl's
//! SearchTool and Search-R1's client work by changing only their URL. Passages are whole by
//! default (`fabula serve --retrieve-hiding` changes that); a request's `hiding` overrides both.
//!
//! Search-R1 and verl send every rollout's query in one call, so a batch may hold up to
//! [`MAX_RETRIEVE_QUERIES`] queries in a body of up to [`MAX_RETRIEVE_BODY_BYTES`] (these routes
//! only; every other route keeps the 64 KiB limit). A query that cannot be searched (blank, or
//! longer than 2,000 characters) gets an empty list in its slot: one bad rollout never fails the
//! batch, and the answer always has one list per query, as Search-R1's client indexes it.

use axum::extract::{DefaultBodyLimit, State};
use axum::routing::post;
use axum::{Json, Router};
use fabula_search::{Hiding, Passage};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use fabula_server::api_error::{ApiError, ErrorCode};
use fabula_server::extractors::{ApiJson, ApiPath};
use fabula_server::wire::{HidingName, MAX_TOP_K, validate_query, validate_top_k};
use fabula_server::{AppState, Cost};

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
    /// A fabula extension: search this world only; without it `/retrieve` searches every world.
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: Option<u32>,
    /// A fabula extension: hiding of the passages' values, default the server's
    /// `--retrieve-hiding` (`"none"` unless set).
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// A Search-R1 document: `URL#pN` (the page and the passage's number in it) as id, and
/// `"Title"\npassage` as contents.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Document {
    pub id: String,
    pub contents: String,
    /// The page's url: what ASearcher's client reads to `/access` the page (Search-R1's reads
    /// `contents` only).
    pub url: String,
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

/// `POST /retrieve`: the whole dataset as one corpus of passages, or the world named in the body.
#[utoipa::path(post, path = "/retrieve", operation_id = "retrieve", tag = "search-r1",
    summary = "Search-R1 retrieval over every world's passages, or one world's when the body names it",
    request_body(content = RetrieveRequest, description = "Without `world`, every world of the dataset is searched"),
    responses((status = 200, description = "One list of passages per query", body = RetrieveResponse)))]
pub(crate) async fn retrieve(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<RetrieveRequest>,
) -> Result<Json<RetrieveResponse>, ApiError> {
    let world = request.world;
    run_retrieve(&state, world, request).await
}

/// `POST /v1/worlds/{id}/retrieve`: one world's passages; a `world` in the body is ignored.
#[utoipa::path(post, path = "/v1/worlds/{id}/retrieve", operation_id = "retrieve_world", tag = "search-r1",
    summary = "Search-R1 retrieval over one world's passages",
    params(("id" = u32, Path, description = "The world id.", format = "uint32", maximum = 4294967295_u64)),
    request_body(content = RetrieveRequest, description = "A `world` in the body is ignored"),
    responses((status = 200, description = "One list of passages per query", body = RetrieveResponse)))]
pub(crate) async fn retrieve_world(
    State(state): State<AppState>,
    ApiPath(world_id): ApiPath<u32>,
    ApiJson(request): ApiJson<RetrieveRequest>,
) -> Result<Json<RetrieveResponse>, ApiError> {
    run_retrieve(&state, Some(world_id), request).await
}

async fn run_retrieve(
    state: &AppState,
    world: Option<u32>,
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
    if let Some(world_id) = world
        && !state.has_world(world_id)
    {
        return Err(ApiError::new(
            ErrorCode::WorldNotFound,
            format!("no world with id {world_id}"),
        ));
    }
    let hiding = request.hiding.unwrap_or_else(|| state.retrieve_hiding());
    let cost = Cost::of(request.queries.len());
    let result = state
        .with_corpus(cost, move |corpus| {
            // A batch's queries run on every core (rayon's pool); the answer keeps their order.
            let one = |query: &String| -> Result<Vec<RetrieveHit>, ApiError> {
                if validate_query(query).is_err() {
                    return Ok(Vec::new());
                }
                let passages = corpus.retrieve(query, topk, world, hiding)?;
                Ok(passages
                    .into_iter()
                    .map(|passage| retrieve_hit(passage, request.return_scores))
                    .collect())
            };
            request.queries.par_iter().map(one).collect()
        })
        .await?;
    Ok(Json(RetrieveResponse { result }))
}

fn retrieve_hit(passage: Passage, return_scores: bool) -> RetrieveHit {
    let document = Document {
        id: passage.id,
        contents: format!("\"{}\"\n{}", passage.title, passage.text),
        url: passage.url,
    };
    if return_scores {
        RetrieveHit::Scored {
            document,
            score: passage.score,
        }
    } else {
        RetrieveHit::Bare(document)
    }
}
