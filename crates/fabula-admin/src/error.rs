//! The crate's error type for starting and running the admin listener.

use std::net::SocketAddr;

/// Why the admin listener could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the admin listener needs a non-empty token")]
    MissingToken,
    #[error("cannot bind the admin listener to {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
