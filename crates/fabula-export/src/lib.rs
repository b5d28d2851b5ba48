//! Exports of a generated fabula dataset, for trainers and benchmarks outside fabula.
//!
//! [`export`] writes a split's tasks (read by `fabula_file::read_dataset_tasks`, split by a stable hash of
//! the world id) as fabula JSONL, WideSearch tasks with gold CSVs, Search-R1 records or verl
//! parquet ([`verl`]), each with the difficulty tier its world file stores, and the pages
//! as a retrieval corpus.
//!
//! World files are read only through `fabula_file::WorldFile`.

mod error;
pub mod export;
pub mod verl;

pub use error::{Error, Result};
pub use export::{CorpusSummary, ExportConfig, ExportSummary, Format, export_corpus, export_tasks};
