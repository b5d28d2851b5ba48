//! Reading a dataset's tasks: which split a world belongs to, and each task in the shape
//! fabula-score reads. Exports, audits, baselines and the answerability check all start here.
//!
//! Worlds fall into `train`, `dev` and `test` by a stable hash of their id (80/10/10), so a
//! world keeps its split whatever else the dataset holds.

use std::path::Path;

use fabula_file::{Task, WorldFile};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// A part of a dataset, chosen by world id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
            _ => Err(Error::BadInput(format!(
                "unknown split `{s}` (known: train, dev, test, all)"
            ))),
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
    let manifest = fabula_file::read_manifest(dir)?;
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

/// fabula-score's `TaskKind` for the kind a world file stores: the same spelling (the world file's
/// crate depends on no other fabula crate, so each has its own enum).
pub fn score_kind(kind: fabula_file::TaskKind) -> fabula_score::TaskKind {
    use fabula_file::TaskKind as Stored;
    use fabula_score::TaskKind as Scored;
    match kind {
        Stored::Lookup => Scored::Lookup,
        Stored::MultiHop => Scored::MultiHop,
        Stored::Compare => Scored::Compare,
        Stored::Aggregate => Scored::Aggregate,
        Stored::Temporal => Scored::Temporal,
        Stored::Identify => Scored::Identify,
        Stored::Table => Scored::Table,
    }
}

/// A task as fabula-score reads it.
pub fn score_record(world: u32, task: &Task) -> Result<fabula_score::TaskRecord> {
    Ok(fabula_score::TaskRecord {
        world: world.to_string(),
        id: task.id.clone(),
        kind: score_kind(task.kind),
        question: task.question.clone(),
        answer: parse_json(task, &task.answer)?,
        evidence: parse_json(task, &task.evidence)?,
        hops: Value::from(task.hops),
    })
}

/// Loads the tasks of a split in fabula-score's shape, for baselines and evaluation.
pub fn load_tasks(dir: &Path, split: Split) -> Result<Vec<fabula_score::TaskRecord>> {
    let mut out = Vec::new();
    for world in read_dataset_tasks(dir, split)? {
        for task in &world.tasks {
            out.push(score_record(world.world, task)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_and_scored_task_kinds_are_the_same_names() {
        let stored = fabula_file::TaskKind::ALL;
        let scored = fabula_score::TaskKind::ALL;
        assert_eq!(stored.len(), scored.len(), "one enum gained a kind");
        for (stored, scored) in stored.into_iter().zip(scored) {
            assert_eq!(score_kind(stored), scored);
            assert_eq!(stored.as_str(), scored.as_str());
        }
    }

    #[test]
    fn splits_parse_and_are_stable() {
        assert_eq!("dev".parse::<Split>().unwrap(), Split::Dev);
        assert!("valid".parse::<Split>().is_err());
        assert_eq!(split_of(7), split_of(7));
        assert!(Split::All.contains(7));
    }
}
