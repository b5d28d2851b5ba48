//! `fabula bench search`, `soak` and `browse`: their flags, mapped onto `fabula_load`, which runs
//! them; and the in-process listeners that `bench browse` measures.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, ensure};
use clap::{Args, ValueEnum};
use fabula_load::server::Launch;
use fabula_load::{browse, loadgen, search, soak};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::serve::runtime;

/// Arguments of `fabula bench search`.
#[derive(Debug, Args)]
pub struct BenchSearchArgs {
    /// A running server to load, e.g. 127.0.0.1:8080 or http://127.0.0.1:8080.
    #[arg(long, default_value = "127.0.0.1:8080", conflicts_with = "worlds")]
    pub addr: String,
    /// Start a fresh `fabula serve` of this dataset on a free port instead, report how soon it
    /// answers /health ("ready"), and stop it with SIGTERM at the end.
    #[arg(long)]
    pub worlds: Option<PathBuf>,
    /// One more argument for the started `fabula serve` (repeat), e.g.
    /// `--server-arg=--request-timeout=5s`.
    #[arg(
        long = "server-arg",
        allow_hyphen_values = true,
        requires = "worlds",
        conflicts_with = "addr"
    )]
    pub server_args: Vec<String>,
    /// Concurrent keep-alive connections, the same in every phase.
    #[arg(long, default_value_t = 32)]
    pub connections: usize,
    /// Seconds of the cold phase: load from the start, no warm-up (0 skips it).
    #[arg(long, default_value_t = 10.0)]
    pub cold: f64,
    /// Seconds of the warm phase, once every world has been searched at least once.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Seconds of the ceiling phase: GET /health on the same connections (0 skips it).
    #[arg(long, default_value_t = 5.0)]
    pub ceiling: f64,
    /// Seed of the random worlds and queries.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Snippet hiding level asked for.
    #[arg(long, value_enum, default_value = "partial")]
    pub hiding: fabula_file::Hiding,
    /// Results per query.
    #[arg(long, default_value_t = 10)]
    pub top_k: usize,
    /// Bearer key, when the server needs one (a started server reads the same variable).
    #[arg(long, env = "FABULA_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Print the whole report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The load a soak run sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scenario {
    /// Search, extract, REST sessions and MCP sessions mixed, for `--duration`.
    Mix,
    /// `--calls` MCP `initialize` calls that never close their sessions.
    McpFlood,
    /// `--calls` searches of one REST session, each of 100 queries of 200 characters.
    LogFlood,
}

/// Arguments of `fabula bench soak`.
#[derive(Debug, Args)]
pub struct SoakArgs {
    /// The dataset the started server serves.
    #[arg(long, default_value = "worlds/default")]
    pub worlds: PathBuf,
    /// Attach to a running server at this address instead of starting one.
    #[arg(long)]
    pub addr: Option<String>,
    /// The attached server's process id, to sample its RSS.
    #[arg(long, requires = "addr")]
    pub pid: Option<u32>,
    /// One more argument for the started `fabula serve` (repeat), e.g.
    /// `--server-arg=--mcp-session-ttl=5s`.
    #[arg(
        long = "server-arg",
        allow_hyphen_values = true,
        conflicts_with = "addr"
    )]
    pub server_args: Vec<String>,
    #[arg(long, value_enum, default_value = "mix")]
    pub scenario: Scenario,
    /// Concurrent keep-alive connections.
    #[arg(long, default_value_t = 256)]
    pub connections: usize,
    /// How long the `mix` scenario runs (e.g. 10m, 30s).
    #[arg(long, default_value = "10m", value_parser = humantime::parse_duration)]
    pub duration: Duration,
    /// Calls of a flood scenario.
    #[arg(long, default_value_t = 100_000)]
    pub calls: u64,
    /// How long to keep sampling RSS after the load (e.g. the session TTL plus a margin).
    #[arg(long, default_value = "0s", value_parser = humantime::parse_duration)]
    pub after: Duration,
    /// The settling time: RSS must stay within 10% of its figure at this point of the load.
    #[arg(long, default_value = "1m", value_parser = humantime::parse_duration)]
    pub settle: Duration,
    /// The `error_rate` of the `mix` scenario's REST and MCP sessions.
    #[arg(long, default_value_t = 0.05)]
    pub error_rate: f64,
    /// How long the benchmark waits for one answer before counting a real error.
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// Seed of the random worlds, queries and sessions.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bearer key, when the server needs one (a started server reads the same variable).
    #[arg(long, env = "FABULA_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Print the report as JSON (with every RSS sample) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `fabula bench browse`.
#[derive(Debug, Args)]
pub struct BenchBrowseArgs {
    /// The dataset directory, with its indexes (`fabula index DIR` writes them).
    #[arg(long)]
    pub worlds: PathBuf,
    /// Requests per view.
    #[arg(long, default_value_t = 50)]
    pub requests: usize,
    /// Seed of the worlds, pages, rows, tasks and sessions asked for.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `fabula bench search`: a cold, a warm and a ceiling phase against a running server
/// (`--addr`) or one it starts (`--worlds`).
pub fn run_bench_search(args: &BenchSearchArgs) -> anyhow::Result<()> {
    let target = match &args.worlds {
        Some(worlds) => search::Target::Start(launch(worlds, &args.server_args)?),
        None => search::Target::Running(loadgen::parse_addr(&args.addr)?),
    };
    let config = loadgen::LoadConfig {
        connections: args.connections,
        cold: seconds(args.cold, "--cold")?,
        duration: seconds(args.duration, "--duration")?,
        ceiling: seconds(args.ceiling, "--ceiling")?,
        seed: args.seed,
        hiding: args.hiding.to_string(),
        top_k: args.top_k,
        api_key: args.api_key.clone(),
        ..Default::default()
    };
    let report = search::run(&target, config, &runtime()?)?;
    print_report(&report, args.json)
}

/// A length in seconds from the command line: finite and not negative.
fn seconds(value: f64, flag: &str) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| anyhow::anyhow!("{flag} must be a number of seconds, not {value}"))
}

/// Runs `fabula bench soak`.
pub fn run_soak(args: &SoakArgs) -> anyhow::Result<()> {
    let target = match &args.addr {
        Some(addr) => soak::Target::Attach {
            addr: loadgen::parse_addr(addr)?,
            pid: args.pid,
        },
        None => soak::Target::Start(launch(&args.worlds, &args.server_args)?),
    };
    let config = soak::SoakConfig {
        target,
        scenario: match args.scenario {
            Scenario::Mix => soak::Scenario::Mix,
            Scenario::McpFlood => soak::Scenario::McpFlood,
            Scenario::LogFlood => soak::Scenario::LogFlood,
        },
        connections: args.connections,
        duration: args.duration,
        calls: args.calls,
        after: args.after,
        settle: args.settle,
        error_rate: args.error_rate,
        timeout: args.timeout,
        seed: args.seed,
        api_key: args.api_key.clone(),
    };
    print_report(&soak::run(&config)?, args.json)
}

/// Runs `fabula bench browse`: serves the dataset in this process, prints the report, and fails
/// when any request failed.
pub fn run_bench_browse(args: &BenchBrowseArgs) -> anyhow::Result<()> {
    ensure!(args.requests > 0, "--requests must be at least 1");
    let plan = browse::plan(&args.worlds, args.requests, args.seed)?;
    let report = runtime()?.block_on(async {
        let servers = Servers::start(&args.worlds).await?;
        let measured = browse::measure(&servers.listeners, &plan).await;
        let stopped = servers.stop().await;
        let report = measured?;
        stopped?;
        anyhow::Ok(report)
    })?;
    print_report(&report, args.json)?;
    ensure!(
        report.failed_requests == 0,
        "{} requests did not answer 200 with text/html",
        report.failed_requests
    );
    Ok(())
}

/// Prints a report as pretty JSON or as its text.
fn print_report(report: &(impl Serialize + std::fmt::Display), json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}

/// How a bench starts `fabula serve`: this same binary.
fn launch(worlds: &Path, server_args: &[String]) -> anyhow::Result<Launch> {
    Ok(Launch {
        exe: std::env::current_exe().context("finding the fabula binary")?,
        worlds: worlds.to_path_buf(),
        server_args: server_args.to_vec(),
    })
}

/// The two listeners `bench browse` measures, served in this process.
struct Servers {
    listeners: browse::Listeners,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<anyhow::Result<()>>>,
}

impl Servers {
    /// Serves `worlds` as `fabula serve` does with an admin listener, both on free ports.
    async fn start(worlds: &Path) -> anyhow::Result<Servers> {
        let config = fabula_server::ServeConfig {
            worlds: worlds.to_path_buf(),
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            ..Default::default()
        };
        let server = fabula_server::bind(config)
            .await
            .with_context(|| format!("serving {}", worlds.display()))?;
        let state = server.state().clone();
        let server = crate::serve::with_every_suite(server);
        let token = random_token();
        let admin_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let admin = fabula_admin::bind(state, admin_addr, &token)
            .await
            .context("opening the admin listener")?;
        let (stop, stopped) = watch::channel(false);
        let listeners = browse::Listeners {
            agent: server.local_addr(),
            admin: admin.local_addr()?,
            token,
        };
        let agent_task = tokio::spawn(server.run_until(until(stopped.clone())));
        let admin_task = tokio::spawn(admin.run_until(until(stopped)));
        let tasks = vec![
            tokio::spawn(async move { Ok(agent_task.await??) }),
            tokio::spawn(async move { Ok(admin_task.await??) }),
        ];
        Ok(Servers {
            listeners,
            stop,
            tasks,
        })
    }

    /// Stops both listeners and waits for them to drain.
    async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(true);
        for task in self.tasks {
            task.await.context("a listener's task failed")??;
        }
        Ok(())
    }
}

/// Completes once `stopped` turns true (or its sender is gone).
async fn until(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// 32 hex digits from the system's randomness: the admin token of this run.
fn random_token() -> String {
    let mut rng: ChaCha8Rng = rand::make_rng();
    format!("{:032x}", rng.random::<u128>())
}
