//! The error type of fabula-export and its `Result` alias.

use std::path::PathBuf;

/// Everything that can go wrong while exporting a dataset.
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
    /// A manifest, world file or task could not be read.
    #[error(transparent)]
    File(#[from] fabula_file::Error),
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
