//! Reading a dataset's tasks by split: which split a world belongs to, the tasks of every world
//! of a split, and a task's stored JSON. Exports, audits, baselines and the answerability check
//! all start here.
//!
//! Worlds fall into `train`, `dev` and `test` by a stable hash of their id (80/10/10), so a
//! world keeps its split whatever else the dataset holds.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::{Error, Result, Task, WorldFile};

/// A part of a dataset, chosen by world id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Split {
    Train,
    Dev,
    Test,
    /// Every world.
    All,
}

impl Split {
    /// The split's name: `train`, `dev`, `test` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Dev => "dev",
            Split::Test => "test",
            Split::All => "all",
        }
    }

    /// Whether a world belongs to this split.
    pub fn contains(self, world_id: u32) -> bool {
        self == Split::All || split_of(world_id) == self
    }
}

impl std::str::FromStr for Split {
    type Err = Error;

    fn from_str(s: &str) -> Result<Split> {
        match s {
            "train" => Ok(Split::Train),
            "dev" => Ok(Split::Dev),
            "test" => Ok(Split::Test),
            "all" => Ok(Split::All),
            _ => Err(Error::UnknownSplit(s.to_owned())),
        }
    }
}

/// The split of a world: the first 8 bytes of SHA-256(`fabula-split-v1` and the id) modulo
/// 100, below 80 for `train`, below 90 for `dev`, else `test`.
pub fn split_of(world_id: u32) -> Split {
    let mut hasher = Sha256::new();
    hasher.update(b"fabula-split-v1\0");
    hasher.update(world_id.to_le_bytes());
    let digest = hasher.finalize();
    let bucket = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")) % 100;
    match bucket {
        0..80 => Split::Train,
        80..90 => Split::Dev,
        _ => Split::Test,
    }
}

/// The tasks of one world file, with its world id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldTasks {
    pub world: u32,
    pub tasks: Vec<Task>,
}

/// Reads the tasks of every world of a dataset directory in a split, in world id order.
pub fn read_dataset_tasks(dir: &Path, split: Split) -> Result<Vec<WorldTasks>> {
    let manifest = crate::read_manifest(dir)?;
    let mut out = Vec::new();
    for entry in manifest.worlds.iter().filter(|e| split.contains(e.id)) {
        let file = WorldFile::open(&dir.join(&entry.file))?;
        out.push(WorldTasks {
            world: entry.id,
            tasks: file.tasks()?,
        });
    }
    Ok(out)
}

/// Parses a task's stored JSON (its answer or evidence).
pub fn parse_json<T: serde::de::DeserializeOwned>(task: &Task, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|source| Error::TaskJson {
        task: task.id.clone(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_parse() {
        assert_eq!("dev".parse::<Split>().unwrap(), Split::Dev);
        let err = "valid".parse::<Split>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown split `valid` (known: train, dev, test, all)"
        );
        assert!(Split::All.contains(7));
    }

    #[test]
    fn splits_are_stable_and_near_80_10_10() {
        let mut counts = [0_usize; 3];
        for id in 0..10_000 {
            counts[split_of(id) as usize] += 1;
        }
        let share = |s: Split| counts[s as usize] as f64 / 10_000.0;
        assert!((0.78..0.82).contains(&share(Split::Train)), "{counts:?}");
        assert!((0.09..0.11).contains(&share(Split::Dev)), "{counts:?}");
        assert!((0.09..0.11).contains(&share(Split::Test)), "{counts:?}");
        // The hash is part of the format: these assignments must never change.
        let first: Vec<&str> = (0..20).map(|id| split_of(id).as_str()).collect();
        assert_eq!(
            first.join(" "),
            "train train train train train train test train train test \
             train train train test train test train test train train"
        );
    }
}
