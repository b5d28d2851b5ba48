//! The REST sessions kept in memory: each session's world, seed, controls, owner and call log, in
//! a store whose memory is bounded by construction.
//!
//! - Ids are 128 bits drawn from a ChaCha20 stream seeded by the operating system, written as
//!   `s_` and 32 hex digits, so one client cannot guess another's session. (A session's `seed`
//!   still decides its controls; ids never reach a world file.)
//! - A session created with an API key belongs to that key: the store answers
//!   `session_not_found` to any other key, as if there were no such session. Sessions created
//!   without a key (the API is open, or MCP and the episode API made them) belong to no one.
//! - At most `max_sessions` sessions are kept. A session idle for `session_ttl` (no call begun or
//!   finished) expires: its id answers `session_not_found` and its memory is freed, at the latest
//!   by the next sweep over all sessions, which runs during a create, lookup or count, at most
//!   once a second (once per TTL when that is shorter) and only when a session may have expired.
//!   At the cap, creating a session sweeps when one is due; when no session has expired it
//!   answers 429 `too_many_sessions` with `Retry-After` (the seconds until the next sweep, at
//!   least 1). A session in use (a call holds it) is never dropped.
//! - Each session's log keeps at most `session_log_limit` entries and `session_log_bytes` bytes
//!   (estimated: the lengths of its strings plus a fixed overhead), forgetting the oldest; all
//!   logs together keep at most `total_log_bytes`, beyond which new entries are counted as
//!   forgotten rather than kept. A dropped session gives its bytes back.
//! - Each session's `dict_memory` notebook is bounded by the `memory` module (pairs and bytes a
//!   session, bytes over all sessions) and gives its bytes back when the session is dropped.
//!
//! Time is read from a monotonic clock, in milliseconds since the store was made.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use parking_lot::Mutex;
use rand::RngExt;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::KeyId;
use crate::api_error::{ApiError, ErrorCode};
use crate::config::ServeConfig;
use crate::controls::Controls;
use crate::memory::DictMemory;

/// The bytes a log entry is counted for beyond its strings: the entry itself and its slot.
const ENTRY_OVERHEAD_BYTES: usize = size_of::<LogEntry>() + 16;
/// The longest wait between two sweeps while sessions may expire, in milliseconds.
const MAX_SWEEP_GAP_MS: u64 = 1_000;

/// The bounds of a [`SessionStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SessionLimits {
    pub max_sessions: usize,
    pub ttl: Duration,
    pub log_entries: usize,
    pub log_bytes: usize,
    pub total_log_bytes: usize,
}

impl SessionLimits {
    /// The session bounds of a serve config.
    pub(crate) fn from_config(config: &ServeConfig) -> SessionLimits {
        SessionLimits {
            max_sessions: config.max_sessions,
            ttl: config.session_ttl,
            log_entries: config.session_log_limit,
            log_bytes: config.session_log_bytes,
            total_log_bytes: config.total_log_bytes,
        }
    }
}

/// One session.
#[derive(Debug)]
pub(crate) struct Session {
    pub id: String,
    pub world: u32,
    pub seed: u64,
    pub controls: Controls,
    /// The API key that created the session; None when it belongs to no one.
    owner: Option<KeyId>,
    /// The store's clock when a call last began or finished.
    last_used_ms: AtomicU64,
    calls: Mutex<CallLog>,
    /// The log bytes kept over all sessions; this session's share is given back on drop.
    all_log_bytes: Arc<AtomicUsize>,
    /// The `dict_memory` notebook, bounded by its own module.
    memory: Mutex<DictMemory>,
}

/// The calls of one session: how many were counted, and the entries still kept.
#[derive(Debug, Default)]
pub(crate) struct CallLog {
    pub n_calls: u64,
    pub n_forgotten: u64,
    /// The estimated bytes of `entries`.
    pub n_bytes: usize,
    pub entries: VecDeque<LogEntry>,
}

/// One logged call.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LogEntry {
    /// The call index, from 0, in the order calls arrived.
    pub call: u64,
    /// `"search"` or `"extract"`.
    #[schema(value_type = String, pattern = "^(search|extract)$")]
    pub endpoint: &'static str,
    /// The queries of a search, each clipped (a clipped one ends with `…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub queries: Option<Vec<String>>,
    /// The url of an extract, clipped like a query.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub url: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// `"ok"` or the error code answered.
    pub outcome: &'static str,
    /// The latency the controls added, in milliseconds (for a timeout, the time waited).
    pub latency_ms: u64,
    /// For a search: the results returned, over all queries.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub results: Option<usize>,
    /// For a search: the results silently left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub dropped_results: Option<usize>,
    /// For a batch search: the indexes of the queries that failed on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub failed_queries: Option<Vec<usize>>,
    /// For a search: the urls of the results returned, over all queries in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub result_urls: Option<Vec<String>>,
    /// For an extract: whether the window was cut by `truncate_extract`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub truncated: Option<bool>,
    /// The tool call this search or extract served, as its caller wrote it: the tool sets of MCP,
    /// Qwen-AgentWorld's tool routes and the episodes' steps (absent for the native routes).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub via: Option<Via>,
}

/// A tool call in its own suite's shape, logged with the session calls it made.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Via {
    /// The tool set: `agentworld` (the REST tool routes and episodes), `mcp` (Qwen-AgentWorld's
    /// tools over MCP), `mcp/deep-research`, `mcp/browsecomp-plus` or `mcp/tongyi`.
    pub suite: &'static str,
    /// The tool and its JSON arguments as sent (`visit {"goal":..,"url":..}`), clipped to 400
    /// characters (a clipped one ends with `…`).
    pub call: String,
}

/// The most characters of a logged tool call ([`Via::call`]).
pub const VIA_CALL_CHARS: usize = 400;

tokio::task_local! {
    /// The tool call the session calls of the running task serve.
    static VIA: Via;
}

impl Via {
    /// The call of `tool` with `arguments` in `suite`, clipped.
    pub fn new(suite: &'static str, tool: &str, arguments: &serde_json::Value) -> Via {
        let mut call = format!("{tool} {arguments}");
        if let Some((at, _)) = call.char_indices().nth(VIA_CALL_CHARS) {
            call.truncate(at);
            call.push('…');
        }
        Via { suite, call }
    }

    /// Runs `work` with this call as the one its session calls serve, unless an outer call
    /// already is (an MCP call of Qwen-AgentWorld's tools keeps its own suite).
    pub async fn scope<F: Future>(self, work: F) -> F::Output {
        if VIA.try_with(|_| ()).is_ok() {
            return work.await;
        }
        VIA.scope(self, work).await
    }

    fn current() -> Option<Via> {
        VIA.try_with(Clone::clone).ok()
    }
}

impl LogEntry {
    /// A successful call's entry; the caller fills in what it learns.
    pub(crate) fn new(call: u64, endpoint: &'static str) -> LogEntry {
        LogEntry {
            call,
            endpoint,
            queries: None,
            url: None,
            status: 200,
            outcome: "ok",
            latency_ms: 0,
            results: None,
            dropped_results: None,
            result_urls: None,
            failed_queries: None,
            truncated: None,
            via: Via::current(),
        }
    }

    /// The bytes this entry is counted for: its strings and lists plus a fixed overhead.
    pub(crate) fn estimated_bytes(&self) -> usize {
        let queries: usize = self
            .queries
            .iter()
            .flatten()
            .map(|query| query.len() + size_of::<String>())
            .sum();
        let url = self.url.as_ref().map_or(0, String::len);
        let result_urls: usize = self
            .result_urls
            .iter()
            .flatten()
            .map(|url| url.len() + size_of::<String>())
            .sum();
        let failed = self
            .failed_queries
            .as_ref()
            .map_or(0, |failed| failed.len() * size_of::<usize>());
        let via = self.via.as_ref().map_or(0, |via| via.call.len());
        ENTRY_OVERHEAD_BYTES + queries + url + result_urls + failed + via
    }
}

impl Session {
    /// Takes the next call index.
    pub(crate) fn begin_call(&self) -> u64 {
        let mut calls = self.calls.lock();
        let call = calls.n_calls;
        calls.n_calls += 1;
        call
    }

    /// The call log, locked for reading.
    pub(crate) fn calls(&self) -> parking_lot::MutexGuard<'_, CallLog> {
        self.calls.lock()
    }

    /// The `dict_memory` notebook, locked.
    pub(crate) fn memory(&self) -> parking_lot::MutexGuard<'_, DictMemory> {
        self.memory.lock()
    }

    fn may_be_used_by(&self, key: Option<KeyId>) -> bool {
        self.owner.is_none() || self.owner == key
    }

    fn touch(&self, now_ms: u64) {
        self.last_used_ms.fetch_max(now_ms, Ordering::Relaxed);
    }

    fn last_used_ms(&self) -> u64 {
        self.last_used_ms.load(Ordering::Relaxed)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let n_bytes = self.calls.get_mut().n_bytes;
        self.all_log_bytes.fetch_sub(n_bytes, Ordering::AcqRel);
    }
}

/// Where the store reads the time: a monotonic clock, or (in tests) a hand-set one. The
/// monotonic clock is tokio's, which is the system's except under `tokio::time::pause`, so
/// integration tests move it forward instead of sleeping.
#[derive(Debug, Clone)]
pub(crate) enum Clock {
    /// Milliseconds since this instant.
    Monotonic(Instant),
    /// Milliseconds set by the test.
    #[cfg(test)]
    Manual(Arc<AtomicU64>),
}

impl Clock {
    fn now_ms(&self) -> u64 {
        match self {
            Clock::Monotonic(start) => duration_ms(start.elapsed()),
            #[cfg(test)]
            Clock::Manual(now_ms) => now_ms.load(Ordering::Relaxed),
        }
    }
}

/// All sessions, bounded in number, idle time and log bytes.
#[derive(Debug)]
pub(crate) struct SessionStore {
    limits: SessionLimits,
    clock: Clock,
    /// The estimated bytes of all sessions' kept log entries.
    all_log_bytes: Arc<AtomicUsize>,
    /// The bytes of all sessions' `dict_memory` notebooks.
    all_memory_bytes: Arc<AtomicUsize>,
    inner: Mutex<StoreInner>,
}

#[derive(Debug)]
struct StoreInner {
    /// Draws session ids.
    ids: ChaCha20Rng,
    sessions: HashMap<String, Arc<Session>>,
    /// No sweep runs before this clock reading; no session expires before it either, except
    /// ones that were in use at the last sweep.
    next_sweep_ms: u64,
}

impl SessionStore {
    pub(crate) fn new(limits: SessionLimits) -> SessionStore {
        SessionStore::with_clock(limits, Clock::Monotonic(Instant::now()))
    }

    pub(crate) fn with_clock(limits: SessionLimits, clock: Clock) -> SessionStore {
        let limits = SessionLimits {
            max_sessions: limits.max_sessions.max(1),
            log_entries: limits.log_entries.max(1),
            ..limits
        };
        SessionStore {
            limits,
            clock,
            all_log_bytes: Arc::new(AtomicUsize::new(0)),
            all_memory_bytes: Arc::new(AtomicUsize::new(0)),
            inner: Mutex::new(StoreInner {
                ids: rand::make_rng(),
                sessions: HashMap::new(),
                next_sweep_ms: 0,
            }),
        }
    }

    /// Makes a session owned by `owner`. At the cap it first drops expired sessions; when none
    /// has expired it answers `too_many_sessions` with the seconds to wait.
    pub(crate) fn create(
        &self,
        world: u32,
        seed: u64,
        controls: Controls,
        owner: Option<KeyId>,
    ) -> Result<Arc<Session>, ApiError> {
        let now_ms = self.clock.now_ms();
        let mut inner = self.inner.lock();
        self.sweep_if_due(&mut inner, now_ms);
        if inner.sessions.len() >= self.limits.max_sessions {
            return Err(self.full(&inner, now_ms));
        }
        let id = loop {
            let id = format!("s_{:032x}", inner.ids.random::<u128>());
            if !inner.sessions.contains_key(&id) {
                break id;
            }
        };
        let session = Arc::new(Session {
            id: id.clone(),
            world,
            seed,
            controls,
            owner,
            last_used_ms: AtomicU64::new(now_ms),
            calls: Mutex::new(CallLog::default()),
            all_log_bytes: self.all_log_bytes.clone(),
            memory: Mutex::new(DictMemory::new(self.all_memory_bytes.clone())),
        });
        inner.sessions.insert(id, session.clone());
        Ok(session)
    }

    /// The session with this id, marked as used now, when `key` may use it and it has not
    /// expired; `session_not_found` otherwise.
    pub(crate) fn get(&self, id: &str, key: Option<KeyId>) -> Result<Arc<Session>, ApiError> {
        let now_ms = self.clock.now_ms();
        let mut inner = self.inner.lock();
        self.sweep_if_due(&mut inner, now_ms);
        let Some(session) = inner.sessions.get(id) else {
            return Err(not_found(id));
        };
        if !session.may_be_used_by(key) {
            return Err(not_found(id));
        }
        if self.droppable(session, now_ms) {
            inner.sessions.remove(id);
            return Err(not_found(id));
        }
        session.touch(now_ms);
        Ok(session.clone())
    }

    /// Every live session, most recently used first (ties by id), for the admin's read-only
    /// views: nothing is marked as used and no owner is checked.
    pub(crate) fn peek_all(&self) -> Vec<Arc<Session>> {
        let now_ms = self.clock.now_ms();
        let inner = self.inner.lock();
        let mut live: Vec<Arc<Session>> = inner
            .sessions
            .values()
            .filter(|session| !self.droppable(session, now_ms))
            .cloned()
            .collect();
        drop(inner);
        live.sort_by(|a, b| (b.last_used_ms(), &a.id).cmp(&(a.last_used_ms(), &b.id)));
        live
    }

    /// One live session, for the admin's read-only views: it is not marked as used and no
    /// owner is checked.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        let now_ms = self.clock.now_ms();
        let inner = self.inner.lock();
        inner
            .sessions
            .get(id)
            .filter(|session| !self.droppable(session, now_ms))
            .cloned()
    }

    /// Forgets a session; false when `key` has no live session with this id.
    pub(crate) fn remove(&self, id: &str, key: Option<KeyId>) -> bool {
        let now_ms = self.clock.now_ms();
        let mut inner = self.inner.lock();
        let live = match inner.sessions.get(id) {
            Some(session) if session.may_be_used_by(key) => !self.droppable(session, now_ms),
            _ => return false,
        };
        inner.sessions.remove(id);
        live
    }

    /// Keeps `entry` in the session's log within the log budgets (see the module docs), and
    /// marks the session as used now.
    pub(crate) fn record(&self, session: &Session, entry: LogEntry) {
        let n_bytes = entry.estimated_bytes();
        let fits_session = n_bytes <= self.limits.log_bytes;
        let mut calls = session.calls.lock();
        while fits_session
            && (calls.entries.len() >= self.limits.log_entries
                || calls.n_bytes + n_bytes > self.limits.log_bytes)
        {
            let Some(oldest) = calls.entries.pop_front() else {
                break;
            };
            let oldest_bytes = oldest.estimated_bytes();
            calls.n_bytes -= oldest_bytes;
            calls.n_forgotten += 1;
            self.all_log_bytes.fetch_sub(oldest_bytes, Ordering::AcqRel);
        }
        if fits_session && self.reserve_log_bytes(n_bytes) {
            calls.entries.push_back(entry);
            calls.n_bytes += n_bytes;
        } else {
            calls.n_forgotten += 1;
        }
        drop(calls);
        session.touch(self.clock.now_ms());
    }

    /// The number of sessions kept now, after dropping expired ones when a sweep is due.
    pub(crate) fn len(&self) -> usize {
        let now_ms = self.clock.now_ms();
        let mut inner = self.inner.lock();
        self.sweep_if_due(&mut inner, now_ms);
        inner.sessions.len()
    }

    /// The estimated bytes of all sessions' kept log entries.
    #[cfg(test)]
    fn all_log_bytes(&self) -> usize {
        self.all_log_bytes.load(Ordering::Acquire)
    }

    /// Counts `n_bytes` more log bytes over all sessions; false (and nothing counted) when that
    /// would pass `total_log_bytes`.
    fn reserve_log_bytes(&self, n_bytes: usize) -> bool {
        let limit = self.limits.total_log_bytes;
        self.all_log_bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |total| {
                total
                    .checked_add(n_bytes)
                    .filter(|new_total| *new_total <= limit)
            })
            .is_ok()
    }

    /// Drops every expired session not in use, when a sweep is due, and sets when the next one
    /// is: when the first kept session may expire, but not sooner than the sweep gap.
    fn sweep_if_due(&self, inner: &mut StoreInner, now_ms: u64) {
        if now_ms < inner.next_sweep_ms {
            return;
        }
        let ttl_ms = self.ttl_ms();
        inner
            .sessions
            .retain(|_, session| !self.droppable(session, now_ms));
        if inner.sessions.capacity() > 4 * inner.sessions.len().max(64) {
            inner.sessions.shrink_to_fit();
        }
        let first_expiry_ms = inner
            .sessions
            .values()
            .map(|session| session.last_used_ms().saturating_add(ttl_ms))
            .min()
            .unwrap_or(now_ms.saturating_add(ttl_ms));
        let gap_ms = ttl_ms.min(MAX_SWEEP_GAP_MS);
        inner.next_sweep_ms = first_expiry_ms.max(now_ms.saturating_add(gap_ms));
    }

    /// Whether the store may drop this session: it has been idle for the TTL and no call holds
    /// it (the store's own reference is the only one).
    fn droppable(&self, session: &Arc<Session>, now_ms: u64) -> bool {
        Arc::strong_count(session) == 1
            && now_ms.saturating_sub(session.last_used_ms()) >= self.ttl_ms()
    }

    /// The refusal at the cap, with the seconds until the next sweep may make room.
    fn full(&self, inner: &StoreInner, now_ms: u64) -> ApiError {
        let wait_ms = inner.next_sweep_ms.saturating_sub(now_ms);
        let retry_after_s = wait_ms.div_ceil(1_000).max(1);
        ApiError {
            code: ErrorCode::TooManySessions,
            message: format!(
                "{} sessions are open, the most this server keeps, and none has been idle for \
                 {} s; retry after {retry_after_s} s or delete a session",
                inner.sessions.len(),
                self.limits.ttl.as_secs_f64(),
            ),
            retry_after_s: Some(retry_after_s),
        }
    }

    fn ttl_ms(&self) -> u64 {
        duration_ms(self.limits.ttl).max(1)
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SessionNotFound,
        format!("no session with id `{id}` (it may have expired or been deleted)"),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[tokio::test]
    async fn a_call_is_logged_via_its_outermost_tool_and_clipped() {
        assert_eq!(
            LogEntry::new(0, "search").via,
            None,
            "native routes log no tool"
        );
        let outer = Via::new(
            "mcp/tongyi",
            "visit",
            &serde_json::json!({"url": "u", "goal": "g"}),
        );
        let inner = Via::new(
            "agentworld",
            "web_extractor",
            &serde_json::json!({"url": "u"}),
        );
        let logged = outer
            .scope(async { inner.scope(async { LogEntry::new(1, "extract") }).await })
            .await;
        let via = logged.via.expect("logged with its tool call");
        assert_eq!(via.suite, "mcp/tongyi");
        assert_eq!(via.call, r#"visit {"goal":"g","url":"u"}"#);
        let long = Via::new(
            "agentworld",
            "web_search",
            &serde_json::json!({"query": "q".repeat(900)}),
        );
        assert_eq!(long.call.chars().count(), VIA_CALL_CHARS + 1);
        assert!(long.call.ends_with('…'));
    }
    use crate::controls::noise_controls;

    fn limits() -> SessionLimits {
        SessionLimits {
            max_sessions: 3,
            ttl: Duration::from_secs(60),
            log_entries: 1_000,
            log_bytes: 1 << 20,
            total_log_bytes: 64 << 20,
        }
    }

    /// A store on a hand-set clock, and the clock's hand (milliseconds).
    fn manual_store(limits: SessionLimits) -> (SessionStore, Arc<AtomicU64>) {
        let now_ms = Arc::new(AtomicU64::new(0));
        let store = SessionStore::with_clock(limits, Clock::Manual(now_ms.clone()));
        (store, now_ms)
    }

    fn create(store: &SessionStore, owner: Option<KeyId>) -> Result<Arc<Session>, ApiError> {
        store.create(0, 7, noise_controls(0.0), owner)
    }

    fn search_entry(call: u64, n_queries: usize, query_chars: usize) -> LogEntry {
        LogEntry {
            queries: Some(vec!["q".repeat(query_chars); n_queries]),
            ..LogEntry::new(call, "search")
        }
    }

    #[test]
    fn ids_are_32_random_hex_digits() {
        let (store, _) = manual_store(SessionLimits {
            max_sessions: 2_000,
            ..limits()
        });
        let (other, _) = manual_store(limits());
        let mut ids = HashSet::new();
        for _ in 0..1_000 {
            let id = create(&store, None).unwrap().id.clone();
            let hex = id.strip_prefix("s_").expect("ids start with s_");
            assert_eq!(hex.len(), 32, "{id}");
            assert!(hex.bytes().all(|byte| byte.is_ascii_hexdigit()), "{id}");
            ids.insert(id);
        }
        assert_eq!(ids.len(), 1_000);
        let first_other = create(&other, None).unwrap().id.clone();
        assert!(!ids.contains(&first_other), "two stores draw different ids");
    }

    #[test]
    fn another_key_cannot_see_or_remove_a_session() {
        let (store, _) = manual_store(limits());
        let owned = create(&store, Some(KeyId(0))).unwrap().id.clone();
        let open = create(&store, None).unwrap().id.clone();
        // (session, key, found)
        let cases = [
            (&owned, Some(KeyId(0)), true),
            (&owned, Some(KeyId(1)), false),
            (&owned, None, false),
            (&open, Some(KeyId(1)), true),
            (&open, None, true),
        ];
        for (id, key, found) in cases {
            assert_eq!(store.get(id, key).is_ok(), found, "{id} with {key:?}");
        }
        assert!(!store.remove(&owned, Some(KeyId(1))));
        assert!(store.remove(&owned, Some(KeyId(0))));
        assert!(store.get(&owned, Some(KeyId(0))).is_err());
    }

    #[test]
    fn the_cap_refuses_while_no_session_has_expired() {
        let (store, now_ms) = manual_store(limits());
        let ids: Vec<String> = (0..3)
            .map(|_| create(&store, None).unwrap().id.clone())
            .collect();
        now_ms.store(20_000, Ordering::Relaxed);
        store.get(&ids[0], None).unwrap();
        let error = create(&store, None).unwrap_err();
        assert_eq!(error.code, ErrorCode::TooManySessions);
        // The oldest idle sessions (ids 1 and 2, last used at 0) expire at 60 s.
        assert_eq!(error.retry_after_s, Some(40));
        for id in &ids {
            assert!(store.get(id, None).is_ok(), "{id} was not evicted");
        }
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn expired_sessions_make_room_and_answer_not_found() {
        let (store, now_ms) = manual_store(limits());
        let ids: Vec<String> = (0..3)
            .map(|_| create(&store, None).unwrap().id.clone())
            .collect();
        now_ms.store(30_000, Ordering::Relaxed);
        store.get(&ids[2], None).unwrap();
        now_ms.store(60_000, Ordering::Relaxed);
        let fresh = create(&store, None).unwrap();
        assert_eq!(store.len(), 2, "both expired sessions were dropped");
        for (id, live) in [(&ids[0], false), (&ids[1], false), (&ids[2], true)] {
            assert_eq!(store.get(id, None).is_ok(), live, "{id}");
        }
        assert!(store.get(&fresh.id, None).is_ok());
    }

    #[test]
    fn a_session_in_use_is_never_dropped() {
        let (store, now_ms) = manual_store(SessionLimits {
            max_sessions: 1,
            ..limits()
        });
        let held = create(&store, None).unwrap();
        now_ms.store(600_000, Ordering::Relaxed);
        let error = create(&store, None).unwrap_err();
        assert_eq!(error.code, ErrorCode::TooManySessions);
        assert_eq!(
            error.retry_after_s,
            Some(1),
            "the next sweep is a second away"
        );
        // The call that held it finishes, which counts as a use.
        store.record(&held, LogEntry::new(0, "search"));
        drop(held);
        now_ms.store(600_000 + 59_999, Ordering::Relaxed);
        assert!(create(&store, None).is_err(), "idle for less than the TTL");
        // Expiry is noticed by the next sweep, at most a second later.
        now_ms.store(600_000 + 61_000, Ordering::Relaxed);
        assert!(create(&store, None).is_ok());
    }

    #[test]
    fn a_session_log_stays_within_its_entry_and_byte_budgets() {
        // (log_entries, log_bytes, queries per call, characters per query, calls)
        let cases = [
            (1_000, 1 << 20, 100, 200, 2_000),
            (1_000, 64 << 10, 100, 200, 2_000),
            (5, 1 << 20, 1, 10, 100),
            (1_000, 100, 1, 10, 10),
        ];
        for (log_entries, log_bytes, n_queries, query_chars, n_calls) in cases {
            let (store, _) = manual_store(SessionLimits {
                log_entries,
                log_bytes,
                ..limits()
            });
            let session = create(&store, None).unwrap();
            for call in 0..n_calls {
                store.record(&session, search_entry(call, n_queries, query_chars));
            }
            let calls = session.calls();
            let case = (log_entries, log_bytes, n_queries, query_chars, n_calls);
            assert!(calls.entries.len() <= log_entries, "{case:?}");
            assert!(calls.n_bytes <= log_bytes, "{case:?}");
            let n_kept = calls.entries.len() as u64;
            assert_eq!(calls.n_forgotten + n_kept, n_calls, "{case:?}");
            let summed: usize = calls.entries.iter().map(LogEntry::estimated_bytes).sum();
            assert_eq!(calls.n_bytes, summed, "{case:?}");
            assert_eq!(store.all_log_bytes(), summed, "{case:?}");
            if let Some(last) = calls.entries.back() {
                assert_eq!(last.call, n_calls - 1, "the newest entry is kept: {case:?}");
            }
        }
    }

    #[test]
    fn all_logs_together_stay_within_the_total_budget() {
        let entry_bytes = search_entry(0, 100, 200).estimated_bytes();
        let total_log_bytes = 10 * entry_bytes;
        let (store, _) = manual_store(SessionLimits {
            max_sessions: 100,
            total_log_bytes,
            ..limits()
        });
        let sessions: Vec<Arc<Session>> = (0..4).map(|_| create(&store, None).unwrap()).collect();
        for call in 0..50 {
            for session in &sessions {
                store.record(session, search_entry(call, 100, 200));
            }
        }
        assert_eq!(store.all_log_bytes(), total_log_bytes);
        let n_kept: usize = sessions.iter().map(|s| s.calls().entries.len()).sum();
        assert_eq!(n_kept, 10);
        for session in &sessions {
            let calls = session.calls();
            assert_eq!(calls.n_forgotten + calls.entries.len() as u64, 50);
        }
        // Dropping a session gives its bytes back, and the next entry is kept.
        let freed = sessions[0].calls().n_bytes;
        assert!(freed > 0);
        let first = sessions[0].id.clone();
        drop(sessions);
        assert!(store.remove(&first, None));
        assert_eq!(store.all_log_bytes(), total_log_bytes - freed);
        let next = create(&store, None).unwrap();
        store.record(&next, search_entry(0, 100, 200));
        assert_eq!(next.calls().entries.len(), 1);
    }
}
