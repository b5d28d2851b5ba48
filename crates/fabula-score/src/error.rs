//! The error type of fabula-score and its `Result` alias.
//!
//! Scoring itself never fails: a malformed prediction scores zero and is recorded as a
//! [`crate::ScoreIssue`]. Errors are kept for the inputs that a benchmark builder owns: a gold
//! answer that does not parse, and task or prediction files that cannot be read.

use std::path::PathBuf;

/// Everything that can go wrong in fabula-score.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A gold answer is not a string, a list of strings or a well-formed table.
    #[error("invalid gold answer: {0}")]
    InvalidGold(String),
    /// A task or prediction file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// One line of a JSONL file is not a valid record.
    #[error("{path}:{line}: {message}")]
    MalformedLine {
        /// The file holding the line.
        path: PathBuf,
        /// The line number, counted from 1.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
}

/// The `Result` type of fabula-score.
pub type Result<T, E = Error> = std::result::Result<T, E>;
