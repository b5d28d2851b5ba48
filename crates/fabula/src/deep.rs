//! `fabula check --deep`: what a server trusts, checked offline through the same code that
//! serves (`fabula_search::Corpus`), so that the check and the server cannot disagree on what
//! is damaged. Each finding is a [`Violation`] naming the file:
//!
//! - `manifest.invalid`: the manifest breaks its contract (`Manifest::validate`); nothing else
//!   is checked then.
//! - `world.unavailable`: a world file a server would refuse (missing, unreadable, another
//!   size or hash than the manifest's, another world id or format version).
//! - `index.stale`, `index.damaged`: a world's persisted index written for another world or
//!   file, or with bytes that fail its checksum (a server rebuilds it, slowly, on first use).
//! - `passages.stale`, `passages.damaged`: the same for the passage index.
//!
//! Missing indexes are not damage (a server builds them on first use); they are counted on
//! standard error.

use std::path::Path;

use anyhow::Context;
use fabula_check::{Violation, violation};
use fabula_search::{Corpus, CorpusOptions, IndexHealth};
use rayon::prelude::*;

/// The findings of the deep check of the dataset in `dir`, on `jobs` threads, in world order.
pub fn check(dir: &Path, jobs: usize) -> anyhow::Result<Vec<Violation>> {
    let manifest = fabula_file::read_manifest(dir)
        .with_context(|| format!("reading the manifest of {}", dir.display()))?;
    if let Err(reason) = manifest.validate() {
        return Ok(vec![violation(
            fabula_file::MANIFEST,
            "-",
            None,
            "manifest.invalid",
            &reason,
        )]);
    }
    let options = CorpusOptions {
        max_open_worlds: 1,
        write_indexes: false,
    };
    let corpus =
        Corpus::open_with(dir, options).with_context(|| format!("opening {}", dir.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    let per_world: Vec<(Vec<Violation>, bool)> = pool.install(|| {
        corpus
            .worlds()
            .par_iter()
            .map(|info| world_findings(&corpus, info))
            .collect::<anyhow::Result<_>>()
    })?;
    let missing = per_world.iter().filter(|(_, missing)| *missing).count();
    let mut found: Vec<Violation> = per_world.into_iter().flat_map(|(v, _)| v).collect();
    let passages = corpus.passage_index_health();
    if passages == IndexHealth::Missing {
        eprintln!("fabula: no passage index (built on first use)");
    }
    found.extend(index_finding("index/passages", "passages", passages));
    if missing > 0 {
        eprintln!("fabula: {missing} worlds have no persisted index (built on first use)");
    }
    Ok(found)
}

/// One world's findings, and whether its persisted index is missing.
fn world_findings(
    corpus: &Corpus,
    info: &fabula_search::WorldInfo,
) -> anyhow::Result<(Vec<Violation>, bool)> {
    let name = info
        .file
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let mut found = Vec::new();
    if let Err(error) = corpus.check_file(info.id) {
        found.push(violation(
            &name,
            "-",
            None,
            "world.unavailable",
            &error.to_string(),
        ));
    }
    let index = fabula_search::index_path(corpus.dir(), &info.file);
    let index_name = index
        .strip_prefix(corpus.dir())
        .unwrap_or(&index)
        .display()
        .to_string();
    let health = corpus.index_health(info.id)?;
    let missing = health == IndexHealth::Missing;
    found.extend(index_finding(&index_name, "index", health));
    Ok((found, missing))
}

/// The violation an index's health is, if any: `RULE.stale` or `RULE.damaged` naming `file`.
fn index_finding(file: &str, rule: &str, health: IndexHealth) -> Option<Violation> {
    let (kind, reason) = match health {
        IndexHealth::Usable | IndexHealth::Missing => return None,
        IndexHealth::Stale(reason) => ("stale", reason),
        IndexHealth::Damaged(reason) => ("damaged", reason),
    };
    Some(violation(
        file,
        "-",
        None,
        &format!("{rule}.{kind}"),
        &reason,
    ))
}
