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
use tantivy::directory::OwnedBytes;

use crate::bundle::{ByteReader, Sections};
use crate::lz4::Compressor;
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

    /// Reads a span as a bundle's page table stores it: start, then length.
    fn read(reader: &mut ByteReader<'_>) -> std::result::Result<Span, String> {
        Ok(Span {
            start: reader.u32()?,
            len: reader.u32()?,
        })
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
    /// Compressed bodies and snippet texts, on the heap or in a mapped bundle.
    texts: OwnedBytes,
    dict: OwnedBytes,
}

impl PageStore {
    /// Builds the store from pages already sorted by url. Fails only if the world is too large
    /// for 32-bit offsets.
    pub(crate) fn build(pages: &[RawPage]) -> std::result::Result<PageStore, String> {
        let dict = sample_dict(pages);
        let mut compressor = Compressor::new(&dict);
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
            let body = push_compressed(&mut texts, &page.body, &mut compressor)?;
            let snippet_text = push_compressed(&mut texts, &page.snippet_text, &mut compressor)?;
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
            texts: OwnedBytes::new(texts),
            dict: OwnedBytes::new(dict),
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
        let compressed = &self.texts.as_slice()[span.range()];
        let bytes =
            lz4_flex::block::decompress_with_dict(compressed, len as usize, self.dict.as_slice())
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

/// The names of the store's sections in a bundle.
const KINDS: &str = "store/kinds";
const STRINGS: &str = "store/strings";
const PAGES: &str = "store/pages";
const MASKS: &str = "store/masks";
const TEXTS: &str = "store/texts";
const DICT: &str = "store/dict";

/// The bytes one page's entry takes in a bundle: 14 `u32`s, the kind and the flags.
const ENTRY_LEN: usize = 14 * 4 + 2;

/// Entry flags in a bundle.
const HAS_PUBLISHED: u8 = 1;
const SNIPPET_TEXT_CONTINUES: u8 = 2;

impl PageStore {
    /// Adds the store's sections to a bundle. The compressed texts and the dictionary are
    /// shared, not copied; the page kinds are stored by name, so their codes stay meaningful.
    pub(crate) fn write_sections(&self, sections: &mut Sections) {
        let kinds: Vec<&str> = PageKind::ALL.iter().map(|kind| kind.as_str()).collect();
        sections.push(KINDS, kinds.join("\n").into_bytes());
        sections.push(STRINGS, self.strings.as_bytes().to_vec());
        let mut pages = Vec::with_capacity(self.pages.len() * ENTRY_LEN);
        for entry in &self.pages {
            entry.write(&mut pages);
        }
        sections.push(PAGES, pages);
        let mut masks = Vec::with_capacity(self.masks.len() * 8);
        for &(start, end) in &self.masks {
            masks.extend_from_slice(&start.to_le_bytes());
            masks.extend_from_slice(&end.to_le_bytes());
        }
        sections.push(MASKS, masks);
        sections.push_bytes(TEXTS, self.texts.clone());
        sections.push_bytes(DICT, self.dict.clone());
    }

    /// Reads a store from a bundle's sections. The small tables are copied; the texts and the
    /// dictionary stay where they are (in the mapping, for a bundle read from disk). Every span
    /// is checked, so a bad table is an error here rather than a panic at a search.
    pub(crate) fn read_sections(sections: &Sections) -> std::result::Result<PageStore, String> {
        let kinds = std::str::from_utf8(sections.require(KINDS)?.as_slice())
            .map_err(|_| "the page kinds are not UTF-8".to_owned())?
            .split('\n')
            .map(|name| PageKind::parse(name).ok_or_else(|| format!("unknown page kind {name:?}")))
            .collect::<std::result::Result<Vec<PageKind>, String>>()?;
        let strings = String::from_utf8(sections.require(STRINGS)?.as_slice().to_vec())
            .map_err(|_| "the string table is not UTF-8".to_owned())?;
        let mut masks = Vec::new();
        let mut reader = ByteReader::new(sections.require(MASKS)?.as_slice());
        while !reader.is_empty() {
            masks.push((reader.u32()?, reader.u32()?));
        }
        let store = PageStore {
            strings,
            pages: Box::default(),
            masks: masks.into_boxed_slice(),
            texts: sections.require(TEXTS)?.clone(),
            dict: sections.require(DICT)?.clone(),
        };
        let pages = sections.require(PAGES)?.as_slice();
        if pages.len() % ENTRY_LEN != 0 {
            return Err(format!(
                "the page table's length {} is not whole",
                pages.len()
            ));
        }
        let mut reader = ByteReader::new(pages);
        let mut entries = Vec::with_capacity(pages.len() / ENTRY_LEN);
        while !reader.is_empty() {
            let entry = PageEntry::read(&mut reader, &kinds)?;
            store.check(&entry)?;
            entries.push(entry);
        }
        Ok(PageStore {
            pages: entries.into_boxed_slice(),
            ..store
        })
    }

    /// Whether an entry read from a bundle stays inside the store's buffers.
    fn check(&self, entry: &PageEntry) -> std::result::Result<(), String> {
        let strings = [Some(entry.url), Some(entry.title), entry.published];
        let strings_ok = strings
            .into_iter()
            .flatten()
            .all(|span| self.strings.get(span.range()).is_some());
        let texts_ok = [entry.body, entry.snippet_text]
            .into_iter()
            .all(|span| self.texts.as_slice().get(span.range()).is_some());
        let masks_ok =
            entry.masks_start <= entry.masks_end && entry.masks_end as usize <= self.masks.len();
        if strings_ok && texts_ok && masks_ok {
            Ok(())
        } else {
            Err("a page entry points outside the store".to_owned())
        }
    }
}

impl PageEntry {
    fn write(&self, out: &mut Vec<u8>) {
        let published = self.published.unwrap_or(Span { start: 0, len: 0 });
        let numbers = [
            self.url.start,
            self.url.len,
            self.title.start,
            self.title.len,
            published.start,
            published.len,
            self.masks_start,
            self.masks_end,
            self.body.start,
            self.body.len,
            self.body_len,
            self.snippet_text.start,
            self.snippet_text.len,
            self.snippet_text_len,
        ];
        for number in numbers {
            out.extend_from_slice(&number.to_le_bytes());
        }
        let kind_code = PageKind::ALL.iter().position(|kind| *kind == self.kind);
        out.push(kind_code.unwrap_or_default() as u8);
        let mut flags = 0;
        if self.published.is_some() {
            flags |= HAS_PUBLISHED;
        }
        if self.snippet_text_continues {
            flags |= SNIPPET_TEXT_CONTINUES;
        }
        out.push(flags);
    }

    fn read(
        reader: &mut ByteReader<'_>,
        kinds: &[PageKind],
    ) -> std::result::Result<PageEntry, String> {
        let (url, title, published) = (
            Span::read(reader)?,
            Span::read(reader)?,
            Span::read(reader)?,
        );
        let (masks_start, masks_end) = (reader.u32()?, reader.u32()?);
        let (body, body_len) = (Span::read(reader)?, reader.u32()?);
        let (snippet_text, snippet_text_len) = (Span::read(reader)?, reader.u32()?);
        let kind_code = usize::from(reader.u8()?);
        let kind = *kinds
            .get(kind_code)
            .ok_or_else(|| format!("page kind code {kind_code} is not listed"))?;
        let flags = reader.u8()?;
        Ok(PageEntry {
            url,
            title,
            published: (flags & HAS_PUBLISHED != 0).then_some(published),
            kind,
            masks_start,
            masks_end,
            body,
            body_len,
            snippet_text,
            snippet_text_len,
            snippet_text_continues: flags & SNIPPET_TEXT_CONTINUES != 0,
        })
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
    compressor: &mut Compressor<'_>,
) -> std::result::Result<Span, String> {
    let start = texts.len();
    compressor.compress_into(text.as_bytes(), texts);
    to_u32(texts.len())?;
    Ok(Span {
        start: to_u32(start)?,
        len: to_u32(texts.len() - start)?,
    })
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

    /// The store read back from its sections answers like the original, page by page.
    #[test]
    fn round_trips_through_sections() {
        let pages = vec![
            page("a", "# A\n\nFirst body, with ünïcödé.", &[(3, 7), (9, 12)]),
            page("b/news", "", &[]),
            page("c", &"Long body. ".repeat(500), &[(0, 4)]),
        ];
        let built = PageStore::build(&pages).unwrap();
        let mut sections = Sections::default();
        built.write_sections(&mut sections);
        let read = PageStore::read_sections(&sections).unwrap();
        assert_eq!(read.len(), built.len());
        for idx in 0..built.len() {
            assert_eq!(read.url(idx), built.url(idx));
            assert_eq!(read.title(idx), built.title(idx));
            assert_eq!(read.published(idx), built.published(idx));
            assert_eq!(read.kind(idx), built.kind(idx));
            assert_eq!(read.masks(idx), built.masks(idx));
            assert_eq!(read.body(idx).unwrap(), built.body(idx).unwrap());
            assert_eq!(
                read.snippet_text(idx).unwrap(),
                built.snippet_text(idx).unwrap()
            );
        }
    }

    /// Replaces one section of a good store's bundle and asserts what reading it says.
    #[track_caller]
    fn check_section(name: &str, bytes: Vec<u8>, expect: &str) {
        let store = PageStore::build(&[page("a", "Body.", &[(0, 4)])]).unwrap();
        let mut good = Sections::default();
        store.write_sections(&mut good);
        let mut sections = Sections::default();
        for section in [KINDS, STRINGS, PAGES, MASKS, TEXTS, DICT] {
            if section == name {
                sections.push(section, bytes.clone());
            } else {
                sections.push_bytes(section, good.get(section).unwrap().clone());
            }
        }
        assert_eq!(PageStore::read_sections(&sections).unwrap_err(), expect);
    }

    #[test]
    fn bad_sections_are_errors() {
        check_section(
            KINDS,
            b"entity\nnovel".to_vec(),
            r#"unknown page kind "novel""#,
        );
        check_section(STRINGS, vec![0xff; 40], "the string table is not UTF-8");
        check_section(
            STRINGS,
            b"a".to_vec(),
            "a page entry points outside the store",
        );
        check_section(TEXTS, Vec::new(), "a page entry points outside the store");
        check_section(MASKS, Vec::new(), "a page entry points outside the store");
        check_section(MASKS, vec![0; 5], "truncated");
        check_section(
            PAGES,
            vec![0; ENTRY_LEN + 1],
            "the page table's length 59 is not whole",
        );
        let mut bad_kind = vec![0; ENTRY_LEN];
        bad_kind[ENTRY_LEN - 2] = 9;
        check_section(PAGES, bad_kind, "page kind code 9 is not listed");
    }

    #[test]
    fn empty_world() {
        let store = PageStore::build(&[]).unwrap();
        assert_eq!(store.len(), 0);
        assert_eq!(store.find_url("a"), None);
    }
}
