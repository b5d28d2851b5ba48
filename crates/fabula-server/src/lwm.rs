//! The observation renderer behind the native and session search and extract routes: the
//! template renderer, or the language world model of `fabula-lwm` with the template text as its
//! fallback.
//!
//! With the template renderer (the default) responses are the search index's results and page
//! windows as they always were, marked `"rendered_by": "template"`.
//!
//! With the world model ([`LwmOptions`], `fabula serve --renderer lwm --model DIR`, or a model an
//! OpenAI-compatible engine serves: `--world-model-url URL --world-model-name NAME`, see
//! [`fabula_lwm::RemoteEngine`]):
//!
//! - **Search.** Each query's results (after a session's controls dropped or paged them) are
//!   written in Qwen-AgentWorld's block format (`[n] URL` / `Title:` / `Snippet:` / `Date:`, `N/A`
//!   for reference pages; see [`search_template`]) and handed to [`fabula_lwm::Renderer::render_search`]
//!   as the template. When the model's text is accepted, it is parsed back with
//!   [`fabula_lwm::parse_search`] and its blocks replace the query's `results` (rank, url, title,
//!   snippet, date); `page` and `has_more` stay the index's. When it is rejected, the results stay
//!   the template's. Queries without results are not rendered.
//! - **Extract.** Only a window that holds the whole page (`start` 0 and no `next_start`) is
//!   rendered, with the window's Markdown as the template; an accepted render becomes `content`
//!   (a session's `truncate_extract` still cuts it). Later windows of a long page are always the
//!   template's, so paging never mixes texts.
//! - A render that panics (a bug, logged) leaves the template's answer, for search and extract.
//! - Each response says which renderer produced it in `rendered_by` (`"lwm"` or `"template"`).
//!   The Search-R1 and Tavily shapes are never rendered and keep their exact fields.
//!
//! The model runs on a blocking thread behind one mutex (one render at a time). Each fabula
//! session keeps a [`fabula_lwm::Session`] (the snippets it was shown), so a session's extracts
//! are checked against its earlier snippets; the native routes use a fresh one per call. The
//! pages and facts a render needs are read from the world file (through `fabula_file::WorldFile`)
//! when it asks for them, so the server holds no second copy of a world's pages beside the search
//! index. [`load_world_view`] reads a whole world into memory, for the CLI's replayed sessions.
//!
//! `GET /metrics` answers Prometheus text from one `prometheus-client` registry: request counters
//! by endpoint and renderer always, and with the world model its render counters
//! ([`fabula_lwm::Counters`], read at each scrape). A summary line is logged every
//! [`LOG_EVERY_RENDERS`] renders.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use fabula_file::{Page, WorldFile};
use fabula_lwm::{
    Counters, DeviceChoice, LoadOptions, MemoryWorld, RemoteEngine, RemoteOptions, RenderConfig,
    RenderedBy, Renderer, ResultBlock, SearchSection, WorldView, format_search,
};
use fabula_search::Hiding;
use parking_lot::Mutex;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use crate::error::{Error, Result};
use crate::wire::{BatchItem, ExtractResponse, HitJson};

/// A summary of the render counters is logged every this many renders.
pub const LOG_EVERY_RENDERS: u64 = 50;

/// How to run the language world model.
#[derive(Debug, Clone, PartialEq)]
pub struct LwmOptions {
    /// The model: a checkpoint this process loads, or an engine serving one.
    pub model: ModelSource,
    pub device: DeviceChoice,
    /// The most tokens one render generates; None keeps the renderer's default (768).
    pub max_new_tokens: Option<usize>,
    /// The wall-clock limit of one render; None keeps the renderer's default (30 s).
    pub time_budget: Option<Duration>,
    /// How long renders skip a remote engine that gave no answer; None keeps
    /// [`fabula_lwm::COOLDOWN`] (5 s).
    pub engine_cooldown: Option<Duration>,
}

/// Where the world model runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSource {
    /// A checkpoint folder (or GGUF file) that [`fabula_lwm::load_generator`] reads (where the
    /// binary turns fabula-lwm's `model` feature on).
    Checkpoint(PathBuf),
    /// An OpenAI-compatible chat completions engine ([`fabula_lwm::RemoteEngine`]).
    Remote(RemoteOptions),
}

impl LwmOptions {
    /// Options for the model at `model` on the CPU with the renderer's defaults.
    pub fn new(model: impl Into<PathBuf>) -> LwmOptions {
        LwmOptions::with_source(ModelSource::Checkpoint(model.into()))
    }

    /// Options for a model an engine serves, with the renderer's defaults.
    pub fn remote(engine: RemoteOptions) -> LwmOptions {
        LwmOptions::with_source(ModelSource::Remote(engine))
    }

    fn with_source(model: ModelSource) -> LwmOptions {
        LwmOptions {
            model,
            device: DeviceChoice::Cpu,
            max_new_tokens: None,
            time_budget: None,
            engine_cooldown: None,
        }
    }

    /// The renderer configuration these options ask for.
    pub fn render_config(&self) -> RenderConfig {
        let mut config = RenderConfig::default();
        if let Some(max_new_tokens) = self.max_new_tokens {
            config.generate.max_new_tokens = max_new_tokens;
        }
        if let Some(time_budget) = self.time_budget {
            config.generate.time_budget = Some(time_budget);
        }
        config
    }

    /// Loads the model and makes a renderer around it. A folder that is not a checkpoint gives a
    /// one-line error naming what is missing.
    pub fn load_renderer(&self) -> Result<Renderer> {
        let path = match &self.model {
            ModelSource::Remote(engine) => {
                let mut engine = RemoteEngine::new(engine)?;
                if let Some(cooldown) = self.engine_cooldown {
                    engine = engine.with_cooldown(cooldown);
                }
                return Ok(Renderer::new(Some(Box::new(engine)), self.render_config()));
            }
            ModelSource::Checkpoint(path) => path,
        };
        if !path.exists() {
            return Err(Error::Lwm(fabula_lwm::Error::Missing {
                path: path.clone(),
                what: "the checkpoint folder itself".to_owned(),
            }));
        }
        let options = LoadOptions {
            device: self.device,
            dtype: None,
        };
        let model = fabula_lwm::load_generator(path, &options)?;
        Ok(Renderer::new(Some(model), self.render_config()))
    }
}

/// Reads a world file's pages and the facts each states, read-only, into a
/// [`fabula_lwm::MemoryWorld`]. Its id is `fabula_meta.world_id` when the file states one, else
/// the file's stem.
pub fn load_world_view(path: &Path) -> Result<MemoryWorld> {
    let view = FileView::open(path)?;
    let mut world = MemoryWorld::new(&view.world_id);
    let pages = view
        .file
        .pages()
        .map_err(|error| world_file_error(path, &error))?;
    for stored in pages {
        world.insert(stored.page);
    }
    Ok(world)
}

fn world_file_error(path: &Path, error: &fabula_file::Error) -> Error {
    Error::WorldFile {
        path: path.to_owned(),
        message: error.to_string(),
    }
}

/// One world file as the world model sees it: each page and its facts read from the file when the
/// renderer asks, so the server keeps no second copy of a world's pages beside the search index's
/// page store. A render reads a handful of pages, each one indexed SQLite lookup.
struct FileView {
    world_id: String,
    file: WorldFile,
}

impl FileView {
    /// Opens the world file read-only. Its id is `fabula_meta.world_id` when the file states
    /// one, else the file's stem.
    fn open(path: &Path) -> Result<FileView> {
        let file = WorldFile::open(path).map_err(|error| world_file_error(path, &error))?;
        let world_id = file
            .meta_value("world_id")
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                path.file_stem()
                    .map_or_else(String::new, |stem| stem.to_string_lossy().into_owned())
            });
        Ok(FileView { world_id, file })
    }
}

impl WorldView for FileView {
    fn world_id(&self) -> &str {
        &self.world_id
    }

    fn page(&self, url: &str) -> Option<Cow<'_, Page>> {
        match self.file.page(url) {
            Ok(stored) => stored.map(|stored| Cow::Owned(stored.page)),
            Err(error) => {
                tracing::warn!(%error, url, "cannot read a page for the world model");
                None
            }
        }
    }
}

/// Writes search results in Qwen-AgentWorld's block format, one block per result in rank order,
/// with `Date: N/A` for reference pages.
pub fn search_template(results: &[HitJson]) -> String {
    let section = SearchSection {
        query: None,
        results: results
            .iter()
            .map(|hit| ResultBlock {
                rank: hit.rank,
                url: hit.url.clone(),
                title: hit.title.clone(),
                snippet: hit.snippet.clone(),
                date: hit.date.clone(),
            })
            .collect(),
    };
    format_search(&[section])
}

/// Parses an accepted search observation back into results, all sections in order; None when
/// the text is not in the block format.
pub fn results_from_text(text: &str) -> Option<Vec<HitJson>> {
    let sections = fabula_lwm::parse_search(text).ok()?;
    Some(
        sections
            .into_iter()
            .flat_map(|section| section.results)
            .map(|block| HitJson {
                rank: block.rank,
                url: block.url,
                title: block.title,
                snippet: block.snippet,
                date: block.date,
                score: 0.0,
            })
            .collect(),
    )
}

/// The world model's per-session state, bounded like the session store.
#[derive(Default)]
struct SessionViews {
    views: HashMap<String, fabula_lwm::Session>,
    order: VecDeque<String>,
}

/// The world model with its caches, when the server renders with it.
struct LwmRenderer {
    /// One render at a time.
    renderer: Mutex<Renderer>,
    counters: Arc<Counters>,
    sessions: Mutex<SessionViews>,
    max_sessions: usize,
    /// Renders finished, for the periodic log line.
    renders: AtomicU64,
}

/// The labels of one `fabula_observations_total` series: endpoint and renderer.
type ObservedLabels = [(&'static str, &'static str); 2];

/// Which renderer serves observations, and the request counters of `GET /metrics`.
pub struct RenderService {
    /// Shared with the blocking threads renders run on.
    lwm: Option<Arc<LwmRenderer>>,
    /// Observations served, by endpoint and renderer.
    served: Family<ObservedLabels, Counter>,
    /// The worlds answering 503 `world_unavailable`, set when `/metrics` is read.
    worlds_unavailable: Gauge,
    /// Everything `GET /metrics` shows: the renderer, `served`, the unavailable worlds and the
    /// world model's counters.
    registry: Registry,
}

impl std::fmt::Debug for RenderService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderService")
            .field("renderer", &self.kind())
            .finish_non_exhaustive()
    }
}

/// One of the two endpoints the renderer serves.
#[derive(Debug, Clone, Copy)]
enum Endpoint {
    Search,
    Extract,
}

impl Endpoint {
    fn as_str(self) -> &'static str {
        match self {
            Endpoint::Search => "search",
            Endpoint::Extract => "extract",
        }
    }
}

fn observed(endpoint: Endpoint, rendered_by: RenderedBy) -> ObservedLabels {
    [
        ("endpoint", endpoint.as_str()),
        ("rendered_by", rendered_by.as_str()),
    ]
}

impl RenderService {
    /// The template renderer.
    pub fn template() -> RenderService {
        RenderService::around(None)
    }

    /// The world model around `renderer`; `max_sessions` bounds the per-session state kept.
    pub fn with_renderer(renderer: Renderer, max_sessions: usize) -> RenderService {
        let counters = renderer.counters();
        RenderService::around(Some(Arc::new(LwmRenderer {
            renderer: Mutex::new(renderer),
            counters,
            sessions: Mutex::new(SessionViews::default()),
            max_sessions: max_sessions.max(1),
            renders: AtomicU64::new(0),
        })))
    }

    /// The service and its metrics registry; every series is listed from the start, at 0.
    fn around(lwm: Option<Arc<LwmRenderer>>) -> RenderService {
        let served = Family::<ObservedLabels, Counter>::default();
        for endpoint in [Endpoint::Search, Endpoint::Extract] {
            for by in [RenderedBy::Template, RenderedBy::Lwm] {
                let _ = served.get_or_create(&observed(endpoint, by));
            }
        }
        let kind = if lwm.is_some() { "lwm" } else { "template" };
        let mut registry = Registry::default();
        registry.register(
            "fabula_renderer",
            "The renderer the server was started with",
            Info::new([("renderer", kind)]),
        );
        registry.register(
            "fabula_observations",
            "Search and extract responses served, by endpoint and renderer",
            served.clone(),
        );
        let worlds_unavailable = Gauge::default();
        registry.register(
            "fabula_worlds_unavailable",
            "Worlds answering 503 world_unavailable: their files failed a check against the manifest or could not be read",
            worlds_unavailable.clone(),
        );
        if let Some(lwm) = &lwm {
            registry
                .sub_registry_with_prefix(fabula_lwm::METRIC_PREFIX)
                .register_collector(Box::new(Arc::clone(&lwm.counters)));
        }
        RenderService {
            lwm,
            served,
            worlds_unavailable,
            registry,
        }
    }

    /// `"lwm"` or `"template"`: the renderer this service was configured with.
    pub fn kind(&self) -> &'static str {
        if self.lwm.is_some() {
            "lwm"
        } else {
            "template"
        }
    }

    /// Counts one observation served; `rendered_by` is a response's `rendered_by`.
    fn count(&self, endpoint: Endpoint, rendered_by: &str) {
        let by = if rendered_by == RenderedBy::Lwm.as_str() {
            RenderedBy::Lwm
        } else {
            RenderedBy::Template
        };
        self.served.get_or_create(&observed(endpoint, by)).inc();
    }

    /// The Prometheus text (format 0.0.4) of `GET /metrics`, `worlds_unavailable` the number
    /// of worlds unavailable now.
    pub fn metrics_text(&self, worlds_unavailable: usize) -> String {
        self.worlds_unavailable
            .set(i64::try_from(worlds_unavailable).unwrap_or(i64::MAX));
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }

    /// Forgets a deleted session's state.
    pub(crate) fn forget_session(&self, session_id: &str) {
        if let Some(lwm) = &self.lwm {
            let mut sessions = lwm.sessions.lock();
            if sessions.views.remove(session_id).is_some() {
                sessions.order.retain(|id| id != session_id);
            }
        }
    }
}

impl LwmRenderer {
    fn take_session(&self, session_id: Option<&str>) -> fabula_lwm::Session {
        session_id
            .and_then(|id| self.sessions.lock().views.get(id).cloned())
            .unwrap_or_default()
    }

    fn put_session(&self, session_id: Option<&str>, view: fabula_lwm::Session) {
        let Some(id) = session_id else { return };
        let mut sessions = self.sessions.lock();
        if sessions.views.insert(id.to_owned(), view).is_none() {
            sessions.order.push_back(id.to_owned());
            while sessions.order.len() > self.max_sessions {
                if let Some(oldest) = sessions.order.pop_front() {
                    sessions.views.remove(&oldest);
                }
            }
        }
    }

    /// Counts finished renders and logs a summary line every [`LOG_EVERY_RENDERS`].
    fn after_renders(&self, n: u64) {
        if n == 0 {
            return;
        }
        let before = self.renders.fetch_add(n, Ordering::Relaxed);
        if before / LOG_EVERY_RENDERS != (before + n) / LOG_EVERY_RENDERS {
            let snapshot = self.counters.snapshot();
            let fallbacks: Vec<String> = snapshot
                .fallbacks
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(reason, n)| format!("{}={n}", reason.as_str()))
                .collect();
            tracing::info!(
                attempted = snapshot.attempted,
                accepted = snapshot.accepted,
                cache_hits = snapshot.cache_hits,
                fallbacks = %fallbacks.join(","),
                tokens_per_second = format!("{:.1}", snapshot.tokens_per_second()),
                "world model renders"
            );
        }
    }
}

/// Logs why a render fell back, for whoever tunes prompts; agents never see it.
fn log_fallback(observation: &fabula_lwm::Observation) {
    if let (Some(reason), Some(detail)) =
        (observation.fallback_reason, &observation.fallback_detail)
    {
        tracing::debug!(reason = reason.as_str(), %detail, "world model render fell back");
    }
}

impl RenderService {
    /// Renders each answered query of a search through the configured renderer, setting each
    /// response's `results` and `rendered_by`. `file` is the world's file (None: the world is not
    /// in the corpus, so templates stay); `session_id` names the fabula session whose
    /// world-model state to use (None: a fresh one).
    pub(crate) async fn render_search(
        &self,
        file: Option<PathBuf>,
        session_id: Option<&str>,
        hiding: Hiding,
        items: Vec<BatchItem>,
    ) -> Vec<BatchItem> {
        let items = match (&self.lwm, file) {
            (Some(lwm), Some(file)) => {
                let lwm = Arc::clone(lwm);
                let session_id = session_id.map(str::to_owned);
                // A render that panicked (a bug, logged) answers with the templates, as extract does.
                let fallback = items.clone();
                let work = move || lwm.render_search(&file, session_id.as_deref(), hiding, items);
                tokio::task::spawn_blocking(work).await.unwrap_or_else(|_| {
                    tracing::error!("a world model render panicked");
                    fallback
                })
            }
            _ => items,
        };
        for item in &items {
            if let BatchItem::Ok(response) = item {
                self.count(Endpoint::Search, response.rendered_by);
            }
        }
        items
    }

    /// Renders an extract window through the configured renderer when it holds the whole page
    /// (`start` 0, no next window), setting `content` and `rendered_by`.
    pub(crate) async fn render_extract(
        &self,
        file: Option<PathBuf>,
        session_id: Option<&str>,
        hiding: Hiding,
        start: usize,
        response: ExtractResponse,
    ) -> ExtractResponse {
        let whole_page = start == 0 && response.next_start.is_none();
        let response = match (&self.lwm, file) {
            (Some(lwm), Some(file)) if whole_page => {
                let lwm = Arc::clone(lwm);
                let session_id = session_id.map(str::to_owned);
                let fallback = response.clone();
                let work =
                    move || lwm.render_extract(&file, session_id.as_deref(), hiding, response);
                tokio::task::spawn_blocking(work).await.unwrap_or_else(|_| {
                    tracing::error!("a world model render panicked");
                    fallback
                })
            }
            _ => response,
        };
        self.count(Endpoint::Extract, response.rendered_by);
        response
    }
}

impl LwmRenderer {
    /// The world view of `world_id`, or None (logged) when its file cannot be read.
    fn world_or_log(&self, file: &Path) -> Option<FileView> {
        match FileView::open(file) {
            Ok(world) => Some(world),
            Err(error) => {
                tracing::warn!(%error, "cannot read the world for the world model; using templates");
                None
            }
        }
    }

    fn render_search(
        &self,
        file: &Path,
        session_id: Option<&str>,
        hiding: Hiding,
        mut items: Vec<BatchItem>,
    ) -> Vec<BatchItem> {
        let Some(world) = self.world_or_log(file) else {
            return items;
        };
        let controls = fabula_lwm::Controls {
            hiding,
            instruction: String::new(),
        };
        let mut view = self.take_session(session_id);
        let mut n_renders = 0;
        {
            let mut renderer = self.renderer.lock();
            for item in &mut items {
                let BatchItem::Ok(response) = item else {
                    continue;
                };
                if response.results.is_empty() {
                    continue;
                }
                let template = search_template(&response.results);
                let queries = [response.query.clone()];
                let request = fabula_lwm::SearchRequest {
                    queries: &queries,
                    controls: &controls,
                    template: &template,
                };
                let observation = renderer.render_search(&world, &mut view, &request);
                n_renders += 1;
                log_fallback(&observation);
                if observation.rendered_by == RenderedBy::Lwm
                    && let Some(mut results) = results_from_text(&observation.text)
                {
                    // The render writes no scores: each page keeps the index's.
                    for hit in &mut results {
                        hit.score = response
                            .results
                            .iter()
                            .find(|old| old.url == hit.url)
                            .map_or(0.0, |old| old.score);
                    }
                    response.results = results;
                    response.rendered_by = RenderedBy::Lwm.as_str();
                }
            }
        }
        self.put_session(session_id, view);
        self.after_renders(n_renders);
        items
    }

    fn render_extract(
        &self,
        file: &Path,
        session_id: Option<&str>,
        hiding: Hiding,
        mut response: ExtractResponse,
    ) -> ExtractResponse {
        let Some(world) = self.world_or_log(file) else {
            return response;
        };
        let controls = fabula_lwm::Controls {
            hiding,
            instruction: String::new(),
        };
        let view = self.take_session(session_id);
        let request = fabula_lwm::ExtractRequest {
            url: &response.url,
            controls: &controls,
            template: &response.content,
        };
        let observation = self.renderer.lock().render_extract(&world, &view, &request);
        log_fallback(&observation);
        self.after_renders(1);
        if observation.rendered_by == RenderedBy::Lwm {
            response.content = observation.text;
            response.rendered_by = RenderedBy::Lwm.as_str();
        }
        response
    }
}
