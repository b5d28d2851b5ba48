//! The vocabulary the generator writes with and the agents read with, so that an agent, the audit
//! and the checks depend on the world file (`fabula-file`) and this crate, never on the generator
//! (`fabula-world`, `fabula-pages`, `fabula-tasks`).
//!
//! - [`theme`]: the compiled-in themes (`templates/themes/*.toml`): their entity shapes, nouns,
//!   verbs and broader fields;
//! - [`english`]: the indefinite article, verb agreement and grouped counts every page and
//!   question uses;
//! - [`banks`]: the page phrase banks (`templates/pages/phrases.toml`) and [`read_stated`], which
//!   reads a value back out of a page's prose by its infobox label;
//! - [`phrasings`]: the question bank (`templates/tasks/questions.toml`) and the reverse mapping
//!   from a question to the phrasing and named values it was written from;
//! - [`clues`] and [`blurred`]: the clues of identify and frontier questions, written and parsed
//!   back by the same code;
//! - [`answer`]: what a task's SQL result means as an answer and which values a page must state;
//! - [`difficulty`]: a task's measured difficulty features and the tier they give.
//!
//! The generator re-exports these modules where they used to live (`fabula_world::theme`,
//! `fabula_tasks::phrasings`, ...), so its own code reads as before.

pub mod answer;
pub mod banks;
pub mod blurred;
pub mod clues;
pub mod difficulty;
pub mod english;
mod error;
pub mod phrasings;
pub mod theme;

pub use banks::read_stated;
pub use error::{Error, Result};
pub use phrasings::phrasing_id;

/// The 32-bit FNV-1a hash of `texts` read one after another: a fingerprint of compiled-in files
/// that is stable across platforms and Rust versions, for the generator's version strings.
pub fn fnv1a<'a>(texts: impl IntoIterator<Item = &'a str>) -> u32 {
    texts
        .into_iter()
        .flat_map(str::bytes)
        .fold(0x811c_9dc5, |hash, b| {
            (hash ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a_matches_the_published_vectors() {
        assert_eq!(super::fnv1a([]), 0x811c_9dc5);
        assert_eq!(super::fnv1a(["a"]), 0xe40c_292c);
        assert_eq!(super::fnv1a(["foo", "bar"]), super::fnv1a(["foobar"]));
        assert_eq!(super::fnv1a(["foobar"]), 0xbf9c_f968);
    }
}
