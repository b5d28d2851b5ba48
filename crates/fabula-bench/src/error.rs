//! The error type of fabula-bench and its `Result` alias.

use std::path::PathBuf;

/// Everything that can go wrong while reading a dataset, exporting it or talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something impossible; the message says what.
    #[error("{0}")]
    BadInput(String),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A manifest or world file could not be read.
    #[error(transparent)]
    File(#[from] fabula_file::Error),
    /// A world's search index could not be opened or searched (`fabula audit`).
    #[error(transparent)]
    Search(#[from] fabula_search::Error),
    /// The audit could not run; the message says why.
    #[error("audit: {0}")]
    Audit(String),
    /// A stored task holds JSON that does not parse.
    #[error("task {task}: invalid JSON: {source}")]
    TaskJson {
        task: String,
        source: serde_json::Error,
    },
    /// A stored task's SQL does not run; the message says why.
    #[error("task {task}: {message}")]
    TaskSql { task: String, message: String },
    /// The server could not be reached, or the connection broke.
    #[error("http {addr}: {source}")]
    Connection {
        addr: String,
        source: std::io::Error,
    },
    /// The request failed in the HTTP client: a timeout, or a response that is not HTTP.
    #[error("http {addr}: {source}")]
    Http {
        addr: String,
        source: Box<ureq::Error>,
    },
    /// The server answered 2xx with a body that is not JSON.
    #[error("http {addr}: malformed response: {message}")]
    Protocol { addr: String, message: String },
    /// The server answered with an error status.
    #[error("http {addr}: status {status}: {body}")]
    Status {
        addr: String,
        status: u16,
        body: String,
    },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
