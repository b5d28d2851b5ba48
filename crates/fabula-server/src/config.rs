//! How to serve: the worlds directory, the address, the API keys, the bounds on sessions, logs
//! and blocking work, the HTTP timeouts, the renderer and the hosts the MCP endpoint accepts.
//! Every bound is a field here and a flag of `fabula serve`.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use crate::lwm::LwmOptions;

/// Sessions kept in memory when the config does not say.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// Log entries kept per session when the config does not say.
pub const DEFAULT_SESSION_LOG_LIMIT: usize = 1_000;

/// How to serve.
#[derive(Clone)]
pub struct ServeConfig {
    /// The directory holding `manifest.json` and the world files.
    pub worlds: PathBuf,
    /// Where to listen; default `127.0.0.1:8080`. Port 0 picks a free port.
    pub addr: SocketAddr,
    /// When not empty, requests other than `GET /health` need `Authorization: Bearer KEY` with
    /// one of these keys; a session belongs to the key that created it.
    pub api_keys: Vec<String>,
    /// The most REST sessions kept in memory. At the cap, sessions idle past `session_ttl` are
    /// dropped to make room; when none is, creating one answers 429 `too_many_sessions`.
    pub max_sessions: usize,
    /// How long a REST session may sit unused before it may be dropped.
    pub session_ttl: Duration,
    /// The most log entries kept per session; the oldest are forgotten beyond it.
    pub session_log_limit: usize,
    /// The most bytes of log kept per session; the oldest entries are forgotten beyond it.
    pub session_log_bytes: usize,
    /// The most bytes of log kept over all sessions together; beyond it new entries are
    /// counted but not kept.
    pub total_log_bytes: usize,
    /// The most MCP sessions (Streamable HTTP) kept at once; beyond it `initialize` answers 429.
    pub max_mcp_sessions: usize,
    /// How long an MCP session may sit idle before it is closed.
    pub mcp_session_ttl: Duration,
    /// How long a client may take to send a request's headers (also bounds idle keep-alive
    /// connections between requests).
    pub header_timeout: Duration,
    /// How long a request body may take to arrive; beyond it the answer is 408.
    pub body_timeout: Duration,
    /// The most a request may take from its headers to its answer; beyond it 503
    /// `deadline_exceeded`.
    pub request_timeout: Duration,
    /// On SIGTERM or SIGINT, how long requests in flight may take to finish before the server
    /// exits anyway.
    pub drain_timeout: Duration,
    /// The most searches and extracts running at once on blocking threads; default four per
    /// core.
    pub max_blocking_calls: usize,
    /// The most worlds held open at once; the least recently used is closed beyond it. A world
    /// with a persisted index reopens in well under a millisecond.
    pub max_open_worlds: usize,
    /// How often the world files are looked at again while serving (one `stat` each; a changed
    /// file is hashed against the manifest, and its world made unavailable when it fails). The
    /// first look, at start, hashes every file.
    pub world_check_interval: Duration,
    /// Whether an index built on first use (its persisted one missing or stale) is written to
    /// `DIR/index/` for the next start; a failure to write is logged and ignored.
    pub write_indexes: bool,
    /// The hiding `/retrieve` applies to its passages when a request names none; default none,
    /// as Search-R1's Wikipedia passages are whole.
    pub retrieve_hiding: fabula_search::Hiding,
    /// Render observations with this language world model; None (the default) uses templates.
    pub lwm: Option<LwmOptions>,
    /// The `Host` header values `/mcp/{world}` accepts (names or `name:port`); `"*"` accepts
    /// any. Default loopback only: `localhost`, `127.0.0.1`, `::1`.
    pub mcp_allowed_hosts: Vec<String>,
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig {
            worlds: PathBuf::from("worlds"),
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 8080)),
            api_keys: Vec::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_ttl: Duration::from_secs(3600),
            session_log_limit: DEFAULT_SESSION_LOG_LIMIT,
            session_log_bytes: 1 << 20,
            total_log_bytes: 64 << 20,
            max_mcp_sessions: 1024,
            mcp_session_ttl: Duration::from_secs(300),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(120),
            drain_timeout: Duration::from_secs(30),
            max_blocking_calls: 4 * std::thread::available_parallelism().map_or(2, usize::from),
            max_open_worlds: fabula_search::DEFAULT_MAX_OPEN_WORLDS,
            world_check_interval: Duration::from_secs(10),
            write_indexes: true,
            retrieve_hiding: fabula_search::Hiding::None,
            lwm: None,
            mcp_allowed_hosts: default_allowed_hosts(),
        }
    }
}

impl std::fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key itself is never printed, so configs can be logged.
        f.debug_struct("ServeConfig")
            .field("worlds", &self.worlds)
            .field("addr", &self.addr)
            .field("api_keys", &self.api_keys.len())
            .field("max_sessions", &self.max_sessions)
            .field("session_ttl", &self.session_ttl)
            .field("session_log_limit", &self.session_log_limit)
            .field("session_log_bytes", &self.session_log_bytes)
            .field("total_log_bytes", &self.total_log_bytes)
            .field("max_mcp_sessions", &self.max_mcp_sessions)
            .field("mcp_session_ttl", &self.mcp_session_ttl)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("drain_timeout", &self.drain_timeout)
            .field("max_blocking_calls", &self.max_blocking_calls)
            .field("max_open_worlds", &self.max_open_worlds)
            .field("world_check_interval", &self.world_check_interval)
            .field("write_indexes", &self.write_indexes)
            .field("retrieve_hiding", &self.retrieve_hiding)
            .field("lwm", &self.lwm)
            .field("mcp_allowed_hosts", &self.mcp_allowed_hosts)
            .finish()
    }
}

/// The `Host` values the MCP endpoint accepts by default: loopback only.
pub fn default_allowed_hosts() -> Vec<String> {
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
}
