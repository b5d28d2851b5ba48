//! Per-world BM25 search over a world's pages, with snippet hiding, and page extraction.
//!
//! A world file is read through `fabula_file::WorldFile`, always read-only: its pages (Markdown
//! with a title, a kind and an optional date), the facts each page states (`shown` text and value
//! kind) and the world's name.
//!
//! [`WorldIndex::open`] reads one world's pages into a compact store and indexes titles and
//! bodies with tantivy in a single segment, all in memory (about 18 ms for a world of 800 pages).
//! [`Corpus`] holds all worlds listed in a directory's `manifest.json`, checked at open, and
//! persists each world's index as one file, `DIR/index/<world file stem>.fidx`, keyed by the
//! world file's SHA-256 as the manifest states it and [`INDEX_FORMAT_VERSION`]. A world's first
//! use maps that file ([`WorldIndex::open_persisted`], well under a millisecond); when it is
//! missing, stale or damaged, the world file is checked against the manifest (hash, world id) and
//! indexed again, once even when many requests ask at the same moment, and the index is written.
//! The world file stays the single source of truth: an index is a cache, and deleting
//! `DIR/index/` loses nothing. At most [`CorpusOptions::max_open_worlds`] worlds are open at
//! once, least recently used first out; a world whose file fails its checks is kept as
//! unavailable.
//!
//! Searching ([`WorldIndex::search`]) treats the query as plain text, ranks pages with BM25 (a
//! title match counts twice), breaks score ties by url, and writes each hit's snippet at the
//! requested [`Hiding`] level:
//!
//! - [`Hiding::None`]: the best-matching passage of the page's plain text (see [`plain_text`]),
//!   about 200 characters cut at word boundaries and marked with `…` where cut.
//! - [`Hiding::Partial`]: the same passage with every value of kind number, year, date or entity
//!   that the world file's provenance lists for the page replaced by `…`, and any word containing a digit
//!   too, so the snippet teases and the page must be opened to learn the value.
//! - [`Hiding::Strict`]: a generic one-line description by page kind, such as
//!   "An encyclopedia article about Kest." or "A news report from kest-herald.fab.".
//!
//! Extraction ([`WorldIndex::extract`]) returns windows of the page's whole Markdown, paginated
//! by characters. Snippets are cut from `plain_text` of that same Markdown, so a snippet's text
//! (less its `…` marks) is always found in the extracted page once its Markdown is stripped.
//!
//! Memory and speed: a world keeps its Markdown bodies and the first 2 KiB of each page's plain
//! text LZ4-compressed against a per-world dictionary, the positions of hidden values rather than
//! the values, and a tantivy index of titles and bodies with term frequencies but no positions and
//! no stored fields. BM25 scores are summed straight from the postings into one array per query
//! (equal to tantivy's boolean OR of boosted term queries) and every match is ranked, so ties are
//! cut by url even at a page boundary.

mod analyzer;
mod bundle;
mod corpus;
mod error;
mod index;
mod lz4;
mod passage_index;
mod passages;
mod slice_dir;
mod snippet;
mod store;
mod text;
mod world;

pub use bundle::{INDEX_FORMAT_VERSION, IndexKey};
pub use corpus::{
    Corpus, CorpusOptions, DEFAULT_MAX_OPEN_WORLDS, IndexHealth, IndexState, WorldInfo, index_path,
};
pub use error::{Error, ErrorChain, Result};
pub use fabula_file::Hiding;
pub use passage_index::{PASSAGE_FORMAT_VERSION, PassageBuild};
pub use text::plain_text;
pub use world::{BuiltIndex, MAX_TOP_K, WorldIndex};

/// Options of one search call.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Results per page, 1..=50.
    pub top_k: usize,
    /// Number of results to skip (page * top_k).
    pub offset: usize,
    pub hiding: Hiding,
}

impl SearchOptions {
    /// The first page of results as an agent gets it by default: 10 results, partially hidden.
    pub const FIRST_PAGE: SearchOptions = SearchOptions {
        top_k: 10,
        offset: 0,
        hiding: Hiding::Partial,
    };
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// 1-based rank over the whole result list (offset + position + 1).
    pub rank: usize,
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// The page's `published` date, None for reference pages.
    pub date: Option<String>,
    pub score: f32,
}

/// One passage that [`Corpus::retrieve`] found: about 100 words of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The page's url and the passage's number in the page: `URL#pN`, N from 0.
    pub id: String,
    /// The world the page belongs to.
    pub world: u32,
    pub url: String,
    pub title: String,
    /// The passage at the requested hiding level (strict gives the page's one-line description).
    pub text: String,
    pub score: f32,
}

/// The results of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    pub hits: Vec<Hit>,
    /// Whether more results exist after this page.
    pub has_more: bool,
}

/// A window of one page's Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct Extract {
    pub url: String,
    pub title: String,
    pub date: Option<String>,
    /// `max_chars` characters (not bytes) of the page starting at character `start`.
    pub content: String,
    /// Where the next window starts; None at the end of the page.
    pub next_start: Option<usize>,
    /// The page's whole length in characters.
    pub total_chars: usize,
}

impl Default for SearchOptions {
    /// Ten results from the first, with partial hiding.
    fn default() -> SearchOptions {
        SearchOptions {
            top_k: 10,
            offset: 0,
            hiding: Hiding::Partial,
        }
    }
}
