//! `fabula check`'s task rules on written worlds: clean files pass, corrupted copies are named.

use std::path::Path;

use fabula_tasks::TaskCheck;
use fabula_world::check::{Report, check_dir};

use crate::common::small_dataset;

fn task_rules(report: &Report) -> Vec<String> {
    report
        .violations
        .iter()
        .filter(|v| v.rule.starts_with("tasks."))
        .map(ToString::to_string)
        .collect()
}

fn copy_dataset(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn written_worlds_pass_every_task_rule() {
    let report = check_dir(small_dataset(), 2, &[&TaskCheck]).unwrap();
    assert_eq!(report.worlds, 6);
    assert!(
        report.violations.is_empty(),
        "{:#?}",
        report
            .violations
            .iter()
            .take(10)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
}

#[test]
fn every_stored_query_recomputes_exactly_one_answer() {
    let dir = small_dataset();
    let manifest = fabula_world::dataset::read_manifest(dir).unwrap();
    for entry in &manifest.worlds {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let conn = rusqlite::Connection::open_with_flags(dir.join(&entry.file), flags).unwrap();
        for task in fabula_tasks::check::stored_tasks(&conn).unwrap() {
            let stored: serde_json::Value = serde_json::from_str(&task.answer).unwrap();
            let rows = fabula_tasks::check::run_sql(&conn, &task.sql).unwrap();
            let recomputed = fabula_tasks::check::answer_from_rows(&stored, &rows).unwrap();
            assert!(
                fabula_tasks::check::same_answer(&stored, &recomputed),
                "{}: {stored} vs {recomputed}",
                task.id
            );
        }
    }
}

#[test]
fn corrupted_tasks_are_reported_by_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    copy_dataset(small_dataset(), &dir);
    let file = dir.join("world-00002.sqlite");
    let conn = rusqlite::Connection::open(&file).unwrap();
    let (lookup, table): (String, String) = conn
        .query_row(
            "SELECT (SELECT min(id) FROM fabula_tasks WHERE kind = 'lookup'), (SELECT min(id) FROM fabula_tasks WHERE kind = 'table')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    conn.execute(
        "UPDATE fabula_tasks SET answer = '\"Nobody Atall\"' WHERE id = ?1",
        [&lookup],
    )
    .unwrap();
    conn.execute(
        "UPDATE fabula_tasks SET evidence = '[\"https://nowhere.example/x\"]' WHERE id = ?1",
        [&table],
    )
    .unwrap();
    drop(conn);
    let rules = task_rules(&check_dir(&dir, 1, &[&TaskCheck]).unwrap());
    let named = |rule: &str, task: &str| {
        rules
            .iter()
            .any(|v| v.contains(&format!("[{rule}]")) && v.contains(task))
    };
    assert!(named("tasks.answer", &lookup), "{rules:#?}");
    assert!(named("tasks.evidence", &table), "{rules:#?}");
    assert!(named("tasks.stated", &table), "{rules:#?}");
    assert!(
        rules.iter().all(|v| v.contains("world-00002")),
        "{rules:#?}"
    );

    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute("DELETE FROM fabula_tasks WHERE kind = 'table'", [])
        .unwrap();
    conn.execute(
        "UPDATE fabula_tasks SET id = 'task-1' WHERE id = ?1",
        [&lookup],
    )
    .unwrap();
    drop(conn);
    let rules = task_rules(&check_dir(&dir, 1, &[&TaskCheck]).unwrap());
    assert!(
        rules.iter().any(|v| v.contains("[tasks.count]")),
        "{rules:#?}"
    );
    assert!(
        rules
            .iter()
            .any(|v| v.contains("[tasks.id]") && v.contains("task-1")),
        "{rules:#?}"
    );
}
