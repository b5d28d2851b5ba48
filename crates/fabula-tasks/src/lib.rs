//! Tasks for fabula worlds: building them, and what their answers mean.
//!
//! [`build_tasks`] turns a world and its rendered pages into questions with gold answers:
//! `lookup`, `multi_hop`, `compare`, `aggregate`, `temporal`, `identify` (short answers) and
//! WideSearch-style `table` tasks. Each task stores a read-only SQL query over the world's domain tables that
//! recomputes its answer and a list of evidence pages that state it; [`answer`] says what a query
//! result means as an answer and which values a page must state, for the answerability check
//! (`fabula check`, crate `fabula-check`, derives the same rules on its own); `fabula-dataset`
//! calls [`build_tasks`] for each world it generates.
//! [`phrasings`] holds the question bank, which the baseline agents of `fabula-agent` read too;
//! it, [`answer`], [`clues`], [`blurred`] and [`difficulty`] live in `fabula-vocab`, so the
//! agents and the audit link no generator; exports live in `fabula-export`, the audit and the
//! answerability check in `fabula-audit`.
//!
//! # The SQL convention
//!
//! A task's `sql` is one read-only `SELECT`; cells read as text (integers as plain digits, NULL
//! as the empty string). For a string answer, the first column of every result row holds the
//! answer (so all rows agree); any further columns hold the values the answer is computed from,
//! each of which an evidence page must state. For a table answer, each result row is one gold
//! row with its cells in the gold column order; rows compare as a set.

mod build;

pub use build::build_tasks;
pub use fabula_vocab::difficulty::{Features, Tier};
pub use fabula_vocab::phrasing_id;
/// The task vocabulary the builder writes with, which the agents and the audit read:
/// `fabula-vocab`'s.
pub use fabula_vocab::{answer, blurred, clues, difficulty, phrasings};

/// The fewest tasks a world may have.
pub const MIN_TASKS: usize = 60;

/// The fewest table tasks a world may have.
pub const MIN_TABLE_TASKS: usize = 5;

/// A version string that changes whenever the task builder or its phrasings change.
pub fn version() -> String {
    format!("tasks-{:08x}+b3", phrasings::fingerprint())
}
