//! World generation for fabula: naming languages, relational rows and the world file, drawn from
//! the themes of `fabula-vocab` (re-exported as [`theme`]).
//!
//! A world is a small relational database of 300 to 500 rows drawn from one theme (an island
//! nation, a sports league, ...). [`generate_world`] builds the typed model from a master seed and a
//! world id; [`write_world`] writes it, with the pages and tasks that later stages render from it,
//! into one self-describing SQLite file; `fabula_dataset` generates many worlds into a directory
//! with a manifest, crash-safely and deterministically; [`inspect`] prints a readable overview of
//! one file. `fabula check` lives in its own crate, `fabula-check`, and never calls the generator.
//!
//! Every random choice flows from [`seed::rng`], a ChaCha RNG keyed by (master seed, world id,
//! purpose), so the same inputs give byte-identical files whatever the thread count.

pub mod blocklist;
mod error;
mod generate;
pub mod inspect;
pub mod model;
pub mod naming;
pub mod schema;
pub mod seed;
mod write;

/// The themes worlds are drawn from, which the agents read too: `fabula-vocab`'s.
pub use fabula_vocab::theme;

pub use error::{Error, Result};
pub use generate::generate_world;
pub use model::World;
pub use write::write_world;

/// Version of the world file layout, which `fabula-file` owns.
pub use fabula_file::FORMAT_VERSION;

/// Version of the generator. Bumped when the same seed would give different worlds.
pub const GENERATOR_VERSION: &str = concat!("fabula-world/", env!("CARGO_PKG_VERSION"), "+g3");
