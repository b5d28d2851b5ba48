//! One world's searchable pages: reading them from the world file into a bundle's sections,
//! opening them from sections built in memory or mapped from a persisted index, ranking them for
//! a query, writing their snippets and extracting windows of their Markdown.

use std::path::{Path, PathBuf};

use fabula_file::{Page, PageKind, WorldFile};
use tantivy::tokenizer::TextAnalyzer;

use crate::analyzer::analyzer;
use crate::bundle::{self, Checksum, IndexKey, Problem, Sections};
use crate::error::ErrorChain;
use crate::index::{PageIndex, build_files, query_terms};
use crate::passages::{passage_ranges, passage_text};
use crate::slice_dir::SliceDirectory;
use crate::snippet::{
    Source, TermMatcher, best_window, content_start, describe, hidden_ranges, mask_ranges, render,
    scanned_prefix,
};
use crate::store::{PageStore, RawPage};
use crate::text::plain_text;
use crate::{Error, Extract, Hiding, Hit, Passage, Result, SearchOptions, SearchResults};

/// The most results one search call may ask for.
pub const MAX_TOP_K: usize = 50;

/// One world's pages and their BM25 index, built in memory from the world file or mapped from a
/// persisted index.
///
/// It is `Send + Sync`: any number of threads may search one world at once.
pub struct WorldIndex {
    path: PathBuf,
    name: Option<String>,
    store: PageStore,
    index: PageIndex,
    analyzer: TextAnalyzer,
}

impl std::fmt::Debug for WorldIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldIndex")
            .field("path", &self.path)
            .field("name", &self.name)
            .field("n_pages", &self.store.len())
            .finish_non_exhaustive()
    }
}

impl WorldIndex {
    /// Reads the pages and the facts they state from a world file (opened read-only) and indexes
    /// them in memory. Nothing is written; see [`crate::Corpus`] for persisted indexes.
    pub fn open(path: &Path) -> Result<WorldIndex> {
        let sections = build_sections(path)?;
        WorldIndex::from_sections(path, &sections).map_err(Error::Internal)
    }

    /// Opens a persisted index (written by [`crate::Corpus`]) by mapping its file, after checking
    /// its header against `key` and its checksum. The world file at `world_file` is not read;
    /// it is only what [`WorldIndex::path`] names.
    ///
    /// A missing file is [`Error::Io`] of kind `NotFound`; one written for another world file
    /// or format version is [`Error::StaleIndex`]; a damaged one is [`Error::CorruptIndex`].
    pub fn open_persisted(
        index_path: &Path,
        world_file: &Path,
        key: IndexKey<'_>,
    ) -> Result<WorldIndex> {
        WorldIndex::open_mapped(index_path, world_file, key, Checksum::Verify)
    }

    /// [`WorldIndex::open_persisted`], checking the bundle's checksum only when asked to.
    pub(crate) fn open_mapped(
        index_path: &Path,
        world_file: &Path,
        key: IndexKey<'_>,
        checksum: Checksum,
    ) -> Result<WorldIndex> {
        let path = index_path.to_owned();
        let bytes = bundle::map(index_path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let sections = Sections::decode(bytes, key, checksum).map_err(|problem| match problem {
            Problem::Stale(reason) => Error::StaleIndex {
                path: path.clone(),
                reason,
            },
            Problem::Corrupt(reason) => Error::CorruptIndex {
                path: path.clone(),
                reason,
            },
        })?;
        WorldIndex::from_sections(world_file, &sections)
            .map_err(|reason| Error::CorruptIndex { path, reason })
    }

    /// Makes a world's index from a bundle's sections, built in memory or read from a file.
    pub(crate) fn from_sections(
        path: &Path,
        sections: &Sections,
    ) -> std::result::Result<WorldIndex, String> {
        let store = PageStore::read_sections(sections)?;
        let files = sections
            .with_prefix(TANTIVY_SECTIONS)
            .map(|(name, bytes)| (PathBuf::from(name), bytes.clone()));
        let index = PageIndex::open(SliceDirectory::new(files)).map_err(|error| {
            format!("its tantivy index cannot be opened: {}", ErrorChain(&error))
        })?;
        if index.n_docs() as usize != store.len() {
            return Err(format!(
                "its tantivy index has {} documents for {} pages",
                index.n_docs(),
                store.len()
            ));
        }
        let name = match sections.get(NAME_SECTION) {
            Some(bytes) => Some(
                String::from_utf8(bytes.as_slice().to_vec())
                    .map_err(|_| "the world's name is not UTF-8".to_owned())?,
            ),
            None => None,
        };
        Ok(WorldIndex {
            path: path.to_owned(),
            name,
            store,
            index,
            analyzer: analyzer(),
        })
    }

    /// The number of pages in the world.
    pub fn page_count(&self) -> usize {
        self.store.len()
    }

    /// The latest publication date of the world's pages (ISO `YYYY-MM-DD`), if any page has
    /// one: the world's "today" for relative time filters, since a world has no clock.
    pub fn latest_date(&self) -> Option<&str> {
        (0..self.store.len())
            .filter_map(|page_idx| self.store.published(page_idx))
            .max()
    }

    /// The world's name from `fabula_meta`, if it states one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The world file this index was built from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ranks the world's pages for `query` with BM25 over titles (boosted) and bodies.
    ///
    /// The query is plain text: it is split into terms by the index's analyzer and any page with
    /// at least one term matches, so no string is a syntax error, and a query without terms (only
    /// punctuation, say) simply has no results. Equal scores are ordered by url, so results are
    /// the same on every call. `opts.top_k` must be in `1..=50`.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<SearchResults> {
        if opts.top_k == 0 || opts.top_k > MAX_TOP_K {
            return Err(Error::BadArgument(format!(
                "top_k must be between 1 and {MAX_TOP_K}, not {}",
                opts.top_k
            )));
        }
        let mut analyzer = self.analyzer.clone();
        let terms = query_terms(&mut analyzer, query);
        let mut scored = self.index.score_all(&terms)?;
        let n_matches = scored.len();
        let wanted = opts.offset.saturating_add(opts.top_k);
        // Higher scores first; equal scores by doc id, which is url order.
        let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if wanted < n_matches {
            scored.select_nth_unstable_by(wanted, order);
            scored.truncate(wanted);
        }
        scored.sort_unstable_by(order);

        let mut matcher = TermMatcher::new(&mut analyzer, &terms);
        let mut hits = Vec::with_capacity(scored.len().saturating_sub(opts.offset));
        for (position, &(score, doc)) in scored.iter().enumerate().skip(opts.offset) {
            let page_idx = doc as usize;
            hits.push(Hit {
                rank: position + 1,
                url: self.store.url(page_idx).to_owned(),
                title: self.store.title(page_idx).to_owned(),
                snippet: self.snippet(page_idx, opts.hiding, &mut matcher)?,
                date: self.store.published(page_idx).map(str::to_owned),
                score,
            });
        }
        Ok(SearchResults {
            hits,
            has_more: n_matches > wanted,
        })
    }

    /// A window of the page's Markdown: `max_chars` characters (not bytes) from character
    /// `start`.
    ///
    /// The Markdown is the page's body as stored, with a `# Title` line and a blank line put in
    /// front when the body does not open with a level-one heading, so every extract names its
    /// page. A `start` at or past the end gives empty content and no `next_start`.
    pub fn extract(&self, url: &str, start: usize, max_chars: usize) -> Result<Extract> {
        if max_chars == 0 {
            return Err(Error::BadArgument(
                "max_chars must be at least 1".to_owned(),
            ));
        }
        let page_idx = self.page_idx(url)?;
        let markdown = self.page_markdown(page_idx)?;
        let total_chars = markdown.chars().count();
        let mut char_offsets = markdown.char_indices().map(|(idx, _)| idx).skip(start);
        let start_byte = char_offsets.next().unwrap_or(markdown.len());
        let end_char = start.saturating_add(max_chars).min(total_chars);
        let end_byte = if end_char > start {
            char_offsets
                .nth(end_char - start - 1)
                .unwrap_or(markdown.len())
        } else {
            start_byte
        };
        Ok(Extract {
            url: self.store.url(page_idx).to_owned(),
            title: self.store.title(page_idx).to_owned(),
            date: self.store.published(page_idx).map(str::to_owned),
            content: markdown[start_byte..end_byte].to_owned(),
            next_start: (end_char < total_chars && end_char > start).then_some(end_char),
            total_chars,
        })
    }

    /// The page's whole Markdown, exactly as [`WorldIndex::extract`] windows it.
    pub fn markdown(&self, url: &str) -> Result<String> {
        self.page_markdown(self.page_idx(url)?)
    }

    /// The kind of the page at `url`.
    pub fn page_kind(&self, url: &str) -> Result<PageKind> {
        Ok(self.store.kind(self.page_idx(url)?))
    }

    /// The urls of all pages, in ascending order.
    pub fn urls(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.store.len()).map(|page_idx| self.store.url(page_idx))
    }

    /// An estimate of the bytes this world holds: the page store plus tantivy's index files. For
    /// a persisted index most of them are the mapped file, which the page cache may drop.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes() + self.index.space_usage()
    }

    /// Calls `f` with every passage of every page, in page (url) order: the page's position,
    /// its title, the passage text and its byte range in the page's plain text.
    pub(crate) fn for_each_passage(
        &self,
        mut f: impl FnMut(u32, &str, &str, u32, u32) -> Result<()>,
    ) -> Result<()> {
        for page_idx in 0..self.store.len() {
            let title = self.store.title(page_idx);
            let text = plain_text(&self.store.body(page_idx)?);
            for (start, end) in passage_ranges(&text, content_start(&text, title)) {
                let (page, start, end) = (page_idx as u32, start as u32, end as u32);
                f(page, title, &text[start as usize..end as usize], start, end)?;
            }
        }
        Ok(())
    }

    /// The passage `start..end` of page `page_idx`'s plain text at the given hiding level.
    pub(crate) fn passage(
        &self,
        page_idx: usize,
        start: usize,
        end: usize,
        hiding: Hiding,
        score: f32,
    ) -> Result<Passage> {
        let stale = || {
            Error::Internal(format!(
                "passage {start}..{end} of page {page_idx} is not in the page: a stale passage index"
            ))
        };
        if page_idx >= self.store.len() {
            return Err(stale());
        }
        let title = self.store.title(page_idx);
        let url = self.store.url(page_idx);
        let text = plain_text(&self.store.body(page_idx)?);
        if start > end
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            return Err(stale());
        }
        let number = passage_ranges(&text, content_start(&text, title))
            .iter()
            .take_while(|&&(passage_start, _)| passage_start < start)
            .count();
        let text = match hiding {
            Hiding::Strict => describe(self.store.kind(page_idx), title, url),
            _ => passage_text(&text, start, end, self.store.masks(page_idx), hiding),
        };
        Ok(Passage {
            id: format!("{url}#p{number}"),
            world: 0,
            url: url.to_owned(),
            title: title.to_owned(),
            text,
            score,
        })
    }

    fn page_idx(&self, url: &str) -> Result<usize> {
        self.store
            .find_url(url)
            .ok_or_else(|| Error::UrlNotFound(url.to_owned()))
    }

    fn page_markdown(&self, page_idx: usize) -> Result<String> {
        let body = self.store.body(page_idx)?;
        let opens_with_title = body
            .lines()
            .find(|line| !line.trim().is_empty())
            .is_some_and(|line| line.trim_start().starts_with("# "));
        if opens_with_title {
            return Ok(body);
        }
        let title = self.store.title(page_idx);
        Ok(format!("# {title}\n\n{body}"))
    }

    fn snippet(
        &self,
        page_idx: usize,
        hiding: Hiding,
        matcher: &mut TermMatcher<'_>,
    ) -> Result<String> {
        let title = self.store.title(page_idx);
        if hiding == Hiding::Strict {
            return Ok(describe(
                self.store.kind(page_idx),
                title,
                self.store.url(page_idx),
            ));
        }
        let (text, continues) = self.store.snippet_text(page_idx)?;
        let source = Source::new(text, continues, title);
        let window = best_window(&source, matcher);
        let masks = match hiding {
            Hiding::None | Hiding::Strict => Vec::new(),
            Hiding::Partial => mask_ranges(&source.text, window, self.store.masks(page_idx)),
        };
        Ok(render(&source, window, &masks))
    }
}

/// The section of a bundle that holds the world's name, when the world file states one.
const NAME_SECTION: &str = "world/name";

/// The prefix of the sections that hold the tantivy index's files.
const TANTIVY_SECTIONS: &str = "tantivy/";

/// Reads the pages and the facts they state from a world file (opened read-only), builds its page
/// store and tantivy index, and returns them as a bundle's sections.
pub(crate) fn build_sections(path: &Path) -> Result<Sections> {
    let file = WorldFile::open(path)?;
    let pages: Vec<Page> = file
        .pages()?
        .into_iter()
        .map(|stored| stored.page)
        .collect();
    let name = file.meta_value("name")?;
    drop(file);
    sections_of_pages(path, &pages, name.as_deref())
}

/// Builds the page store and tantivy index of a world's pages (in any order) and returns them as
/// a bundle's sections; `path` names the world file in errors.
fn sections_of_pages(path: &Path, pages: &[Page], name: Option<&str>) -> Result<Sections> {
    let bad_world = |reason: String| Error::BadWorld {
        path: path.to_owned(),
        reason,
    };
    let mut rows: Vec<PageRow> = pages.iter().map(page_row).collect();
    rows.sort_unstable_by(|a, b| a.page.url.cmp(&b.page.url));
    let mut raw = Vec::with_capacity(rows.len());
    let mut plain = Vec::with_capacity(rows.len());
    for PageRow { mut page, hidden } in rows {
        let text = plain_text(&page.body);
        let (prefix, continues) = scanned_prefix(&text);
        page.snippet_text = prefix.to_owned();
        page.snippet_text_continues = continues;
        for (start, end) in hidden_ranges(&text, &hidden) {
            let to_u32 = |idx: usize| {
                u32::try_from(idx).map_err(|_| bad_world("a page is over 4 GiB".to_owned()))
            };
            page.masks.push((to_u32(start)?, to_u32(end)?));
        }
        raw.push(page);
        plain.push(text);
    }
    let store = PageStore::build(&raw).map_err(bad_world)?;
    drop(raw);
    let files = build_files(
        (0..store.len()).map(|page_idx| (store.title(page_idx), plain[page_idx].as_str())),
    )?;
    let mut sections = Sections::default();
    store.write_sections(&mut sections);
    for (file_name, bytes) in files {
        sections.push(format!("{TANTIVY_SECTIONS}{}", file_name.display()), bytes);
    }
    if let Some(name) = name {
        sections.push(NAME_SECTION, name.as_bytes().to_vec());
    }
    Ok(sections)
}

/// A world's index built in memory from its pages before its world file is written: the
/// generator searches it (to measure each task's tier, which the file stores) and then persists
/// it under the finished file's key, byte for byte what [`crate::Corpus`] would build from that
/// file.
pub struct BuiltIndex {
    sections: Sections,
}

impl BuiltIndex {
    /// Indexes a world's pages (in any order) and its name; `world_file` is where its file will
    /// be, named in errors and by [`WorldIndex::path`].
    pub fn build(world_file: &Path, pages: &[Page], name: Option<&str>) -> Result<BuiltIndex> {
        Ok(BuiltIndex {
            sections: sections_of_pages(world_file, pages, name)?,
        })
    }

    /// The index, ready to search; the bytes are shared, not copied.
    pub fn open(&self, world_file: &Path) -> Result<WorldIndex> {
        WorldIndex::from_sections(world_file, &self.sections).map_err(Error::Internal)
    }

    /// Writes the index atomically to `index_path` (see [`crate::index_path`]), keyed by the
    /// finished world file.
    pub fn write(&self, index_path: &Path, key: IndexKey<'_>) -> Result<()> {
        let bytes = self.sections.encode(key);
        bundle::write(index_path, &bytes).map_err(|source| Error::Io {
            path: index_path.to_owned(),
            source,
        })
    }
}

/// A page as read, with the values its snippets must hide: ASCII-lowercased, distinct, not blank.
struct PageRow {
    page: RawPage,
    hidden: Vec<String>,
}

fn page_row(page: &Page) -> PageRow {
    let mut hidden: Vec<String> = page
        .facts
        .iter()
        .filter(|fact| fact.value_kind.is_hidden_by_partial())
        .map(|fact| fact.shown.trim().to_ascii_lowercase())
        .filter(|shown| !shown.is_empty())
        .collect();
    hidden.sort_unstable();
    hidden.dedup();
    PageRow {
        page: RawPage {
            url: page.url.clone(),
            title: page.title.clone(),
            kind: page.kind,
            published: page.published.clone(),
            body: page.body.clone(),
            snippet_text: String::new(),
            snippet_text_continues: false,
            masks: Vec::new(),
        },
        hidden,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_index_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<WorldIndex>();
    }
}
