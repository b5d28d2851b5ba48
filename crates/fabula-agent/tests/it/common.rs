//! The shared fixture: one small dataset written to disk.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fabula_dataset::FullRenderer;
use fabula_dataset::{self as dataset, GenerateConfig};

pub const SEED: u64 = 20_250_601;

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
            write_indexes: false,
        };
        dataset::generate_dataset(&config, &FullRenderer, &|| {}).unwrap();
        (dir, path)
    });
    path
}
