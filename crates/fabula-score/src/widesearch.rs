//! Reading WideSearch's files: task JSONL with gold CSVs, and response files.
//!
//! WideSearch's local loader (`WideSearchDataLoader` in `src/evaluation/data_loader.py`) reads
//! a JSONL of `{"instance_id", "query", "evaluation", "language"}` records, where `evaluation`
//! holds `required` (the column names), `unique_columns` (the key) and `eval_pipeline` (per
//! column a `metric` list and a number_near `criterion`), and one gold CSV per task,
//! `{answer_root}/{instance_id}.csv`. The Hugging Face copy stores `evaluation` as a JSON
//! string; both forms are read here. Each record becomes a table [`TaskRecord`] whose gold
//! answer is the CSV's rows under the required columns, with the pipeline's metrics.
//!
//! Responses are WideSearch's `WideSearchResponse` lines, `{"instance_id", "response",
//! "messages", "trial_idx"}`, one file per attempt (`{model}_{instance_id}_{trial}_response.jsonl`
//! under `--response_root`); [`crate::read_predictions`] reads them as they are.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::eval::{PredictionRecord, TaskKind, TaskRecord};
use crate::gold::Gold;

/// Whether a JSONL record is a WideSearch task (it has `instance_id` and `evaluation`).
pub fn is_widesearch_task(record: &Value) -> bool {
    record.get("instance_id").is_some() && record.get("evaluation").is_some()
}

/// Reads a WideSearch task file with its gold CSVs from `gold_dir` (by default
/// `widesearch_gold/` beside the file, where `fabula tasks export --format widesearch` writes
/// them). A record without its CSV, or whose CSV lacks a required column, is an error naming
/// the line.
///
/// WideSearch metric names map to fabula's: `exact_match`, `number_near` (with `criterion` as
/// the tolerance), `date_near`, `in_match` and `url_match`. fabula has no LLM judge, so an
/// `llm_judge` column scores with `exact`; a column without a pipeline gets the metric
/// [`Gold::from_json`] infers.
pub fn read_widesearch_tasks(path: &Path, gold_dir: Option<&Path>) -> Result<Vec<TaskRecord>> {
    let gold_dir = gold_dir.map_or_else(
        || {
            path.parent()
                .unwrap_or(Path::new("."))
                .join("widesearch_gold")
        },
        Path::to_path_buf,
    );
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut tasks = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let malformed = |message: String| Error::MalformedLine {
            path: path.to_path_buf(),
            line: idx + 1,
            message,
        };
        let record: Value = serde_json::from_str(line).map_err(|err| malformed(err.to_string()))?;
        tasks.push(widesearch_task(&record, &gold_dir).map_err(malformed)?);
    }
    Ok(tasks)
}

/// Reads a task file in either format: WideSearch's (when its first record has `instance_id`
/// and `evaluation`, see [`read_widesearch_tasks`]) or fabula's ([`crate::read_tasks`]).
pub fn read_task_file(path: &Path, gold_dir: Option<&Path>) -> Result<Vec<TaskRecord>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let first = text.lines().find(|line| !line.trim().is_empty());
    let is_widesearch = first
        .and_then(|line| serde_json::from_str::<Value>(line).ok())
        .is_some_and(|record| is_widesearch_task(&record));
    if is_widesearch {
        read_widesearch_tasks(path, gold_dir)
    } else {
        crate::read_tasks(path)
    }
}

/// Reads predictions from a JSONL file, or from every `*.jsonl` file of a directory in name
/// order (WideSearch's `--response_root`, one response file per task and attempt).
pub fn read_prediction_files(path: &Path) -> Result<Vec<PredictionRecord>> {
    if !path.is_dir() {
        return crate::read_predictions(path);
    }
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        let file = entry.map_err(io)?.path();
        if file.extension().is_some_and(|ext| ext == "jsonl") {
            files.push(file);
        }
    }
    files.sort();
    let mut records = Vec::new();
    for file in &files {
        records.extend(crate::read_predictions(file)?);
    }
    Ok(records)
}

/// Builds one table task from a WideSearch record and its gold CSV.
fn widesearch_task(record: &Value, gold_dir: &Path) -> std::result::Result<TaskRecord, String> {
    let instance_id = match record.get("instance_id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        _ => return Err("\"instance_id\" must be a string".into()),
    };
    let evaluation = match record.get("evaluation") {
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .map_err(|err| format!("task {instance_id}: \"evaluation\" is not JSON: {err}"))?,
        Some(value @ Value::Object(_)) => value.clone(),
        _ => return Err(format!("task {instance_id}: no \"evaluation\" object")),
    };
    let names = |field: &str| -> std::result::Result<Vec<String>, String> {
        evaluation
            .get(field)
            .and_then(Value::as_array)
            .and_then(|items| {
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .ok_or_else(|| format!("task {instance_id}: evaluation.{field} is not a string list"))
    };
    let required = names("required")?;
    let key = names("unique_columns")?;
    let csv_path = gold_dir.join(format!("{instance_id}.csv"));
    let rows = read_gold_csv(&csv_path, &required)
        .map_err(|message| format!("task {instance_id}: {}: {message}", csv_path.display()))?;
    let (metrics, tolerances) = pipeline_metrics(evaluation.get("eval_pipeline"), &required);
    let answer = json!({
        "columns": required,
        "key": key,
        "rows": rows,
        "metrics": metrics,
        "tolerance": tolerances,
    });
    Gold::from_json(&answer).map_err(|err| format!("task {instance_id}: {err}"))?;
    Ok(TaskRecord {
        world: String::new(),
        id: instance_id,
        kind: TaskKind::Table,
        question: record
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        answer,
        evidence: Value::Null,
        hops: Value::Null,
    })
}

/// The fabula metric and tolerance of each required column with a pipeline.
fn pipeline_metrics(pipeline: Option<&Value>, required: &[String]) -> (Value, Value) {
    let mut metrics = Map::new();
    let mut tolerances = Map::new();
    for column in required {
        let Some(step) = pipeline.and_then(|p| p.get(column)) else {
            continue;
        };
        let first = step
            .get("metric")
            .and_then(Value::as_array)
            .and_then(|names| names.first())
            .and_then(Value::as_str);
        let metric = match first {
            Some("number_near") => "number",
            Some("date_near") => "date",
            Some("in_match") => "in",
            Some("url_match") => "url",
            Some(_) => "exact",
            None => continue,
        };
        metrics.insert(column.clone(), Value::from(metric));
        if metric == "number"
            && let Some(criterion) = step.get("criterion").and_then(Value::as_f64)
        {
            tolerances.insert(column.clone(), Value::from(criterion));
        }
    }
    (Value::Object(metrics), Value::Object(tolerances))
}

/// Reads a gold CSV (RFC 4180, through the `csv` crate) as rows of the required columns; header
/// names are normalised as WideSearch's `norm_column` does (trimmed, lower-case, spaces
/// removed). Rows may be short (missing cells read as empty); blank lines are skipped.
fn read_gold_csv(
    path: &Path,
    required: &[String],
) -> std::result::Result<Vec<Vec<String>>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .map_err(|err| err.to_string())?;
    let mut records = reader.records();
    let header: Vec<String> = records
        .next()
        .ok_or("the file is empty")?
        .map_err(|err| err.to_string())?
        .iter()
        .map(|name| name.trim().to_lowercase().replace(' ', ""))
        .collect();
    let positions = required
        .iter()
        .map(|column| {
            header
                .iter()
                .position(|name| name == column)
                .ok_or_else(|| format!("no column {column:?}"))
        })
        .collect::<std::result::Result<Vec<usize>, String>>()?;
    let mut rows = Vec::new();
    for record in records {
        let record = record.map_err(|err| err.to_string())?;
        if record.len() == 1 && record[0].is_empty() {
            continue;
        }
        rows.push(
            positions
                .iter()
                .map(|&idx| record.get(idx).unwrap_or_default().to_owned())
                .collect(),
        );
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_csvs_are_read_under_the_required_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let check = |text: &str, expect: &[[&str; 2]]| {
            std::fs::write(&path, text).unwrap();
            let required = ["b".to_owned(), "homemarket".to_owned()];
            let rows = read_gold_csv(&path, &required).unwrap();
            assert_eq!(rows, expect, "{text:?}");
        };
        // Quotes with `""`, a line break inside quotes, `\r\n` line ends, a short row, header
        // names normalised, and blank lines skipped.
        check(
            "a,B,Home Market\r\n1,\"x, \"\"y\"\"\",\"multi\nline\"\r\n\n2,z\n",
            &[["x, \"y\"", "multi\nline"], ["z", ""]],
        );
        check("b,homemarket\n", &[]);
        check("b,homemarket\n Kel , Vess\n", &[[" Kel ", " Vess"]]);
        std::fs::write(&path, "").unwrap();
        assert_eq!(
            read_gold_csv(&path, &[]),
            Err("the file is empty".to_owned())
        );
        std::fs::write(&path, "a\n").unwrap();
        let missing = read_gold_csv(&path, &["b".to_owned()]).unwrap_err();
        assert_eq!(missing, "no column \"b\"");
    }

    #[test]
    fn maps_pipeline_metrics() {
        let pipeline = json!({
            "n": {"metric": ["number_near"], "criterion": 0.1},
            "d": {"metric": ["date_near"]},
            "j": {"metric": ["llm_judge"], "criterion": "same meaning"},
            "u": {"preprocess": ["norm_str"]}
        });
        let required: Vec<String> = ["n", "d", "j", "u", "x"].map(String::from).to_vec();
        let (metrics, tolerances) = pipeline_metrics(Some(&pipeline), &required);
        assert_eq!(metrics, json!({"n": "number", "d": "date", "j": "exact"}));
        assert_eq!(tolerances, json!({"n": 0.1}));
    }
}
