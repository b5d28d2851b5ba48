//! `fabula index`: writes the persisted search index of every world of a dataset, so that a
//! server opens each world from a memory-mapped file instead of building its index on first use.
//!
//! An index is a cache keyed by its world file's hash and the index format version: a fresh one
//! is kept, a missing, stale or corrupt one is built again, and deleting `DIR/index/` loses
//! nothing. `fabula generate` (and so `fabula up`) runs this after generating, unless told
//! `--no-index`; a cluster runs it once per shard.
//!
//! Without `--shard` it then makes sure of the dataset's passage index (`DIR/index/passages/`),
//! which spans every world and which the root `/retrieve` searches; a sharded run leaves it to a
//! last unsharded run, which finds every world's own index fresh.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use fabula_dataset::Shard;
use fabula_search::{Corpus, IndexState};
use rayon::prelude::*;

use crate::progress::{default_jobs, progress_bar};

/// Arguments of `fabula index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The dataset directory (holding manifest.json).
    #[arg(default_value = "worlds/default")]
    pub dir: PathBuf,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Index only the worlds with id % N == I, given as I/N.
    #[arg(long)]
    pub shard: Option<Shard>,
}

/// What one run did, world by world.
#[derive(Debug, Default)]
pub struct IndexSummary {
    pub fresh: usize,
    pub built: usize,
    pub rebuilt: usize,
    /// Bytes of the indexed worlds' files and of their indexes.
    pub world_bytes: u64,
    pub index_bytes: u64,
    /// What happened to the passage index (None for a sharded run), its passages and bytes.
    pub passages: Option<(IndexState, u64)>,
    pub passage_bytes: u64,
}

impl IndexSummary {
    fn worlds(&self) -> usize {
        self.fresh + self.built + self.rebuilt
    }
}

/// Runs `fabula index`.
pub fn run_index(args: &IndexArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let summary = index_dataset(
        &args.dir,
        args.jobs.unwrap_or_else(default_jobs),
        args.shard,
    )?;
    let per_world = |bytes: u64| bytes as f64 / summary.worlds().max(1) as f64 / 1e6;
    eprintln!(
        "indexed {} worlds ({} built, {} rebuilt, {} already fresh) in {:.2} s -> {}; \
         per world {:.2} MB file + {:.2} MB index",
        summary.worlds(),
        summary.built,
        summary.rebuilt,
        summary.fresh,
        started.elapsed().as_secs_f64(),
        args.dir.join("index").display(),
        per_world(summary.world_bytes),
        per_world(summary.index_bytes),
    );
    match summary.passages {
        Some((state, passages)) => eprintln!(
            "passage index {} ({} passages, {:.1} MB) -> {}",
            match state {
                IndexState::Fresh => "already fresh",
                IndexState::Built => "built",
                IndexState::Rebuilt => "rebuilt",
            },
            passages,
            summary.passage_bytes as f64 / 1e6,
            args.dir.join("index").join("passages").display(),
        ),
        None => eprintln!(
            "the passage index spans every world: run `fabula index {}` without --shard once \
             every shard is indexed",
            args.dir.display()
        ),
    }
    Ok(())
}

/// Writes the missing or stale indexes of the worlds of `dir` (those of `shard` only, when
/// given) on `jobs` threads. Fails on the first world that cannot be indexed.
pub fn index_dataset(
    dir: &Path,
    jobs: usize,
    shard: Option<Shard>,
) -> anyhow::Result<IndexSummary> {
    let corpus = Corpus::open(dir).with_context(|| format!("opening {}", dir.display()))?;
    let ids: Vec<u32> = corpus
        .worlds()
        .iter()
        .map(|world| world.id)
        .filter(|id| shard.is_none_or(|shard| id % shard.total == shard.index))
        .collect();
    let bar = progress_bar(ids.len() as u64);
    let counts = [
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    pool.install(|| {
        ids.par_iter().try_for_each(|&id| {
            let state = corpus
                .ensure_index(id)
                .with_context(|| format!("indexing world {id} of {}", dir.display()))?;
            let slot = match state {
                IndexState::Fresh => 0,
                IndexState::Built => 1,
                IndexState::Rebuilt => 2,
            };
            counts[slot].fetch_add(1, Ordering::Relaxed);
            bar.inc(1);
            anyhow::Ok(())
        })
    })?;
    bar.finish_and_clear();
    let mut summary = IndexSummary {
        fresh: counts[0].load(Ordering::Relaxed),
        built: counts[1].load(Ordering::Relaxed),
        rebuilt: counts[2].load(Ordering::Relaxed),
        ..IndexSummary::default()
    };
    for &id in &ids {
        summary.world_bytes += file_len(&corpus.info(id)?.file)?;
        summary.index_bytes += file_len(&corpus.index_path(id)?)?;
    }
    if shard.is_none() {
        let (state, build) = corpus
            .ensure_passage_index(jobs)
            .with_context(|| format!("building the passage index of {}", dir.display()))?;
        for entry in std::fs::read_dir(corpus.passage_index_path())? {
            summary.passage_bytes += entry?.metadata()?.len();
        }
        summary.passages = Some((state, build.passages));
    }
    Ok(summary)
}

fn file_len(path: &Path) -> anyhow::Result<u64> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(meta.len())
}
