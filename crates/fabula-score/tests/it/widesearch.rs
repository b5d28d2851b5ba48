//! WideSearch's files: a task JSONL with gold CSVs and a response root, read as WideSearch's
//! `WideSearchDataLoader` and `WideSearchResponseLoader` write and read them.

use std::fs;
use std::path::Path;

use fabula_score::widesearch::{read_prediction_files, read_task_file};
use fabula_score::{Error, evaluate};
use serde_json::json;

/// Writes a WideSearch task file, `widesearch_gold/t1.csv` beside it and a response root with
/// two attempts, as the official scripts lay them out. `evaluation` is a JSON string (the
/// Hugging Face form) or an object (the local form).
fn write_files(dir: &Path, evaluation_as_string: bool) {
    let evaluation = json!({
        "required": ["name", "population", "founded"],
        "unique_columns": ["name"],
        "eval_pipeline": {
            "name": {"preprocess": ["norm_str"], "metric": ["exact_match"]},
            "population": {"preprocess": ["extract_number"], "metric": ["number_near"], "criterion": 0.1},
            "founded": {"preprocess": ["norm_date"], "metric": ["date_near"]}
        }
    });
    let evaluation = if evaluation_as_string {
        json!(evaluation.to_string())
    } else {
        evaluation
    };
    let record =
        json!({"instance_id": "t1", "query": "Towns?", "evaluation": evaluation, "language": "en"});
    fs::write(dir.join("tasks.jsonl"), format!("{record}\n")).unwrap();
    fs::create_dir_all(dir.join("widesearch_gold")).unwrap();
    fs::write(
        dir.join("widesearch_gold/t1.csv"),
        "Name,Founded,Population,Motto\nVess,1021-04-02,12000,x\n\"Orr, Upper\",1044-11-30,4500,y\n",
    )
    .unwrap();
    let responses = dir.join("responses");
    fs::create_dir_all(&responses).unwrap();
    // Attempt 0 is perfect (11,000 is within 10% of 12,000); attempt 1 lacks `founded`.
    let perfect = "```markdown\n| Name | Population | Founded |\n|---|---|---|\n\
                   | Vess | 11,000 | April 2, 1021 |\n| Orr, Upper | 4500 | 1044-11-30 |\n```";
    let missing = "| Name | Population |\n|---|---|\n| Vess | 12000 |\n| Orr, Upper | 4500 |";
    for (trial, response) in [perfect, missing].iter().enumerate() {
        let line =
            json!({"instance_id": "t1", "response": response, "messages": [], "trial_idx": trial});
        fs::write(
            responses.join(format!("model_t1_{trial}_response.jsonl")),
            format!("{line}\n"),
        )
        .unwrap();
    }
    fs::write(responses.join("model_t1_0_eval_result.json"), "{}").unwrap();
}

#[test]
fn reads_both_evaluation_forms() {
    for as_string in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        write_files(dir.path(), as_string);
        let tasks = read_task_file(&dir.path().join("tasks.jsonl"), None).unwrap();
        assert_eq!(tasks.len(), 1);
        assert_eq!(
            tasks[0].answer,
            json!({
                "columns": ["name", "population", "founded"],
                "key": ["name"],
                "rows": [["Vess", "12000", "1021-04-02"], ["Orr, Upper", "4500", "1044-11-30"]],
                "metrics": {"name": "exact", "population": "number", "founded": "date"},
                "tolerance": {"population": 0.1}
            })
        );
    }
}

#[test]
fn scores_a_response_root_with_a_missing_column() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), true);
    let tasks = read_task_file(&dir.path().join("tasks.jsonl"), None).unwrap();
    let predictions = read_prediction_files(&dir.path().join("responses")).unwrap();
    assert_eq!(predictions.len(), 2);
    let report = evaluate(&tasks, &predictions);
    assert_eq!(report.attempts, 2);
    // Attempt 0 scores 1 everywhere; attempt 1 misses a column and, as in WideSearch's
    // `evaluate_single_query`, scores 0 everywhere: Avg@2 is 0.5, Max@2 is 1.
    let task = &report.per_task[0];
    assert_eq!(
        (
            task.figures.success,
            task.figures.item_f1,
            task.figures.row_f1
        ),
        (Some(0.5), Some(0.5), Some(0.5))
    );
    let best = report.max_at_n.unwrap();
    assert_eq!((best.success_rate, best.item_f1), (Some(1.0), Some(1.0)));
    assert_eq!(report.counts.malformed_tables, 1);
}

#[test]
fn a_missing_gold_csv_names_its_task() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), false);
    fs::remove_file(dir.path().join("widesearch_gold/t1.csv")).unwrap();
    let err = read_task_file(&dir.path().join("tasks.jsonl"), None).unwrap_err();
    assert!(
        matches!(&err, Error::MalformedLine { line: 1, message, .. } if message.starts_with("task t1: ")),
        "{err}"
    );
}
