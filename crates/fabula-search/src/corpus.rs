//! All worlds of one directory: the manifest read and checked at start (and each world file's
//! size against it); each world file checked against the manifest's SHA-256 before the world is
//! first served, then opened from its persisted index or indexed from the file (and its index
//! written), then kept in a bounded cache of open worlds, or kept as unavailable.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use fabula_file::WorldFile;
use moka::policy::EvictionPolicy;
use moka::sync::Cache;
use sha2::{Digest, Sha256};

use crate::bundle::{self, Checksum, IndexKey, Sections};
use crate::error::ErrorChain;
use crate::passage_index::{self, PASSAGE_DIR, PassageBuild, PassageIndex, WorldSource};
use crate::world::build_sections;
use crate::{Error, Hiding, MAX_TOP_K, Passage, Result, WorldIndex};

/// One world as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldInfo {
    pub id: u32,
    pub name: String,
    pub theme: String,
    /// The world file, already joined to the corpus directory (the manifest's `file` is checked
    /// to be a plain file name, so this stays inside the directory).
    pub file: PathBuf,
    /// The world file's SHA-256 as the manifest states it, lower-case hex.
    pub sha256: String,
    /// The world file's size as the manifest states it; `None` in older manifests.
    pub bytes: Option<u64>,
    /// The number of pages, as the manifest states it.
    pub pages: usize,
    /// The numbers of domain rows, domain tables and tasks, as the manifest states them.
    pub rows: usize,
    pub tables: usize,
    pub tasks: usize,
}

/// How many worlds a corpus keeps open by default.
pub const DEFAULT_MAX_OPEN_WORLDS: usize = 1024;

/// The folder of a corpus directory that holds the persisted indexes.
const INDEX_DIR: &str = "index";

/// The extension of a persisted index file.
const INDEX_EXTENSION: &str = "fidx";

/// How a [`Corpus`] keeps its worlds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusOptions {
    /// At most this many worlds are open at once (0 counts as 1); the least recently used is
    /// closed to make room. A closed world is opened again from its persisted index when asked.
    pub max_open_worlds: usize,
    /// Whether a world indexed from its file has its index written to `DIR/index/`, so the next
    /// open (in this process or the next) maps it instead of building it. A failure to write is
    /// logged once and otherwise ignored: the index is a cache.
    pub write_indexes: bool,
}

impl Default for CorpusOptions {
    /// [`DEFAULT_MAX_OPEN_WORLDS`] worlds open, indexes written.
    fn default() -> CorpusOptions {
        CorpusOptions {
            max_open_worlds: DEFAULT_MAX_OPEN_WORLDS,
            write_indexes: true,
        }
    }
}

/// What [`Corpus::index_health`] finds about a persisted index, without using or changing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexHealth {
    /// It opens: its header names the world (or, for the passage index, the dataset) and file
    /// hashes of the manifest, and its checksum holds.
    Usable,
    /// There is none; one is built on first use (or by `fabula index`).
    Missing,
    /// It was written for another world, another file or another format version; it would be
    /// rebuilt on first use.
    Stale(String),
    /// Its bytes are damaged (a checksum or structure that does not hold, or unreadable); it
    /// would be rebuilt on first use.
    Damaged(String),
}

/// What [`Corpus::ensure_index`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    /// The persisted index was usable and was kept.
    Fresh,
    /// There was no persisted index; it was built and written.
    Built,
    /// The persisted index was stale or damaged; it was built and written again.
    Rebuilt,
}

/// The worlds of one directory. Opening reads and checks `DIR/manifest.json` (see
/// `fabula_file::Manifest::validate`) and the size of every world file against it (one `stat`
/// each): a file missing or of another size makes its world unavailable from the start.
///
/// Nothing of a world is served before its file passed [`Corpus::check_file`]: its size and
/// SHA-256 against the manifest, its metadata's world id and format version. The first time
/// [`Corpus::world`] asks for a world, its file is checked (about a millisecond per MiB; skipped
/// when [`Corpus::sweep`] or an earlier use checked the same file, by its inode, size and
/// modification and change times), then the world is opened from its persisted index,
/// `DIR/index/<world file stem>.fidx`, when that file's header names the manifest's world id and
/// SHA-256 (so an index is used only for the file it was built from) and today's
/// [`crate::INDEX_FORMAT_VERSION`] and its checksum holds; a world opens so in well under a
/// millisecond, mapped rather than read. Otherwise (no index, a stale one, one built for another
/// world or a damaged one, logged at info or warn) its pages are indexed from the checked file,
/// and the index is written when [`CorpusOptions::write_indexes`] says so. Concurrent first
/// requests for one world wait for one open or build.
///
/// Open worlds live in a cache of at most [`CorpusOptions::max_open_worlds`], least recently used
/// first out; closing one only drops the corpus's handle, so requests holding it finish. A world
/// whose check or first use failed, or whose file a reader could not read
/// ([`Corpus::fail_world`]), or whose file changed and then failed its check
/// ([`Corpus::sweep`]), is unavailable for the corpus's lifetime, and dropped from that cache: the
/// reason is logged once at error level and answered as [`Error::WorldUnavailable`] from then on
/// without touching the file again. A file repaired while the corpus is open is seen after a
/// restart.
///
/// ```no_run
/// # fn main() -> fabula_search::Result<()> {
/// let corpus = fabula_search::Corpus::open(std::path::Path::new("worlds"))?;
/// let world = corpus.world(0)?;
/// let results = world.search("harbor founded", &fabula_search::SearchOptions::default())?;
/// # Ok(()) }
/// ```
pub struct Corpus {
    dir: PathBuf,
    worlds: Vec<WorldInfo>,
    /// Per world, in the order of `worlds`: why it is unavailable, once its first use failed.
    /// Never retried.
    unavailable: Vec<OnceLock<String>>,
    /// How many of `unavailable` are set, so a hot path need not count them.
    unavailable_count: AtomicUsize,
    /// Per world, in the order of `worlds`: the [`file_stamp`] of its world file when the file
    /// last passed [`check_world_file`], 0 before that.
    file_checked: Vec<AtomicU64>,
    /// Per world, in the order of `worlds`: the [`file_stamp`] of its persisted index when this
    /// corpus last verified the index's checksum, 0 before that. A world reopened after the
    /// cache closed it skips the checksum while its index file is unchanged.
    verified: Vec<AtomicU64>,
    /// The open worlds, by id.
    open: Cache<u32, Arc<WorldIndex>>,
    options: CorpusOptions,
    /// How many times a world's pages were indexed from its file.
    builds: AtomicUsize,
    /// Whether a failure to write an index has been logged.
    write_failure_logged: AtomicBool,
    /// The passage index once its first use opened or built it, or why it could not; the lock
    /// is held through that first use, so concurrent first requests wait for one build.
    passages: Mutex<Option<std::result::Result<Arc<PassageIndex>, String>>>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("dir", &self.dir)
            .field("n_worlds", &self.worlds.len())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Why a world's first use failed: the short reason for clients and the error for the log.
struct Failure {
    reason: String,
    error: Error,
}

impl Corpus {
    /// Reads and checks `dir/manifest.json`, with the default [`CorpusOptions`]. World files and
    /// indexes are not touched until they are used.
    pub fn open(dir: &Path) -> Result<Corpus> {
        Corpus::open_with(dir, CorpusOptions::default())
    }

    /// Reads and checks `dir/manifest.json`. World files and indexes are not touched until they
    /// are used.
    pub fn open_with(dir: &Path, options: CorpusOptions) -> Result<Corpus> {
        let manifest = fabula_file::read_manifest(dir)?;
        manifest.validate().map_err(|reason| Error::BadManifest {
            path: dir.join(fabula_file::MANIFEST),
            reason,
        })?;
        let mut worlds: Vec<WorldInfo> = manifest
            .worlds
            .into_iter()
            .map(|world| WorldInfo {
                id: world.id,
                name: world.name,
                theme: world.theme,
                file: dir.join(world.file),
                sha256: world.sha256,
                bytes: world.bytes,
                pages: world.pages,
                rows: world.rows,
                tables: world.tables,
                tasks: world.tasks,
            })
            .collect();
        worlds.sort_unstable_by_key(|world| world.id);
        let unavailable = worlds.iter().map(|_| OnceLock::new()).collect();
        let verified = worlds.iter().map(|_| AtomicU64::new(0)).collect();
        let file_checked = worlds.iter().map(|_| AtomicU64::new(0)).collect();
        let open = Cache::builder()
            .max_capacity(options.max_open_worlds.max(1) as u64)
            .eviction_policy(EvictionPolicy::lru())
            .build();
        let corpus = Corpus {
            dir: dir.to_owned(),
            worlds,
            unavailable,
            unavailable_count: AtomicUsize::new(0),
            file_checked,
            verified,
            open,
            options,
            builds: AtomicUsize::new(0),
            write_failure_logged: AtomicBool::new(false),
            passages: Mutex::new(None),
        };
        corpus.check_sizes();
        Ok(corpus)
    }

    /// Makes every world whose file is missing, is not a plain file, or has another size than
    /// the manifest states unavailable. One `stat` per world.
    fn check_sizes(&self) {
        for world_idx in 0..self.worlds.len() {
            if let Err(failure) = check_world_size(&self.worlds[world_idx]) {
                self.fail(world_idx, failure);
            }
        }
    }

    /// Checks world `id`'s file against the manifest (size, SHA-256, the world id and format
    /// version in its metadata), unless the same file passed before: every world is checked so
    /// before anything of it is served. A world that fails is unavailable from then on (see
    /// [`Corpus::fail_world`]); an unavailable one is [`Error::WorldUnavailable`] without a look.
    pub fn check_file(&self, id: u32) -> Result<()> {
        let world_idx = self.world_idx(id)?;
        self.check_file_at(world_idx).map_err(|reason| {
            self.open.invalidate(&id);
            unavailable(id, &reason)
        })
    }

    /// Checks every available world's file as [`Corpus::check_file`] does, in id order: all of
    /// them the first time, and from then on only the files that changed (by inode, size,
    /// modification or change time), so that a file damaged, replaced or made unreadable while
    /// the corpus serves is found. Returns how many worlds are unavailable after the sweep.
    /// The server runs one at start and then one every few seconds, on a thread of its own.
    pub fn sweep(&self) -> usize {
        for (world_idx, info) in self.worlds.iter().enumerate() {
            if self.check_file_at(world_idx).is_err() {
                self.open.invalidate(&info.id);
            }
        }
        self.unavailable_count()
    }

    /// How many worlds are unavailable now: `Corpus::unavailable().len()` without a scan.
    pub fn unavailable_count(&self) -> usize {
        self.unavailable_count.load(Ordering::Relaxed)
    }

    /// Makes world `id` unavailable because its file could not be read as a world file (by a
    /// reader outside this corpus: the tasks, the browser, the world model), and returns the
    /// [`Error::WorldUnavailable`] to answer. Logged once, as any other reason.
    pub fn fail_world(&self, id: u32, error: fabula_file::Error) -> Error {
        let world_idx = match self.world_idx(id) {
            Ok(world_idx) => world_idx,
            Err(error) => return error,
        };
        let reason = match &error {
            fabula_file::Error::Io { source, .. }
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                "its file is missing"
            }
            fabula_file::Error::Io { .. } => "its file cannot be read",
            _ => "its file is damaged",
        };
        let reason = self.fail(world_idx, failure(reason, error));
        self.open.invalidate(&id);
        unavailable(id, &reason)
    }

    fn check_file_at(&self, world_idx: usize) -> std::result::Result<(), String> {
        if let Some(reason) = self.unavailable[world_idx].get() {
            return Err(reason.clone());
        }
        let info = &self.worlds[world_idx];
        let checked = &self.file_checked[world_idx];
        // Read before the check: a file that changes during it is checked again next time.
        let stamp = file_stamp(&info.file);
        if stamp.is_some_and(|stamp| checked.load(Ordering::Relaxed) == stamp) {
            return Ok(());
        }
        match check_world_file(info) {
            Ok(()) => {
                checked.store(stamp.unwrap_or(0), Ordering::Relaxed);
                Ok(())
            }
            Err(failure) => Err(self.fail(world_idx, failure)),
        }
    }

    /// Makes a world unavailable for `failure` (logging it, once, at error level); returns the
    /// reason clients are told (the first one recorded). The caller drops it from the open
    /// worlds, unless it is the cache's own loader (see [`Corpus::load`]).
    fn fail(&self, world_idx: usize, failure: Failure) -> String {
        let Failure { reason, error } = failure;
        let slot = &self.unavailable[world_idx];
        let info = &self.worlds[world_idx];
        if slot.set(reason.clone()).is_ok() {
            self.unavailable_count.fetch_add(1, Ordering::Relaxed);
            tracing::error!(
                world = info.id,
                %reason,
                error = %ErrorChain(&error),
                "world unavailable until restart"
            );
        }
        slot.get().cloned().unwrap_or(reason)
    }

    /// The corpus directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// All worlds, sorted by id.
    pub fn worlds(&self) -> &[WorldInfo] {
        &self.worlds
    }

    /// The manifest entry of one world.
    pub fn info(&self, id: u32) -> Result<&WorldInfo> {
        let world_idx = self.world_idx(id)?;
        Ok(&self.worlds[world_idx])
    }

    /// Where world `id`'s persisted index lives: `DIR/index/<world file stem>.fidx`.
    pub fn index_path(&self, id: u32) -> Result<PathBuf> {
        Ok(self.index_path_of(self.info(id)?))
    }

    /// The index of world `id`: the open one, or opened (from its persisted index, or checked
    /// and built from its file) now; a world whose first use failed is
    /// [`Error::WorldUnavailable`] on every call.
    pub fn world(&self, id: u32) -> Result<Arc<WorldIndex>> {
        let world_idx = self.world_idx(id)?;
        if let Some(reason) = self.unavailable[world_idx].get() {
            return Err(unavailable(id, reason));
        }
        self.open
            .try_get_with(id, || self.load(world_idx))
            .map_err(|reason| unavailable(id, &reason))
    }

    /// What [`Corpus::world`] answers for world `id` when that needs no work: the index when the
    /// world is open, why it is unavailable when its first use failed, else `None`. Never blocks,
    /// so an async caller can refuse a known-unavailable world without a blocking thread.
    pub fn world_if_used(&self, id: u32) -> Option<Result<Arc<WorldIndex>>> {
        let world_idx = match self.world_idx(id) {
            Ok(world_idx) => world_idx,
            Err(error) => return Some(Err(error)),
        };
        if let Some(reason) = self.unavailable[world_idx].get() {
            return Some(Err(unavailable(id, reason)));
        }
        self.open.get(&id).map(Ok)
    }

    /// Makes sure world `id`'s persisted index is usable: checks the world file against the
    /// manifest (an error, and no index, when it fails), then keeps a fresh index, else indexes
    /// the file and writes the index (whatever [`CorpusOptions::write_indexes`]
    /// says). The world is not opened in the corpus's cache. Safe to call from many threads; two
    /// calls for one world both write the same index, one rename after the other.
    pub fn ensure_index(&self, id: u32) -> Result<IndexState> {
        let info = self.info(id)?;
        check_world_file(info).map_err(|failure| failure.error)?;
        let index_path = self.index_path_of(info);
        let state = match WorldIndex::open_persisted(&index_path, &info.file, info.index_key()) {
            Ok(_) => return Ok(IndexState::Fresh),
            Err(error) if is_not_found(&error) => IndexState::Built,
            Err(error) => {
                tracing::debug!(world = id, error = %ErrorChain(&error), "rebuilding the index");
                IndexState::Rebuilt
            }
        };
        let sections = self.build(info).map_err(|failure| failure.error)?;
        write_index(info, &index_path, &sections)?;
        Ok(state)
    }

    /// What world `id`'s persisted index is, checked in full (header and checksum) without
    /// using it: for `fabula check --deep`.
    pub fn index_health(&self, id: u32) -> Result<IndexHealth> {
        let info = self.info(id)?;
        let index_path = self.index_path_of(info);
        Ok(
            match WorldIndex::open_persisted(&index_path, &info.file, info.index_key()) {
                Ok(_) => IndexHealth::Usable,
                Err(error) => health_of(&error),
            },
        )
    }

    /// What the dataset's passage index is, as [`Corpus::index_health`] tells for a world's.
    pub fn passage_index_health(&self) -> IndexHealth {
        let key = passage_key(&self.worlds);
        match PassageIndex::open(&self.passage_index_path(), &key) {
            Ok(_) => IndexHealth::Usable,
            Err(error) => health_of(&error),
        }
    }

    /// The number of worlds open now (at most [`CorpusOptions::max_open_worlds`] once the
    /// cache's pending evictions have run, which this does first).
    pub fn loaded_count(&self) -> usize {
        self.open.run_pending_tasks();
        self.open.entry_count() as usize
    }

    /// How many times a world's pages were indexed from its file since the corpus was opened:
    /// first uses without a usable persisted index, and [`Corpus::ensure_index`] builds.
    pub fn builds(&self) -> usize {
        self.builds.load(Ordering::Relaxed)
    }

    /// The ids of the worlds found unavailable so far, sorted. Worlds not used yet are not
    /// checked, so they are not listed whatever their files hold.
    pub fn unavailable(&self) -> Vec<u32> {
        self.worlds
            .iter()
            .zip(&self.unavailable)
            .filter(|(_, reason)| reason.get().is_some())
            .map(|(info, _)| info.id)
            .collect()
    }

    /// The `top_k` (1..=50) passages that best match `query` across every world, or in
    /// `world` only, best first, at the given hiding level: BM25 over the page title
    /// and the passage's words, in the dataset's one passage index.
    ///
    /// The first call opens the passage index from `DIR/index/passages/`, or builds it when it
    /// is missing or stale (written there when [`CorpusOptions::write_indexes`] says so, else
    /// into a temporary folder of this process); calls meanwhile wait for it. A query without
    /// terms has no passages.
    pub fn retrieve(
        &self,
        query: &str,
        top_k: usize,
        world: Option<u32>,
        hiding: Hiding,
    ) -> Result<Vec<Passage>> {
        if top_k == 0 || top_k > MAX_TOP_K {
            return Err(Error::BadArgument(format!(
                "top_k must be between 1 and {MAX_TOP_K}, not {top_k}"
            )));
        }
        if let Some(world) = world {
            self.world(world)?;
        }
        let index = self.passage_index()?;
        // Passages of unavailable worlds are passed over, so the others still fill `top_k`.
        let skipped = self.unavailable_count();
        let mut passages = Vec::with_capacity(top_k);
        for (score, entry) in index.search(query, top_k + skipped, world)? {
            if passages.len() == top_k {
                break;
            }
            let page_world = match self.world(entry.world) {
                Ok(page_world) => page_world,
                Err(Error::WorldUnavailable { .. }) if world.is_none() => continue,
                Err(error) => return Err(error),
            };
            let mut passage = page_world.passage(
                entry.page as usize,
                entry.start as usize,
                entry.end as usize,
                hiding,
                score,
            )?;
            passage.world = entry.world;
            passages.push(passage);
        }
        Ok(passages)
    }

    /// Whether the passage index is open, so [`Corpus::retrieve`] needs no build. Never blocks.
    pub fn passages_ready(&self) -> bool {
        self.passages
            .try_lock()
            .is_ok_and(|slot| matches!(&*slot, Some(Ok(_))))
    }

    /// Where the passage index lives: `DIR/index/passages/`.
    pub fn passage_index_path(&self) -> PathBuf {
        self.dir.join(INDEX_DIR).join(PASSAGE_DIR)
    }

    /// Makes sure the passage index in `DIR/index/passages/` is usable: keeps a fresh one, else
    /// builds it with `jobs` threads (indexing any world that has no usable index of its own
    /// first) and writes it, whatever [`CorpusOptions::write_indexes`] says.
    pub fn ensure_passage_index(&self, jobs: usize) -> Result<(IndexState, PassageBuild)> {
        let folder = self.passage_index_path();
        let key = passage_key(&self.worlds);
        let state = match PassageIndex::open(&folder, &key) {
            Ok(index) => {
                let fresh = PassageBuild {
                    passages: index.len(),
                    skipped: Vec::new(),
                };
                return Ok((IndexState::Fresh, fresh));
            }
            Err(error) if is_not_found(&error) => IndexState::Built,
            Err(error) => {
                tracing::debug!(error = %ErrorChain(&error), "rebuilding the passage index");
                IndexState::Rebuilt
            }
        };
        let build = passage_index::build(self, &self.ids(), &folder, &key, jobs)?;
        Ok((state, build))
    }

    fn passage_index(&self) -> Result<Arc<PassageIndex>> {
        let mut slot = self.passages.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            // The build runs on a thread of its own while this one waits in `join`. Called from
            // a rayon worker (a batch's queries run on rayon's pool), waiting inside the build's
            // own `ThreadPool::install` would let this worker steal another query of the batch,
            // which would then wait for the lock this thread holds: a deadlock.
            let built = std::thread::scope(|scope| {
                scope
                    .spawn(|| self.open_or_build_passages())
                    .join()
                    .unwrap_or_else(|_| {
                        Err(Error::Internal(
                            "the passage index build panicked".to_owned(),
                        ))
                    })
            });
            *slot = Some(built.map(Arc::new).map_err(|error| {
                tracing::error!(error = %ErrorChain(&error), "passage index unavailable until restart");
                short_reason(&error)
            }));
        }
        match slot.as_ref() {
            Some(Ok(index)) => Ok(Arc::clone(index)),
            Some(Err(reason)) => Err(Error::PassagesUnavailable(reason.clone())),
            None => Err(Error::Internal(
                "the passage index slot is empty".to_owned(),
            )),
        }
    }

    fn open_or_build_passages(&self) -> Result<PassageIndex> {
        let folder = self.passage_index_path();
        let key = passage_key(&self.worlds);
        // Worlds found unavailable are left out of a build; an index that left out only those
        // serves the others.
        let left_out = self.unavailable();
        match PassageIndex::open_without(&folder, &key, &left_out) {
            Ok(index) => return Ok(index),
            Err(error) if is_not_found(&error) => {
                tracing::info!("no passage index; building it");
            }
            Err(error) => {
                tracing::info!(error = %ErrorChain(&error), "unusable passage index; building it");
            }
        }
        let jobs = std::thread::available_parallelism().map_or(1, usize::from);
        if !self.options.write_indexes {
            return PassageIndex::build_temporary(self, &self.ids(), &key, jobs);
        }
        passage_index::build(self, &self.ids(), &folder, &key, jobs)?;
        PassageIndex::open_without(&folder, &key, &self.unavailable())
    }

    fn ids(&self) -> Vec<u32> {
        self.worlds.iter().map(|info| info.id).collect()
    }

    fn world_idx(&self, id: u32) -> Result<usize> {
        self.worlds
            .binary_search_by_key(&id, |world| world.id)
            .map_err(|_| Error::WorldNotFound(id))
    }

    fn index_path_of(&self, info: &WorldInfo) -> PathBuf {
        index_path(&self.dir, &info.file)
    }

    /// A world's first use, run once at a time per world by the cache: opens or builds its
    /// index, or records, logs and returns why it cannot. A panic counts as a failure too, so a
    /// file that trips a bug is kept as unavailable rather than retried by every request.
    fn load(&self, world_idx: usize) -> std::result::Result<Arc<WorldIndex>, String> {
        self.check_file_at(world_idx)?;
        let opened = std::panic::catch_unwind(AssertUnwindSafe(|| self.open_or_build(world_idx)))
            .unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| text.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let error = Error::Internal(format!("panic while indexing: {message}"));
                Err(failure("its pages cannot be indexed", error))
            });
        match opened {
            Ok(index) => Ok(Arc::new(index)),
            Err(failure) => Err(self.fail(world_idx, failure)),
        }
    }

    /// Opens a world, whose file was checked, from its persisted index, or indexes its file,
    /// writing the index when the options say so.
    fn open_or_build(&self, world_idx: usize) -> std::result::Result<WorldIndex, Failure> {
        let info = &self.worlds[world_idx];
        let index_path = self.index_path_of(info);
        match self.open_persisted(world_idx, &index_path) {
            Ok(index) => return Ok(index),
            Err(error) => log_unusable_index(info.id, &error),
        }
        let sections = self.build(info)?;
        if self.options.write_indexes {
            // Served from the written file, whose checksum this open verifies and records.
            let written = write_index(info, &index_path, &sections)
                .and_then(|()| self.open_persisted(world_idx, &index_path));
            match written {
                Ok(index) => return Ok(index),
                Err(error) => self.log_write_failure(info.id, &error),
            }
        }
        WorldIndex::from_sections(&info.file, &sections)
            .map_err(|reason| failure("its pages cannot be indexed", Error::Internal(reason)))
    }

    /// Opens a world's persisted index, checking its checksum unless this corpus verified the
    /// same file (by [`file_stamp`]) before.
    fn open_persisted(&self, world_idx: usize, index_path: &Path) -> Result<WorldIndex> {
        let info = &self.worlds[world_idx];
        let verified = &self.verified[world_idx];
        let stamp = file_stamp(index_path);
        let checksum = match stamp {
            Some(stamp) if verified.load(Ordering::Relaxed) == stamp => Checksum::Trust,
            _ => Checksum::Verify,
        };
        let index = WorldIndex::open_mapped(index_path, &info.file, info.index_key(), checksum)?;
        verified.store(stamp.unwrap_or(0), Ordering::Relaxed);
        Ok(index)
    }

    /// Indexes the pages of a world's checked file, counting the build.
    fn build(&self, info: &WorldInfo) -> std::result::Result<Sections, Failure> {
        self.builds.fetch_add(1, Ordering::Relaxed);
        build_sections(&info.file).map_err(|error| failure("its pages cannot be indexed", error))
    }

    /// Logs the first failure to write an index at warn level and later ones at debug level.
    fn log_write_failure(&self, id: u32, error: &Error) {
        if self.write_failure_logged.swap(true, Ordering::Relaxed) {
            tracing::debug!(world = id, error = %ErrorChain(error), "cannot write an index");
        } else {
            tracing::warn!(
                world = id,
                error = %ErrorChain(error),
                "cannot write an index; serving from memory (further failures are not logged)"
            );
        }
    }
}

impl WorldSource for Corpus {
    fn open_world(&self, id: u32) -> Result<Arc<WorldIndex>> {
        self.world(id)
    }
}

impl WorldInfo {
    /// What this world's persisted index is keyed by.
    pub fn index_key(&self) -> IndexKey<'_> {
        IndexKey {
            world_id: self.id,
            sha256: &self.sha256,
        }
    }
}

/// Where the persisted index of the world file `world_file` of the dataset in `dir` lives:
/// `DIR/index/<world file stem>.fidx`.
pub fn index_path(dir: &Path, world_file: &Path) -> PathBuf {
    let stem = world_file.file_stem().unwrap_or_default().to_string_lossy();
    dir.join(INDEX_DIR)
        .join(format!("{stem}.{INDEX_EXTENSION}"))
}

/// A file's identity and version as one number, never 0: its inode, length, and modification and
/// change times (a `chmod` changes the latter). None where the platform or the file does not tell.
fn file_stamp(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::hash::{Hash, Hasher};
        use std::os::unix::fs::MetadataExt;

        let meta = std::fs::metadata(path).ok()?;
        let mut hasher = std::hash::DefaultHasher::new();
        (
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        )
            .hash(&mut hasher);
        Some(hasher.finish().max(1))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn unavailable(id: u32, reason: &str) -> Error {
    Error::WorldUnavailable {
        id,
        reason: reason.to_owned(),
    }
}

/// The key a passage index is built for: SHA-256 over every world's id and file hash, in id order.
pub(crate) fn passage_key(worlds: &[WorldInfo]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"fabula-passages\0");
    for info in worlds {
        hasher.update(info.id.to_le_bytes());
        hasher.update(info.sha256.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The short reason a client is told for an unusable passage index (the log has the rest).
fn short_reason(error: &Error) -> String {
    match error {
        Error::Io { .. } => "its files cannot be read or written".to_owned(),
        Error::Index(_) | Error::CorruptIndex { .. } => "its files are damaged".to_owned(),
        other => other.to_string(),
    }
}

/// How an index that did not open is described to `fabula check --deep`.
fn health_of(error: &Error) -> IndexHealth {
    match error {
        _ if is_not_found(error) => IndexHealth::Missing,
        Error::StaleIndex { reason, .. } => IndexHealth::Stale(reason.clone()),
        other => IndexHealth::Damaged(ErrorChain(other).to_string()),
    }
}

fn is_not_found(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// Logs why a persisted index cannot be used: at info level when there is none or it is stale
/// (expected after generating or regenerating worlds), at warn level when it is damaged.
fn log_unusable_index(id: u32, error: &Error) {
    match error {
        _ if is_not_found(error) => {
            tracing::info!(world = id, "no persisted index; indexing the world file");
        }
        Error::StaleIndex { .. } => tracing::info!(
            world = id,
            error = %ErrorChain(error),
            "stale persisted index; indexing the world file"
        ),
        _ => tracing::warn!(
            world = id,
            error = %ErrorChain(error),
            "unusable persisted index; indexing the world file"
        ),
    }
}

/// Writes a world's index file, atomically.
fn write_index(info: &WorldInfo, index_path: &Path, sections: &Sections) -> Result<()> {
    let bytes = sections.encode(info.index_key());
    bundle::write(index_path, &bytes).map_err(|source| Error::Io {
        path: index_path.to_owned(),
        source,
    })
}

/// Checks that the world file exists, is a plain file and has the manifest's size (when the
/// manifest states one).
fn check_world_size(info: &WorldInfo) -> std::result::Result<(), Failure> {
    let meta = std::fs::metadata(&info.file).map_err(|source| {
        let reason = if source.kind() == std::io::ErrorKind::NotFound {
            "its file is missing"
        } else {
            "its file cannot be read"
        };
        failure(reason, bad_world(info, source.to_string()))
    })?;
    if !meta.is_file() {
        let error = bad_world(info, "not a plain file".to_owned());
        return Err(failure("its file cannot be read", error));
    }
    match info.bytes {
        Some(bytes) if bytes != meta.len() => {
            let error = bad_world(info, format!("{} bytes, manifest {bytes}", meta.len()));
            Err(failure(
                "its file's size does not match the manifest",
                error,
            ))
        }
        _ => Ok(()),
    }
}

/// Checks the file's size, hash, world id and format version against the manifest.
fn check_world_file(info: &WorldInfo) -> std::result::Result<(), Failure> {
    check_world_size(info)?;
    let sha256 = fabula_file::sha256_file(&info.file).map_err(|error| {
        let missing = matches!(&error, fabula_file::Error::Io { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound);
        let reason = if missing {
            "its file is missing"
        } else {
            "its file cannot be read"
        };
        failure(reason, error)
    })?;
    if sha256 != info.sha256 {
        let error = bad_world(info, format!("sha256 {sha256}, manifest {}", info.sha256));
        return Err(failure(
            "its file does not match the manifest's sha256",
            error,
        ));
    }
    let meta = WorldFile::open(&info.file)
        .and_then(|file| file.meta())
        .map_err(|error| failure("its file is not a readable world file", error))?;
    if meta.world_id != info.id {
        let error = bad_world(info, format!("meta world_id is {}", meta.world_id));
        return Err(failure(
            format!("its file holds world {}", meta.world_id),
            error,
        ));
    }
    if meta.format_version != fabula_file::FORMAT_VERSION {
        let reason = format!("its file has format version {}", meta.format_version);
        return Err(failure(reason.clone(), bad_world(info, reason)));
    }
    Ok(())
}

fn failure(reason: impl Into<String>, error: impl Into<Error>) -> Failure {
    Failure {
        reason: reason.into(),
        error: error.into(),
    }
}

fn bad_world(info: &WorldInfo, reason: String) -> Error {
    Error::BadWorld {
        path: info.file.clone(),
        reason,
    }
}
