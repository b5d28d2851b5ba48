//! The blind baseline stays under 5% exact match for every short-answer kind.

use fabula_bench::dataset::score_record;
use fabula_bench::{Split, blind_baseline, split_of};
use fabula_score::{TaskKind, evaluate};

use crate::common::rendered_tasks;

#[test]
fn blind_exact_match_is_under_five_percent_per_kind() {
    let mut train = Vec::new();
    let mut test = Vec::new();
    for (world, tasks) in rendered_tasks(100) {
        for t in &tasks {
            let record = score_record(world, t).unwrap();
            match split_of(world) {
                Split::Train => train.push(record),
                Split::Test => test.push(record),
                _ => {}
            }
        }
    }
    let predictions = blind_baseline(&train, &test);
    let report = evaluate(&test, &predictions);
    println!("{}", report.to_text());
    for (kind, summary) in &report.by_kind {
        if *kind == TaskKind::Table {
            continue;
        }
        assert!(summary.n >= 20, "{kind:?}: only {} test tasks", summary.n);
        let em = summary.em.unwrap();
        assert!(em < 0.05, "{kind:?}: blind EM {em:.3}");
    }
}
