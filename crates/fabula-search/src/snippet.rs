//! Snippets: choosing the passage of a page's plain text that best matches a query, masking the
//! values a page states as facts, and the generic one-line descriptions of strict hiding.
//!
//! A passage is a window of about [`SNIPPET_LEN`] bytes of the text from `text::plain_text`, cut at
//! word boundaries and marked with `…` where it cuts the text. The window is the one covering the
//! most distinct query terms (then the most matches, then the earliest), started a little before
//! its first match, at a sentence or block start when one is near.
//!
//! Masking (partial hiding) replaces with `…` every word that overlaps an occurrence of a hidden
//! value (compared ASCII case-insensitively) and every word that contains a digit. Occurrences are
//! found in the whole text when the world is opened, so a value cut by the window is masked too and
//! no prefix of it leaks.

use std::collections::HashMap;

use tantivy::tokenizer::TextAnalyzer;

use crate::text::{alnum_at, alnum_before, ceil_boundary, floor_boundary, words};
use fabula_file::PageKind;

/// The longest passage, in bytes (so at most this many characters).
pub(crate) const SNIPPET_LEN: usize = 200;

/// At most this many bytes of context come before the first matched word.
const MAX_LEAD: usize = 60;

/// The mark of a cut or masked piece of text.
const ELLIPSIS: &str = "…";

/// Recognizes words of a text whose analyzed term is one of a query's terms.
pub(crate) struct TermMatcher<'a> {
    analyzer: &'a mut TextAnalyzer,
    terms: &'a [String],
    /// Per term, all but its last character, which an ASCII word must start with to match it.
    prefixes: Vec<&'a [u8]>,
    /// The lowercased first bytes of the prefixes, so most words are rejected at once.
    first_bytes: [bool; 256],
}

impl<'a> TermMatcher<'a> {
    pub(crate) fn new(analyzer: &'a mut TextAnalyzer, terms: &'a [String]) -> TermMatcher<'a> {
        let prefixes = terms
            .iter()
            .map(|term| match term.char_indices().next_back() {
                Some((last_char, _)) if last_char > 0 => &term.as_bytes()[..last_char],
                _ => term.as_bytes(),
            })
            .collect::<Vec<&[u8]>>();
        let mut first_bytes = [false; 256];
        for prefix in &prefixes {
            if let Some(&first) = prefix.first() {
                first_bytes[usize::from(first.to_ascii_lowercase())] = true;
            }
        }
        TermMatcher {
            analyzer,
            terms,
            prefixes,
            first_bytes,
        }
    }

    /// The position in the query's terms of the term of `word`, a word as `text::words` yields.
    fn term_of(&mut self, word: &str) -> Option<usize> {
        // Running the stemmer on every word costs too much per hit, so ASCII words are first
        // checked cheaply: an English stem keeps all but at most its last character as a prefix of
        // the lowercased word (`happy` gives `happi`), and a short stem comes from a short word.
        let word_bytes = word.as_bytes();
        let first = word_bytes.first().map_or(0, u8::to_ascii_lowercase);
        if first.is_ascii() && !self.first_bytes[usize::from(first)] && word.is_ascii() {
            return None;
        }
        let candidate = !word.is_ascii()
            || self.terms.iter().zip(&self.prefixes).any(|(term, prefix)| {
                word_bytes.len() >= prefix.len()
                    && word_bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
                    && (term.len() >= 4 || word_bytes.len() <= term.len() + 4)
            });
        if !candidate {
            return None;
        }
        let mut stream = self.analyzer.token_stream(word);
        if !stream.advance() {
            return None;
        }
        let token = &stream.token().text;
        self.terms.iter().position(|term| term == token)
    }
}

/// At most this many bytes of a page's plain text are searched for the best passage, so a very
/// long page (a list of hundreds of rows) costs no more than a few ordinary ones.
pub(crate) const SCAN_LIMIT: usize = 2048;

/// The plain text a snippet is cut from.
#[derive(Debug)]
pub(crate) struct Source {
    /// The page's plain text, or its first [`SCAN_LIMIT`] bytes or so.
    pub(crate) text: String,
    /// Where the page's content starts, after the title heading.
    pub(crate) content_start: usize,
    /// Whether the page's text goes on after `text`.
    pub(crate) continues: bool,
}

/// The start of a page's plain text that snippets are searched in: all of it up to
/// [`SCAN_LIMIT`] bytes, else its first [`SCAN_LIMIT`] bytes or so, cut at blank space; and whether
/// the text goes on after it.
pub(crate) fn scanned_prefix(text: &str) -> (&str, bool) {
    if text.len() <= SCAN_LIMIT {
        return (text, false);
    }
    let limit = floor_boundary(text, SCAN_LIMIT);
    let cut = text[..limit].rfind(char::is_whitespace).unwrap_or(limit);
    (text[..cut].trim_end(), true)
}

impl Source {
    /// Wraps the start of a page's plain text, as [`scanned_prefix`] gives it.
    pub(crate) fn new(text: String, continues: bool, title: &str) -> Source {
        let content_start = content_start(&text, title);
        Source {
            text,
            content_start,
            continues,
        }
    }
}

/// Where the passage starts and ends in the text, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The byte offset where a page's content starts in its plain text: after the title when the
/// text opens with it (the page's `# Title` heading), which a snippet need not repeat.
pub(crate) fn content_start(text: &str, title: &str) -> usize {
    if title.is_empty() {
        return 0;
    }
    let Some(rest) = text.strip_prefix(title) else {
        return 0;
    };
    if rest.is_empty() {
        return text.len();
    }
    for separator in [" · ", " "] {
        if let Some(after) = rest.strip_prefix(separator) {
            return text.len() - after.len();
        }
    }
    0
}

/// Chooses the passage of the source's content that best matches the query.
pub(crate) fn best_window(source: &Source, matcher: &mut TermMatcher<'_>) -> Window {
    let text = source.text.as_str();
    let min_start = source.content_start;
    let content = &text[min_start..];
    let matches: Vec<(usize, usize, usize)> = words(content)
        .filter_map(|(start, end)| {
            let term_idx = matcher.term_of(&content[start..end])?;
            Some((min_start + start, min_start + end, term_idx))
        })
        .collect();

    let mut anchor = min_start;
    let mut span_end = min_start;
    let mut best_key = (0, 0);
    for (first_idx, &(first_start, _, _)) in matches.iter().enumerate() {
        let mut seen_terms = 0u64;
        let mut n_matches = 0;
        let mut last_end = first_start;
        for &(start, end, term_idx) in &matches[first_idx..] {
            if end - first_start > SNIPPET_LEN {
                break;
            }
            seen_terms |= 1u64 << (term_idx % 64);
            n_matches += 1;
            last_end = end.max(start);
        }
        let key = (seen_terms.count_ones(), n_matches);
        if key > best_key {
            best_key = key;
            anchor = first_start;
            span_end = last_end;
        }
    }

    let leftover = SNIPPET_LEN.saturating_sub(span_end - anchor);
    let lead = (leftover / 2).min(MAX_LEAD);
    let start = passage_start(text, min_start, anchor, lead);
    let end = passage_end(text, start);
    Window { start, end }
}

/// How far back from a matched word the passage looks for the start of its whitespace-separated
/// token (`8,973` when `973` matched), so text without spaces still gets a window near the match.
const MAX_TOKEN_SCAN: usize = 40;

/// Starts the passage up to `lead` bytes before the token holding `anchor`: right after a
/// sentence or block end if one lies in that stretch, else at the first whole token, so the
/// passage never opens with the tail of a number or word.
fn passage_start(text: &str, min_start: usize, anchor: usize, lead: usize) -> usize {
    let token_start = token_start(text, min_start, anchor);
    let earliest = ceil_boundary(text, token_start.saturating_sub(lead).max(min_start));
    if earliest == min_start {
        return min_start;
    }
    let stretch = &text[earliest..token_start];
    let sentence_end = [". ", "! ", "? ", "· ", ": ", "; "]
        .iter()
        .filter_map(|mark| stretch.rfind(mark).map(|idx| idx + mark.len()))
        .max();
    if let Some(offset) = sentence_end {
        return earliest + offset;
    }
    let mut start = earliest;
    if !text[..start].ends_with(char::is_whitespace) {
        while start < token_start && !text[start..].starts_with(char::is_whitespace) {
            start += next_char_len(text, start);
        }
    }
    while start < token_start && text[start..].starts_with(|c: char| c.is_whitespace() || c == '·')
    {
        start += next_char_len(text, start);
    }
    start
}

/// The start of the whitespace-separated token that holds byte `idx`, looking back at most
/// [`MAX_TOKEN_SCAN`] bytes.
fn token_start(text: &str, min_start: usize, idx: usize) -> usize {
    let floor = idx.saturating_sub(MAX_TOKEN_SCAN).max(min_start);
    let mut start = idx;
    while start > floor && !text[..start].ends_with(char::is_whitespace) {
        start -= prev_char_len(text, start);
    }
    if start > min_start && !text[..start].ends_with(char::is_whitespace) {
        // No token start within reach: text without spaces. Start at the word itself.
        return idx;
    }
    start
}

/// Ends the passage at most [`SNIPPET_LEN`] bytes after `start`, after a whole token, so it
/// never closes with the head of a number or word.
fn passage_end(text: &str, start: usize) -> usize {
    let limit = floor_boundary(text, start + SNIPPET_LEN);
    if limit >= text.len() {
        return text.len();
    }
    let mut end = limit;
    while end > start
        && !text[..end].ends_with(char::is_whitespace)
        && !text[end..].starts_with(char::is_whitespace)
    {
        end -= prev_char_len(text, end);
    }
    let trimmed = text[start..end].trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '·' | ',' | ';' | ':' | '(' | '-' | '–' | '—')
    });
    if trimmed.is_empty() {
        // One token longer than the whole window: cut inside it rather than show nothing.
        return limit;
    }
    start + trimmed.len()
}

fn next_char_len(text: &str, idx: usize) -> usize {
    text[idx..].chars().next().map_or(1, char::len_utf8)
}

fn prev_char_len(text: &str, idx: usize) -> usize {
    text[..idx].chars().next_back().map_or(1, char::len_utf8)
}

/// Pages with more hidden values than this are scanned once with a table of value prefixes
/// instead of once per value.
const MANY_VALUES: usize = 16;

/// Finds, once per page, the byte ranges of its plain text that partial hiding masks: every
/// occurrence of a hidden value (compared ASCII case-insensitively), widened to whole words,
/// sorted and merged.
///
/// `values` are ASCII-lowercased and not blank.
pub(crate) fn hidden_ranges(text: &str, values: &[String]) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut push_matches = |value: &str| {
        for (start, _) in lower.match_indices(value) {
            found.push((start, start + value.len()));
        }
    };
    if values.len() <= MANY_VALUES {
        values.iter().for_each(|value| push_matches(value));
    } else {
        // A match never starts inside a character: a value's first byte is never a UTF-8
        // continuation byte, and lowercasing ASCII keeps every other byte as it was.
        let mut by_prefix: HashMap<[u8; 2], Vec<&str>> = HashMap::new();
        let mut prefixes = vec![0u64; 1024];
        for value in values {
            match value.as_bytes() {
                [first, second, ..] => {
                    by_prefix.entry([*first, *second]).or_default().push(value);
                    let key = usize::from(*first) << 8 | usize::from(*second);
                    prefixes[key / 64] |= 1 << (key % 64);
                }
                _ => push_matches(value),
            }
        }
        let bytes = lower.as_bytes();
        for start in 0..bytes.len().saturating_sub(1) {
            let key = usize::from(bytes[start]) << 8 | usize::from(bytes[start + 1]);
            if prefixes[key / 64] & (1 << (key % 64)) == 0 {
                continue;
            }
            for value in &by_prefix[&[bytes[start], bytes[start + 1]]] {
                if bytes[start..].starts_with(value.as_bytes()) {
                    found.push((start, start + value.len()));
                }
            }
        }
    }
    let widened = found
        .into_iter()
        .map(|(start, end)| widen_to_words(text, start, end))
        .collect();
    merge_masks(text, widened)
}

/// The byte ranges of `text[window]` to mask: the page's hidden ranges (from [`hidden_ranges`])
/// that overlap the window, cut to it, and every word that contains a digit, sorted and merged.
/// A value cut by the window is masked too, so no part of it leaks.
pub(crate) fn mask_ranges(
    text: &str,
    window: Window,
    hidden: &[(u32, u32)],
) -> Vec<(usize, usize)> {
    let mut masks = Vec::new();
    let first = hidden.partition_point(|&(_, end)| end as usize <= window.start);
    for &(start, end) in &hidden[first..] {
        let (start, end) = (start as usize, end as usize);
        if start >= window.end {
            break;
        }
        masks.push((start.max(window.start), end.min(window.end)));
    }
    let passage = &text[window.start..window.end];
    for (start, end) in words(passage) {
        if passage[start..end].chars().any(char::is_numeric) {
            masks.push((window.start + start, window.start + end));
        }
    }
    merge_masks(text, masks)
}

/// Widens a byte range to whole words at both ends.
fn widen_to_words(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while alnum_before(text, start) {
        start -= text[..start].chars().next_back().map_or(1, char::len_utf8);
    }
    while alnum_at(text, end) {
        end += text[end..].chars().next().map_or(1, char::len_utf8);
    }
    (start, end)
}

/// Sorts masks and merges those that overlap or are separated by at most four bytes of
/// punctuation or blank space (`1,204` is one mask, and so is a run of masked table cells).
fn merge_masks(text: &str, mut masks: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    masks.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(masks.len());
    for (start, end) in masks {
        if let Some(last) = merged.last_mut() {
            let joins = start <= last.1
                || (start - last.1 <= 4 && !text[last.1..start].chars().any(char::is_alphanumeric));
            if joins {
                last.1 = last.1.max(end);
                continue;
            }
        }
        merged.push((start, end));
    }
    merged
}

/// Writes the passage, with `…` where it cuts the text and in place of each mask.
pub(crate) fn render(source: &Source, window: Window, masks: &[(usize, usize)]) -> String {
    let text = source.text.as_str();
    let mut out = String::with_capacity(window.end - window.start + 8);
    if window.start > source.content_start {
        out.push_str(ELLIPSIS);
    }
    let mut pos = window.start;
    for &(start, end) in masks {
        out.push_str(&text[pos..start]);
        if !out.ends_with(ELLIPSIS) {
            out.push_str(ELLIPSIS);
        }
        pos = end;
    }
    out.push_str(&text[pos..window.end]);
    let cut_end = window.end < text.len() || source.continues;
    if cut_end && !out.ends_with(ELLIPSIS) {
        out.push_str(ELLIPSIS);
    }
    out
}

/// The one-line description that strict hiding shows instead of a passage.
pub(crate) fn describe(kind: PageKind, title: &str, url: &str) -> String {
    match kind {
        PageKind::Entity => format!("An encyclopedia article about {title}."),
        PageKind::List => format!("A reference list: {title}."),
        PageKind::Category => {
            let name = title
                .strip_prefix("Category:")
                .map_or(title, str::trim_start);
            format!("A category page: {name}.")
        }
        PageKind::News => match site(url) {
            Some(site) => format!("A news report from {site}."),
            None => "A news report.".to_owned(),
        },
        PageKind::History => match site(url) {
            Some(site) => format!("A historical account from {site}."),
            None => "A historical account.".to_owned(),
        },
    }
}

/// The host of an absolute url.
fn site(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyzer::analyzer;
    use crate::index::query_terms;
    use crate::text::plain_text;

    fn source(text: &str) -> Source {
        Source {
            text: text.to_owned(),
            content_start: 0,
            continues: false,
        }
    }

    fn passage(text: &str, query: &str) -> String {
        let mut analyzer = analyzer();
        let terms = query_terms(&mut analyzer, query);
        let mut matcher = TermMatcher::new(&mut analyzer, &terms);
        let source = source(text);
        let window = best_window(&source, &mut matcher);
        render(&source, window, &[])
    }

    #[test]
    fn matcher_finds_stemmed_words() {
        let mut analyzer = analyzer();
        let terms = query_terms(&mut analyzer, "founded happy Vélmora was");
        let mut matcher = TermMatcher::new(&mut analyzer, &terms);
        assert_eq!(matcher.term_of("Founding"), Some(0));
        assert_eq!(matcher.term_of("happiness"), Some(1));
        assert_eq!(matcher.term_of("happy"), Some(1));
        assert_eq!(matcher.term_of("VELMORA"), Some(2));
        assert_eq!(matcher.term_of("Vélmora"), Some(2));
        assert_eq!(matcher.term_of("was"), Some(3));
        assert_eq!(matcher.term_of("harbor"), None);
    }

    #[test]
    fn short_text_is_whole() {
        assert_eq!(passage("Kest is a town.", "town"), "Kest is a town.");
        assert_eq!(passage("", "town"), "");
        assert_eq!(passage("Kest is a town.", "absent"), "Kest is a town.");
    }

    #[test]
    fn long_text_is_cut_at_words_around_the_match() {
        let filler = "Lorem ipsum dolor sit amet. ".repeat(20);
        let text = format!("{filler}The harbor of Kest was founded long ago. {filler}");
        let snippet = passage(&text, "harbor founded");
        assert!(
            snippet.starts_with("…The harbor of Kest was founded"),
            "{snippet}"
        );
        assert!(snippet.ends_with('…'), "{snippet}");
        assert!(snippet.chars().count() <= SNIPPET_LEN + 2);
        let inner = snippet.trim_matches('…');
        assert!(text.contains(inner));
        assert!(!inner.ends_with(' '));
        // Without a sentence end nearby, the passage starts at a whole word before the match.
        let text = format!("{}The harbor. {filler}", "lorem ipsum ".repeat(30));
        let snippet = passage(&text, "harbor");
        let first_word = snippet.trim_start_matches('…').split(' ').next().unwrap();
        assert!(["lorem", "ipsum"].contains(&first_word), "{snippet}");
    }

    #[test]
    fn prefers_window_with_more_distinct_terms() {
        let filler = "lorem ipsum dolor sit amet ".repeat(12);
        let text = format!("Kest here. {filler} Kest and harbor together. {filler}");
        let snippet = passage(&text, "kest harbor");
        assert!(snippet.contains("Kest and harbor together"), "{snippet}");
    }

    #[test]
    fn one_huge_word_is_cut_inside() {
        let text = "x".repeat(500);
        let snippet = passage(&text, "y");
        assert_eq!(snippet, format!("{}…", "x".repeat(SNIPPET_LEN)));
    }

    fn stored(ranges: Vec<(usize, usize)>) -> Vec<(u32, u32)> {
        ranges
            .into_iter()
            .map(|(start, end)| (start as u32, end as u32))
            .collect()
    }

    #[test]
    fn masks_values_digits_and_cut_values() {
        let text = plain_text(
            "| Founded | 1,204 |\n| Region | Northern Vale |\n\nKest trades with Ardmoor's harbor in 1210s.",
        );
        let hidden = stored(hidden_ranges(
            &text,
            &["northern vale".to_owned(), "ardmoor".to_owned()],
        ));
        let window = Window {
            start: 0,
            end: text.len(),
        };
        let masks = mask_ranges(&text, window, &hidden);
        let snippet = render(&source(&text), window, &masks);
        assert_eq!(
            snippet,
            "Founded: … · Region: … · Kest trades with …'s harbor in …."
        );
        // A value cut by the window's end is still masked.
        let cut = Window {
            start: 0,
            end: text.find("Vale").unwrap(),
        };
        let masks = mask_ranges(&text, cut, &hidden);
        assert_eq!(
            render(&source(&text), cut, &masks),
            "Founded: … · Region: …"
        );
    }

    #[test]
    fn many_values_are_found_like_few() {
        let names: Vec<String> = (0..40).map(|n| format!("name{n}x")).collect();
        let mut text: String = names.iter().map(|name| format!("{name} and ")).collect();
        text.push_str("ünï Name7X-b and q");
        let mut values = names.clone();
        values.push("q".to_owned());
        values.push("ünï".to_owned());
        let many = hidden_ranges(&text, &values);
        let mut few = Vec::new();
        for chunk in values.chunks(MANY_VALUES) {
            few.extend(hidden_ranges(&text, chunk));
        }
        assert_eq!(many, merge_masks(&text, few));
        let covered = |word: &str| {
            let pos = text.find(word).unwrap();
            many.iter()
                .any(|&(start, end)| start <= pos && pos + word.len() <= end)
        };
        assert!(covered("Name7X"));
        assert!(covered("ünï"));
        assert_eq!(many.last(), Some(&(text.len() - 1, text.len())));
    }

    #[test]
    fn long_pages_are_scanned_in_part() {
        let markdown = format!("# Kest\n\n{}", "- a row of the list\n".repeat(1000));
        let full = plain_text(&markdown);
        let (text, continues) = scanned_prefix(&full);
        let source = Source::new(text.to_owned(), continues, "Kest");
        assert!(source.continues);
        assert!(source.text.len() <= SCAN_LIMIT && source.text.len() > SCAN_LIMIT - 30);
        assert!(full.starts_with(&source.text));
        // The cut falls at blank space, after a whole word.
        assert!(full[source.text.len()..].starts_with(' '));
        assert_eq!(&source.text[source.content_start..][..5], "a row");
        let window = Window {
            start: source.content_start,
            end: source.content_start + 5,
        };
        assert_eq!(render(&source, window, &[]), "a row…");
        let full = plain_text("# Kest\n\nA town.");
        let (text, continues) = scanned_prefix(&full);
        let short = Source::new(text.to_owned(), continues, "Kest");
        assert!(!short.continues);
        assert_eq!(short.text, "Kest · A town.");
    }

    #[test]
    fn content_starts_after_title() {
        assert_eq!(content_start("Kest · A town.", "Kest"), 8);
        assert_eq!(content_start("Kest", "Kest"), 4);
        assert_eq!(content_start("Kestrel · A bird.", "Kest"), 0);
        assert_eq!(content_start("A town.", ""), 0);
    }

    #[test]
    fn descriptions() {
        assert_eq!(
            describe(PageKind::Entity, "Kest", "x"),
            "An encyclopedia article about Kest."
        );
        assert_eq!(
            describe(PageKind::News, "Storm", "https://kest-herald.fab/news/1"),
            "A news report from kest-herald.fab."
        );
        assert_eq!(
            describe(PageKind::History, "T", "/history/1"),
            "A historical account."
        );
        assert_eq!(
            describe(PageKind::Category, "Category:Towns of Kest", "x"),
            "A category page: Towns of Kest."
        );
    }
}
