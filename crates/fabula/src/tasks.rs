//! `fabula tasks export`, `fabula corpus export`, `fabula eval` and `fabula baseline`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use fabula_agent::AgentConfig;
use fabula_export::{ExportConfig, Format};
use fabula_file::Split;
use fabula_file::Tier;
use fabula_score::{EvalReport, widesearch};

/// `fabula tasks ...`.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// Export tasks with gold answers: jsonl, widesearch (JSONL plus gold CSVs and a Hugging
    /// Face copy in data/), searchr1 (JSONL, or parquet when --out ends in .parquet) or verl
    /// (parquet for verl's RLHFDataset).
    Export(TasksExportArgs),
}

#[derive(Debug, Args)]
pub struct TasksExportArgs {
    /// The dataset directory.
    #[arg(long, default_value = "worlds/default")]
    pub worlds: PathBuf,
    /// The task file format.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: Format,
    /// The worlds' split (by a stable hash of the world id, 80/10/10), or all of them.
    #[arg(long, value_enum, default_value = "all")]
    pub split: Split,
    /// The output file (`.parquet` for verl, and for searchr1 as parquet).
    #[arg(long)]
    pub out: PathBuf,
    /// Only tasks of this difficulty tier, as the world file stores it; every record carries its
    /// tier either way.
    #[arg(long, value_enum)]
    pub tier: Option<Tier>,
}

/// `fabula corpus ...`.
#[derive(Debug, Subcommand)]
pub enum CorpusCommand {
    /// Export every page as JSONL (id, world, url, title, contents) for offline retrievers.
    Export {
        #[arg(long, default_value = "worlds/default")]
        worlds: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
}

/// Arguments of `fabula eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Tasks as JSONL: fabula's (`tasks export --format jsonl`) or WideSearch's (`tasks export
    /// --format widesearch`, or WideSearch's own), told apart by the first record.
    #[arg(long, required_unless_present = "blind")]
    pub tasks: Option<PathBuf>,
    /// WideSearch gold CSVs, `{instance_id}.csv` (default: `widesearch_gold/` beside --tasks).
    #[arg(long)]
    pub gold_dir: Option<PathBuf>,
    /// Predictions as JSONL, {"task_id", "answer"} or WideSearch's {"instance_id", "response"},
    /// one line per attempt; or a directory whose `*.jsonl` files are all read (WideSearch's
    /// response root).
    #[arg(long, required_unless_present = "blind")]
    pub predictions: Option<PathBuf>,
    /// Score the blind baseline instead: the most common answer per kind and phrasing in the
    /// train split, on the test split of --worlds; then the cheap guessers of `fabula audit`
    /// (most common answer, random entity, first option) per kind and tier over every task.
    #[arg(long)]
    pub blind: bool,
    /// The dataset for --blind.
    #[arg(long, default_value = "worlds/default")]
    pub worlds: PathBuf,
    /// Worlds measured at once for --blind's tiers (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `fabula baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// The server, e.g. 127.0.0.1:8080.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Tasks as JSONL.
    #[arg(long)]
    pub tasks: PathBuf,
    /// Where to write the predictions (JSONL).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Bearer key, when the server needs one.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// `rules` (the baseline, which knows every template) or `keyword` (a generic keyword agent
    /// that knows none).
    #[arg(long, value_enum, default_value = "rules")]
    pub agent: fabula_audit::AuditAgent,
}

/// Arguments of `fabula audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// A dataset directory (its indexes are used when present, built in memory otherwise).
    pub dir: PathBuf,
    /// A server of the same dataset, e.g. 127.0.0.1:8080: also run the baseline agent.
    #[arg(long)]
    pub addr: Option<String>,
    /// Bearer key, when the server needs one.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Worlds measured at once (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// The agent `--addr` runs: `rules` (the baseline, which knows every template) or `keyword`
    /// (a generic keyword agent that knows none).
    #[arg(long, value_enum, default_value = "rules")]
    pub agent: fabula_audit::AuditAgent,
}

/// Runs `fabula audit`.
pub fn run_audit(args: &AuditArgs) -> anyhow::Result<()> {
    let mut config = fabula_audit::AuditConfig {
        addr: args.addr.clone(),
        agent_kind: args.agent,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        ..fabula_audit::AuditConfig::default()
    };
    config.agent.client.api_key = args.api_key.clone();
    let report = fabula_audit::audit(&args.dir, &config)
        .with_context(|| format!("auditing {}", args.dir.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", fabula_audit::render_audit(&report));
        println!();
        print!("{}", fabula_audit::render_search_space(&report));
    }
    Ok(())
}

/// Runs `fabula tasks export`.
pub fn run_tasks(command: &TasksCommand) -> anyhow::Result<()> {
    let TasksCommand::Export(args) = command;
    let config = ExportConfig {
        worlds: args.worlds.clone(),
        format: args.format,
        split: args.split,
        out: args.out.clone(),
        tier: args.tier,
    };
    let summary = fabula_export::export_tasks(&config)
        .with_context(|| format!("exporting tasks of {}", args.worlds.display()))?;
    eprintln!(
        "exported {} tasks of {} worlds ({} gold files) -> {}",
        summary.records,
        summary.worlds,
        summary.gold_files,
        args.out.display()
    );
    Ok(())
}

/// Runs `fabula corpus export`.
pub fn run_corpus(command: &CorpusCommand) -> anyhow::Result<()> {
    let CorpusCommand::Export { worlds, out } = command;
    let summary = fabula_export::export_corpus(worlds, out)
        .with_context(|| format!("exporting pages of {}", worlds.display()))?;
    eprintln!(
        "exported {} pages of {} worlds -> {}",
        summary.pages,
        summary.worlds,
        out.display()
    );
    Ok(())
}

fn print_report(report: &EvalReport, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}

/// Runs `fabula eval`.
pub fn run_eval(args: &EvalArgs) -> anyhow::Result<()> {
    if args.blind {
        return run_blind(args);
    }
    let (Some(tasks), Some(predictions)) = (&args.tasks, &args.predictions) else {
        bail!("--tasks and --predictions are required unless --blind");
    };
    let tasks = widesearch::read_task_file(tasks, args.gold_dir.as_deref())?;
    let predictions = widesearch::read_prediction_files(predictions)?;
    print_report(&fabula_score::evaluate(&tasks, &predictions), args.json)
}

/// Runs `fabula eval --blind`: the most common train answer scored on the test split, then every
/// cheap guesser per kind and tier (the tiers the world files store).
fn run_blind(args: &EvalArgs) -> anyhow::Result<()> {
    let train = fabula_audit::load_tasks(&args.worlds, Split::Train)?;
    let test = fabula_audit::load_tasks(&args.worlds, Split::Test)?;
    if train.is_empty() || test.is_empty() {
        bail!(
            "{} has no train or no test worlds; generate more worlds",
            args.worlds.display()
        );
    }
    let predictions = fabula_audit::blind_baseline(&train, &test);
    let report = fabula_score::evaluate(&test, &predictions);
    let config = fabula_audit::AuditConfig {
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        ..fabula_audit::AuditConfig::default()
    };
    let guessers = fabula_audit::audit(&args.worlds, &config)
        .with_context(|| format!("measuring the tiers of {}", args.worlds.display()))?;
    if args.json {
        let both = serde_json::json!({ "test_split": report, "guessers": guessers });
        println!("{}", serde_json::to_string_pretty(&both)?);
    } else {
        println!(
            "blind baseline (most common train answer): {} train tasks, {} test tasks",
            train.len(),
            test.len()
        );
        print!("{}", report.to_text());
        println!("\ncheap guessers per kind and tier, every task:");
        print!("{}", fabula_audit::render_guessers(&guessers));
    }
    Ok(())
}

/// Runs `fabula baseline`: the rule-based agent (or the keyword agent) over the agent-facing
/// API, then its scores.
pub fn run_baseline(args: &BaselineArgs) -> anyhow::Result<()> {
    let tasks = fabula_score::read_tasks(&args.tasks)?;
    let mut config = AgentConfig::default();
    config.client.api_key = args.api_key.clone();
    let predictions = match args.agent {
        fabula_audit::AuditAgent::Rules => fabula_agent::run_baseline(&args.addr, &tasks, &config),
        fabula_audit::AuditAgent::Keyword => {
            fabula_agent::keyword::run_keyword(&args.addr, &tasks, &config)
        }
    }
    .context("running the baseline agent")?;
    if let Some(out) = &args.out {
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(out).with_context(|| out.display().to_string())?,
        );
        for p in &predictions {
            writeln!(file, "{}", serde_json::to_string(p)?)?;
        }
        file.flush()?;
    }
    print_report(&fabula_score::evaluate(&tasks, &predictions), args.json)
}
