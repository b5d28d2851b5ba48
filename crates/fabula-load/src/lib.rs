//! The load tester of fabula servers, the library behind three `fabula bench` commands:
//!
//! - `search` (`fabula bench search`): a cold, a warm and a ceiling phase of search load over
//!   keep-alive connections, with requests/s and latency percentiles per phase;
//! - `soak` (`fabula bench soak`): long, mixed or hostile load with errors by kind, latency per
//!   operation and the server's resident memory over time;
//! - `browse` (`fabula bench browse`): the latency of every world-browser view, one request at a
//!   time, against listeners the caller serves.
//!
//! Shared pieces: `loadgen` (hyper connections, the load's settings, query words), `histogram`
//! (latency percentiles through `hdrhistogram`), `rss` (a process's resident memory through
//! `sysinfo`) and `server` (a `fabula serve` child process started and stopped by a bench). It is a
//! client of the server's HTTP API only: it links no generator crate and no server crate, and reads
//! world files (for the browse plan) through `fabula-file` alone.

pub mod browse;
mod histogram;
pub mod loadgen;
mod rss;
pub mod search;
pub mod server;
pub mod soak;

use std::net::SocketAddr;

/// What can go wrong while a bench runs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A TCP connection to the server could not be opened.
    #[error("cannot connect to {addr}")]
    Connect {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// An HTTP exchange failed (the connection closed, a malformed answer).
    #[error(transparent)]
    Http(#[from] hyper::Error),
    /// A request could not be built.
    #[error(transparent)]
    Request(#[from] hyper::http::Error),
    /// A local operation failed (a process, a socket option, the runtime); `what` says which.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// An answer was not the JSON expected; `what` names the request.
    #[error("{what}")]
    Json {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    /// A world file or the dataset manifest could not be read; `what` says which.
    #[error("{what}")]
    File {
        what: String,
        #[source]
        source: fabula_file::Error,
    },
    /// A load task panicked or was cancelled.
    #[error("a load task failed")]
    Task(#[from] tokio::task::JoinError),
    /// A setting was out of range, or the server answered what the bench cannot go on from.
    #[error("{0}")]
    Failed(String),
}

/// The result of a bench.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An I/O error with what was being done.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }

    /// The message with its sources, as `anyhow` prints an error with `{:#}`: `outer: inner`.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            text = format!("{text}: {cause}");
            source = cause.source();
        }
        text
    }
}

/// Returns `Error::Failed` with a formatted message.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::Error::Failed(format!($($arg)*)))
    };
}

/// Returns `Error::Failed` with a formatted message unless the condition holds.
macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            $crate::bail!($($arg)*);
        }
    };
}

pub(crate) use {bail, ensure};
