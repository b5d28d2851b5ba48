//! All worlds of one directory: the manifest read and checked at start, and each world's file
//! checked and indexed on first use, then shared, or kept as unavailable.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use fabula_file::WorldFile;

use crate::{Error, Result, WorldIndex};

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
    /// The number of pages, as the manifest states it.
    pub pages: usize,
}

/// The worlds of one directory. Opening reads and checks only `DIR/manifest.json` (see
/// `fabula_file::Manifest::validate`). A world's file is read the first time [`Corpus::world`]
/// asks for it, once even when many threads ask at the same moment: its SHA-256 is checked
/// against the manifest, its metadata must name the manifest's world id, and its pages are
/// indexed. The outcome is kept for the corpus's lifetime either way: the index, or the reason
/// the world is unavailable, logged once at error level and answered as
/// [`Error::WorldUnavailable`] from then on without touching the file again. A file repaired
/// while the corpus is open is seen after a restart.
///
/// ```no_run
/// # fn main() -> fabula_search::Result<()> {
/// let corpus = fabula_search::Corpus::open(std::path::Path::new("worlds"))?;
/// let world = corpus.world(0)?;
/// let results = world.search("harbor founded", &fabula_search::SearchOptions::default())?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Corpus {
    dir: PathBuf,
    worlds: Vec<WorldInfo>,
    slots: Vec<Slot>,
}

/// The outcome of one world's first use.
#[derive(Debug, Default)]
struct Slot {
    /// Set once by the first use (concurrent first uses wait for it): the index, or the short
    /// reason the world is unavailable. Never retried.
    loaded: OnceLock<std::result::Result<Arc<WorldIndex>, String>>,
}

/// Why a world's first use failed: the short reason for clients and the error for the log.
struct Failure {
    reason: String,
    error: Error,
}

impl Corpus {
    /// Reads and checks `dir/manifest.json`. World files are not touched until they are used.
    pub fn open(dir: &Path) -> Result<Corpus> {
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
                pages: world.pages,
            })
            .collect();
        worlds.sort_unstable_by_key(|world| world.id);
        let slots = worlds.iter().map(|_| Slot::default()).collect();
        Ok(Corpus {
            dir: dir.to_owned(),
            worlds,
            slots,
        })
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

    /// The index of world `id`, checked and built on the first call; a world whose first use
    /// failed is [`Error::WorldUnavailable`] on every call.
    pub fn world(&self, id: u32) -> Result<Arc<WorldIndex>> {
        let world_idx = self.world_idx(id)?;
        let info = &self.worlds[world_idx];
        answer(id, self.slots[world_idx].loaded.get_or_init(|| load(info)))
    }

    /// What [`Corpus::world`] answers for world `id` when that needs no work: `None` while the
    /// world's first use has not finished, else the index or why the world is unavailable. Never
    /// blocks, so an async caller can refuse a known-unavailable world without a blocking thread.
    pub fn world_if_used(&self, id: u32) -> Option<Result<Arc<WorldIndex>>> {
        let world_idx = match self.world_idx(id) {
            Ok(world_idx) => world_idx,
            Err(error) => return Some(Err(error)),
        };
        Some(answer(id, self.slots[world_idx].loaded.get()?))
    }

    /// The number of worlds whose index is built.
    pub fn loaded_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| matches!(slot.loaded.get(), Some(Ok(_))))
            .count()
    }

    /// The ids of the worlds found unavailable so far, sorted. Worlds not used yet are not
    /// checked, so they are not listed whatever their files hold.
    pub fn unavailable(&self) -> Vec<u32> {
        self.worlds
            .iter()
            .zip(&self.slots)
            .filter(|(_, slot)| matches!(slot.loaded.get(), Some(Err(_))))
            .map(|(info, _)| info.id)
            .collect()
    }

    fn world_idx(&self, id: u32) -> Result<usize> {
        self.worlds
            .binary_search_by_key(&id, |world| world.id)
            .map_err(|_| Error::WorldNotFound(id))
    }
}

/// What a world's first use left, as [`Corpus::world`] answers it.
fn answer(
    id: u32,
    loaded: &std::result::Result<Arc<WorldIndex>, String>,
) -> Result<Arc<WorldIndex>> {
    match loaded {
        Ok(index) => Ok(Arc::clone(index)),
        Err(reason) => Err(Error::WorldUnavailable {
            id,
            reason: reason.clone(),
        }),
    }
}

/// A world's first use: checks and indexes its file, or logs why it cannot and returns the
/// short reason. A panic while reading the file counts as a failure too, so a file that trips a
/// bug is kept as unavailable rather than retried by every request.
fn load(info: &WorldInfo) -> std::result::Result<Arc<WorldIndex>, String> {
    let checked = std::panic::catch_unwind(AssertUnwindSafe(|| check_and_index(info)))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let error = Error::Internal(format!("panic while indexing: {message}"));
            Err(failure("its pages cannot be indexed", error))
        });
    match checked {
        Ok(index) => Ok(Arc::new(index)),
        Err(Failure { reason, error }) => {
            tracing::error!(
                world = info.id,
                %reason,
                error = %ErrorChain(&error),
                "world unavailable until restart"
            );
            Err(reason)
        }
    }
}

/// Checks the file's hash, world id and format version against the manifest, then indexes its
/// pages.
fn check_and_index(info: &WorldInfo) -> std::result::Result<WorldIndex, Failure> {
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
    WorldIndex::open(&info.file).map_err(|error| failure("its pages cannot be indexed", error))
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

/// Displays an error with its chain of sources (`error: cause: cause`), for the log.
pub struct ErrorChain<'a>(pub &'a dyn std::error::Error);

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}
