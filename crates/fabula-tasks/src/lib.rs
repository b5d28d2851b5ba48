//! Tasks for fabula worlds: building them, checking them, exporting them and running baselines.
//!
//! [`build_tasks`] turns a world and its rendered pages into questions with gold answers:
//! `lookup`, `multi_hop`, `compare`, `aggregate`, `temporal` (short answers) and WideSearch-style
//! `table` tasks. Each task stores a read-only SQL query over the world's domain tables that
//! recomputes its answer and a list of evidence pages that state it; [`TaskCheck`] verifies both
//! from the world file alone. [`FullRenderer`] plugs pages and tasks into dataset generation.
//!
//! [`export`] writes a dataset's tasks as fabula JSONL, WideSearch tasks with gold CSVs, or
//! Search-R1/verl records, and its pages as a retrieval corpus, split by a stable hash of the
//! world id. [`blind_baseline`] answers without searching, to show tasks are not guessable;
//! [`run_baseline`] is a rule-based agent over the server's REST API, and
//! [`check_answerability`] confirms through that API that every gold value can be read.
//!
//! # The SQL convention
//!
//! A task's `sql` is one read-only `SELECT`; cells read as text (integers as plain digits, NULL
//! as the empty string). For a string answer, the first column of every result row holds the
//! answer (so all rows agree); any further columns hold the values the answer is computed from,
//! each of which an evidence page must state. For a table answer, each result row is one gold
//! row with its cells in the gold column order; rows compare as a set.

pub mod agent;
pub mod answerable;
pub mod blind;
mod build;
pub mod check;
mod error;
pub mod export;
pub mod http;
pub mod phrasings;

use fabula_world::World;
use fabula_world::dataset::Renderer;
use fabula_world::records::{PageRecord, TaskRecord};

pub use agent::{AgentConfig, run_baseline};
pub use answerable::{AnswerabilityConfig, AnswerabilityReport, check_answerability};
pub use blind::blind_baseline;
pub use build::build_tasks;
pub use check::TaskCheck;
pub use error::{Error, Result};
pub use export::{
    ExportConfig, ExportSummary, Format, Split, export_corpus, export_tasks, load_tasks, split_of,
};
pub use phrasings::phrasing_id;

/// The task kinds, as stored in `fabula_tasks.kind`.
pub const TASK_KINDS: &[&str] = &[
    "lookup",
    "multi_hop",
    "compare",
    "aggregate",
    "temporal",
    "table",
];

/// The fewest short-answer tasks a world may have.
pub const MIN_SHORT_TASKS: usize = 20;

/// The fewest table tasks a world may have.
pub const MIN_TABLE_TASKS: usize = 3;

/// A version string that changes whenever the task builder or its phrasings change.
pub fn version() -> String {
    format!("tasks-{:08x}+b1", phrasings::fingerprint())
}

/// Renders pages with `fabula_pages` and then builds tasks from them.
pub struct FullRenderer;

impl Renderer for FullRenderer {
    fn version(&self) -> String {
        format!("{}+{}", fabula_pages::version(), version())
    }

    fn render(&self, world: &World) -> (Vec<PageRecord>, Vec<TaskRecord>) {
        let pages = fabula_pages::render_pages(world);
        let tasks = build_tasks(world, &pages);
        (pages, tasks)
    }
}
