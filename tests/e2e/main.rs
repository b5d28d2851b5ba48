//! End-to-end tests of the `fabula` binary: the commands a user runs, on real generated worlds.

mod check_rules;
mod generate_cli;
mod mcp;
mod serve;
mod slow;
mod wm;

use std::path::Path;
use std::process::{Command, Output};

/// Runs the fabula binary with arguments.
pub fn fabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fabula"))
        .args(args)
        .output()
        .expect("the fabula binary runs")
}

/// Generates a small dataset and returns its directory.
pub fn generate(dir: &Path, count: u32, seed: u64) {
    let out = fabula(&[
        "generate",
        "--count",
        &count.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "generate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
