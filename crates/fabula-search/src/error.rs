//! The crate's error type: user errors (unknown world or url, bad arguments) kept apart from
//! internal ones (unreadable files, broken world files, unusable persisted indexes, index
//! failures), and a display of an error with its causes for the log.

use std::path::PathBuf;

/// Everything that can go wrong while opening, searching or extracting.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No world with this id is listed in the manifest.
    #[error("world {0} not found")]
    WorldNotFound(u32),
    /// The world has no page with this url.
    #[error("url not found: {0}")]
    UrlNotFound(String),
    /// The query cannot be run. Plain query text never causes this: any string is searchable.
    #[error("bad query: {0}")]
    BadQuery(String),
    /// An argument other than the query text is out of range (top_k, max_chars).
    #[error("bad argument: {0}")]
    BadArgument(String),
    /// A world file or the manifest could not be opened or read, or breaks the format.
    #[error("cannot read the dataset")]
    File(#[from] fabula_file::Error),
    /// A world file was read but breaks the contract (for example over 4 GiB of page text).
    #[error("invalid world file {path}: {reason}")]
    BadWorld { path: PathBuf, reason: String },
    /// The manifest was read but breaks the contract (see `fabula_file::Manifest::validate`: an
    /// unknown format, a count that does not match the worlds listed, an id listed twice, a file
    /// outside the dataset directory, a malformed hash).
    #[error("invalid manifest {path}: {reason}")]
    BadManifest { path: PathBuf, reason: String },
    /// A listed world that cannot be served: its file was missing, unreadable, not the file the
    /// manifest hashes, not a world file, or another world's. Found at the world's first use and
    /// kept for the corpus's lifetime; `reason` is short and names no path (the log has the rest).
    #[error("world {id} is unavailable: {reason}")]
    WorldUnavailable { id: u32, reason: String },
    /// The dataset's passage index could not be opened or built; kept for the corpus's
    /// lifetime. `reason` is short and names no path (the log has the rest).
    #[error("the passage index is unavailable: {0}")]
    PassagesUnavailable(String),
    /// An invariant of this crate broke; a bug, not a caller's mistake.
    #[error("internal error: {0}")]
    Internal(String),
    /// Tantivy failed while building or querying an index.
    #[error("search index error")]
    Index(#[from] tantivy::TantivyError),
    /// A persisted index could not be read or written (a missing one is of kind `NotFound`).
    #[error("cannot access the index file {path}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A persisted index was written for another world file or index format version. Indexes
    /// are a cache: the world is indexed again from its file.
    #[error("stale index file {path}: {reason}")]
    StaleIndex { path: PathBuf, reason: String },
    /// A persisted index is damaged (truncated, a bad checksum, tables that do not fit). Indexes
    /// are a cache: the world is indexed again from its file.
    #[error("corrupt index file {path}: {reason}")]
    CorruptIndex { path: PathBuf, reason: String },
}

impl Error {
    /// Whether the caller caused this error (unknown id or url, bad argument), as opposed to a
    /// broken file or an internal failure. The server maps the first to 4xx, the second to 5xx.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::WorldNotFound(_)
                | Error::UrlNotFound(_)
                | Error::BadQuery(_)
                | Error::BadArgument(_)
        )
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Displays an error with its chain of sources (`error: cause: cause`), for the log.
pub struct ErrorChain<'a>(pub &'a dyn std::error::Error);

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}
