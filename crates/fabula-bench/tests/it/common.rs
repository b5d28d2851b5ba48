//! Shared fixtures: worlds rendered in memory and one small dataset written to disk.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fabula_file::Task;
use fabula_tasks::FullRenderer;
use fabula_world::dataset::{self, GenerateConfig, Renderer};
use fabula_world::generate_world;
use rayon::prelude::*;

pub const SEED: u64 = 20_250_601;

/// Generates worlds `0..n` and builds their tasks in parallel; returns each world's id and
/// tasks, in id order.
pub fn rendered_tasks(n: u32) -> Vec<(u32, Vec<Task>)> {
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

/// A shared dataset of 6 worlds, written once per test run and never modified.
pub fn small_dataset() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("worlds");
        let config = GenerateConfig {
            count: 6,
            master_seed: SEED,
            out: path.clone(),
            jobs: 2,
            shard: None,
            force: true,
            themes: Vec::new(),
        };
        dataset::generate_dataset(&config, &FullRenderer, &|| {}).unwrap();
        (dir, path)
    });
    path
}
