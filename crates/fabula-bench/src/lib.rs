//! Benchmark tools for a generated fabula dataset: everything that uses a dataset from outside.
//!
//! [`dataset`] reads a dataset's tasks, split by a stable hash of the world id ([`split_of`]);
//! [`load_tasks`] reads a split's tasks in fabula-score's shape. [`export`] writes them as
//! fabula JSONL, WideSearch tasks with gold CSVs, Search-R1 records or verl parquet ([`verl`]),
//! each with its difficulty tier, and the pages as a retrieval corpus.
//! [`blind_baseline`] answers without searching, to show tasks are not guessable;
//! [`run_baseline`] is a rule-based agent over the server's REST API, [`keyword`] a generic
//! keyword agent that knows no template, and
//! [`check_answerability`] confirms through that API that every gold value can be read. [`http`]
//! is the small JSON client both use.
//!
//! World files are read only through `fabula_file::WorldFile`; the task rules the answerability
//! check shares with `fabula check` (which values a task requires, when a text states one) come
//! from `fabula_tasks::check`, and the phrasing bank from `fabula_tasks::phrasings`.

pub mod agent;
pub mod answerable;
pub mod audit;
pub mod blind;
pub mod dataset;
mod error;
pub mod export;
pub mod http;
pub mod keyword;
pub mod verl;

pub use agent::{AgentConfig, run_baseline, run_baseline_counted};
pub use answerable::{AnswerabilityConfig, AnswerabilityReport, check_answerability};
pub use audit::{
    AuditAgent, AuditConfig, AuditReport, AuditRow, audit, render_audit, render_guessers,
    render_search_space,
};
pub use blind::blind_baseline;
pub use dataset::{Split, load_tasks, split_of};
pub use error::{Error, Result};
pub use export::{CorpusSummary, ExportConfig, ExportSummary, Format, export_corpus, export_tasks};
