//! The crate's error type for everything outside a single HTTP request: opening worlds, loading
//! the world model, binding the socket and serving.

use std::net::SocketAddr;

/// Why the server could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The worlds directory could not be opened as a corpus.
    #[error("cannot open the worlds")]
    Corpus(#[from] fabula_search::Error),
    /// The listening socket could not be bound.
    #[error("cannot bind {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// An I/O error while serving.
    #[error("I/O error")]
    Io(#[from] std::io::Error),
    /// The language world model could not be loaded.
    #[error("cannot load the world model")]
    Lwm(#[from] fabula_lwm::Error),
    /// A world file's pages could not be read for the world model.
    #[error("{path}: cannot read the world's pages: {message}")]
    WorldFile {
        path: std::path::PathBuf,
        message: String,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
