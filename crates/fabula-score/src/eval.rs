//! Evaluation over files: tasks and predictions in, an [`EvalReport`] with Avg@N and Max@N out.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::gold::Gold;
use crate::prediction::Prediction;
use crate::score::{Figures, Score, ScoreIssue, score};

/// The kinds of task fabula generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// One fact about one entity.
    Lookup,
    /// A fact reached through two or three hops.
    MultiHop,
    /// A comparison between entities.
    Compare,
    /// A count, sum or extreme over many rows.
    Aggregate,
    /// A fact as it stood at a date.
    Temporal,
    /// A person singled out by several clues from different pages.
    Identify,
    /// A WideSearch-style table.
    Table,
}

impl TaskKind {
    /// Every kind, in report order.
    pub const ALL: [TaskKind; 7] = [
        TaskKind::Lookup,
        TaskKind::MultiHop,
        TaskKind::Compare,
        TaskKind::Aggregate,
        TaskKind::Temporal,
        TaskKind::Identify,
        TaskKind::Table,
    ];

    /// Parses the name used in task files; `None` for any other text.
    pub fn parse(text: &str) -> Option<TaskKind> {
        TaskKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// The name used in task files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Lookup => "lookup",
            TaskKind::MultiHop => "multi_hop",
            TaskKind::Compare => "compare",
            TaskKind::Aggregate => "aggregate",
            TaskKind::Temporal => "temporal",
            TaskKind::Identify => "identify",
            TaskKind::Table => "table",
        }
    }
}

/// One line of a fabula task file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The world the task belongs to (a number is read as its text).
    #[serde(deserialize_with = "string_or_number")]
    pub world: String,
    /// The task id that predictions refer to (a number is read as its text).
    #[serde(deserialize_with = "string_or_number")]
    pub id: String,
    /// The kind of task.
    pub kind: TaskKind,
    /// The question put to the agent.
    pub question: String,
    /// The gold answer, parsed by [`Gold::from_json`].
    pub answer: Value,
    /// The evidence pages; not used in scoring.
    #[serde(default)]
    pub evidence: Value,
    /// The hops of the question; not used in scoring.
    #[serde(default)]
    pub hops: Value,
}

/// One line of a prediction file. A file may hold several lines, one per attempt, for a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictionRecord {
    /// The task answered (a number is read as its text); WideSearch's `instance_id` is
    /// accepted too.
    #[serde(alias = "instance_id", deserialize_with = "string_or_number")]
    pub task_id: String,
    /// The answer, read by [`Prediction::from_json`]; WideSearch's `response` is accepted too.
    #[serde(default, alias = "response")]
    pub answer: Value,
}

/// Reads a JSON string or number as a string.
fn string_or_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<String, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) => Ok(text),
        Value::Number(number) => Ok(number.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "expected a string or a number, found {other}"
        ))),
    }
}

/// The scores of one task: Avg@N over its attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskScore {
    /// The task id.
    pub task_id: String,
    /// The kind of task.
    pub kind: TaskKind,
    /// The figures over the attempts (written inline in JSON, as a [`Score`]'s are).
    #[serde(flatten)]
    pub figures: Figures,
}

/// Averages over a set of tasks; a figure is the mean over the tasks it applies to, or `None`
/// when it applies to none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The number of tasks.
    pub n: usize,
    /// Mean exact match of short-answer tasks.
    pub em: Option<f64>,
    /// Mean F1 of short-answer tasks.
    pub f1: Option<f64>,
    /// Mean success of table tasks.
    pub success_rate: Option<f64>,
    /// Mean row F1 of table tasks.
    pub row_f1: Option<f64>,
    /// Mean item F1 of table tasks.
    pub item_f1: Option<f64>,
}

/// What an evaluation saw besides scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Counts {
    /// Tasks evaluated.
    pub tasks: usize,
    /// Prediction records read, including those for unknown tasks.
    pub predictions: usize,
    /// Prediction records whose `task_id` names no task; they are ignored.
    pub unknown_task_ids: usize,
    /// Attempts missing: for each task, N minus its number of predictions. Each scores 0.
    pub missing_predictions: usize,
    /// Predictions for table tasks with no usable table (none found, or a key column missing).
    pub malformed_tables: usize,
    /// Predicted rows dropped because their key repeated an earlier row's.
    pub duplicate_rows: usize,
}

/// The result of [`evaluate`]; serialises to the JSON layout of `fabula eval`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Avg@N over all tasks.
    pub overall: Summary,
    /// Avg@N per kind of task.
    pub by_kind: BTreeMap<TaskKind, Summary>,
    /// Avg@N per task, in task order.
    pub per_task: Vec<TaskScore>,
    /// What was seen besides scores.
    pub counts: Counts,
    /// N: the largest number of attempts any task got (at least 1).
    pub attempts: usize,
    /// Max@N over all tasks, present only when N > 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_at_n: Option<Summary>,
}

/// Builds a task's row from its figures.
fn task_score(task: &TaskRecord, figures: Figures) -> TaskScore {
    TaskScore {
        task_id: task.id.clone(),
        kind: task.kind,
        figures,
    }
}

/// Combines per-attempt figures, field by field, over the figures that apply.
fn combine(attempts: &[[Option<f64>; 9]], fold: impl Fn(&[f64]) -> f64) -> Figures {
    Figures::from_array(std::array::from_fn(|idx| {
        let values: Vec<f64> = attempts.iter().filter_map(|figures| figures[idx]).collect();
        (!values.is_empty()).then(|| fold(&values))
    }))
}

/// The mean of some values.
fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The mean of the figures that apply, or `None`.
fn mean_of(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let values: Vec<f64> = values.flatten().collect();
    (!values.is_empty()).then(|| mean(&values))
}

/// Summarises a set of task rows.
fn summarise<'a>(tasks: impl Iterator<Item = &'a TaskScore> + Clone) -> Summary {
    Summary {
        n: tasks.clone().count(),
        em: mean_of(tasks.clone().map(|task| task.figures.em)),
        f1: mean_of(tasks.clone().map(|task| task.figures.f1)),
        success_rate: mean_of(tasks.clone().map(|task| task.figures.success)),
        row_f1: mean_of(tasks.clone().map(|task| task.figures.row_f1)),
        item_f1: mean_of(tasks.map(|task| task.figures.item_f1)),
    }
}

/// Scores every prediction against its task's gold answer.
///
/// N is the largest number of prediction lines any task has (at least 1). A task with fewer
/// than N predictions gets 0 for each missing attempt. Per task, Avg@N is the mean of each
/// figure over the N attempts and Max@N the largest value of each figure on its own (so row F1
/// and item F1 may come from different attempts). Per-kind and overall figures are means over
/// the tasks a figure applies to. Predictions for unknown tasks are counted and ignored; a task
/// whose gold answer does not parse gets no figures (use [`read_tasks`], which rejects such
/// tasks, to catch them first). Nothing here panics on bad predictions.
pub fn evaluate(tasks: &[TaskRecord], predictions: &[PredictionRecord]) -> EvalReport {
    let mut attempts_by_id: HashMap<&str, Vec<&PredictionRecord>> = tasks
        .iter()
        .map(|task| (task.id.as_str(), Vec::new()))
        .collect();
    let mut counts = Counts {
        tasks: tasks.len(),
        predictions: predictions.len(),
        ..Counts::default()
    };
    for prediction in predictions {
        match attempts_by_id.get_mut(prediction.task_id.as_str()) {
            Some(attempts) => attempts.push(prediction),
            None => counts.unknown_task_ids += 1,
        }
    }
    let n_attempts = attempts_by_id
        .values()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(1);

    let mut per_task = Vec::with_capacity(tasks.len());
    let mut best_per_task = Vec::with_capacity(tasks.len());
    for task in tasks {
        let attempts = &attempts_by_id[task.id.as_str()];
        counts.missing_predictions += n_attempts - attempts.len();
        let Ok(gold) = Gold::from_json(&task.answer) else {
            per_task.push(task_score(task, Figures::default()));
            best_per_task.push(task_score(task, Figures::default()));
            continue;
        };
        let mut scores: Vec<Score> = attempts
            .iter()
            .map(|attempt| score(&gold, &Prediction::from_json(&attempt.answer)))
            .collect();
        for scored in &scores {
            if scored.issues.iter().any(ScoreIssue::is_malformed_table) {
                counts.malformed_tables += 1;
            }
            for issue in &scored.issues {
                if let ScoreIssue::DuplicateRows { n_dropped } = issue {
                    counts.duplicate_rows += n_dropped;
                }
            }
        }
        scores.resize_with(n_attempts, || Score::zero(&gold));
        let attempt_figures: Vec<[Option<f64>; 9]> =
            scores.iter().map(|s| s.figures.to_array()).collect();
        per_task.push(task_score(task, combine(&attempt_figures, mean)));
        best_per_task.push(task_score(
            task,
            combine(&attempt_figures, |values| {
                values.iter().copied().fold(f64::MIN, f64::max)
            }),
        ));
    }

    let mut kinds: Vec<TaskKind> = per_task.iter().map(|task| task.kind).collect();
    kinds.sort();
    kinds.dedup();
    let by_kind = kinds
        .into_iter()
        .map(|kind| {
            (
                kind,
                summarise(per_task.iter().filter(move |task| task.kind == kind)),
            )
        })
        .collect();
    EvalReport {
        overall: summarise(per_task.iter()),
        by_kind,
        max_at_n: (n_attempts > 1).then(|| summarise(best_per_task.iter())),
        per_task,
        counts,
        attempts: n_attempts,
    }
}

impl EvalReport {
    /// A readable report: one aligned row per kind, then the overall row (and Max@N when N > 1),
    /// then the counts. Figures not applying to a row read `-`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let plural = if self.attempts == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "{} tasks, {} attempt{plural} per task, figures are Avg@{}",
            self.counts.tasks, self.attempts, self.attempts
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<10} {:>5} {:>7} {:>7} {:>8} {:>7} {:>8}",
            "kind", "n", "em", "f1", "success", "row_f1", "item_f1"
        );
        let mut write_row = |label: &str, summary: &Summary| {
            let figure = |value: Option<f64>| {
                value.map_or_else(|| "-".to_string(), |value| format!("{value:.3}"))
            };
            let _ = writeln!(
                out,
                "{:<10} {:>5} {:>7} {:>7} {:>8} {:>7} {:>8}",
                label,
                summary.n,
                figure(summary.em),
                figure(summary.f1),
                figure(summary.success_rate),
                figure(summary.row_f1),
                figure(summary.item_f1)
            );
        };
        for (kind, summary) in &self.by_kind {
            write_row(kind.as_str(), summary);
        }
        write_row("overall", &self.overall);
        if let Some(best) = &self.max_at_n {
            write_row(&format!("Max@{}", self.attempts), best);
        }
        let Counts {
            tasks,
            predictions,
            unknown_task_ids,
            missing_predictions,
            malformed_tables,
            duplicate_rows,
        } = self.counts;
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "tasks {tasks}, predictions {predictions}, unknown task ids {unknown_task_ids}, \
             missing predictions {missing_predictions}, malformed tables {malformed_tables}, \
             duplicate rows {duplicate_rows}"
        );
        out
    }
}

/// Reads a fabula task file (JSONL). Blank lines are skipped; a line that is not a task, or
/// whose gold answer does not parse, is an [`Error::MalformedLine`] naming its line number.
pub fn read_tasks(path: impl AsRef<Path>) -> Result<Vec<TaskRecord>> {
    let path = path.as_ref();
    let tasks: Vec<(usize, TaskRecord)> = read_jsonl(path)?;
    for (line, task) in &tasks {
        if let Err(err) = Gold::from_json(&task.answer) {
            return Err(Error::MalformedLine {
                path: path.to_path_buf(),
                line: *line,
                message: format!("task {}: {err}", task.id),
            });
        }
    }
    Ok(tasks.into_iter().map(|(_, task)| task).collect())
}

/// Reads a prediction file (JSONL), one `{"task_id", "answer"}` per line. Blank lines are
/// skipped; a line that is not a prediction is an [`Error::MalformedLine`].
pub fn read_predictions(path: impl AsRef<Path>) -> Result<Vec<PredictionRecord>> {
    let records: Vec<(usize, PredictionRecord)> = read_jsonl(path.as_ref())?;
    Ok(records.into_iter().map(|(_, record)| record).collect())
}

/// Reads the records of a JSONL file with their line numbers.
fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<(usize, T)>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut records = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(line).map_err(|err| Error::MalformedLine {
            path: path.to_path_buf(),
            line: idx + 1,
            message: err.to_string(),
        })?;
        records.push((idx + 1, record));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_may_be_numbers() {
        let task: TaskRecord = serde_json::from_value(json!({
            "world": 7, "id": 12, "kind": "multi_hop", "question": "q", "answer": "a"
        }))
        .unwrap();
        assert_eq!(
            (task.world.as_str(), task.id.as_str(), task.kind),
            ("7", "12", TaskKind::MultiHop)
        );
        let prediction: PredictionRecord =
            serde_json::from_value(json!({"task_id": 12, "response": "a"})).unwrap();
        assert_eq!(prediction.answer, json!("a"));
    }

    #[test]
    fn combine_skips_figures_that_do_not_apply() {
        let attempts = [
            [Some(1.0), None, None, None, None, None, None, None, None],
            [Some(0.0), None, None, None, None, None, None, None, None],
        ];
        assert_eq!(combine(&attempts, mean).em, Some(0.5));
        assert_eq!(combine(&attempts, mean).f1, None);
    }
}
