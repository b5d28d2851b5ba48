//! Next-observation training samples for the world model, in Qwen-AgentWorld's JSONL layout.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Controls};
use crate::error::Result;
use crate::parse::parse_search;
use crate::prompt::{PromptConfig, extract_prompt, search_prompt, system_prompt};
use crate::render::Session;
use crate::view::WorldView;

/// One turn of an agent session: the action, its controls and the observation shown (normally
/// the template renderer's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LwmTurn {
    pub action: Action,
    pub controls: Controls,
    pub observation: String,
}

/// One training sample: given the system message and the turn's prompt, the model should answer
/// with `response`, the observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LwmSample {
    pub system_str: String,
    /// The user message the renderer sends for this turn (world state, control instruction and,
    /// for extractor calls, the snippets shown earlier in the session).
    pub prompt: String,
    pub response: String,
    /// 0-based.
    pub turn_idx: usize,
    pub total_turns: usize,
}

/// Builds one sample per turn, replaying the session so each prompt carries what the agent had
/// been shown before that turn, exactly as [`crate::Renderer`] would prompt for it.
pub fn lwm_samples(
    world: &dyn WorldView,
    turns: &[LwmTurn],
    config: &PromptConfig,
) -> Result<Vec<LwmSample>> {
    let system_str = system_prompt(world.world_id())?;
    let mut session = Session::default();
    let mut samples = Vec::with_capacity(turns.len());
    for (turn_idx, turn) in turns.iter().enumerate() {
        let prompt = match &turn.action.normalised() {
            Action::Search { queries } => {
                let sections = parse_search(&turn.observation).unwrap_or_default();
                search_prompt(world, queries, &turn.controls, &sections, config)?
            }
            Action::Extract { url } => extract_prompt(
                world,
                url,
                &turn.controls,
                session.snippets_for(url),
                config,
            )?,
        };
        if matches!(turn.action, Action::Search { .. }) {
            session.record_search(&turn.observation);
        }
        samples.push(LwmSample {
            system_str: system_str.clone(),
            prompt,
            response: turn.observation.clone(),
            turn_idx,
            total_turns: turns.len(),
        });
    }
    Ok(samples)
}

/// The marker before an observation in AgentWorldBench's responses; its scorer strips it before
/// judging.
pub const OBSERVATION_MARKER: &str = "**Environment Observation:**";

/// AgentWorldBench's task name for the search domain (its scorer groups scores by it).
pub const BENCH_TASK: &str = "search";

/// One record of AgentWorldBench's evaluation files (`*_test.jsonl`, as its released `eval.py`
/// reads them): a whole session's prompts and responses, and the turn to predict, counted from
/// 1; the turns before it are the history the model is given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchRecord {
    pub id: String,
    pub task: String,
    pub system_str: String,
    pub prompt: Vec<String>,
    /// Each turn's observation after [`OBSERVATION_MARKER`].
    pub response: Vec<String>,
    /// 1-based.
    pub turn_idx: usize,
    /// `prompt[turn_idx - 1]`, which the scorer also reads on its own.
    pub current_prompt: String,
}

/// One AgentWorldBench record per turn of one session's `samples` (in turn order), with ids
/// `{session}-t{turn}`.
pub fn bench_records(samples: &[LwmSample], session: &str) -> Vec<BenchRecord> {
    let prompt: Vec<String> = samples.iter().map(|s| s.prompt.clone()).collect();
    let response: Vec<String> = samples
        .iter()
        .map(|s| format!("{OBSERVATION_MARKER}\n{}", s.response))
        .collect();
    samples
        .iter()
        .enumerate()
        .map(|(i, sample)| BenchRecord {
            id: format!("{session}-t{}", i + 1),
            task: BENCH_TASK.to_owned(),
            system_str: sample.system_str.clone(),
            prompt: prompt.clone(),
            response: response.clone(),
            turn_idx: i + 1,
            current_prompt: sample.prompt.clone(),
        })
        .collect()
}

/// Writes records (samples, AgentWorldBench records) as JSON Lines, one object per line.
pub fn jsonl<T: Serialize>(records: &[T]) -> Result<String> {
    let mut out = String::new();
    for record in records {
        out.push_str(&serde_json::to_string(record)?);
        out.push('\n');
    }
    Ok(out)
}
