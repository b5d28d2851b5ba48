//! The baseline agents against the stub server.

use std::collections::BTreeMap;
use std::path::Path;

use fabula_agent::http::ClientConfig;
use fabula_agent::{AgentConfig, run_baseline};
use fabula_file::WorldFile;
use fabula_score::{TaskKind, TaskRecord, evaluate};

use crate::common::small_dataset;
use crate::stub;

/// Every task of a dataset in fabula-score's shape, as `fabula_audit::load_tasks` reads them
/// (fabula-audit builds on this crate, so its tests cannot use it).
fn load_tasks(dir: &Path) -> Vec<TaskRecord> {
    let manifest = fabula_file::read_manifest(dir).unwrap();
    let mut out = Vec::new();
    for entry in &manifest.worlds {
        let file = WorldFile::open(&dir.join(&entry.file)).unwrap();
        for task in file.tasks().unwrap() {
            out.push(TaskRecord {
                world: entry.id.to_string(),
                id: task.id.clone(),
                kind: TaskKind::parse(task.kind.as_str()).unwrap(),
                question: task.question.clone(),
                answer: serde_json::from_str(&task.answer).unwrap(),
                evidence: serde_json::from_str(&task.evidence).unwrap(),
                hops: task.hops.into(),
            });
        }
    }
    out
}

#[test]
fn the_baseline_agent_answers_most_planned_tasks() {
    let dir = small_dataset();
    let addr = stub::start(dir);
    let tasks = load_tasks(dir);
    let config = AgentConfig {
        max_chars: 3_000,
        ..AgentConfig::default()
    };
    let predictions = run_baseline(&addr, &tasks, &config).unwrap();
    assert_eq!(predictions.len(), tasks.len());
    let report = evaluate(&tasks, &predictions);
    println!("{}", report.to_text());
    let em: BTreeMap<TaskKind, f64> = report
        .by_kind
        .iter()
        .filter_map(|(k, s)| Some((*k, s.em?)))
        .collect();
    assert!(em[&TaskKind::Lookup] >= 0.9, "{em:?}");
    assert!(em[&TaskKind::MultiHop] >= 0.8, "{em:?}");
    assert!(em[&TaskKind::Compare] >= 0.9, "{em:?}");
    assert!(em[&TaskKind::Temporal] >= 0.8, "{em:?}");
    assert!(em[&TaskKind::Aggregate] >= 0.8, "{em:?}");
}

/// The keyword agent knows no template: it answers some lookups from the pages a search of
/// the question brings up, and leaves tables empty.
#[test]
fn the_keyword_agent_answers_lookups_from_what_it_reads() {
    let dir = small_dataset();
    let addr = stub::start(dir);
    let tasks = load_tasks(dir);
    let predictions =
        fabula_agent::keyword::run_keyword(&addr, &tasks, &AgentConfig::default()).unwrap();
    assert_eq!(predictions.len(), tasks.len());
    for (task, prediction) in tasks.iter().zip(&predictions) {
        assert_eq!(task.id, prediction.task_id);
        if task.kind == TaskKind::Table {
            assert_eq!(prediction.answer, "");
        }
    }
    let report = evaluate(&tasks, &predictions);
    println!("{}", report.to_text());
    let lookup = report.by_kind[&TaskKind::Lookup].em.unwrap();
    assert!(lookup >= 0.3, "lookup em {lookup}");
}

#[test]
fn a_dead_server_is_an_error() {
    let tasks = load_tasks(small_dataset());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    drop(listener);
    let config = AgentConfig {
        client: ClientConfig {
            timeout: std::time::Duration::from_secs(2),
            ..ClientConfig::default()
        },
        ..AgentConfig::default()
    };
    assert!(run_baseline(&addr, &tasks[..1], &config).is_err());
}
