//! The world browser: read-only HTML views of a dataset, its worlds, pages and rows, and (on
//! the trainers' listener only) its tasks and sessions.
//!
//! Server-rendered: minijinja templates from `templates/browse/`, SVG charts and the entity
//! graph drawn in Rust, no JavaScript; every page works with the keyboard alone. [`Browse`]
//! mounts the same routes on either listener:
//!
//! | route | view | listener |
//! | --- | --- | --- |
//! | `/`, `/ui/` | the dataset: worlds with theme, name and sizes, `?theme=` filter, `?page=` | both (admin: with tiers and plots) |
//! | `/ui/worlds/{id}` | a world: entity graph, tables and rows, timeline | both (admin: with its tasks) |
//! | `/ui/worlds/{id}/page?url=URL` | a page, its stated cells marked and linked to their rows | both |
//! | `/ui/worlds/{id}/rows/{table}/{row}` | a row: cells, the pages that state each, rows that refer to it | both |
//! | `/ui/worlds/{id}/search?q=Q&hiding=H` | what an agent's search returns: results, snippets, hiding | both |
//! | `/ui/worlds/{id}/tasks/{task}` | a task: question, gold answer, evidence path, what searching it returns, difficulty features | admin |
//! | `/ui/sessions`, `/ui/sessions/{sid}` | live sessions; one session's calls, results and opened pages | admin |
//!
//! No route writes anything. World files are read through `fabula_file::WorldFile` after the
//! server has checked the world against the manifest; the agent listener's views never read
//! tasks. Errors are HTML pages with 400, 404, 503 or 500.

mod admin;
mod error;
mod graph;
mod markdown;
mod plot;
mod routes;
mod templates;
mod timeline;
mod views;
mod world;

pub use crate::error::{Error, Result};
pub use crate::routes::Browse;
pub use crate::views::{DatasetQuery, percent_encode};
