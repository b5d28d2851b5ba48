//! The state shared by all requests: the corpus of worlds (which builds and keeps each world's
//! index), the sessions, the observation renderer and the API key. Both listeners of
//! `fabula serve` share one: the trainers' listener takes a clone of the agent-facing one's.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fabula_search::{Corpus, CorpusOptions, Hiding, WorldIndex, WorldInfo};
use tokio::sync::Semaphore;

use crate::api_error::{ApiError, ErrorCode};
use crate::config::ServeConfig;
use crate::edge::Timeouts;
use crate::error::Result;
use crate::lwm::RenderService;
use crate::session_store::{SessionLimits, SessionStore};
use crate::wire::{BatchItem, ExtractResponse};

/// How much work one call does on a world's index, which decides where it runs (see
/// [`AppState::with_world`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// One query or one page window: tens of microseconds on an open world.
    One,
    /// Several queries or pages.
    Many,
}

impl Cost {
    /// The cost of `n` queries or pages.
    pub fn of(n: usize) -> Cost {
        if n <= 1 { Cost::One } else { Cost::Many }
    }
}

/// Everything a request handler needs; cheap to clone (one `Arc`).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    /// The worlds; the corpus keeps the most recently used ones open.
    corpus: Corpus,
    sessions: SessionStore,
    /// The keys requests must present (any one of them); empty when the API is open.
    api_keys: Vec<String>,
    /// Bounds the searches and extracts running at once on blocking threads.
    world_permits: Semaphore,
    /// The observation renderer (template or world model) and its counters.
    renderer: RenderService,
    /// The `Host` values `/mcp/{world}` accepts; `None` accepts any.
    mcp_allowed_hosts: Option<Vec<String>>,
    /// The most MCP sessions kept at once.
    max_mcp_sessions: usize,
    /// How long an MCP session may sit idle before it is closed.
    mcp_session_ttl: Duration,
    /// The HTTP timeouts of both listeners.
    timeouts: Timeouts,
    /// The hiding `/retrieve` applies when a request names none.
    retrieve_hiding: Hiding,
    /// How often the background sweep looks at the world files again.
    world_check_interval: Duration,
    /// Which world serves each url host, learnt a world at a time for `/access`.
    hosts: Arc<parking_lot::Mutex<HostMap>>,
}

/// The most hosts [`AppState::world_of_host`] remembers.
pub(crate) const MAX_HOSTS: usize = 1 << 20;

/// Url hosts and the first world (by id) that has pages on each, for the worlds scanned so far.
#[derive(Debug, Default)]
pub(crate) struct HostMap {
    hosts: std::collections::HashMap<String, u32>,
    /// The position in the corpus's world list of the next world to scan.
    next: usize,
}

impl AppState {
    /// Opens the corpus named by `config.worlds` (its manifest only; a world is opened from its
    /// persisted index, or indexed, on first use) and makes the state, loading the world model
    /// when `config.lwm` asks for it.
    pub fn open(config: &ServeConfig) -> Result<AppState> {
        let options = CorpusOptions {
            max_open_worlds: config.max_open_worlds.max(1),
            write_indexes: config.write_indexes,
        };
        let corpus = Corpus::open_with(&config.worlds, options)?;
        let renderer = match &config.lwm {
            Some(options) => {
                RenderService::with_renderer(options.load_renderer()?, config.max_sessions)
            }
            None => RenderService::template(),
        };
        Ok(AppState::with_renderer(corpus, config, renderer))
    }

    /// Makes the state from an opened corpus with the template renderer; `config.worlds`,
    /// `config.addr` and `config.lwm` are not used.
    pub fn new(corpus: Corpus, config: &ServeConfig) -> AppState {
        AppState::with_renderer(corpus, config, RenderService::template())
    }

    /// Makes the state from an opened corpus and a renderer; `config.worlds`, `config.addr` and
    /// `config.lwm` are not used.
    pub fn with_renderer(
        corpus: Corpus,
        config: &ServeConfig,
        renderer: RenderService,
    ) -> AppState {
        let inner = Inner {
            corpus,
            sessions: SessionStore::new(SessionLimits::from_config(config)),
            api_keys: config.api_keys.clone(),
            world_permits: Semaphore::new(config.max_blocking_calls.max(1)),
            renderer,
            mcp_allowed_hosts: (!config.mcp_allowed_hosts.iter().any(|host| host == "*"))
                .then(|| config.mcp_allowed_hosts.clone()),
            timeouts: Timeouts::from_config(config),
            max_mcp_sessions: config.max_mcp_sessions,
            mcp_session_ttl: config.mcp_session_ttl,
            retrieve_hiding: config.retrieve_hiding,
            world_check_interval: config.world_check_interval,
            hosts: Arc::default(),
        };
        AppState {
            inner: Arc::new(inner),
        }
    }

    /// The worlds of the corpus, sorted by id.
    pub fn worlds(&self) -> &[WorldInfo] {
        self.inner.corpus.worlds()
    }

    /// The API keys requests must present (any one of them); empty when the API is open.
    pub fn api_keys(&self) -> &[String] {
        &self.inner.api_keys
    }

    /// How often the background sweep looks at the world files again
    /// (`ServeConfig::world_check_interval`).
    pub fn world_check_interval(&self) -> Duration {
        self.inner.world_check_interval
    }

    /// The HTTP timeouts both listeners serve with.
    pub fn timeouts(&self) -> Timeouts {
        self.inner.timeouts
    }

    /// The `Host` values the MCP endpoint accepts; `None` when any host is accepted.
    pub fn mcp_allowed_hosts(&self) -> Option<&[String]> {
        self.inner.mcp_allowed_hosts.as_deref()
    }

    /// The most MCP sessions kept at once (`ServeConfig::max_mcp_sessions`).
    pub fn max_mcp_sessions(&self) -> usize {
        self.inner.max_mcp_sessions
    }

    /// How long an MCP session may sit idle before it is closed
    /// (`ServeConfig::mcp_session_ttl`).
    pub fn mcp_session_ttl(&self) -> Duration {
        self.inner.mcp_session_ttl
    }

    pub(crate) fn sessions(&self) -> &SessionStore {
        &self.inner.sessions
    }

    /// The observation renderer and its counters.
    pub fn render_service(&self) -> &RenderService {
        &self.inner.renderer
    }

    /// Whether a world with this id exists.
    pub fn has_world(&self, world_id: u32) -> bool {
        self.world_info(world_id).is_some()
    }

    /// The manifest entry of one world, when the corpus has it.
    pub fn world_info(&self, world_id: u32) -> Option<&WorldInfo> {
        let worlds = self.worlds();
        let world_idx = worlds
            .binary_search_by_key(&world_id, |info| info.id)
            .ok()?;
        Some(&worlds[world_idx])
    }

    fn world_file(&self, world_id: u32) -> Option<PathBuf> {
        self.world_info(world_id).map(|info| info.file.clone())
    }

    /// The ids of the worlds found unavailable so far (see [`Corpus::unavailable`]), sorted.
    pub fn unavailable_worlds(&self) -> Vec<u32> {
        self.inner.corpus.unavailable()
    }

    /// How many worlds are unavailable now (see [`Corpus::unavailable_count`]).
    pub fn unavailable_count(&self) -> usize {
        self.inner.corpus.unavailable_count()
    }

    /// Checks world `world_id`'s file against the manifest unless the same file passed before
    /// (see [`Corpus::check_file`]; the first check of a file hashes it, about a millisecond per
    /// MiB, on the calling thread): for routes that read the world file itself. 404
    /// `world_not_found` or 503 `world_unavailable` when it cannot be served.
    pub fn check_world_file(&self, world_id: u32) -> Result<(), ApiError> {
        if !self.has_world(world_id) {
            return Err(world_not_found(world_id));
        }
        self.inner.corpus.check_file(world_id).map_err(world_error)
    }

    /// Makes world `world_id` unavailable because its file could not be read (see
    /// [`Corpus::fail_world`]) and returns the 503 `world_unavailable` to answer: every route that
    /// reads a world file answers its read errors so.
    pub fn fail_world(&self, world_id: u32, error: fabula_file::Error) -> ApiError {
        world_error(self.inner.corpus.fail_world(world_id, error))
    }

    /// Checks every world file that changed since its last check (every file the first time; see
    /// [`Corpus::sweep`]) on a blocking thread; returns how many worlds are unavailable.
    pub async fn sweep_worlds(&self) -> Result<usize, ApiError> {
        self.on_blocking_thread(|corpus| Ok(corpus.sweep())).await
    }

    /// Runs `work` on one world's index. A [`Cost::One`] call on a world already open runs right
    /// here, on the runtime's worker; anything else (a batch, or a world's first use, which maps
    /// or builds its index) runs on a blocking thread, at most `ServeConfig::max_blocking_calls`
    /// at once; the rest wait without holding a thread. Concurrent first uses of one world wait
    /// for one build.
    ///
    /// One query on an open world takes tens of microseconds, less than handing it to a blocking
    /// thread and back: measured with `fabula bench search --worlds` (1,000 worlds, 32
    /// connections, 2 cores, release build), running it inline raised warm search from about
    /// 19,700-20,100 to 25,600-28,800 requests/s (from 27-31% to 36-37% of the same server's
    /// `/health` rate) and cut p99 from 3.2-3.4 ms to 2.5-2.9 ms; the futex waits and wake-ups of
    /// the handoff were the largest item of a CPU profile. Batches stay off the workers so that
    /// a 100-query call cannot stall the sockets of the others. (Before persisted indexes, when
    /// searches cost a few hundred microseconds, blocking threads doubled throughput; a bound of
    /// two per core lost a third of it.)
    ///
    pub async fn with_world<T, F>(&self, world_id: u32, cost: Cost, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&WorldIndex) -> Result<T, ApiError> + Send + 'static,
    {
        if !self.has_world(world_id) {
            return Err(world_not_found(world_id));
        }
        match self.inner.corpus.world_if_used(world_id) {
            Some(Err(error)) => return Err(world_error(error)),
            Some(Ok(index)) if cost == Cost::One => return work(&index),
            Some(Ok(_)) | None => {}
        }
        self.on_blocking_thread(move |corpus| {
            let index = corpus.world(world_id).map_err(world_error)?;
            work(&index)
        })
        .await
    }

    /// Checks that a world can be served (its file matches the manifest, its index opens), as
    /// its first search would: `world_not_found` or `world_unavailable` otherwise.
    pub async fn world_ready(&self, world_id: u32) -> Result<(), ApiError> {
        self.with_world(world_id, Cost::One, |_| Ok(())).await
    }

    /// One search in one world, as the native search runs it (for the admin's views, which
    /// measure what an agent's first search would show).
    pub async fn search_world(
        &self,
        world_id: u32,
        query: String,
        options: fabula_search::SearchOptions,
    ) -> Result<fabula_search::SearchResults, ApiError> {
        self.with_world(world_id, Cost::One, move |index| {
            Ok(index.search(&query, &options)?)
        })
        .await
    }

    /// The hiding `/retrieve` applies when a request names none.
    pub fn retrieve_hiding(&self) -> Hiding {
        self.inner.retrieve_hiding
    }

    /// Runs `work` on the whole corpus (the passage index): inline when it is a single call and
    /// the passage index is open, else on a blocking thread under the same permits as
    /// [`AppState::with_world`], since the first use may build the index.
    pub async fn with_corpus<T, F>(&self, cost: Cost, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Corpus) -> Result<T, ApiError> + Send + 'static,
    {
        if cost == Cost::One && self.inner.corpus.passages_ready() {
            return work(&self.inner.corpus);
        }
        self.on_blocking_thread(work).await
    }

    /// Runs `work` (reading a world file, say) on a blocking thread under the same permits as
    /// searches, so the threads and memory such work holds at once stay bounded.
    pub async fn run_blocking<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.on_blocking_thread(move |_| Ok(work())).await
    }

    /// Runs `work` on a blocking thread, once one of the world permits is free.
    async fn on_blocking_thread<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Corpus) -> Result<T, ApiError> + Send + 'static,
    {
        let _permit = self
            .inner
            .world_permits
            .acquire()
            .await
            .map_err(|error| ApiError::internal(&error))?;
        let state = self.clone();
        tokio::task::spawn_blocking(move || work(&state.inner.corpus))
            .await
            .map_err(|error| ApiError::internal(&error))?
    }

    /// Renders a search's answered queries through the configured renderer (see [`RenderService`]).
    pub(crate) async fn render_search(
        &self,
        world_id: u32,
        session_id: Option<&str>,
        hiding: Hiding,
        items: Vec<BatchItem>,
    ) -> Vec<BatchItem> {
        let file = self.world_file(world_id);
        self.render_service()
            .render_search(file, session_id, hiding, items)
            .await
    }

    /// Renders an extract window through the configured renderer (see [`RenderService`]).
    pub(crate) async fn render_extract(
        &self,
        world_id: u32,
        session_id: Option<&str>,
        hiding: Hiding,
        start: usize,
        response: ExtractResponse,
    ) -> ExtractResponse {
        let file = self.world_file(world_id);
        self.render_service()
            .render_extract(file, session_id, hiding, start, response)
            .await
    }
}

impl AppState {
    /// The world whose pages live on `host`: the first one by id. Worlds are scanned in id
    /// order, each once, and every host of a scanned world is remembered (at most
    /// 2^20, `MAX_HOSTS`), so the answer never depends on which urls were asked for before. A world
    /// that cannot be read when its turn comes is passed over. `None` when no world has the host.
    pub async fn world_of_host(&self, host: String) -> Result<Option<u32>, ApiError> {
        if let Some(&world) = self.inner.hosts.lock().hosts.get(&host) {
            return Ok(Some(world));
        }
        let hosts = Arc::clone(&self.inner.hosts);
        self.on_blocking_thread(move |corpus| {
            let ids: Vec<u32> = corpus.worlds().iter().map(|info| info.id).collect();
            loop {
                let next = {
                    let map = hosts.lock();
                    if let Some(&world) = map.hosts.get(&host) {
                        return Ok(Some(world));
                    }
                    map.next
                };
                let Some(&id) = ids.get(next) else {
                    return Ok(None);
                };
                let found: std::collections::BTreeSet<String> = match corpus.world(id) {
                    Ok(index) => index
                        .urls()
                        .filter_map(host_of)
                        .map(str::to_owned)
                        .collect(),
                    Err(_) => std::collections::BTreeSet::new(),
                };
                let mut map = hosts.lock();
                // Another request may have scanned this world meanwhile.
                if map.next == next {
                    for found in found {
                        if map.hosts.len() >= MAX_HOSTS {
                            break;
                        }
                        map.hosts.entry(found).or_insert(id);
                    }
                    map.next += 1;
                }
            }
        })
        .await
    }
}

/// The host of an `http(s)://host/...` url.
pub fn host_of(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty()).then_some(host)
}

/// A world that failed its checks is 503 `world_unavailable`, logged once by the corpus and not
/// here; every other error maps as usual.
fn world_error(error: fabula_search::Error) -> ApiError {
    match error {
        fabula_search::Error::WorldUnavailable { .. } => {
            ApiError::new(ErrorCode::WorldUnavailable, error.to_string())
        }
        other => ApiError::from(other),
    }
}

fn world_not_found(world_id: u32) -> ApiError {
    ApiError::new(
        ErrorCode::WorldNotFound,
        format!("no world with id {world_id}"),
    )
}
