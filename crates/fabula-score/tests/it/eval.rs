//! Evaluation over task and prediction files: Avg@N, Max@N, counts and the text report.

use std::io::Write as _;

use fabula_score::{Error, PredictionRecord, TaskRecord, evaluate, read_predictions, read_tasks};
use serde_json::{Value, json};

/// A task record.
fn task(id: &str, kind: &str, answer: Value) -> TaskRecord {
    serde_json::from_value(json!({
        "world": "w0001", "id": id, "kind": kind, "question": "?", "answer": answer,
        "evidence": ["https://w0001.test/a"], "hops": 1
    }))
    .unwrap()
}

/// A prediction record.
fn prediction(task_id: &str, answer: Value) -> PredictionRecord {
    PredictionRecord {
        task_id: task_id.to_string(),
        answer,
    }
}

/// Three tasks, two attempts, every kind of trouble.
///
/// - `t1` (lookup, gold "Vess"): attempts "Vess" (EM 1) and "Orr" (EM 0).
///   Avg@2 em = f1 = 0.5; Max@2 em = f1 = 1.
/// - `t2` (aggregate, gold 42): no attempt; two missing predictions score 0.
/// - `t3` (table, two gold rows): attempt 1 has Vess right twice (one duplicate dropped), so
///   p = 1, g = 2, tp_row = 1, tp_item = 2: row and item P = 1, R = 1/2, F1 = 2/3; attempt 2
///   holds no table (malformed) and scores 0. Avg@2 row_f1 = item_f1 = 1/3; Max@2 = 2/3.
/// - One prediction names an unknown task.
///
/// Overall Avg@2: em = f1 = (0.5 + 0) / 2 = 0.25 over t1 and t2; success 0, row_f1 = item_f1 =
/// 1/3 over t3. Max@2: em = f1 = 0.5, success 0, row_f1 = item_f1 = 2/3.
fn report() -> fabula_score::EvalReport {
    let tasks = vec![
        task("t1", "lookup", json!("Vess")),
        task("t2", "aggregate", json!(42)),
        task(
            "t3",
            "table",
            json!({"columns": ["Name", "Population"], "key": ["Name"], "rows": [["Vess", 12000], ["Orr", 4500]]}),
        ),
    ];
    let table =
        "```markdown\n| Name | Population |\n|---|---|\n| Vess | 12,000 |\n| vess | 1 |\n```";
    let predictions = vec![
        prediction("t1", json!("Vess")),
        prediction("t3", json!(table)),
        prediction("t1", json!("Orr")),
        prediction("t9", json!("who knows")),
        prediction("t3", json!("no idea")),
    ];
    evaluate(&tasks, &predictions)
}

#[test]
fn avg_and_max_at_n_by_hand() {
    let report = report();
    assert_eq!(report.attempts, 2);
    let rows: Vec<String> = report
        .per_task
        .iter()
        .map(|task| {
            let figure =
                |value: Option<f64>| value.map_or("-".to_string(), |value| format!("{value:.4}"));
            format!(
                "{} {} em={} f1={} success={} row={}/{}/{} item={}/{}/{}",
                task.task_id,
                task.kind.as_str(),
                figure(task.figures.em),
                figure(task.figures.f1),
                figure(task.figures.success),
                figure(task.figures.row_precision),
                figure(task.figures.row_recall),
                figure(task.figures.row_f1),
                figure(task.figures.item_precision),
                figure(task.figures.item_recall),
                figure(task.figures.item_f1),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "t1 lookup em=0.5000 f1=0.5000 success=- row=-/-/- item=-/-/-",
            "t2 aggregate em=0.0000 f1=0.0000 success=- row=-/-/- item=-/-/-",
            "t3 table em=- f1=- success=0.0000 row=0.5000/0.2500/0.3333 item=0.5000/0.2500/0.3333",
        ]
    );
    let max = report.max_at_n.as_ref().unwrap();
    assert_eq!(
        (max.em, max.f1, max.success_rate),
        (Some(0.5), Some(0.5), Some(0.0))
    );
    assert!((max.item_f1.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    let counts = report.counts;
    assert_eq!(
        (
            counts.tasks,
            counts.predictions,
            counts.unknown_task_ids,
            counts.missing_predictions,
            counts.malformed_tables,
            counts.duplicate_rows
        ),
        (3, 5, 1, 2, 1, 1)
    );
}

#[test]
fn report_json_layout() {
    let value = serde_json::to_value(report()).unwrap();
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "attempts", "by_kind", "counts", "max_at_n", "overall", "per_task"
        ]
    );
    assert_eq!(
        value["by_kind"]["lookup"],
        json!({"n": 1, "em": 0.5, "f1": 0.5, "success_rate": null, "row_f1": null, "item_f1": null})
    );
    assert_eq!(value["overall"]["em"], json!(0.25));
    assert_eq!(value["per_task"][0]["row_f1"], Value::Null);
    assert_eq!(
        value["counts"],
        json!({"tasks": 3, "predictions": 5, "unknown_task_ids": 1, "missing_predictions": 2,
               "malformed_tables": 1, "duplicate_rows": 1})
    );
}

#[test]
fn one_attempt_has_no_max_at_n() {
    let tasks = vec![task("t1", "lookup", json!("Vess"))];
    let report = evaluate(&tasks, &[prediction("t1", json!("vess"))]);
    assert_eq!(report.attempts, 1);
    assert_eq!(report.max_at_n, None);
    let value = serde_json::to_value(&report).unwrap();
    assert!(value.get("max_at_n").is_none());
    assert_eq!(report.overall.em, Some(1.0));
    // No predictions at all: N is 1 and the task is missing.
    let report = evaluate(&tasks, &[]);
    assert_eq!((report.attempts, report.counts.missing_predictions), (1, 1));
    assert_eq!(report.overall.em, Some(0.0));
}

#[test]
fn text_report() {
    insta::assert_snapshot!(report().to_text());
}

#[test]
fn text_report_single_attempt() {
    let tasks = vec![
        task("t1", "lookup", json!("Vess")),
        task("t2", "multi_hop", json!("Orr")),
    ];
    let report = evaluate(
        &tasks,
        &[
            prediction("t1", json!("Vess")),
            prediction("t2", json!("Kael")),
        ],
    );
    insta::assert_snapshot!(report.to_text());
}

/// Writes lines to a temporary file.
fn file(lines: &[&str]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
    file
}

#[test]
fn reads_jsonl_files() {
    let tasks = file(&[
        r#"{"world": "w1", "id": "t1", "kind": "lookup", "question": "?", "answer": "Vess", "evidence": [], "hops": 1}"#,
        "",
        r#"{"world": 1, "id": 2, "kind": "table", "question": "?", "answer": {"columns": ["a"], "key": ["a"], "rows": [["x"]]}}"#,
    ]);
    let tasks = read_tasks(tasks.path()).unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[1].id, "2");
    let predictions = file(&[
        r#"{"task_id": "t1", "answer": "Vess"}"#,
        r#"{"task_id": 2, "response": "| a |\n|-|\n| x |"}"#,
    ]);
    assert_eq!(read_predictions(predictions.path()).unwrap().len(), 2);
}

#[test]
fn malformed_lines_name_their_line() {
    let tasks = file(&[
        r#"{"world": "w1", "id": "t1", "kind": "lookup", "question": "?", "answer": "Vess"}"#,
        r#"{"world": "w1", "id": "t2", "kind": "riddle", "question": "?", "answer": "Vess"}"#,
    ]);
    let err = read_tasks(tasks.path()).unwrap_err();
    assert!(matches!(err, Error::MalformedLine { line: 2, .. }), "{err}");

    let tasks = file(&[
        r#"{"world": "w1", "id": "t1", "kind": "table", "question": "?", "answer": {"columns": ["a"], "rows": []}}"#,
    ]);
    let err = read_tasks(tasks.path()).unwrap_err();
    assert!(matches!(err, Error::MalformedLine { line: 1, .. }), "{err}");
    assert!(
        err.to_string().contains("task t1: invalid gold answer"),
        "{err}"
    );

    let predictions = file(&[r#"{"task_id": "t1", "answer": "x"}"#, "", "{not json"]);
    let err = read_predictions(predictions.path()).unwrap_err();
    assert!(matches!(err, Error::MalformedLine { line: 3, .. }), "{err}");

    let err = read_predictions("/nonexistent/predictions.jsonl").unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
}
