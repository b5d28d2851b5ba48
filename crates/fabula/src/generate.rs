//! `fabula generate` and `fabula check`: the dataset commands. `generate` writes the search
//! indexes too (`fabula index`'s, byte for byte): each world's as it is generated (its tasks'
//! tiers are measured with it), then the passage index, so a server is fast from its first
//! request.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use fabula_dataset::{self as dataset, GenerateConfig, Shard};

use crate::progress::{default_jobs, progress_bar};

/// Arguments of `fabula generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Number of worlds in the dataset.
    #[arg(long, default_value_t = 1000)]
    pub count: u32,
    /// Master seed; the same seed and version give byte-identical files.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output directory.
    #[arg(long, default_value = "worlds/default")]
    pub out: PathBuf,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Write only the worlds with id % N == I, given as I/N, and the shard's own manifest
    /// (manifest.shard-I-of-N.json), so that all N shards can share one directory; join them
    /// with `fabula manifest merge` once all are done.
    #[arg(long)]
    pub shard: Option<String>,
    /// Replace a directory that holds another seed's or version's worlds.
    #[arg(long)]
    pub force: bool,
    /// Restrict worlds to these themes (repeatable).
    #[arg(long = "theme")]
    pub themes: Vec<String>,
    /// Do not write the search indexes (DIR/index/); `fabula index` writes them later, or a
    /// server builds each on first use. A sharded run writes its worlds' indexes but not the
    /// corpus-wide passage index, which `fabula index` builds once the shards are merged.
    #[arg(long)]
    pub no_index: bool,
}

/// Arguments of `fabula check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The dataset directory.
    pub dir: PathBuf,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print at most this many violations (0: all).
    #[arg(long, default_value_t = 50)]
    pub max_listed: usize,
    /// Also open every task's evidence pages through a running server's agent-facing API and
    /// confirm each gold value is in what the agent receives.
    #[arg(long, requires = "addr")]
    pub answerability: bool,
    /// The server for --answerability, e.g. 127.0.0.1:8080.
    #[arg(long)]
    pub addr: Option<String>,
    /// Also check what a server trusts, offline: the manifest as a whole, each world file's
    /// size, hash, world id and format version against it (what the server checks before it
    /// serves a world), each world's persisted index and the passage index (header and
    /// checksum). Names every damaged file.
    #[arg(long)]
    pub deep: bool,
}

/// Builds the generator configuration, rejecting bad input with a one-line message.
pub fn config(args: &GenerateArgs) -> anyhow::Result<GenerateConfig> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    dataset::select_themes(&args.themes)?;
    Ok(GenerateConfig {
        count: args.count,
        master_seed: args.seed,
        out: args.out.clone(),
        jobs: args.jobs.unwrap_or_else(default_jobs).max(1),
        shard,
        force: args.force,
        themes: args.themes.clone(),
        write_indexes: !args.no_index,
    })
}

/// Runs `fabula generate`.
pub fn run_generate(args: &GenerateArgs) -> anyhow::Result<()> {
    run_generate_with(args)
}

/// Generates a dataset as `fabula generate` does; `fabula up` calls it too.
pub fn run_generate_with(args: &GenerateArgs) -> anyhow::Result<()> {
    let cfg = config(args)?;
    let total = match cfg.shard {
        Some(s) => (0..cfg.count).filter(|&id| s.contains(id)).count() as u64,
        None => u64::from(cfg.count),
    };
    let bar = progress_bar(total);
    let started = Instant::now();
    let summary = dataset::generate_dataset(&cfg, &fabula_dataset::FullRenderer, &|| bar.inc(1))
        .with_context(|| format!("generating into {}", cfg.out.display()))?;
    bar.finish_and_clear();
    eprintln!(
        "generated {} worlds ({} kept from an earlier run), {} rows, {} pages, {} tasks in {:.2} s -> {}",
        summary.worlds,
        summary.kept,
        summary.rows,
        summary.pages,
        summary.tasks,
        started.elapsed().as_secs_f64(),
        cfg.out.display()
    );
    if let Some(s) = cfg.shard {
        eprintln!(
            "shard {s}: wrote {}; once all {} shards are done, run `fabula manifest merge {}` \
             and `fabula index {}`",
            dataset::shard_manifest_name(s.index, s.total),
            s.total,
            cfg.out.display(),
            cfg.out.display()
        );
    } else if !args.no_index {
        crate::index::run_index(&crate::index::IndexArgs {
            dir: cfg.out.clone(),
            jobs: Some(cfg.jobs),
            shard: None,
        })?;
    }
    Ok(())
}

/// Runs `fabula check`.
pub fn run_check(args: &CheckArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let mut report = fabula_check::check_dir(&args.dir, jobs)
        .with_context(|| format!("checking {}", args.dir.display()))?;
    if args.deep {
        report
            .violations
            .extend(crate::deep::check(&args.dir, jobs)?);
        report.violations.sort();
    }
    let listed = if args.max_listed == 0 {
        report.violations.len()
    } else {
        args.max_listed
    };
    for v in report.violations.iter().take(listed) {
        println!("{v}");
    }
    if report.violations.len() > listed {
        println!("... and {} more", report.violations.len() - listed);
    }
    println!(
        "checked {} worlds, {} rows in {:.2} s: {} violations",
        report.worlds,
        report.rows,
        started.elapsed().as_secs_f64(),
        report.violations.len()
    );
    for (rule, n) in report.by_rule() {
        println!("  {rule:<24} {n}");
    }
    if !report.violations.is_empty() {
        bail!(
            "{} violations in {}",
            report.violations.len(),
            args.dir.display()
        );
    }
    if args.answerability {
        let addr = args.addr.as_deref().unwrap_or_default();
        let config = fabula_audit::AnswerabilityConfig::default();
        let report = fabula_audit::check_answerability(addr, &args.dir, &config)
            .context("checking answerability")?;
        print!("{}", report.to_text());
        if report.fraction() < 1.0 {
            bail!(
                "{} of {} gold values are not reachable through {addr}",
                report.values - report.found,
                report.values
            );
        }
    }
    Ok(())
}
