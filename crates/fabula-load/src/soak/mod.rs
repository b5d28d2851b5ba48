//! `fabula bench soak`: proves the server survives long, mixed or hostile load. It starts
//! `fabula serve` itself on a free port (or attaches to a running server by address and process
//! id), samples the server's RSS every second, runs a scenario over keep-alive connections, keeps
//! sampling for `--after` once the load ends, stops the server with SIGTERM, and reports requests,
//! errors by kind (injected, 429 refusals, real), latency percentiles per operation and RSS over
//! time with a "flat within 10%" verdict.
//!
//! Scenarios:
//!
//! | scenario    | load                                                                       |
//! |-------------|----------------------------------------------------------------------------|
//! | `mix`       | `--connections` loops for `--duration`: native search and batch search, extract, REST session episodes and MCP episodes under controls injecting errors at `--error-rate` |
//! | `mcp-flood` | `--calls` MCP `initialize` calls, sessions never closed                     |
//! | `log-flood` | one REST session, `--calls` searches of 100 queries of 200 characters each |
//!
//! Memory of the benchmark itself is bounded: latencies go to fixed-size histograms, the RSS series
//! thins itself out, and only a few error examples and log lines are kept.

mod client;
mod flood;
mod mcp_client;
mod mix;
mod report;
mod tally;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use self::client::Client;
pub use self::report::SoakReport;
use self::report::{RssReport, RunFacts};
use self::tally::Tally;
use crate::loadgen::{self, Connection, LoadConfig};
use crate::rss::{Sample, Sampler, read_rss_kib};
use crate::server::{self, Launch, Server};
use crate::{Error, Result, ensure};

/// How long the server may take to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(60);
/// Seconds between progress lines on stderr.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// The load a soak run sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Search, extract, REST sessions and MCP sessions mixed, for `duration`.
    Mix,
    /// `calls` MCP `initialize` calls that never close their sessions.
    McpFlood,
    /// `calls` searches of one REST session, each of 100 queries of 200 characters.
    LogFlood,
}

impl Scenario {
    /// The name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Mix => "mix",
            Scenario::McpFlood => "mcp-flood",
            Scenario::LogFlood => "log-flood",
        }
    }
}

/// The server a soak run loads.
#[derive(Debug, Clone)]
pub enum Target {
    /// A running server at this address; its RSS is sampled when its process id is given.
    Attach { addr: SocketAddr, pid: Option<u32> },
    /// A fresh `fabula serve` that the run starts and stops.
    Start(Launch),
}

/// How to soak the server (the flags of `fabula bench soak`).
#[derive(Debug, Clone)]
pub struct SoakConfig {
    pub target: Target,
    pub scenario: Scenario,
    /// Concurrent keep-alive connections.
    pub connections: usize,
    /// How long the `mix` scenario runs.
    pub duration: Duration,
    /// Calls of a flood scenario.
    pub calls: u64,
    /// How long to keep sampling RSS after the load.
    pub after: Duration,
    /// RSS must stay within 10% of its figure at this point of the load.
    pub settle: Duration,
    /// The `error_rate` of the `mix` scenario's REST and MCP sessions.
    pub error_rate: f64,
    /// How long to wait for one answer before counting a real error.
    pub timeout: Duration,
    /// Seed of the random worlds, queries and sessions.
    pub seed: u64,
    /// Sent as `Authorization: Bearer KEY` when set.
    pub api_key: Option<String>,
}

/// What the load needs from the server before it starts.
struct Setup {
    addr: SocketAddr,
    worlds: Vec<u32>,
    vocabulary: Vec<String>,
}

/// Runs a soak: starts or attaches to the server, loads it, stops a started one, and reports.
pub fn run(config: &SoakConfig) -> Result<SoakReport> {
    ensure!(config.connections > 0, "--connections must be at least 1");
    ensure!(
        (0.0..=1.0).contains(&config.error_rate),
        "--error-rate must be within 0..=1"
    );
    let mut server = match &config.target {
        Target::Attach { addr, pid } => {
            let pid = pid.map(server::check_pid).transpose()?;
            Server::attach(*addr, pid)
        }
        Target::Start(launch) => Server::start(launch)?,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::io("starting the async runtime"))?;
    let measured = runtime.block_on(measure(config, &server));
    let mut notes = Vec::new();
    if let Some(status) = server.exited() {
        notes.push(format!("the server exited during the run: {status}"));
    }
    let exit = server.stop(STOP_GRACE)?;
    let (facts, tally, rss, mut run_notes) = measured?;
    notes.append(&mut run_notes);
    Ok(SoakReport::new(
        &facts,
        &tally,
        rss,
        (server.log(), exit),
        notes,
    ))
}

/// Samples RSS around the whole run: warm-up, load, and `--after`.
async fn measure(
    args: &SoakConfig,
    server: &Server,
) -> Result<(RunFacts, Arc<Tally>, RssReport, Vec<String>)> {
    let ready = Instant::now();
    let ready_kib = server.pid.and_then(read_rss_kib);
    let sampler = server.pid.map(|pid| Sampler::start(pid, ready));
    let setup = prepare(args, server.addr).await?;
    let warmup = ready.elapsed();
    let tally = Arc::new(Tally::default());
    let start_kib = server.pid.and_then(read_rss_kib);
    let load_start = Instant::now();
    let progress = tokio::spawn(progress(tally.clone(), server.pid, load_start));
    let (mut notes, probe) = run_scenario(args, &setup, &tally).await?;
    let load_s = load_start.elapsed().as_secs_f64();
    tokio::time::sleep(args.after).await;
    progress.abort();
    notes.extend(probe.run(setup.addr, args.api_key.clone()).await);
    let samples = match sampler {
        Some(sampler) => sampler.finish().await,
        None => {
            notes.push("RSS not sampled: attach with --pid to sample it".to_owned());
            Vec::new()
        }
    };
    let facts = RunFacts {
        scenario: args.scenario.name().to_owned(),
        connections: args.connections,
        load_s,
        after_s: args.after.as_secs_f64(),
        settle_s: args.settle.as_secs_f64(),
        error_rate: if args.scenario == Scenario::Mix {
            args.error_rate
        } else {
            0.0
        },
    };
    let samples = shift(samples, warmup.as_secs_f64());
    let rss = report::rss_report(samples, (ready_kib, start_kib), &facts);
    Ok((facts, tally, rss, notes))
}

/// Makes sample times count from the start of the load rather than from the server's readiness.
fn shift(samples: Vec<Sample>, by_s: f64) -> Vec<Sample> {
    samples
        .into_iter()
        .map(|sample| Sample {
            t_s: sample.t_s - by_s,
            ..sample
        })
        .collect()
}

/// Lists the worlds, collects words for queries, and warms every world's index (except for
/// `mcp-flood`, which searches nothing).
async fn prepare(args: &SoakConfig, addr: SocketAddr) -> Result<Setup> {
    let config = LoadConfig {
        addr,
        connections: args.connections,
        seed: args.seed,
        api_key: args.api_key.clone(),
        ..LoadConfig::default()
    };
    let mut control = Connection::open(addr, args.api_key.clone()).await?;
    let worlds = loadgen::pick_worlds(&mut control, &config).await?;
    if args.scenario == Scenario::McpFlood {
        return Ok(Setup {
            addr,
            worlds,
            vocabulary: Vec::new(),
        });
    }
    let vocabulary = loadgen::fetch_vocabulary(&mut control, &worlds, args.seed).await?;
    ensure!(!vocabulary.is_empty(), "no words to build queries from");
    loadgen::warm_up(&config, &worlds, &vocabulary[0]).await?;
    Ok(Setup {
        addr,
        worlds,
        vocabulary,
    })
}

/// Prints a progress line every ten seconds until aborted.
async fn progress(tally: Arc<Tally>, pid: Option<u32>, started: Instant) {
    let mut tick = tokio::time::interval_at((started + PROGRESS_EVERY).into(), PROGRESS_EVERY);
    loop {
        tick.tick().await;
        let [requests, _, injected, refused, real] = tally.totals();
        let rss = pid.and_then(read_rss_kib).map_or("-".to_owned(), |kib| {
            format!("{:.1} MiB", kib as f64 / 1024.0)
        });
        eprintln!(
            "soak: {:.0} s, {requests} requests, {injected} injected, {refused} refused, \
             {real} real errors, rss {rss}",
            started.elapsed().as_secs_f64()
        );
    }
}

fn client(args: &SoakConfig, setup: &Setup, tally: &Arc<Tally>) -> Client {
    Client::new(
        setup.addr,
        args.api_key.clone(),
        args.timeout,
        tally.clone(),
    )
}

/// Runs the chosen scenario to its end; returns notes for the report and what to ask the server
/// after the wait.
async fn run_scenario(
    args: &SoakConfig,
    setup: &Setup,
    tally: &Arc<Tally>,
) -> Result<(Vec<String>, flood::Probe)> {
    match args.scenario {
        Scenario::Mix => run_mix(args, setup, tally).await,
        Scenario::McpFlood => run_mcp_flood(args, setup, tally).await,
        Scenario::LogFlood => run_log_flood(args, setup, tally).await,
    }
}

/// Waits for every load task.
async fn join(tasks: Vec<tokio::task::JoinHandle<()>>) -> Result<()> {
    for task in tasks {
        task.await?;
    }
    Ok(())
}

/// The connections a flood uses: no more than its calls.
fn flood_connections(args: &SoakConfig) -> usize {
    args.connections
        .min(usize::try_from(args.calls.max(1)).unwrap_or(usize::MAX))
}

/// The mix: every connection loops over the weighted operations until the deadline.
async fn run_mix(
    args: &SoakConfig,
    setup: &Setup,
    tally: &Arc<Tally>,
) -> Result<(Vec<String>, flood::Probe)> {
    let plan = Arc::new(mix::MixPlan {
        worlds: setup.worlds.clone(),
        vocabulary: setup.vocabulary.clone(),
        seed: args.seed,
        error_rate: args.error_rate,
        deadline: Instant::now() + args.duration,
    });
    let tasks = (0..args.connections)
        .map(|idx| {
            let task = mix::run_task(plan.clone(), client(args, setup, tally), idx as u64);
            tokio::spawn(task)
        })
        .collect();
    join(tasks).await?;
    Ok((Vec::new(), flood::Probe::Nothing))
}

/// The MCP flood: `initialize` calls on the first world, sessions left open.
async fn run_mcp_flood(
    args: &SoakConfig,
    setup: &Setup,
    tally: &Arc<Tally>,
) -> Result<(Vec<String>, flood::Probe)> {
    let world = setup.worlds[0];
    let counter = Arc::new(flood::Counter::new(args.calls));
    let tasks = (0..flood_connections(args))
        .map(|_| {
            tokio::spawn(flood::mcp_task(
                client(args, setup, tally),
                counter.clone(),
                world,
            ))
        })
        .collect();
    join(tasks).await?;
    let notes = vec!["MCP sessions were left open for the server to cap and expire".to_owned()];
    Ok((notes, flood::Probe::McpInitialize { world }))
}

/// The log flood: one session, many connections writing to it, its log read at the end.
async fn run_log_flood(
    args: &SoakConfig,
    setup: &Setup,
    tally: &Arc<Tally>,
) -> Result<(Vec<String>, flood::Probe)> {
    let mut control = client(args, setup, tally);
    let session: Arc<str> = flood::create_session(&mut control, setup.worlds[0])
        .await?
        .into();
    let counter = Arc::new(flood::Counter::new(args.calls));
    let vocabulary: Arc<[String]> = setup.vocabulary.clone().into();
    let tasks = (0..flood_connections(args))
        .map(|idx| {
            let task = flood::log_task(
                client(args, setup, tally),
                counter.clone(),
                session.clone(),
                vocabulary.clone(),
                args.seed,
                idx as u64,
            );
            tokio::spawn(task)
        })
        .collect();
    join(tasks).await?;
    let notes = vec![
        flood::describe_log(&mut control, &session).await,
        "the session was left open for the server to expire".to_owned(),
    ];
    Ok((notes, flood::Probe::SessionLog { session }))
}
