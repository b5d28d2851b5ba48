//! The world file's error type.

use std::path::PathBuf;

/// An error reading or writing a world file or a manifest.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A stored value that the format does not allow, named by table, row and column.
    #[error("{path}: {table} row {row}: {reason}")]
    BadValue {
        path: PathBuf,
        table: &'static str,
        row: String,
        reason: String,
    },
    /// A split name that is not `train`, `dev`, `test` or `all`.
    #[error("unknown split `{0}` (known: train, dev, test, all)")]
    UnknownSplit(String),
    /// A task's stored answer or evidence is not the JSON it should be.
    #[error("task {task}: invalid JSON: {source}")]
    TaskJson {
        task: String,
        source: serde_json::Error,
    },
    /// A world file or manifest that breaks the format as a whole.
    #[error("{path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
}

/// The world file's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
