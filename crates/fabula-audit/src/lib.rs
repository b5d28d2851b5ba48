//! `fabula audit` and the checks of a dataset from outside: its difficulty ladder, the blind
//! guessers and the search space, and the answerability of every gold value.
//!
//! [`load_tasks`] reads a split's tasks (splits are `fabula_file`'s: a stable hash of the world
//! id) in fabula-score's shape. [`audit`](fn@audit) reports the ladder per
//! kind and the tier each world file stores, measures every task again (counting the stored
//! tiers that disagree), and runs the agents of `fabula-agent` when given a server. [`blind_baseline`] answers
//! without searching, to show tasks are not guessable; [`check_answerability`] confirms through
//! the server's API that every gold value can be read.
//!
//! World files are read only through `fabula_file::WorldFile`; the task rules the answerability
//! check shares with `fabula check` (which values a task requires, when a text states one) come
//! from `fabula_vocab::answer`, and the phrasing bank from `fabula_vocab::phrasings`.

pub mod answerable;
pub mod audit;
pub mod blind;
pub mod dataset;
mod error;

pub use answerable::{AnswerabilityConfig, AnswerabilityReport, check_answerability};
pub use audit::{
    AuditAgent, AuditConfig, AuditReport, AuditRow, audit, render_audit, render_guessers,
    render_search_space,
};
pub use blind::blind_baseline;
pub use dataset::load_tasks;
pub use error::{Error, Result};
