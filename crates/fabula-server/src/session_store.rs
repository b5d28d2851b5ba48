//! The sessions kept in memory: each session's world, seed, controls and call log, in a store
//! bounded by `max_sessions` that evicts the least recently used session.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::api_error::{ApiError, ErrorCode};
use crate::controls::Controls;

/// Sessions kept in memory when the config does not say.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// Log entries kept per session when the config does not say.
pub const DEFAULT_SESSION_LOG_LIMIT: usize = 1_000;

/// One session.
#[derive(Debug)]
pub(crate) struct Session {
    pub id: String,
    pub world: u32,
    pub seed: u64,
    pub controls: Controls,
    /// The store's clock reading at the last use, for least-recently-used eviction.
    last_used: AtomicU64,
    calls: Mutex<CallLog>,
}

/// The calls of one session: how many were counted, and the entries still kept.
#[derive(Debug, Default)]
pub(crate) struct CallLog {
    pub n_calls: u64,
    pub n_forgotten: u64,
    pub entries: VecDeque<LogEntry>,
}

/// One logged call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    /// The call index, from 0, in the order calls arrived.
    pub call: u64,
    /// `"search"` or `"extract"`.
    pub endpoint: &'static str,
    /// The queries of a search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries: Option<Vec<String>>,
    /// The url of an extract.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// `"ok"` or the error code answered.
    pub outcome: &'static str,
    /// The latency the controls added, in milliseconds (for a timeout, the time waited).
    pub latency_ms: u64,
    /// For a search: the results returned, over all queries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<usize>,
    /// For a search: the results silently left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_results: Option<usize>,
    /// For a batch search: the indexes of the queries that failed on their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_queries: Option<Vec<usize>>,
    /// For an extract: whether the window was cut by `truncate_extract`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
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
            failed_queries: None,
            truncated: None,
        }
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

    /// Keeps `entry`, forgetting the oldest entries beyond `log_limit`.
    pub(crate) fn record(&self, entry: LogEntry, log_limit: usize) {
        let mut calls = self.calls.lock();
        calls.entries.push_back(entry);
        while calls.entries.len() > log_limit {
            calls.entries.pop_front();
            calls.n_forgotten += 1;
        }
    }

    /// The call log, locked for reading.
    pub(crate) fn calls(&self) -> parking_lot::MutexGuard<'_, CallLog> {
        self.calls.lock()
    }
}

/// All sessions, bounded, evicting the least recently used.
#[derive(Debug)]
pub(crate) struct SessionStore {
    max_sessions: usize,
    /// The most log entries kept per session.
    pub log_limit: usize,
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    n_created: u64,
    clock: u64,
    sessions: HashMap<String, Arc<Session>>,
}

impl SessionStore {
    pub(crate) fn new(max_sessions: usize, log_limit: usize) -> SessionStore {
        SessionStore {
            max_sessions: max_sessions.max(1),
            log_limit: log_limit.max(1),
            inner: Mutex::new(StoreInner::default()),
        }
    }

    /// Makes a session, evicting the least recently used ones beyond `max_sessions`.
    pub(crate) fn create(&self, world: u32, seed: u64, controls: Controls) -> Arc<Session> {
        let mut inner = self.inner.lock();
        while inner.sessions.len() >= self.max_sessions {
            let oldest = inner
                .sessions
                .values()
                .min_by_key(|session| session.last_used.load(Ordering::Relaxed))
                .map(|session| session.id.clone());
            let Some(oldest) = oldest else { break };
            inner.sessions.remove(&oldest);
        }
        let n_created = inner.n_created;
        inner.n_created += 1;
        inner.clock += 1;
        let id = format!("s{n_created}-{:016x}", id_suffix(seed, n_created));
        let session = Arc::new(Session {
            id: id.clone(),
            world,
            seed,
            controls,
            last_used: AtomicU64::new(inner.clock),
            calls: Mutex::new(CallLog::default()),
        });
        inner.sessions.insert(id, session.clone());
        session
    }

    /// The session with this id, marked as used now.
    pub(crate) fn get(&self, id: &str) -> Result<Arc<Session>, ApiError> {
        let mut inner = self.inner.lock();
        inner.clock += 1;
        let clock = inner.clock;
        match inner.sessions.get(id) {
            Some(session) => {
                session.last_used.store(clock, Ordering::Relaxed);
                Ok(session.clone())
            }
            None => Err(ApiError::new(
                ErrorCode::SessionNotFound,
                format!("no session with id `{id}` (it may have been evicted)"),
            )),
        }
    }

    /// Forgets a session; false when there was none with this id.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.inner.lock().sessions.remove(id).is_some()
    }

    /// The number of sessions kept now.
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().sessions.len()
    }
}

/// The random part of a session id: a ChaCha draw keyed by the session seed and the number of
/// sessions created before it.
fn id_suffix(seed: u64, n_created: u64) -> u64 {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&n_created.to_le_bytes());
    ChaCha8Rng::from_seed(key).random()
}
