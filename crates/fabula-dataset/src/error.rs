//! The error type of dataset runs.

use std::path::PathBuf;

/// Everything that can go wrong while generating a dataset or merging its shards.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something impossible; the message says what.
    #[error("{0}")]
    BadInput(String),
    /// The output directory holds worlds of another seed or generator version.
    #[error(
        "{dir} holds a manifest for seed {seed} and generator {version}; pass --force to replace it"
    )]
    ManifestMismatch {
        dir: PathBuf,
        seed: u64,
        version: String,
    },
    /// The shard manifests of a directory do not join into one dataset; the reason says why.
    #[error("cannot merge the shard manifests in {dir}: {reason}")]
    ShardMerge { dir: PathBuf, reason: String },
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Generating, writing or reading a world failed (its message as the world crate words it).
    #[error(transparent)]
    World(#[from] fabula_world::Error),
    /// Indexing a world's pages, searching them to measure its tasks' tiers, or writing the
    /// index failed.
    #[error("world {id}: {source}")]
    Index {
        id: u32,
        source: fabula_search::Error,
    },
    /// The thread that syncs, renames and journals finished worlds panicked; the worlds it had
    /// not finished are redone by the next run.
    #[error("the thread that finishes written worlds stopped unexpectedly")]
    FinisherStopped,
    /// The worker threads could not be started.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<fabula_file::Error> for Error {
    /// Reading a manifest or a world file fails as the world crate reports it.
    fn from(e: fabula_file::Error) -> Error {
        Error::World(e.into())
    }
}

impl From<fabula_vocab::Error> for Error {
    /// A theme that is unknown or does not parse fails as the world crate reports it.
    fn from(e: fabula_vocab::Error) -> Error {
        Error::World(e.into())
    }
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
