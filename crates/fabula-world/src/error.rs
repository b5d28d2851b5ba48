//! The error type of world generation, writing and checking.

use std::path::PathBuf;

/// Everything that can go wrong while generating, writing or reading worlds.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A theme that no theme file defines, or one that does not parse.
    #[error(transparent)]
    Theme(#[from] fabula_vocab::Error),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// SQLite refused an operation.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A JSON document (the manifest) does not parse.
    #[error("{path}: invalid JSON: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A world file lacks something every world file has.
    #[error("{path}: not a fabula world file: {message}")]
    NotAWorld { path: PathBuf, message: String },
    /// Another error of the world file's crate (a split name, a task's stored JSON).
    #[error(transparent)]
    File(fabula_file::Error),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<fabula_file::Error> for Error {
    /// Keeps the I/O and JSON errors of reading a manifest as they were; a world file that breaks
    /// the format is not a world.
    fn from(e: fabula_file::Error) -> Error {
        match e {
            fabula_file::Error::Io { path, source } => Error::Io { path, source },
            fabula_file::Error::Json { path, source } => Error::Json { path, source },
            fabula_file::Error::Sqlite { source, .. } => Error::Sqlite(source),
            fabula_file::Error::BadValue {
                path,
                table,
                row,
                reason,
            } => Error::NotAWorld {
                path,
                message: format!("{table} row {row}: {reason}"),
            },
            fabula_file::Error::BadFile { path, reason } => Error::NotAWorld {
                path,
                message: reason,
            },
            other @ (fabula_file::Error::UnknownSplit(_) | fabula_file::Error::TaskJson { .. }) => {
                Error::File(other)
            }
        }
    }
}
