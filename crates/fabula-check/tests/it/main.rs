//! Integration tests of fabula-check: a freshly generated dataset passes every rule, and
//! corrupted copies are reported under the task rules they break. (The domain and page rules have
//! unit tests beside them; the e2e suite corrupts worlds through the CLI.)

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fabula_check::{Report, check_dir};
use fabula_file::WorldFile;
use fabula_tasks::FullRenderer;
use fabula_tasks::answer::{answer_from_rows, same_answer};
use fabula_world::dataset::{self, GenerateConfig};

/// A dataset of six worlds with pages and tasks, generated once per test run.
fn small_dataset() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("worlds");
        let cfg = GenerateConfig {
            count: 6,
            master_seed: 20_250_601,
            out: out.clone(),
            jobs: 2,
            shard: None,
            force: true,
            themes: Vec::new(),
        };
        dataset::generate_dataset(&cfg, &FullRenderer, &|| {}).unwrap();
        (tmp, out)
    });
    path
}

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
    let report = check_dir(small_dataset(), 2).unwrap();
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
    let manifest = fabula_file::read_manifest(dir).unwrap();
    for entry in &manifest.worlds {
        let file = WorldFile::open(&dir.join(&entry.file)).unwrap();
        for task in file.tasks().unwrap() {
            let stored: serde_json::Value = serde_json::from_str(&task.answer).unwrap();
            let rows = file.query_text(&task.sql).unwrap();
            let recomputed = answer_from_rows(&stored, &rows).unwrap();
            assert!(
                same_answer(&stored, &recomputed),
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
    let rules = task_rules(&check_dir(&dir, 1).unwrap());
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
    let rules = task_rules(&check_dir(&dir, 1).unwrap());
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

#[test]
fn an_unknown_task_kind_is_reported_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    copy_dataset(small_dataset(), &dir);
    let conn = rusqlite::Connection::open(dir.join("world-00001.sqlite")).unwrap();
    conn.execute(
        "UPDATE fabula_tasks SET kind = 'riddle' WHERE id = (SELECT min(id) FROM fabula_tasks)",
        [],
    )
    .unwrap();
    drop(conn);
    let rules = task_rules(&check_dir(&dir, 1).unwrap());
    assert!(
        rules
            .iter()
            .any(|v| v.contains("[tasks.kind]") && v.contains("riddle")),
        "{rules:#?}"
    );
}
