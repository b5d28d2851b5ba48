//! All worlds of one directory: the manifest read at start, and each world's index built on first
//! use and then shared.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::{Error, Result, WorldIndex};

/// One world as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldInfo {
    pub id: u32,
    pub name: String,
    pub theme: String,
    /// The world file, already joined to the corpus directory.
    pub file: PathBuf,
    /// The number of pages, as the manifest states it.
    pub pages: usize,
}

/// The worlds of one directory. Opening reads only `DIR/manifest.json`; a world's file is read
/// and indexed the first time [`Corpus::world`] asks for it, once even when many threads ask at
/// the same moment, and is kept for the corpus's lifetime.
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

/// The lazily built index of one world.
#[derive(Debug, Default)]
struct Slot {
    index: OnceLock<Arc<WorldIndex>>,
    /// Held while building, so a world is built once; a failed build is retried on the next call.
    build: Mutex<()>,
}

impl Corpus {
    /// Reads `dir/manifest.json`. World files are not touched until they are searched.
    pub fn open(dir: &Path) -> Result<Corpus> {
        let manifest = fabula_file::read_manifest(dir)?;
        let path = dir.join(fabula_file::MANIFEST);
        let bad = |reason: String| Error::BadWorld {
            path: path.clone(),
            reason,
        };
        if manifest.format_version != fabula_file::FORMAT_VERSION {
            return Err(bad(format!(
                "manifest format_version {} is not the supported {}",
                manifest.format_version,
                fabula_file::FORMAT_VERSION
            )));
        }
        let mut worlds: Vec<WorldInfo> = manifest
            .worlds
            .into_iter()
            .map(|world| WorldInfo {
                id: world.id,
                name: world.name,
                theme: world.theme,
                file: dir.join(world.file),
                pages: world.pages,
            })
            .collect();
        worlds.sort_unstable_by_key(|world| world.id);
        if let Some(pair) = worlds.windows(2).find(|pair| pair[0].id == pair[1].id) {
            return Err(bad(format!("world id {} is listed twice", pair[0].id)));
        }
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

    /// The index of world `id`, built on the first call.
    pub fn world(&self, id: u32) -> Result<Arc<WorldIndex>> {
        let world_idx = self.world_idx(id)?;
        let slot = &self.slots[world_idx];
        if let Some(index) = slot.index.get() {
            return Ok(Arc::clone(index));
        }
        let _building = slot.build.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(index) = slot.index.get() {
            return Ok(Arc::clone(index));
        }
        let index = Arc::new(WorldIndex::open(&self.worlds[world_idx].file)?);
        Ok(Arc::clone(slot.index.get_or_init(|| index)))
    }

    /// The number of worlds whose index is built.
    pub fn loaded_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| slot.index.get().is_some())
            .count()
    }

    fn world_idx(&self, id: u32) -> Result<usize> {
        self.worlds
            .binary_search_by_key(&id, |world| world.id)
            .map_err(|_| Error::WorldNotFound(id))
    }
}
