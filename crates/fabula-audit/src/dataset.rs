//! A dataset's tasks in the shape fabula-score reads, for baselines, evaluation and the audit.
//! Splits and the task reader are the world file crate's ([`fabula_file::Split`],
//! [`fabula_file::read_dataset_tasks`]).

use std::path::Path;

use fabula_file::{Split, Task, parse_json, read_dataset_tasks};
use serde_json::Value;

use crate::Result;

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
}
