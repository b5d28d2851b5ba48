//! Sessions: a world, a seed and controls, created with `POST /v1/sessions`, then searched and
//! extracted under those controls, with a log of every call and its outcome.
//!
//! A call is counted (and gets the next call index) once its body parses and validates; requests
//! rejected as bad input get a 400 and are neither counted nor logged.
//!
//! Ids are random and unguessable. With API keys configured, a session belongs to the key that
//! created it; other keys get `session_not_found` for it, as if it did not exist.
//!
//! Bounds (all flags of `fabula serve`): at most `max_sessions` sessions (default 10,000); one idle
//! for `session_ttl` (default an hour) expires and answers `session_not_found`. At the cap,
//! expired sessions make room; when none has expired, creating one answers 429
//! `too_many_sessions` with `Retry-After`, and no session in use is ever dropped. Each session's
//! log keeps at most `session_log_limit` entries (default 1,000) and `session_log_bytes` bytes
//! (default 1 MiB), all logs together `total_log_bytes` (default 64 MiB); entries beyond them are
//! counted in `forgotten`. Each logged query and url is clipped to 256 characters, ending with
//! `…` when clipped. See the `session_store` module for how these are kept.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use fabula_search::SearchResults;
use serde::{Deserialize, Serialize};

use crate::KeyId;
use crate::api_error::{ApiError, ErrorCode};
pub use crate::config::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_LOG_LIMIT};
use crate::controls::{
    Controls, ControlsRequest, ErrorKind, RETRY_AFTER_S, batch_failures, drop_hits, plan_call,
    truncate_chars,
};
use crate::extractors::{ApiJson, ApiPath};
use crate::session_store::Session;
pub use crate::session_store::{LogEntry, Via};
use crate::state::{AppState, Cost};
use crate::wire::{
    BatchItem, ExtractRequest, ExtractResponse, HitJson, MAX_MAX_CHARS, SearchRequest, ValidSearch,
    query_response, search_options, search_response,
};

/// The most characters of one query (or url) kept in a log entry.
const LOGGED_QUERY_CHARS: usize = 256;
/// Ends a query clipped in the log.
const CLIPPED_MARK: char = '…';

/// The key a request presented, when the API needs one.
type Key = Option<Extension<KeyId>>;

fn key_id(key: Key) -> Option<KeyId> {
    key.map(|Extension(key_id)| key_id)
}

/// The body of `POST /v1/sessions`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSessionRequest {
    #[schema(format = "uint32", maximum = 4294967295_u64)]
    pub world: u32,
    /// Default 0.
    #[serde(default)]
    #[schema(format = "uint64", maximum = 18446744073709551615_u64)]
    pub seed: u64,
    #[serde(default)]
    pub controls: ControlsRequest,
}

/// The answer to `POST /v1/sessions`: the id, and the controls in force after the noise mix.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct CreateSessionResponse {
    pub session: String,
    pub world: u32,
    pub seed: u64,
    pub controls: Controls,
}

/// `POST /v1/sessions`: the session belongs to the key of the request.
#[utoipa::path(post, path = "/v1/sessions", operation_id = "create_session", tag = "sessions",
    summary = "Create a session: a world, a seed and controls",
    request_body = CreateSessionRequest,
    responses((status = 200, description = "The session and its controls after the noise mix", body = CreateSessionResponse)))]
pub(crate) async fn create(
    State(state): State<AppState>,
    key: Key,
    ApiJson(request): ApiJson<CreateSessionRequest>,
) -> Result<Json<CreateSessionResponse>, ApiError> {
    // A world whose file failed its check answers 503 here rather than at the first call.
    state.world_ready(request.world).await?;
    create_owned(&state, request, key_id(key)).map(Json)
}

/// Creates a session as `POST /v1/sessions` does, for the other front ends (MCP, the episode API);
/// it belongs to no key.
pub fn create_session(
    state: &AppState,
    request: CreateSessionRequest,
) -> Result<CreateSessionResponse, ApiError> {
    create_owned(state, request, None)
}

fn create_owned(
    state: &AppState,
    request: CreateSessionRequest,
    owner: Option<KeyId>,
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
        .create(request.world, request.seed, controls, owner)?;
    Ok(CreateSessionResponse {
        session: session.id.clone(),
        world: session.world,
        seed: session.seed,
        controls: session.controls.clone(),
    })
}

/// Ends a session that another front end made (an MCP session that closed, an OpenEnv
/// connection that ended): removes it from the store whatever its owner, and forgets its
/// world-model view.
pub fn close_session(state: &AppState, session_id: &str) {
    state.sessions().remove(session_id, None);
    state.render_service().forget_session(session_id);
}

/// `DELETE /v1/sessions/{sid}`: 204, or `session_not_found`.
#[utoipa::path(delete, path = "/v1/sessions/{sid}", operation_id = "delete_session", tag = "sessions",
    summary = "Delete a session",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    responses((status = 204, description = "Deleted")))]
pub(crate) async fn delete(
    State(state): State<AppState>,
    key: Key,
    ApiPath(session_id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    if state.sessions().remove(&session_id, key_id(key)) {
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
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SessionLog {
    pub session: String,
    pub world: u32,
    pub seed: u64,
    /// Calls counted so far.
    pub calls: u64,
    /// Entries no longer kept: the oldest ones beyond the session's entry or byte budget, and
    /// new ones beyond the budget of all logs together.
    pub forgotten: u64,
    /// The kept entries, by call index.
    pub entries: Vec<LogEntry>,
}

/// `GET /v1/sessions/{sid}/log`.
#[utoipa::path(get, path = "/v1/sessions/{sid}/log", operation_id = "session_log", tag = "sessions",
    summary = "The session's call log",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    responses((status = 200, description = "The log", body = SessionLog)))]
pub(crate) async fn log(
    State(state): State<AppState>,
    key: Key,
    ApiPath(session_id): ApiPath<String>,
) -> Result<Json<SessionLog>, ApiError> {
    let session = state.sessions().get(&session_id, key_id(key))?;
    Ok(Json(session_log(&session)))
}

/// The log of one session, entries by call index.
fn session_log(session: &Session) -> SessionLog {
    let calls = session.calls();
    let mut entries: Vec<LogEntry> = calls.entries.iter().cloned().collect();
    entries.sort_by_key(|entry| entry.call);
    SessionLog {
        session: session.id.clone(),
        world: session.world,
        seed: session.seed,
        calls: calls.n_calls,
        forgotten: calls.n_forgotten,
        entries,
    }
}

/// What the admin's session views show: a session's log and its controls. Reading one never
/// marks the session as used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRecord {
    pub log: SessionLog,
    pub controls: Controls,
}

/// Every live session's record, most recently used first.
pub fn session_records(state: &AppState) -> Vec<SessionRecord> {
    let sessions = state.sessions().peek_all();
    sessions
        .iter()
        .map(|session| session_record(session))
        .collect()
}

/// One live session's record, by id, whoever owns it.
pub fn session_record_of(state: &AppState, session_id: &str) -> Option<SessionRecord> {
    let session = state.sessions().peek(session_id)?;
    Some(session_record(&session))
}

fn session_record(session: &Session) -> SessionRecord {
    SessionRecord {
        log: session_log(session),
        controls: session.controls.clone(),
    }
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
    state.sessions().record(session, entry);
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
#[utoipa::path(post, path = "/v1/sessions/{sid}/search", operation_id = "search_session", tag = "sessions",
    summary = "Search the session's world under its controls",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    request_body = SearchRequest,
    responses((status = 200, description = "One query's answer for `query`; the batch envelope for `queries`, where a query that failed on its own is `{\"query\", \"error\"}`", body = crate::wire::SearchAnswer)))]
pub(crate) async fn search(
    State(state): State<AppState>,
    key: Key,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(request): ApiJson<SearchRequest>,
) -> Result<Response, ApiError> {
    let session = state.sessions().get(&session_id, key_id(key))?;
    let answer = search_in(&state, &session, request).await?;
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
/// (counted, logged, with the same injected faults), for the other front ends. Sessions that
/// belong to an API key answer `session_not_found` here.
pub async fn session_search(
    state: &AppState,
    session_id: &str,
    request: SearchRequest,
) -> Result<SessionSearch, ApiError> {
    session_search_as(state, session_id, None, request).await
}

/// [`session_search`] on behalf of the API key `key` (a session another key made answers
/// `session_not_found`).
pub(crate) async fn session_search_as(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    request: SearchRequest,
) -> Result<SessionSearch, ApiError> {
    let session = state.sessions().get(session_id, key)?;
    search_in(state, &session, request).await
}

/// Searches in a session under its controls: the work of [`session_search`].
async fn search_in(
    state: &AppState,
    session: &Session,
    request: SearchRequest,
) -> Result<SessionSearch, ApiError> {
    let valid = request.validate()?;
    let controls = &session.controls;
    let call = session.begin_call();
    let plan = plan_call(controls, session.seed, call);
    let mut entry = LogEntry::new(call, "search");
    entry.queries = Some(valid.queries.iter().map(|query| clip(query)).collect());
    if let Some(kind) = plan.error {
        let (delay, error) = injected_failure(session, kind, plan.latency);
        return finish(state, session, entry, delay, Err(error)).await;
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
        state.with_world(session.world, Cost::of(queries.len()), move |index| {
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
        Err(error) => return finish(state, session, entry, plan.latency, Err(error)).await,
    };
    let items = controlled_items(session, call, &valid, options.offset, searched, &mut entry);
    let items = state
        .render_search(session.world, Some(&session.id), hiding, items)
        .await;
    let answer = Ok(SessionSearch {
        batch: valid.batch,
        items,
    });
    finish(state, session, entry, plan.latency, answer).await
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
    let mut result_urls = Vec::new();
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
        result_urls.extend(results.hits.iter().map(|hit| hit.url.clone()));
        items.push(BatchItem::Ok(query_response(query, results, valid.page)));
    }
    entry.results = Some(n_results);
    entry.dropped_results = Some(n_dropped);
    entry.result_urls = Some(result_urls);
    if valid.batch {
        entry.failed_queries = Some(failed_queries);
    }
    items
}

/// `POST /v1/sessions/{sid}/extract`: the native extract under the session's controls.
#[utoipa::path(post, path = "/v1/sessions/{sid}/extract", operation_id = "extract_session", tag = "sessions",
    summary = "Extract from the session's world under its controls",
    params(("sid" = String, Path, description = "The session id from `POST /v1/sessions`.")),
    request_body = ExtractRequest,
    responses((status = 200, description = "The page window, cut at `truncate_extract` when that control is set", body = ExtractResponse)))]
pub(crate) async fn extract(
    State(state): State<AppState>,
    key: Key,
    ApiPath(session_id): ApiPath<String>,
    ApiJson(request): ApiJson<ExtractRequest>,
) -> Result<Response, ApiError> {
    let session = state.sessions().get(&session_id, key_id(key))?;
    let extract = extract_in(&state, &session, request).await?;
    Ok(Json(extract).into_response())
}

/// Extracts under a session's controls exactly as `POST /v1/sessions/{sid}/extract` does
/// (counted, logged, with the same injected faults), for the other front ends. Sessions that
/// belong to an API key answer `session_not_found` here.
pub async fn session_extract(
    state: &AppState,
    session_id: &str,
    request: ExtractRequest,
) -> Result<ExtractResponse, ApiError> {
    session_extract_as(state, session_id, None, request).await
}

/// [`session_extract`] on behalf of the API key `key`.
pub(crate) async fn session_extract_as(
    state: &AppState,
    session_id: &str,
    key: Option<KeyId>,
    request: ExtractRequest,
) -> Result<ExtractResponse, ApiError> {
    let session = state.sessions().get(session_id, key)?;
    extract_in(state, &session, request).await
}

/// The first page of one query's hits in a session, `top_k` of them (the search's default when
/// `None`), under its controls: what the MCP tool sets other than Qwen-AgentWorld's show. A
/// query the session's controls failed is its error.
pub async fn session_hits(
    state: &AppState,
    session_id: &str,
    query: String,
    top_k: Option<usize>,
) -> Result<Vec<HitJson>, ApiError> {
    let request = SearchRequest {
        query: Some(query),
        queries: None,
        top_k,
        page: None,
        hiding: None,
    };
    let answer = session_search(state, session_id, request).await?;
    let mut hits = Vec::new();
    for item in answer.items {
        match item {
            BatchItem::Ok(response) => hits.extend(response.results),
            BatchItem::Failed { error, .. } => {
                return Err(ApiError::new(error.code, error.message));
            }
        }
    }
    Ok(hits)
}

/// The most windows one page is read in; a page is far shorter, so this only guards the loop.
const MAX_WINDOWS: usize = 64;

/// A whole page as a session reads it.
pub struct WholePage {
    /// The page's url.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// The page as Markdown, every window of it.
    pub text: String,
    /// The page's date, for dated pages.
    pub date: Option<String>,
    /// The session's world.
    pub world: u32,
}

/// Reads a whole page window by window through the session's extract, so its controls apply
/// (a `url_not_found` for a url that is no page of the world).
pub async fn read_page(
    state: &AppState,
    session_id: &str,
    url: &str,
) -> Result<WholePage, ApiError> {
    let url = url.to_owned();
    let world = state.sessions().get(session_id, None)?.world;
    let mut text = String::new();
    let mut start = 0;
    let mut first = None;
    for _ in 0..MAX_WINDOWS {
        let request = ExtractRequest {
            url: url.clone(),
            start: Some(start),
            max_chars: Some(MAX_MAX_CHARS),
        };
        let window = session_extract(state, session_id, request).await?;
        text.push_str(&window.content);
        let next = window.next_start;
        first.get_or_insert(window);
        match next {
            Some(next) if next > start => start = next,
            _ => break,
        }
    }
    let page = first.ok_or_else(|| ApiError::internal(&"an extract without a window"))?;
    Ok(WholePage {
        url: page.url,
        title: page.title,
        text,
        date: page.date,
        world,
    })
}

/// Extracts in a session under its controls: the work of [`session_extract`].
async fn extract_in(
    state: &AppState,
    session: &Session,
    request: ExtractRequest,
) -> Result<ExtractResponse, ApiError> {
    let (start, max_chars) = request.validate()?;
    let call = session.begin_call();
    let plan = plan_call(&session.controls, session.seed, call);
    let mut entry = LogEntry::new(call, "extract");
    entry.url = Some(clip(&request.url));
    if let Some(kind) = plan.error {
        let (delay, error) = injected_failure(session, kind, plan.latency);
        return finish(state, session, entry, delay, Err(error)).await;
    }
    let url = request.url;
    let hiding = session.controls.hiding.unwrap_or_default();
    let extracted = state
        .with_world(session.world, Cost::One, move |index| {
            Ok(index.extract(&url, start, max_chars)?)
        })
        .await;
    let extract = match extracted {
        Ok(extract) => extract,
        Err(error) => return finish(state, session, entry, plan.latency, Err(error)).await,
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
    finish(state, session, entry, plan.latency, answer).await
}

/// A query or url as the log keeps it: at most [`LOGGED_QUERY_CHARS`] characters, the last
/// one [`CLIPPED_MARK`] when it was clipped.
fn clip(text: &str) -> String {
    match text.char_indices().nth(LOGGED_QUERY_CHARS) {
        Some(_) => {
            let (byte_idx, _) = text
                .char_indices()
                .nth(LOGGED_QUERY_CHARS - 1)
                .unwrap_or_default();
            let mut clipped = text[..byte_idx].to_owned();
            clipped.push(CLIPPED_MARK);
            clipped
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_marks_clipped_text() {
        let long = "é".repeat(300);
        let clipped_long = format!("{}…", "é".repeat(255));
        // (text, logged)
        let cases = [
            ("harbour", "harbour"),
            (&"a".repeat(256), &"a".repeat(256)),
            (&"a".repeat(257), &format!("{}…", "a".repeat(255))),
            (&long, &clipped_long),
        ];
        for (text, logged) in cases {
            assert_eq!(clip(text), logged);
            assert!(clip(text).chars().count() <= LOGGED_QUERY_CHARS);
        }
    }
}
