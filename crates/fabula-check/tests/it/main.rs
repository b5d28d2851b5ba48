//! Integration tests of fabula-check: a freshly generated dataset passes every rule, the
//! checker's own derivations (answers, what pages state, frontier questions) agree with the
//! generator's on it, and corrupted copies are reported under the task rules they break. (The
//! domain and page rules have unit tests beside them; the e2e suite corrupts worlds through the
//! CLI.)

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fabula_check::answer::Answer;
use fabula_check::{Report, check_dir};
use fabula_dataset::FullRenderer;
use fabula_dataset::{self as dataset, GenerateConfig};
use fabula_file::WorldFile;
use fabula_tasks::answer;

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
            write_indexes: false,
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

/// Every task of the small dataset with its world file.
fn every_task(mut f: impl FnMut(&WorldFile, &fabula_file::Task)) {
    let dir = small_dataset();
    let manifest = fabula_file::read_manifest(dir).unwrap();
    for entry in &manifest.worlds {
        let file = WorldFile::open(&dir.join(&entry.file)).unwrap();
        for task in file.tasks().unwrap() {
            f(&file, &task);
        }
    }
}

/// The checker derives each stored gold answer from its query on its own, and agrees with the
/// generator's derivation (`fabula_tasks::answer`) on the answer and on what pages must state.
#[test]
fn the_checker_and_the_generator_derive_the_same_answers() {
    let mut tasks = 0;
    every_task(|file, task| {
        let stored: serde_json::Value = serde_json::from_str(&task.answer).unwrap();
        let rows = file.query_text(&task.sql).unwrap();
        let gold = Answer::stored(&stored).unwrap();
        let derived = gold.from_rows(&rows).unwrap();
        assert_eq!(derived, gold, "{}: {stored}", task.id);
        let theirs = answer::answer_from_rows(&stored, &rows).unwrap();
        assert!(answer::same_answer(&stored, &theirs), "{}", task.id);
        let ours = derived.to_json_like(&stored);
        assert!(
            answer::same_answer(&ours, &theirs),
            "{}: {ours} vs {theirs}",
            task.id
        );
        let ours: Vec<String> = gold.must_state(task.kind, &rows).into_iter().collect();
        let theirs = answer::required_values(task.kind, &stored, &rows);
        assert_eq!(ours, theirs, "{}", task.id);
        tasks += 1;
    });
    assert!(tasks >= 6 * 60, "{tasks} tasks");
}

/// The checker tells frontier questions as the generator does, and there are some.
#[test]
fn the_checker_and_the_generator_tell_the_same_frontier_questions() {
    let mut frontier = 0;
    every_task(|_, task| {
        let ours = fabula_check::frontier::is_frontier(&task.question);
        let theirs = fabula_tasks::difficulty::is_frontier(&task.question);
        assert_eq!(ours, theirs, "{}: {}", task.id, task.question);
        frontier += usize::from(ours);
    });
    assert!(frontier > 0, "no frontier question in the dataset");
}

/// Each value the checker requires of a task's evidence is stated on some evidence page by the
/// checker's reading exactly when it is by the generator's.
#[test]
fn the_checker_and_the_generator_read_pages_alike() {
    every_task(|file, task| {
        let stored: serde_json::Value = serde_json::from_str(&task.answer).unwrap();
        let rows = file.query_text(&task.sql).unwrap();
        let urls: Vec<String> = serde_json::from_str(&task.evidence).unwrap();
        let pages: Vec<(String, Vec<String>)> = urls
            .iter()
            .map(|url| {
                let page = file.page(url).unwrap().unwrap().page;
                (page.body, page.facts.into_iter().map(|f| f.shown).collect())
            })
            .collect();
        for value in Answer::stored(&stored)
            .unwrap()
            .must_state(task.kind, &rows)
        {
            let ours = pages
                .iter()
                .any(|(body, shown)| fabula_check::answer::page_states(body, shown, &value));
            let theirs = pages.iter().any(|(body, shown)| {
                answer::fact_states(shown, &value) || answer::text_states(body, &value)
            });
            assert_eq!(ours, theirs, "{}: `{value}`", task.id);
        }
    });
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
