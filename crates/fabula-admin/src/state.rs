//! The admin listener's state: the token, the search server's own [`fabula_server::AppState`]
//! (one corpus, one set of indexes and sessions for both listeners), the tasks read so far, and
//! the episodes.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use fabula_score::{Gold, Prediction, Score};
use parking_lot::Mutex;
use serde_json::Value;

use crate::api_error::{self, ApiError};
use crate::episodes::{EpisodeStore, OpenEnvState};
use crate::error::{Error, Result};
use crate::wire::Task;

impl Task {
    /// Scores an answer (a JSON string is read as text) against this task's gold answer.
    pub(crate) fn score(&self, answer: &Value) -> Result<Score, ApiError> {
        let gold = Gold::from_json(&self.answer).map_err(|e| api_error::internal(&e))?;
        let prediction = match answer {
            Value::String(text) => Prediction::from_text(text),
            other => Prediction::from_json(other),
        };
        Ok(fabula_score::score(&gold, &prediction))
    }
}

/// Shared state of the admin routes; cheap to clone.
#[derive(Clone)]
pub struct AdminState {
    pub(crate) token: Arc<str>,
    /// Tasks by world, read from the world file on first use.
    tasks: Arc<Mutex<BTreeMap<u32, Arc<Vec<Task>>>>>,
    /// The agent-facing server's state: the episodes' searches and extracts run on it.
    pub(crate) search: fabula_server::AppState,
    pub(crate) episodes: EpisodeStore,
    /// The OpenEnv routes' reset counter, latest HTTP episode and connection slots.
    pub(crate) openenv: Arc<OpenEnvState>,
}

impl AdminState {
    /// Makes the admin state around the agent-facing server's state, so both listeners share
    /// one corpus, its indexes, its sessions and its renderer. Tasks are read on first use.
    pub fn new(search: fabula_server::AppState, token: &str) -> Result<AdminState> {
        if token.is_empty() {
            return Err(Error::MissingToken);
        }
        Ok(AdminState {
            token: token.into(),
            tasks: Arc::default(),
            search,
            episodes: EpisodeStore::default(),
            openenv: Arc::default(),
        })
    }

    /// Whether the dataset has a world with this id.
    pub(crate) fn has_world(&self, world: u32) -> bool {
        self.search.has_world(world)
    }

    /// The tasks of one world, read from its file on first use, after the file passed its check
    /// against the manifest. A world unavailable (now, or since) answers 503
    /// `world_unavailable`, and a file that cannot be read makes it so.
    pub(crate) fn world_tasks(&self, world: u32) -> Result<Arc<Vec<Task>>, ApiError> {
        let info = self
            .search
            .world_info(world)
            .ok_or_else(|| api_error::world_not_found(world))?;
        self.search.check_world_file(world)?;
        if let Some(tasks) = self.tasks.lock().get(&world) {
            return Ok(tasks.clone());
        }
        let tasks = read_tasks(&info.file).map_err(|e| self.search.fail_world(world, e))?;
        let tasks = Arc::new(tasks);
        self.tasks.lock().insert(world, tasks.clone());
        Ok(tasks)
    }

    /// The task with this id, or `task_not_found`.
    pub(crate) fn task(&self, task_id: &str) -> Result<Task, ApiError> {
        let world = world_of_task(task_id)
            .filter(|&world| self.has_world(world))
            .ok_or_else(|| api_error::task_not_found(task_id))?;
        let tasks = self.world_tasks(world)?;
        tasks
            .iter()
            .find(|task| task.id == task_id)
            .cloned()
            .ok_or_else(|| api_error::task_not_found(task_id))
    }
}

/// The world id inside a task id such as `w00042-t017`.
pub fn world_of_task(task_id: &str) -> Option<u32> {
    task_id.strip_prefix('w')?.split('-').next()?.parse().ok()
}

fn read_tasks(path: &Path) -> Result<Vec<Task>, fabula_file::Error> {
    let json = |text: String| serde_json::from_str(&text).unwrap_or(Value::String(text));
    let tasks = fabula_file::WorldFile::open(path)?.tasks()?;
    Ok(tasks
        .into_iter()
        .map(|task| Task {
            id: task.id,
            kind: task.kind,
            question: task.question,
            answer: json(task.answer),
            evidence: json(task.evidence),
            hops: task.hops,
        })
        .collect())
}
