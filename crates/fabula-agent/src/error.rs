//! The error type of fabula-agent and its `Result` alias.

/// Everything that can go wrong while talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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
