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
    let turns: Vec<usize> = (0..samples.len()).collect();
    bench_records_at(samples, session, &turns)
}

/// [`bench_records`] of the given turns only (0-based; one past the end is skipped): each
/// record still holds the whole session's prompts and responses.
pub fn bench_records_at(samples: &[LwmSample], session: &str, turns: &[usize]) -> Vec<BenchRecord> {
    let prompt: Vec<String> = samples.iter().map(|s| s.prompt.clone()).collect();
    let response: Vec<String> = samples
        .iter()
        .map(|s| format!("{OBSERVATION_MARKER}\n{}", s.response))
        .collect();
    turns
        .iter()
        .filter_map(|&i| Some((i, samples.get(i)?)))
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

/// `k` of a session's `n_turns` turns (0-based, ascending) spread evenly from the first to the
/// last, as AgentWorldBench picks the turns it evaluates of a trajectory (the first, the last
/// and three between): all of them when `k` is not smaller than `n_turns`, the last alone when
/// `k` is 1.
///
/// ```
/// assert_eq!(fabula_lwm::spread_turns(9, 5), [0, 2, 4, 6, 8]);
/// assert_eq!(fabula_lwm::spread_turns(3, 5), [0, 1, 2]);
/// ```
pub fn spread_turns(n_turns: usize, k: usize) -> Vec<usize> {
    if k >= n_turns {
        return (0..n_turns).collect();
    }
    match k {
        0 => Vec::new(),
        1 => vec![n_turns - 1],
        _ => (0..k)
            .map(|i| (i * (n_turns - 1) + (k - 1) / 2) / (k - 1))
            .collect(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_turns_keep_the_ends_and_space_the_rest() {
        assert_eq!(spread_turns(0, 5), Vec::<usize>::new());
        assert_eq!(spread_turns(4, 0), Vec::<usize>::new());
        assert_eq!(spread_turns(4, 1), [3]);
        assert_eq!(spread_turns(4, 2), [0, 3]);
        assert_eq!(spread_turns(5, 5), [0, 1, 2, 3, 4]);
        assert_eq!(spread_turns(6, 5), [0, 1, 3, 4, 5]);
        assert_eq!(spread_turns(155, 5), [0, 39, 77, 116, 154]);
        for n in 1..60 {
            for k in 1..8 {
                let turns = spread_turns(n, k);
                assert_eq!(turns.len(), k.min(n), "{n} {k}");
                assert!(turns.windows(2).all(|w| w[0] < w[1]), "{n} {k}: {turns:?}");
                assert_eq!(turns.last(), Some(&(n - 1)));
            }
        }
    }

    #[test]
    fn records_of_chosen_turns_hold_the_whole_session() {
        let samples: Vec<LwmSample> = (0..4)
            .map(|i| LwmSample {
                system_str: "sys".into(),
                prompt: format!("p{i}"),
                response: format!("r{i}"),
                turn_idx: i,
                total_turns: 4,
            })
            .collect();
        let records = bench_records_at(&samples, "s", &[1, 3, 9]);
        let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["s-t2", "s-t4"]);
        assert_eq!(records[0].prompt, ["p0", "p1", "p2", "p3"]);
        assert_eq!(records[0].current_prompt, "p1");
        assert_eq!(records[1].turn_idx, 4);
        assert_eq!(bench_records(&samples, "s")[1], records[0]);
    }
}
