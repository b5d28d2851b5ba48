//! The baseline agent and the answerability check against the stub server.

use std::collections::BTreeMap;

use fabula_bench::http::ClientConfig;
use fabula_bench::{
    AgentConfig, AnswerabilityConfig, Split, check_answerability, load_tasks, run_baseline,
};
use fabula_score::{TaskKind, evaluate};

use crate::common::small_dataset;
use crate::stub;

#[test]
fn the_baseline_agent_answers_most_planned_tasks() {
    let dir = small_dataset();
    let addr = stub::start(dir);
    let tasks = load_tasks(dir, Split::All).unwrap();
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
    let tasks = load_tasks(dir, Split::All).unwrap();
    let predictions =
        fabula_bench::keyword::run_keyword(&addr, &tasks, &AgentConfig::default()).unwrap();
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
    let tasks = load_tasks(small_dataset(), Split::All).unwrap();
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

#[test]
fn every_gold_value_is_readable_through_extract() {
    let dir = small_dataset();
    let addr = stub::start(dir);
    // Small windows make every long page paginate.
    let config = AnswerabilityConfig {
        max_chars: 700,
        ..AnswerabilityConfig::default()
    };
    let report = check_answerability(&addr, dir, &config).unwrap();
    println!("{}", report.to_text());
    assert!(report.tasks >= 6 * 23);
    assert_eq!(report.fraction(), 1.0, "{}", report.to_text());
}
