//! `fabula serve` and `fabula up`: the search service.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use crate::generate::{GenerateArgs, run_generate_with};

/// Arguments of `fabula serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The dataset directory (holding manifest.json).
    #[arg(long, default_value = "worlds/default")]
    pub worlds: PathBuf,
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Require `Authorization: Bearer KEY` on every route but /health (repeat, or separate with
    /// commas, for several keys; a session belongs to the key that made it). At least 16
    /// characters. Prefer the environment variable: a flag shows in `ps`.
    #[arg(
        long,
        env = "FABULA_API_KEY",
        hide_env_values = true,
        value_delimiter = ',',
        value_parser = parse_secret
    )]
    pub api_key: Vec<String>,
    /// Also open the trainers' listener (gold answers and scoring) on this address.
    #[arg(long, requires = "admin_token")]
    pub admin_addr: Option<SocketAddr>,
    /// The token the trainers' listener requires (`Authorization: Bearer TOKEN`).
    /// At least 16 characters.
    #[arg(long, env = "FABULA_ADMIN_TOKEN", hide_env_values = true, value_parser = parse_secret)]
    pub admin_token: Option<String>,
    /// The `Host` values the MCP endpoint `/mcp/{world}` accepts, comma-separated (names or
    /// name:port); `*` accepts any. Default loopback only.
    #[arg(long, value_delimiter = ',', default_value = "localhost,127.0.0.1,::1")]
    pub mcp_allowed_hosts: Vec<String>,
    /// The hiding `/retrieve` applies to its passages when a request names none: none (whole
    /// passages, as Search-R1's Wikipedia server), partial or strict.
    #[arg(long, value_enum, default_value = "none")]
    pub retrieve_hiding: fabula_search::Hiding,
    /// Which renderer writes search and extract observations (`lwm` needs --model).
    #[arg(long, value_enum, default_value = "template")]
    pub renderer: crate::wm::RendererName,
    #[command(flatten)]
    pub lwm: crate::wm::ModelArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The bounds and timeouts of `fabula serve`; every one has a default that holds memory and
/// connections bounded.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// The most REST sessions kept; at the cap, sessions idle past --session-ttl make room, and
    /// when none is idle, creating one answers 429 `too_many_sessions`.
    #[arg(long, default_value_t = 10_000)]
    pub max_sessions: usize,
    /// How long a REST session may sit unused before it may be dropped (e.g. 1h, 90s).
    #[arg(long, default_value = "1h", value_parser = humantime::parse_duration)]
    pub session_ttl: Duration,
    /// The most log entries kept per session.
    #[arg(long, default_value_t = 1_000)]
    pub session_log_limit: usize,
    /// The most bytes of log kept per session.
    #[arg(long, default_value_t = 1 << 20)]
    pub session_log_bytes: usize,
    /// The most bytes of log kept over all sessions together.
    #[arg(long, default_value_t = 64 << 20)]
    pub total_log_bytes: usize,
    /// The most MCP sessions kept at once; beyond it `initialize` answers 429.
    #[arg(long, default_value_t = 1024)]
    pub max_mcp_sessions: usize,
    /// How long an MCP session may sit idle before it is closed.
    #[arg(long, default_value = "5m", value_parser = humantime::parse_duration)]
    pub mcp_session_ttl: Duration,
    /// How long a client may take to send a request's headers; also closes idle keep-alive
    /// connections.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub header_timeout: Duration,
    /// How long a request body may take to arrive (beyond it: 408).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub body_timeout: Duration,
    /// The most one request may take (beyond it: 503 `deadline_exceeded`).
    #[arg(long, default_value = "120s", value_parser = humantime::parse_duration)]
    pub request_timeout: Duration,
    /// On SIGTERM or SIGINT, how long requests in flight may take to finish.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub drain_timeout: Duration,
    /// The most worlds held open at once; the least recently used closes beyond it (a world with
    /// a persisted index, see `fabula index`, reopens in well under a millisecond).
    #[arg(long, default_value_t = fabula_search::DEFAULT_MAX_OPEN_WORLDS)]
    pub max_open_worlds: usize,
    /// Do not write the indexes built on first use to DIR/index/ (for a read-only dataset).
    #[arg(long)]
    pub no_index_writes: bool,
    /// How often every world file is looked at again (one stat each; a changed file is hashed
    /// against the manifest and its world made unavailable when it fails). At start every file
    /// is hashed, in the background; a world asked for first is checked right then.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub world_check_interval: Duration,
}

/// The shortest API key or admin token accepted.
const MIN_SECRET_CHARS: usize = 16;

fn parse_secret(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.chars().count() < MIN_SECRET_CHARS {
        return Err(format!(
            "a key or token needs at least {MIN_SECRET_CHARS} characters (this one has {})",
            text.chars().count()
        ));
    }
    Ok(text.to_owned())
}

/// Arguments of `fabula up`.
#[derive(Debug, Args)]
pub struct UpArgs {
    #[command(flatten)]
    pub serve: ServeArgs,
    /// Number of worlds to generate when they are absent.
    #[arg(long, default_value_t = 1000)]
    pub count: u32,
    /// Master seed of the generated worlds.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The log filter when `FABULA_LOG` is not set: rmcp logs every MCP session's creation, its
/// client's whole `initialize` parameters and every notification at INFO, so it speaks only from
/// WARN; fabula's own debug line names the client, truncated.
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn";

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("FABULA_LOG")
        .unwrap_or_else(|_| DEFAULT_LOG_FILTER.into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn serve_config(args: &ServeArgs) -> fabula_server::ServeConfig {
    let limits = &args.limits;
    fabula_server::ServeConfig {
        worlds: args.worlds.clone(),
        addr: args.addr,
        api_keys: args.api_key.clone(),
        mcp_allowed_hosts: args.mcp_allowed_hosts.clone(),
        max_sessions: limits.max_sessions,
        session_ttl: limits.session_ttl,
        session_log_limit: limits.session_log_limit,
        session_log_bytes: limits.session_log_bytes,
        total_log_bytes: limits.total_log_bytes,
        max_mcp_sessions: limits.max_mcp_sessions,
        mcp_session_ttl: limits.mcp_session_ttl,
        header_timeout: limits.header_timeout,
        body_timeout: limits.body_timeout,
        request_timeout: limits.request_timeout,
        drain_timeout: limits.drain_timeout,
        max_open_worlds: limits.max_open_worlds.max(1),
        write_indexes: !limits.no_index_writes,
        world_check_interval: limits.world_check_interval,
        retrieve_hiding: args.retrieve_hiding,
        ..Default::default()
    }
}

/// Lets the allocator hand freed memory back to the system on its own, in the background.
///
/// Measured with `fabula bench soak --scenario mcp-flood --calls 100000` (1,024 MCP sessions
/// held, then expired after a 30 s TTL): with glibc's allocator RSS went from 12 to 71 MiB and was
/// still 66 MiB after every session had expired; the freed pages stayed in its arenas.
fn return_freed_memory() {
    #[cfg(all(unix, not(target_env = "musl")))]
    if let Err(error) = tikv_jemalloc_ctl::background_thread::write(true) {
        eprintln!("fabula: cannot start jemalloc's background purging: {error}");
    }
}

/// The server with every protocol crate mounted beside the native API: the compatibility shapes
/// (Search-R1, ASearcher, Tavily), the MCP tool sets and the world browser's pages.
pub fn with_every_suite(server: fabula_server::BoundServer) -> fabula_server::BoundServer {
    let state = server.state().clone();
    let browse = fabula_browse::Browse::agent(state.clone());
    server
        .with_suite(fabula_compat::suite(&state))
        .with_suite(fabula_mcp::suite(&state))
        .with_suite(fabula_server::Suite::routes(
            browse.mount(axum::Router::new()),
        ))
}

/// Runs `fabula serve`.
pub fn run_serve(args: &ServeArgs) -> anyhow::Result<()> {
    init_logging();
    return_freed_memory();
    let mut config = serve_config(args);
    config.lwm = crate::wm::serve_lwm(args.renderer, &args.lwm)?;
    runtime()?.block_on(async move {
        let started = std::time::Instant::now();
        let server = fabula_server::bind(config)
            .await
            .with_context(|| format!("serving {}", args.worlds.display()))?;
        let server = with_every_suite(server);
        eprintln!(
            "fabula: serving {} on http://{} (ready in {:.2} s; Ctrl-C or SIGTERM stops)",
            args.worlds.display(),
            server.local_addr(),
            started.elapsed().as_secs_f64()
        );
        eprintln!(
            "fabula: browse the worlds at http://{}/",
            server.local_addr()
        );
        let shutdown = tokio::sync::watch::channel(false);
        let mut admin_task = None;
        if let (Some(addr), Some(token)) = (args.admin_addr, args.admin_token.as_deref()) {
            // The trainers' listener answers from the same state: one corpus, one renderer.
            let admin = fabula_admin::bind(server.state().clone(), addr, token)
                .await
                .context("opening the admin listener")?;
            eprintln!(
                "fabula: admin listener (gold answers, scoring) on http://{}",
                admin.local_addr()?
            );
            eprintln!(
                "fabula: browse tasks, tiers and sessions at http://{}/ (any user name, the admin token as password)",
                admin.local_addr()?
            );
            let mut stop = shutdown.1.clone();
            admin_task = Some(tokio::spawn(admin.run_until(async move {
                let _ = stop.changed().await;
            })));
        }
        server
            .run_until(async move {
                fabula_server::edge::shutdown_signal().await;
                let _ = shutdown.0.send(true);
            })
            .await?;
        if let Some(task) = admin_task {
            task.await.context("admin listener")??;
        }
        Ok(())
    })
}

/// Runs `fabula up`: generate the worlds if they are absent or invalid, write their missing
/// indexes, then serve them.
pub fn run_up(args: &UpArgs) -> anyhow::Result<()> {
    let generate = GenerateArgs {
        count: args.count,
        seed: args.seed,
        out: args.serve.worlds.clone(),
        jobs: None,
        shard: None,
        // `up` owns its directory: worlds of an older version or another seed are replaced.
        force: true,
        themes: Vec::new(),
        // `generate` writes the indexes too.
        no_index: false,
    };
    run_generate_with(&generate)?;
    run_serve(&args.serve)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    /// Parses `fabula serve ARGS`; the error's text when clap refuses them.
    fn parse(args: &[&str]) -> Result<ServeArgs, String> {
        let argv = std::iter::once("serve").chain(args.iter().copied());
        Cli::try_parse_from(argv)
            .map(|cli| cli.serve)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn keys_and_tokens_need_sixteen_characters() {
        let short = parse(&["--api-key", "sekret"]).unwrap_err();
        assert!(short.contains("at least 16 characters"), "{short}");
        let short = parse(&["--admin-addr", "127.0.0.1:0", "--admin-token", "tok"]).unwrap_err();
        assert!(short.contains("at least 16 characters"), "{short}");
        let keys = parse(&["--api-key", "0123456789abcdef,fedcba9876543210"]).unwrap();
        assert_eq!(keys.api_key, ["0123456789abcdef", "fedcba9876543210"]);
        let mixed = parse(&["--api-key", "0123456789abcdef,short"]).unwrap_err();
        assert!(mixed.contains("at least 16 characters"), "{mixed}");
    }

    #[test]
    fn limits_parse_human_durations_into_the_config() {
        let args = parse(&[
            "--session-ttl",
            "90s",
            "--mcp-session-ttl",
            "2m",
            "--header-timeout",
            "500ms",
            "--max-mcp-sessions",
            "7",
        ])
        .unwrap();
        let config = serve_config(&args);
        assert_eq!(config.session_ttl, Duration::from_secs(90));
        assert_eq!(config.mcp_session_ttl, Duration::from_secs(120));
        assert_eq!(config.header_timeout, Duration::from_millis(500));
        assert_eq!(config.max_mcp_sessions, 7);
        assert_eq!(config.drain_timeout, Duration::from_secs(30));
        assert!(parse(&["--body-timeout", "soon"]).is_err());
    }
}
