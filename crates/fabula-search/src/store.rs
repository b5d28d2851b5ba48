//! Compact in-memory storage of one world's pages: urls, titles, dates, kinds, where the fact
//! values snippets must hide occur, the Markdown bodies, and the start of each page's plain text
//! that snippets are cut from, both LZ4-compressed against a per-world dictionary.
//!
//! A server holds every world it has searched, so this is the part of a world that must stay
//! small: all short strings live in one arena addressed by 32-bit spans, and each text is compressed
//! on its own (so reading one costs about a microsecond) against a dictionary sampled from the
//! world's own pages, which holds the boilerplate that pages of one world share. Keeping the plain
//! text besides the Markdown costs about half again the bodies' memory and saves converting
//! Markdown for every search hit, which was most of a search's time. The values that
//! partial hiding masks are not kept as text: each page keeps the byte ranges of its plain text
//! where they occur, found once when the world is opened.

use fabula_file::PageKind;

use crate::{Error, Result};

/// How many bytes of sampled page text make up a world's compression dictionary.
const DICT_LEN: usize = 16 * 1024;

/// How many bytes one sampled page contributes to the dictionary at most.
const DICT_SAMPLE_LEN: usize = 1024;

/// One page as read from the world file.
pub(crate) struct RawPage {
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) kind: PageKind,
    pub(crate) published: Option<String>,
    pub(crate) body: String,
    /// The start of `text::plain_text(body)` that snippets are searched in.
    pub(crate) snippet_text: String,
    /// Whether the plain text goes on after `snippet_text`.
    pub(crate) snippet_text_continues: bool,
    /// The byte ranges of `text::plain_text(body)` that partial hiding masks, sorted.
    pub(crate) masks: Vec<(u32, u32)>,
}

/// A byte range in one of the store's buffers.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

#[derive(Debug)]
struct PageEntry {
    url: Span,
    title: Span,
    published: Option<Span>,
    kind: PageKind,
    /// The range of this page's entries in `PageStore::masks`.
    masks_start: u32,
    masks_end: u32,
    /// The compressed body in `PageStore::texts`.
    body: Span,
    /// The body's length in bytes before compression.
    body_len: u32,
    /// The compressed snippet text in `PageStore::texts`.
    snippet_text: Span,
    snippet_text_len: u32,
    snippet_text_continues: bool,
}

/// All pages of one world, sorted by url, so a page's position is also its tantivy doc id.
#[derive(Debug)]
pub(crate) struct PageStore {
    strings: String,
    pages: Box<[PageEntry]>,
    masks: Box<[(u32, u32)]>,
    /// Compressed bodies and snippet texts.
    texts: Box<[u8]>,
    dict: Box<[u8]>,
}

impl PageStore {
    /// Builds the store from pages already sorted by url. Fails only if the world is too large
    /// for 32-bit offsets.
    pub(crate) fn build(pages: &[RawPage]) -> std::result::Result<PageStore, String> {
        let dict = sample_dict(pages);
        let mut strings = String::new();
        let mut masks = Vec::new();
        let mut texts = Vec::new();
        let mut entries = Vec::with_capacity(pages.len());
        for page in pages {
            let url = push_str(&mut strings, &page.url)?;
            let title = push_str(&mut strings, &page.title)?;
            let published = match &page.published {
                Some(date) => Some(push_str(&mut strings, date)?),
                None => None,
            };
            let masks_start = to_u32(masks.len())?;
            masks.extend_from_slice(&page.masks);
            let masks_end = to_u32(masks.len())?;
            let body = push_compressed(&mut texts, &page.body, &dict)?;
            let snippet_text = push_compressed(&mut texts, &page.snippet_text, &dict)?;
            entries.push(PageEntry {
                url,
                title,
                published,
                kind: page.kind,
                masks_start,
                masks_end,
                body,
                body_len: to_u32(page.body.len())?,
                snippet_text,
                snippet_text_len: to_u32(page.snippet_text.len())?,
                snippet_text_continues: page.snippet_text_continues,
            });
        }
        strings.shrink_to_fit();
        Ok(PageStore {
            strings,
            pages: entries.into_boxed_slice(),
            masks: masks.into_boxed_slice(),
            texts: texts.into_boxed_slice(),
            dict: dict.into_boxed_slice(),
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.pages.len()
    }

    pub(crate) fn url(&self, page_idx: usize) -> &str {
        &self.strings[self.pages[page_idx].url.range()]
    }

    pub(crate) fn title(&self, page_idx: usize) -> &str {
        &self.strings[self.pages[page_idx].title.range()]
    }

    pub(crate) fn published(&self, page_idx: usize) -> Option<&str> {
        let span = self.pages[page_idx].published?;
        Some(&self.strings[span.range()])
    }

    pub(crate) fn kind(&self, page_idx: usize) -> PageKind {
        self.pages[page_idx].kind
    }

    /// The sorted byte ranges of the page's plain text that partial hiding masks.
    pub(crate) fn masks(&self, page_idx: usize) -> &[(u32, u32)] {
        let entry = &self.pages[page_idx];
        &self.masks[entry.masks_start as usize..entry.masks_end as usize]
    }

    /// The page's Markdown body.
    pub(crate) fn body(&self, page_idx: usize) -> Result<String> {
        let entry = &self.pages[page_idx];
        self.decompress(entry.body, entry.body_len)
    }

    /// The start of the page's plain text, and whether the text goes on after it.
    pub(crate) fn snippet_text(&self, page_idx: usize) -> Result<(String, bool)> {
        let entry = &self.pages[page_idx];
        let text = self.decompress(entry.snippet_text, entry.snippet_text_len)?;
        Ok((text, entry.snippet_text_continues))
    }

    fn decompress(&self, span: Span, len: u32) -> Result<String> {
        let compressed = &self.texts[span.range()];
        let bytes = lz4_flex::block::decompress_with_dict(compressed, len as usize, &self.dict)
            .map_err(|err| Error::Internal(format!("corrupt page text in memory: {err}")))?;
        String::from_utf8(bytes)
            .map_err(|err| Error::Internal(format!("page text is not UTF-8: {err}")))
    }

    /// The position of the page with this url.
    pub(crate) fn find_url(&self, url: &str) -> Option<usize> {
        self.pages
            .binary_search_by(|entry| self.strings[entry.url.range()].cmp(url))
            .ok()
    }

    /// Bytes this store holds on the heap, for memory reports.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.strings.capacity()
            + size_of_val(&*self.pages)
            + size_of_val(&*self.masks)
            + self.texts.len()
            + self.dict.len()
    }

    /// The total length of the bodies before compression.
    #[cfg(test)]
    pub(crate) fn raw_body_bytes(&self) -> usize {
        self.pages.iter().map(|entry| entry.body_len as usize).sum()
    }
}

/// Samples the start of pages spread evenly over the world, so that every page kind's
/// boilerplate is likely in the dictionary.
fn sample_dict(pages: &[RawPage]) -> Vec<u8> {
    let mut dict = Vec::with_capacity(DICT_LEN);
    let n_samples = (DICT_LEN / DICT_SAMPLE_LEN).min(pages.len());
    for sample_idx in 0..n_samples {
        let page = &pages[sample_idx * pages.len() / n_samples];
        let bytes = page.body.as_bytes();
        dict.extend_from_slice(&bytes[..bytes.len().min(DICT_SAMPLE_LEN)]);
    }
    dict
}

fn push_compressed(
    texts: &mut Vec<u8>,
    text: &str,
    dict: &[u8],
) -> std::result::Result<Span, String> {
    let compressed = lz4_flex::block::compress_with_dict(text.as_bytes(), dict);
    let span = Span {
        start: to_u32(texts.len())?,
        len: to_u32(compressed.len())?,
    };
    texts.extend_from_slice(&compressed);
    to_u32(texts.len())?;
    Ok(span)
}

fn push_str(strings: &mut String, value: &str) -> std::result::Result<Span, String> {
    let span = Span {
        start: to_u32(strings.len())?,
        len: to_u32(value.len())?,
    };
    strings.push_str(value);
    to_u32(strings.len())?;
    Ok(span)
}

fn to_u32(len: usize) -> std::result::Result<u32, String> {
    u32::try_from(len).map_err(|_| "world is over 4 GiB of page text".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, body: &str, masks: &[(u32, u32)]) -> RawPage {
        RawPage {
            url: url.to_owned(),
            title: format!("Title of {url}"),
            kind: PageKind::Entity,
            published: url.contains("news").then(|| "1204-03-01".to_owned()),
            body: body.to_owned(),
            snippet_text: body.replace('#', ""),
            snippet_text_continues: body.len() > 100,
            masks: masks.to_vec(),
        }
    }

    #[test]
    fn round_trips_pages() {
        let pages = vec![
            page("a", "# A\n\nFirst body, with ünïcödé.", &[(3, 7), (9, 12)]),
            page("b/news", "", &[]),
            page("c", &"Long body. ".repeat(500), &[(0, 4)]),
        ];
        let store = PageStore::build(&pages).unwrap();
        assert_eq!(store.len(), 3);
        for (idx, raw) in pages.iter().enumerate() {
            assert_eq!(store.url(idx), raw.url);
            assert_eq!(store.title(idx), raw.title);
            assert_eq!(store.published(idx), raw.published.as_deref());
            assert_eq!(store.kind(idx), PageKind::Entity);
            assert_eq!(store.body(idx).unwrap(), raw.body);
            let snippet_text = (raw.snippet_text.clone(), raw.snippet_text_continues);
            assert_eq!(store.snippet_text(idx).unwrap(), snippet_text);
            assert_eq!(store.masks(idx), raw.masks);
            assert_eq!(store.find_url(&raw.url), Some(idx));
        }
        assert_eq!(store.find_url("missing"), None);
        assert!(store.heap_bytes() < 2 * store.raw_body_bytes());
    }

    #[test]
    fn empty_world() {
        let store = PageStore::build(&[]).unwrap();
        assert_eq!(store.len(), 0);
        assert_eq!(store.find_url("a"), None);
    }
}
