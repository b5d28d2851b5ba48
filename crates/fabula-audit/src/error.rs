//! The error type of fabula-audit and its `Result` alias.

/// Everything that can go wrong while reading a dataset, auditing it or checking it through a
/// server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A manifest, world file, split name or task's stored JSON could not be read.
    #[error(transparent)]
    File(#[from] fabula_file::Error),
    /// A world's search index could not be opened or searched (`fabula audit`).
    #[error(transparent)]
    Search(#[from] fabula_search::Error),
    /// The audit could not run; the message says why.
    #[error("audit: {0}")]
    Audit(String),
    /// A stored task's SQL does not run; the message says why.
    #[error("task {task}: {message}")]
    TaskSql { task: String, message: String },
    /// An agent or the answerability check could not talk to the server.
    #[error(transparent)]
    Agent(#[from] fabula_agent::Error),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
