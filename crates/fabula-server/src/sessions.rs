//! Sessions: a world, a seed and controls, created with `POST /v1/sessions`, then searched and
//! extracted under those controls, with a log of every call and its outcome.
//!
//! A call is counted (and gets the next call index) once its body parses and validates; requests
//! rejected as bad input get a 400 and are neither counted nor logged.
//!
//! Eviction: at most `max_sessions` sessions are kept (default 10,000). Creating one more evicts
//! the least recently used session (by creation or last call); its id then answers
//! `session_not_found`. Each session keeps the last `session_log_limit` log entries (default 1,000)
//! and counts the ones it forgot; each logged query is clipped to 200 characters.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use fabula_search::SearchResults;
use serde::{Deserialize, Serialize};

use crate::api_error::{ApiError, ErrorCode};
use crate::controls::{
    Controls, ControlsRequest, ErrorKind, RETRY_AFTER_S, batch_failures, drop_hits, plan_call,
    truncate_chars,
};
use crate::extractors::{ApiJson, ApiPath};
use crate::session_store::Session;
pub use crate::session_store::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_LOG_LIMIT, LogEntry};
use crate::state::AppState;
use crate::wire::{
    BatchItem, ExtractRequest, ExtractResponse, SearchRequest, ValidSearch, query_response,
    search_options, search_response,
};

/// The most characters of one query kept in a log entry.
const LOGGED_QUERY_CHARS: usize = 200;

/// The body of `POST /v1/sessions`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateSessionRequest {
    pub world: u32,
    /// Default 0.
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub controls: ControlsRequest,
}

/// The answer to `POST /v1/sessions`: the id, and the controls in force after the noise mix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CreateSessionResponse {
    pub session: String,
    pub world: u32,
    pub seed: u64,
    pub controls: Controls,
}

/// `POST /v1/sessions`.
pub(crate) async fn create(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<CreateSessionRequest>,
) -> Result<Json<CreateSessionResponse>, ApiError> {
    create_session(&state, request).map(Json)
}

/// Creates a session as `POST /v1/sessions` does, for the other front ends (MCP, the episode API).
pub fn create_session(
    state: &AppState,
    request: CreateSessionRequest,
) -> Result<CreateSessionResponse, ApiError> {
    let controls = request.controls.resolve()?;
    if !state.has_world(request.world) {
        return Err(ApiError::new(
            ErrorCode::WorldNotFound,
            format!("no world with id {}", request.world),
        ));
    }
    let session = state
        .sessions()
        .create(request.world, request.seed, controls);
    Ok(CreateSessionResponse {
        session: session.id.clone(),
        world: session.world,
        seed: session.seed,
        controls: session.controls.clone(),
    })
}

/// `DELETE /v1/sessions/{sid}`: 204, or `session_not_found`.
pub(crate) async fn delete(
    State(state): State<AppState>,
    ApiPath(session_id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    if state.sessions().remove(&session_id) {
        state.render_service().forget_session(&session_id);
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(
            ErrorCode::SessionNotFound,
            format!("no session with id `{session_id}`"),
        ))
    }
}

/// The answer to `GET /v1/sessions/{sid}/log`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionLog {
    pub session: String,
    pub world: u32,
    pub seed: u64,
    /// Calls counted so far.
    pub calls: u64,
    /// Entries no longer kept (the oldest ones beyond the per-session limit).
    pub forgotten: u64,
    /// The kept entries, by call index.
    pub entries: Vec<LogEntry>,
}

/// `GET /v1/sessions/{sid}/log`.
pub(crate) async fn log(
    State(state): State<AppState>,
    ApiPath(session_id): ApiPath<String>,
) -> Result<Json<SessionLog>, ApiError> {
    let session = state.sessions().get(&session_id)?;
    let calls = session.calls();
    let mut entries: Vec<LogEntry> = calls.entries.iter().cloned().collect();
    entries.sort_by_key(|entry| entry.call);
    Ok(Json(SessionLog {
        session: session.id.clone(),
        world: session.world,
        seed: session.seed,
        calls: calls.n_calls,
        forgotten: calls.n_forgotten,
        entries,
    }))
}

/// The error an injected fault answers with.
fn injected_error(kind: ErrorKind, controls: &Controls) -> ApiError {
    match kind {
        ErrorKind::RateLimit => ApiError {
            code: ErrorCode::RateLimited,
            message: format!("rate limit exceeded; retry after {RETRY_AFTER_S} s"),
            retry_after_s: Some(RETRY_AFTER_S),
        },
        ErrorKind::ServerError => {
            ApiError::new(ErrorCode::InjectedServerError, "the search backend failed")
        }
        ErrorKind::Timeout => ApiError::new(
            ErrorCode::Timeout,
            format!(
                "the search backend did not answer within {} ms",
                controls.timeout_ms
            ),
        ),
    }
}

/// Waits the call's delay, logs the outcome, and passes the answer through.
async fn finish<T>(
    state: &AppState,
    session: &Session,
    mut entry: LogEntry,
    delay: std::time::Duration,
    answer: Result<T, ApiError>,
) -> Result<T, ApiError> {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    entry.latency_ms = delay.as_millis() as u64;
    match &answer {
        Ok(_) => {
            entry.status = 200;
            entry.outcome = "ok";
        }
        Err(error) => {
            entry.status = error.code.status().as_u16();
            entry.outcome = error.code.as_str();
        }
    }
    session.record(entry, state.sessions().log_limit);
    answer
}

/// Decides an injected whole-call failure: the error and how long to wait before answering it.
fn injected_failure(
    session: &Session,
    kind: ErrorKind,
    latency: std::time::Duration,
) -> (std::time::Duration, ApiError) {
    let delay = match kind {
        ErrorKind::Timeout => std::time::Duration::from_millis(session.controls.timeout_ms),
        ErrorKind::RateLimit | ErrorKind::ServerError => latency,
    };
    (delay, injected_error(kind, &session.controls))
}

/// `POST /v1/sessions/{sid}/search`: the native search under the session's controls.
pub(crate) async fn search(
    State(state): State<AppState>,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(request): ApiJson<SearchRequest>,
) -> Result<Response, ApiError> {
    let answer = session_search(&state, &session_id, request).await?;
    Ok(search_response(answer.batch, answer.items))
}

/// The answer of a session's search before rendering: one item per query, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSearch {
    /// Whether the request used `queries` (batch envelope) rather than `query`.
    pub batch: bool,
    /// One entry per query; a query that failed on its own is [`BatchItem::Failed`].
    pub items: Vec<BatchItem>,
}

/// Searches under a session's controls exactly as `POST /v1/sessions/{sid}/search` does
/// (counted, logged, with the same injected faults), for the other front ends.
pub async fn session_search(
    state: &AppState,
    session_id: &str,
    request: SearchRequest,
) -> Result<SessionSearch, ApiError> {
    let session = state.sessions().get(session_id)?;
    let valid = request.validate()?;
    let controls = &session.controls;
    let call = session.begin_call();
    let plan = plan_call(controls, session.seed, call);
    let mut entry = LogEntry::new(call, "search");
    entry.queries = Some(valid.queries.iter().map(|query| clip(query)).collect());
    if let Some(kind) = plan.error {
        let (delay, error) = injected_failure(&session, kind, plan.latency);
        return finish(state, &session, entry, delay, Err(error)).await;
    }
    let top_k = controls
        .page_size
        .map_or(valid.top_k, |page_size| page_size.min(valid.top_k));
    let hiding = controls.hiding.or(valid.hiding).unwrap_or_default();
    let options = search_options(&valid, top_k, hiding);
    let failures = if valid.batch {
        batch_failures(controls, session.seed, call, valid.queries.len())
    } else {
        vec![false; valid.queries.len()]
    };
    let searched = {
        let queries = valid.queries.clone();
        let options = options.clone();
        state.with_world(session.world, move |index| {
            let mut searched = Vec::with_capacity(queries.len());
            for (query, failed) in queries.iter().zip(failures) {
                searched.push(if failed {
                    None
                } else {
                    Some(index.search(query, &options)?)
                });
            }
            Ok(searched)
        })
    };
    let searched = match searched.await {
        Ok(searched) => searched,
        Err(error) => return finish(state, &session, entry, plan.latency, Err(error)).await,
    };
    let items = controlled_items(&session, call, &valid, options.offset, searched, &mut entry);
    let items = state
        .render_search(session.world, Some(&session.id), hiding, items)
        .await;
    let answer = Ok(SessionSearch {
        batch: valid.batch,
        items,
    });
    finish(state, &session, entry, plan.latency, answer).await
}

/// Turns a session's search results into answer items under its controls: a query that failed on
/// its own becomes [`BatchItem::Failed`], and hits are dropped at the drop rate. Notes the counts
/// in the log entry.
fn controlled_items(
    session: &Session,
    call: u64,
    valid: &ValidSearch,
    offset: usize,
    searched: Vec<Option<SearchResults>>,
    entry: &mut LogEntry,
) -> Vec<BatchItem> {
    let mut items = Vec::with_capacity(valid.queries.len());
    let mut n_results = 0;
    let mut n_dropped = 0;
    let mut failed_queries = Vec::new();
    for (query_idx, (query, results)) in valid.queries.iter().zip(searched).enumerate() {
        let Some(mut results) = results else {
            failed_queries.push(query_idx);
            let error = ApiError::new(ErrorCode::InjectedServerError, "this query failed");
            items.push(BatchItem::Failed {
                query: query.clone(),
                error: error.body(),
            });
            continue;
        };
        n_dropped += drop_hits(
            &session.controls,
            session.seed,
            call,
            query_idx,
            offset,
            &mut results.hits,
        );
        n_results += results.hits.len();
        items.push(BatchItem::Ok(query_response(query, results, valid.page)));
    }
    entry.results = Some(n_results);
    entry.dropped_results = Some(n_dropped);
    if valid.batch {
        entry.failed_queries = Some(failed_queries);
    }
    items
}

/// `POST /v1/sessions/{sid}/extract`: the native extract under the session's controls.
pub(crate) async fn extract(
    State(state): State<AppState>,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(request): ApiJson<ExtractRequest>,
) -> Result<Response, ApiError> {
    let extract = session_extract(&state, &session_id, request).await?;
    Ok(Json(extract).into_response())
}

/// Extracts under a session's controls exactly as `POST /v1/sessions/{sid}/extract` does
/// (counted, logged, with the same injected faults), for the other front ends.
pub async fn session_extract(
    state: &AppState,
    session_id: &str,
    request: ExtractRequest,
) -> Result<ExtractResponse, ApiError> {
    let session = state.sessions().get(session_id)?;
    let (start, max_chars) = request.validate()?;
    let call = session.begin_call();
    let plan = plan_call(&session.controls, session.seed, call);
    let mut entry = LogEntry::new(call, "extract");
    entry.url = Some(clip(&request.url));
    if let Some(kind) = plan.error {
        let (delay, error) = injected_failure(&session, kind, plan.latency);
        return finish(state, &session, entry, delay, Err(error)).await;
    }
    let url = request.url;
    let hiding = session.controls.hiding.unwrap_or_default();
    let extracted = state
        .with_world(session.world, move |index| {
            Ok(index.extract(&url, start, max_chars)?)
        })
        .await;
    let extract = match extracted {
        Ok(extract) => extract,
        Err(error) => return finish(state, &session, entry, plan.latency, Err(error)).await,
    };
    let mut response = state
        .render_extract(
            session.world,
            Some(&session.id),
            hiding,
            start,
            ExtractResponse::from(extract),
        )
        .await;
    let mut truncated = false;
    if let Some(limit) = session.controls.truncate_extract
        && truncate_chars(&mut response.content, limit)
    {
        response.next_start = None;
        truncated = true;
    }
    entry.truncated = Some(truncated);
    let answer = Ok(response);
    finish(state, &session, entry, plan.latency, answer).await
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(LOGGED_QUERY_CHARS) {
        Some((byte_idx, _)) => text[..byte_idx].to_owned(),
        None => text.to_owned(),
    }
}
