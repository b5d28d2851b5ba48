//! Shared fixtures: worlds rendered in memory and one small dataset written to disk.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fabula_tasks::FullRenderer;
use fabula_world::dataset::{self, GenerateConfig, Renderer};
use fabula_world::records::{PageRecord, TaskRecord};
use fabula_world::{World, generate_world};

pub const SEED: u64 = 20_250_601;

/// Generates world `id` and renders its pages and tasks.
pub fn rendered(id: u32) -> (World, Vec<PageRecord>, Vec<TaskRecord>) {
    let themes = dataset::select_themes(&[]).unwrap();
    let world = generate_world(SEED, id, &themes);
    let (pages, tasks) = FullRenderer.render(&world);
    (world, pages, tasks)
}

/// Renders worlds `0..n` on two threads, in id order.
pub fn rendered_many(n: u32) -> Vec<(World, Vec<PageRecord>, Vec<TaskRecord>)> {
    let ids: Vec<u32> = (0..n).collect();
    fabula_world::check::parallel_map(&ids, 2, |&id| rendered(id))
}

/// Writes a fresh dataset of `count` worlds into `dir`.
pub fn write_dataset(dir: &Path, count: u32) {
    let cfg = GenerateConfig {
        count,
        master_seed: SEED,
        out: dir.to_path_buf(),
        jobs: 2,
        shard: None,
        force: true,
        themes: Vec::new(),
    };
    dataset::generate_dataset(&cfg, &FullRenderer, &|| {}).unwrap();
}

/// A shared dataset of 6 worlds, written once per test run and never modified.
pub fn small_dataset() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("worlds");
        write_dataset(&path, 6);
        (dir, path)
    });
    path
}
