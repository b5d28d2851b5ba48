//! The blind baseline stays under 5% exact match for every short-answer kind.

use fabula_audit::blind_baseline;
use fabula_audit::dataset::score_record;
use fabula_dataset::FullRenderer;
use fabula_dataset::{self as dataset, Renderer};
use fabula_file::Task;
use fabula_file::{Split, split_of};
use fabula_score::{TaskKind, evaluate};
use fabula_world::generate_world;
use rayon::prelude::*;

use crate::common::SEED;

/// Generates worlds `0..n` and builds their tasks in parallel; returns each world's id and
/// tasks, in id order.
fn rendered_tasks(n: u32) -> Vec<(u32, Vec<Task>)> {
    let themes = dataset::select_themes(&[]).unwrap();
    (0..n)
        .into_par_iter()
        .map(|id| {
            let world = generate_world(SEED, id, &themes);
            let (_, tasks) = FullRenderer.render(&world);
            (id, tasks)
        })
        .collect()
}

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
