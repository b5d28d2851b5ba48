//! The `fabula` command line: generate, check and inspect fictional worlds, and serve them.

mod bench;
mod deep;
mod generate;
mod index;
mod manifest;
mod mcp;
mod progress;
mod serve;
mod tasks;
mod wm;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// jemalloc rather than the system allocator, so that a server's memory goes back to the system
/// once the sessions that held it expire: [`serve`] turns on jemalloc's background threads,
/// which purge freed pages after a few seconds. glibc's allocator kept its peak (see
/// `serve::return_freed_memory`).
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// fabula: self-consistent fictional worlds served as a local web-search environment.
#[derive(Debug, Parser)]
#[command(name = "fabula", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate worlds into a directory (world files plus manifest.json).
    Generate(generate::GenerateArgs),
    /// Verify every world of a directory and list each violated rule.
    Check(generate::CheckArgs),
    /// Write each world's persisted search index (DIR/index/), so a server opens it at once.
    Index(index::IndexArgs),
    /// Dataset manifests: join the shard manifests of a sharded generation.
    #[command(subcommand)]
    Manifest(manifest::ManifestCommand),
    /// Serve a dataset as a local web-search API.
    Serve(serve::ServeArgs),
    /// Serve one world and one session as an MCP server over stdio.
    Mcp(mcp::McpArgs),
    /// Generate the default worlds if absent or invalid, then serve them.
    Up(serve::UpArgs),
    /// Measure a running server.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Export tasks with gold answers.
    #[command(subcommand)]
    Tasks(tasks::TasksCommand),
    /// Export the page corpus.
    #[command(subcommand)]
    Corpus(tasks::CorpusCommand),
    /// Score predictions against gold answers (WideSearch metrics for tables).
    Eval(tasks::EvalArgs),
    /// Run the rule-based baseline agent against a server's agent-facing API.
    Baseline(tasks::BaselineArgs),
    /// The difficulty ladder: per task kind and tier, pages needed, where answers show, guessers
    /// and (with --addr) the baseline agent.
    Audit(tasks::AuditArgs),
    /// Print one search or extract observation and which renderer produced it.
    Render(wm::RenderArgs),
    /// Language world model tools: a tiny checkpoint, a greedy generation, a render benchmark.
    #[command(subcommand)]
    Wm(wm::WmCommand),
    /// Export training data.
    #[command(subcommand)]
    Export(wm::ExportCommand),
    /// Print a readable overview of one world file.
    Inspect {
        /// A world file, e.g. worlds/default/world-00042.sqlite.
        file: PathBuf,
        /// Sample entities per kind.
        #[arg(long, default_value_t = 3)]
        samples: usize,
    },
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Load a server's search from 32 keep-alive connections: a cold phase, a warm phase and
    /// its /health ceiling.
    Search(bench::BenchSearchArgs),
    /// Soak or flood a server it starts (or attaches to) and report errors, latency and RSS.
    Soak(bench::SoakArgs),
    /// Serve a dataset in process and time every world-browser view, one request at a time.
    Browse(bench::BenchBrowseArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(args) => generate::run_generate(&args),
        Command::Check(args) => generate::run_check(&args),
        Command::Index(args) => index::run_index(&args),
        Command::Manifest(command) => manifest::run_manifest(&command),
        Command::Serve(args) => serve::run_serve(&args),
        Command::Mcp(args) => mcp::run_mcp(&args),
        Command::Tasks(command) => tasks::run_tasks(&command),
        Command::Corpus(command) => tasks::run_corpus(&command),
        Command::Eval(args) => tasks::run_eval(&args),
        Command::Baseline(args) => tasks::run_baseline(&args),
        Command::Audit(args) => tasks::run_audit(&args),
        Command::Up(args) => serve::run_up(&args),
        Command::Render(args) => wm::run_render(&args),
        Command::Wm(wm::WmCommand::Tiny(args)) => wm::run_tiny(&args),
        Command::Wm(wm::WmCommand::Generate(args)) => wm::run_generate(&args),
        Command::Wm(wm::WmCommand::Bench(args)) => wm::run_bench(&args),
        Command::Wm(wm::WmCommand::Score(args)) => wm::score::run_score(&args),
        Command::Export(wm::ExportCommand::LwmData(args)) => wm::run_export_lwm_data(&args),
        Command::Bench(BenchCommand::Search(args)) => bench::run_bench_search(&args),
        Command::Bench(BenchCommand::Soak(args)) => bench::run_soak(&args),
        Command::Bench(BenchCommand::Browse(args)) => bench::run_bench_browse(&args),
        Command::Inspect { file, samples } => fabula_world::inspect::inspect(&file, samples)
            .map(|text| print!("{text}"))
            .map_err(anyhow::Error::from),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
