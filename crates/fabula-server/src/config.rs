//! How to serve: the worlds directory, the address, the API key, the bounds on sessions and
//! blocking work, the renderer and the hosts the MCP endpoint accepts.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use crate::lwm::LwmOptions;
use crate::session_store::{DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_LOG_LIMIT};

/// How to serve.
#[derive(Clone)]
pub struct ServeConfig {
    /// The directory holding `manifest.json` and the world files.
    pub worlds: PathBuf,
    /// Where to listen; default `127.0.0.1:8080`. Port 0 picks a free port.
    pub addr: SocketAddr,
    /// When set, requests other than `GET /health` need `Authorization: Bearer KEY`.
    pub api_key: Option<String>,
    /// The most sessions kept in memory; the least recently used is evicted beyond it.
    pub max_sessions: usize,
    /// The most log entries kept per session; the oldest are forgotten beyond it.
    pub session_log_limit: usize,
    /// The most searches and extracts running at once on blocking threads; default four per
    /// core.
    pub max_blocking_calls: usize,
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
            api_key: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_log_limit: DEFAULT_SESSION_LOG_LIMIT,
            max_blocking_calls: 4 * std::thread::available_parallelism().map_or(2, usize::from),
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
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_sessions", &self.max_sessions)
            .field("session_log_limit", &self.session_log_limit)
            .field("max_blocking_calls", &self.max_blocking_calls)
            .field("lwm", &self.lwm)
            .field("mcp_allowed_hosts", &self.mcp_allowed_hosts)
            .finish()
    }
}

/// The `Host` values the MCP endpoint accepts by default: loopback only.
pub fn default_allowed_hosts() -> Vec<String> {
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
}
