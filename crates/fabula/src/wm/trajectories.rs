//! Task-driven trajectories, for `fabula export lwm-data --trajectories tasks`: the rule-based
//! agent (`fabula_agent::run_baseline_with`) answers each task of a world in process, over the
//! world's search index, through a [`Recorder`] that answers its two tools as the REST API does
//! and records every call with what it returned as one turn. The turns' observations are the
//! template renderer's text of exactly what the agent got: the hits in Qwen-AgentWorld's result
//! blocks (with their dates, which the API sends too) and each page's whole Markdown. The
//! samples' prompts close with the task's Simulation Instruction, its question and gold answer
//! ([`fabula_lwm::task_samples`]).
//!
//! The agent is deterministic, so a task's trajectory depends only on the world file and the
//! hiding level; a sample of tasks (`--tasks-per-world`) only on (seed, world id) besides.

use std::cell::RefCell;

use anyhow::Context;
use fabula_agent::http::Hit;
use fabula_agent::{AgentConfig, Tools};
use fabula_lwm::{Action, Controls, LwmSample, LwmTurn, MemoryWorld, PromptConfig};
use fabula_score::{Gold, Prediction, PredictionRecord, TaskRecord};
use fabula_search::{Hiding, SearchOptions, WorldIndex};
use fabula_server::lwm::search_template;
use fabula_server::wire::HitJson;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The observation of a search that found nothing, as the session tools' `web_search` says it.
const NO_RESULTS: &str = "No results.";

/// Where a refused call's error says it came from (the REST client names the server's address).
const IN_PROCESS: &str = "in-process";

/// Answers the agent's tools from one world's index, as the REST API would, and records each
/// call as a turn.
struct Recorder<'a> {
    world_id: u32,
    index: &'a WorldIndex,
    hiding: Hiding,
    turns: RefCell<Vec<LwmTurn>>,
}

impl Recorder<'_> {
    fn record(&self, action: Action, observation: String) {
        self.turns.borrow_mut().push(LwmTurn {
            action,
            controls: Controls {
                hiding: self.hiding,
                instruction: String::new(),
            },
            observation,
        });
    }

    /// A call the API would refuse with `status`.
    fn refused(status: u16, body: String) -> fabula_agent::Error {
        fabula_agent::Error::Status {
            addr: IN_PROCESS.to_owned(),
            status,
            body,
        }
    }

    fn check_world(&self, world: u32) -> fabula_agent::Result<()> {
        if world == self.world_id {
            return Ok(());
        }
        Err(Self::refused(404, format!("world not found: {world}")))
    }
}

impl Tools for Recorder<'_> {
    fn search(&self, world: u32, query: &str, top_k: usize) -> fabula_agent::Result<Vec<Hit>> {
        self.check_world(world)?;
        let options = SearchOptions {
            top_k,
            offset: 0,
            hiding: self.hiding,
        };
        let results = (self.index.search(query, &options))
            .map_err(|error| Self::refused(400, error.to_string()))?;
        let hits: Vec<HitJson> = results.hits.into_iter().map(HitJson::from).collect();
        let observation = if hits.is_empty() {
            NO_RESULTS.to_owned()
        } else {
            search_template(&hits)
        };
        let queries = vec![query.to_owned()];
        self.record(Action::Search { queries }, observation);
        Ok(hits
            .into_iter()
            .map(|hit| Hit {
                rank: i64::try_from(hit.rank).unwrap_or(i64::MAX),
                url: hit.url,
                title: hit.title,
                snippet: hit.snippet,
            })
            .collect())
    }

    fn extract_all(
        &self,
        world: u32,
        url: &str,
        max_chars: usize,
    ) -> fabula_agent::Result<(String, String)> {
        self.check_world(world)?;
        let action = Action::Extract {
            url: url.to_owned(),
        };
        let mut content = String::new();
        let mut start = 0;
        let title = loop {
            let window = match self.index.extract(url, start, max_chars) {
                Ok(window) => window,
                Err(error @ fabula_search::Error::UrlNotFound(_)) => {
                    self.record(action, format!("Error: {error}"));
                    return Err(Self::refused(404, error.to_string()));
                }
                Err(error) => return Err(Self::refused(400, error.to_string())),
            };
            content.push_str(&window.content);
            match window.next_start {
                Some(next) if next > start => start = next,
                _ => break window.title,
            }
        };
        self.record(action, content.clone());
        Ok((title, content))
    }
}

/// One task's trajectory: the agent's turns and whether its answer scores full marks against
/// the gold one.
pub struct TaskTrajectory {
    pub task: TaskRecord,
    pub turns: Vec<LwmTurn>,
    pub solved: bool,
}

/// The trajectory the rule-based agent takes on each task of one world, in task order.
pub fn world_trajectories(
    index: &WorldIndex,
    world_id: u32,
    tasks: &[TaskRecord],
    hiding: Hiding,
) -> anyhow::Result<Vec<TaskTrajectory>> {
    let config = AgentConfig::default();
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        let recorder = Recorder {
            world_id,
            index,
            hiding,
            turns: RefCell::new(Vec::new()),
        };
        let mut predictions =
            fabula_agent::run_baseline_with(&recorder, std::slice::from_ref(task), &config)
                .with_context(|| format!("running the agent on task {}", task.id))?;
        let prediction = predictions.pop().context("the agent answered no task")?;
        let solved = solved(task, &prediction)?;
        out.push(TaskTrajectory {
            task: task.clone(),
            turns: recorder.turns.into_inner(),
            solved,
        });
    }
    Ok(out)
}

/// Whether a prediction scores full marks, read as `fabula audit` reads the agent's answers.
fn solved(task: &TaskRecord, prediction: &PredictionRecord) -> anyhow::Result<bool> {
    let gold = Gold::from_json(&task.answer)
        .with_context(|| format!("reading the gold answer of task {}", task.id))?;
    let predicted = match &prediction.answer {
        serde_json::Value::String(text) => Prediction::from_text(text),
        other => Prediction::from_json(other),
    };
    Ok(fabula_score::score(&gold, &predicted).reward() >= 1.0)
}

/// The samples of one trajectory: every turn's prompt closed by the task's Simulation
/// Instruction.
pub fn trajectory_samples(
    world: &MemoryWorld,
    trajectory: &TaskTrajectory,
    config: &PromptConfig,
) -> anyhow::Result<Vec<LwmSample>> {
    let task = &trajectory.task;
    let instruction = fabula_lwm::SimulationInstruction::for_task(&task.question, &task.answer);
    Ok(fabula_lwm::task_samples(
        world,
        &trajectory.turns,
        config,
        &instruction,
    )?)
}

/// What to export of each world's tasks.
pub struct Scope {
    /// The seed of the sample of tasks.
    pub seed: u64,
    /// How many tasks a world (all when None).
    pub tasks_per_world: Option<usize>,
    pub hiding: Hiding,
}

/// Counts over the exported tasks, printed at the end of the export.
#[derive(Debug, Default)]
pub struct Tally {
    tasks: usize,
    /// Tasks the agent made no call for (a question it does not parse): no records.
    without_turns: usize,
    solved: usize,
    turns: usize,
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} tasks, {} turns; the agent answered {} of them in full; {} without a tool call \
             are left out",
            self.tasks, self.turns, self.solved, self.without_turns
        )
    }
}

/// One world's task trajectories as named sessions of samples, `fabula-{task id}` (the records'
/// ids add `-t{turn}`), in task order; a task the agent made no call for has none.
pub fn world_sessions(
    index: &WorldIndex,
    world: &MemoryWorld,
    info: &fabula_search::WorldInfo,
    scope: &Scope,
    tally: &mut Tally,
) -> anyhow::Result<Vec<(String, Vec<LwmSample>)>> {
    let file = fabula_file::WorldFile::open(&info.file)
        .with_context(|| format!("opening {}", info.file.display()))?;
    let tasks = (file.tasks()?.iter())
        .map(|task| fabula_audit::dataset::score_record(info.id, task))
        .collect::<Result<Vec<_>, _>>()?;
    let tasks = sample_tasks(tasks, scope.tasks_per_world, scope.seed, info.id);
    let config = PromptConfig::default();
    let mut sessions = Vec::new();
    for trajectory in world_trajectories(index, info.id, &tasks, scope.hiding)? {
        tally.tasks += 1;
        tally.solved += usize::from(trajectory.solved);
        if trajectory.turns.is_empty() {
            tally.without_turns += 1;
            continue;
        }
        tally.turns += trajectory.turns.len();
        let samples = trajectory_samples(world, &trajectory, &config)?;
        sessions.push((format!("fabula-{}", trajectory.task.id), samples));
    }
    Ok(sessions)
}

/// `n` of a world's tasks drawn without replacement by a stream keyed by (seed, world id), in
/// their stored order; all of them when `n` is None or not smaller.
pub fn sample_tasks(
    tasks: Vec<TaskRecord>,
    n: Option<usize>,
    seed: u64,
    world_id: u32,
) -> Vec<TaskRecord> {
    let Some(n) = n.filter(|n| *n < tasks.len()) else {
        return tasks;
    };
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..12].copy_from_slice(&world_id.to_le_bytes());
    key[12..17].copy_from_slice(b"tasks");
    let mut rng = ChaCha8Rng::from_seed(key);
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    for i in 0..n {
        let j = rng.random_range(i..order.len());
        order.swap(i, j);
    }
    let mut chosen = order[..n].to_vec();
    chosen.sort_unstable();
    let mut tasks: Vec<Option<TaskRecord>> = tasks.into_iter().map(Some).collect();
    chosen.into_iter().filter_map(|i| tasks[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use fabula_score::TaskKind;

    use super::*;

    fn tasks(n: usize) -> Vec<TaskRecord> {
        (0..n)
            .map(|i| TaskRecord {
                world: "0".into(),
                id: format!("w00000-t{i:03}"),
                kind: TaskKind::Lookup,
                question: format!("Question {i}?"),
                answer: "yes".into(),
                evidence: serde_json::Value::Null,
                hops: 1.into(),
            })
            .collect()
    }

    fn ids(tasks: &[TaskRecord]) -> Vec<&str> {
        tasks.iter().map(|task| task.id.as_str()).collect()
    }

    #[test]
    fn samples_of_tasks_are_seeded_and_keep_their_order() {
        let all = ids(&tasks(20)).join(",");
        assert_eq!(ids(&sample_tasks(tasks(20), None, 1, 0)).join(","), all);
        assert_eq!(ids(&sample_tasks(tasks(20), Some(20), 1, 0)).join(","), all);
        let drawn = sample_tasks(tasks(20), Some(5), 1, 0);
        assert_eq!(drawn.len(), 5);
        let drawn = ids(&drawn).join(",");
        assert_eq!(
            drawn,
            ids(&sample_tasks(tasks(20), Some(5), 1, 0)).join(",")
        );
        let mut sorted: Vec<&str> = drawn.split(',').collect();
        sorted.sort_unstable();
        assert_eq!(sorted.join(","), drawn, "stored order");
        let others: std::collections::BTreeSet<String> = (0..8)
            .map(|seed| ids(&sample_tasks(tasks(20), Some(5), seed, 3)).join(","))
            .collect();
        assert!(others.len() > 4, "{others:?}");
    }
}
