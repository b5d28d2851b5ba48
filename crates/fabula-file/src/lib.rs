//! The fabula world file: one SQLite file per world, its schema, its typed rows, and the one
//! reader and writer that every crate goes through.
//!
//! A world file holds the domain tables of one world (STRICT, foreign keys declared) and six fixed
//! tables:
//!
//! | table | rows |
//! | --- | --- |
//! | `fabula_meta` | [`Meta`] as `(key, value)`, with the theme's [`Limits`] under `limit.*` keys |
//! | `fabula_tables`, `fabula_columns` | [`Table`] and [`Column`]: the role of each domain table and column |
//! | `fabula_pages` | [`Page`]s: Markdown with a [`PageKind`] and an optional date |
//! | `fabula_page_facts` | [`PageFact`]s: each cell a page states, with the exact text it uses |
//! | `fabula_tasks` | [`Task`]s with JSON gold answers, a SQL query that recomputes them, and a [`Tier`] |
//!
//! [`write_world`] writes a whole file in one transaction (only the generator and test fixtures
//! call it); [`WorldFile`] opens one read-only and returns typed rows. No other code runs SQL
//! against the `fabula_*` tables, so the schema lives here and nowhere else. The closed sets of
//! names the file stores (page kinds, value kinds, table and column roles, hiding levels) are the
//! enums of this crate. A dataset directory's [`Manifest`] lives here too.

mod error;
mod kinds;
mod limits;
mod manifest;
mod read;
mod roles;
mod rows;
mod split;
mod write;

pub use error::{Error, Result};
pub use kinds::{Hiding, PageKind, TaskKind, Tier, ValueKind};
pub use limits::{AgeRange, Limits};
pub use manifest::{
    MANIFEST, Manifest, ManifestEntry, parse_shard_manifest_name, read_manifest,
    read_manifest_file, sha256_file, shard_manifest_name, world_file_name,
};
pub use read::WorldFile;
pub use roles::{ColumnRole, SqlType, TableRole};
pub use rows::{
    Column, Effort, META_KEYS, Meta, Page, PageFact, PageHead, StoredPage, Table, Task, Value,
};
pub use split::{Split, WorldTasks, parse_json, read_dataset_tasks, split_of};
pub use write::{WorldContents, write_world};

/// Version of the world file layout. Bumped when a table or column changes meaning.
pub const FORMAT_VERSION: u32 = 5;
