//! Checking a rendered observation against the world before any agent sees it.
//!
//! The database stays the truth. A search render is accepted only when it parses, every url is a
//! page of the world, each block's title and date are the page's, every number, date and
//! capitalised name its snippet states occurs on the cited page, and no value the hiding level
//! hides appears in a snippet. An extractor render is accepted only when it parses, its heading is
//! the page's title, every number, date and capitalised name it states occurs on the page, and it
//! states every number, date and name that snippets shown earlier in the session stated for it.

use std::collections::BTreeSet;

use fabula_date::month_number;
use fabula_file::{Hiding, Page};

use crate::parse::{ParsedPage, SearchSection, parse_page, parse_search};

use crate::view::WorldView;

/// Why a rendered observation was rejected and the template text used instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FallbackReason {
    /// The model failed to run (for example the prompt did not fit its context).
    ModelError,
    /// Generation ran out of its time budget (a remote engine's answer too).
    TimeBudget,
    /// A remote engine gave no answer (refused or cut, or skipped in its cool-down).
    EngineUnavailable,
    /// The text is not in the result-block format (search) or not a Markdown page (extractor).
    Unparsable,
    /// A result names a url that is not a page of this world.
    UnknownUrl,
    /// A title, date, number or name contradicts the page it cites.
    ContradictsWorld,
    /// A snippet shows a value the hiding level hides.
    HiddenValueLeak,
    /// An extracted page disagrees with a snippet shown earlier in the session.
    ContradictsEarlierSnippet,
}

impl FallbackReason {
    /// Every reason, in a fixed order (used for metrics).
    pub const ALL: [FallbackReason; 8] = [
        FallbackReason::ModelError,
        FallbackReason::TimeBudget,
        FallbackReason::EngineUnavailable,
        FallbackReason::Unparsable,
        FallbackReason::UnknownUrl,
        FallbackReason::ContradictsWorld,
        FallbackReason::HiddenValueLeak,
        FallbackReason::ContradictsEarlierSnippet,
    ];

    /// A snake_case name, used as a metrics label.
    pub fn as_str(self) -> &'static str {
        match self {
            FallbackReason::ModelError => "model_error",
            FallbackReason::TimeBudget => "time_budget",
            FallbackReason::EngineUnavailable => "engine_unavailable",
            FallbackReason::Unparsable => "unparsable",
            FallbackReason::UnknownUrl => "unknown_url",
            FallbackReason::ContradictsWorld => "contradicts_world",
            FallbackReason::HiddenValueLeak => "hidden_value_leak",
            FallbackReason::ContradictsEarlierSnippet => "contradicts_earlier_snippet",
        }
    }
}

/// A rejected render: the reason and a human-readable detail for logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub reason: FallbackReason,
    pub detail: String,
}

fn reject<T>(reason: FallbackReason, detail: impl Into<String>) -> Result<T, Rejection> {
    Err(Rejection {
        reason,
        detail: detail.into(),
    })
}

/// Verifies a rendered search observation; returns its parsed sections when it is accepted.
pub fn verify_search(
    world: &dyn WorldView,
    text: &str,
    hiding: Hiding,
) -> Result<Vec<SearchSection>, Rejection> {
    let sections = match parse_search(text) {
        Ok(sections) => sections,
        Err(detail) => return reject(FallbackReason::Unparsable, detail),
    };
    for block in sections.iter().flat_map(|s| &s.results) {
        let Some(page) = world.page(&block.url) else {
            return reject(FallbackReason::UnknownUrl, format!("no page {}", block.url));
        };
        if block.title != page.title {
            return reject(
                FallbackReason::ContradictsWorld,
                format!(
                    "{}: title {:?}, page says {:?}",
                    block.url, block.title, page.title
                ),
            );
        }
        if !same_date(block.date.as_deref(), page.published.as_deref()) {
            return reject(
                FallbackReason::ContradictsWorld,
                format!(
                    "{}: date {:?}, page says {:?}",
                    block.url, block.date, page.published
                ),
            );
        }
        if let Some(value) = leaked_value(&block.snippet, &page, hiding) {
            return reject(
                FallbackReason::HiddenValueLeak,
                format!(
                    "{}: snippet shows {value:?} at hiding {}",
                    block.url,
                    hiding.as_str()
                ),
            );
        }
        let known = Known::of_page(&page);
        if let Err(unknown) = known.check(&block.snippet) {
            return reject(
                FallbackReason::ContradictsWorld,
                format!("{}: {unknown}", block.url),
            );
        }
    }
    Ok(sections)
}

/// Verifies a rendered extractor observation of `url`; `earlier_snippets` are the snippets shown
/// for that url earlier in the session.
pub fn verify_extract(
    world: &dyn WorldView,
    url: &str,
    text: &str,
    earlier_snippets: &[String],
) -> Result<ParsedPage, Rejection> {
    let Some(page) = world.page(url) else {
        return reject(FallbackReason::UnknownUrl, format!("no page {url}"));
    };
    let parsed = match parse_page(text) {
        Ok(parsed) => parsed,
        Err(detail) => return reject(FallbackReason::Unparsable, detail),
    };
    if parsed.title != page.title {
        return reject(
            FallbackReason::ContradictsWorld,
            format!("heading {:?}, page title is {:?}", parsed.title, page.title),
        );
    }
    if let Err(unknown) = Known::of_page(&page).check(&parsed.body) {
        return reject(FallbackReason::ContradictsWorld, unknown.to_string());
    }
    let rendered = Known::of_text(text);
    for snippet in earlier_snippets {
        if let Err(unknown) = rendered.check(snippet) {
            return reject(
                FallbackReason::ContradictsEarlierSnippet,
                format!("earlier snippet {snippet:?}: the page omits or changes it ({unknown})"),
            );
        }
    }
    Ok(parsed)
}

/// Whether a block's date agrees with the page's published date (N/A for reference pages).
pub(crate) fn same_date(stated: Option<&str>, page: Option<&str>) -> bool {
    match (stated, page) {
        (None, None) => true,
        (Some(stated), Some(page)) => {
            stated == page || {
                let stated = dates_in(&tokens(stated));
                let page = dates_in(&tokens(page));
                !stated.is_empty() && stated == page
            }
        }
        _ => false,
    }
}

/// The first value the hiding level hides that appears in `snippet`.
pub(crate) fn leaked_value(snippet: &str, page: &Page, hiding: Hiding) -> Option<String> {
    if hiding == Hiding::None {
        return None;
    }
    let title = page.title.to_lowercase();
    // Both hiding levels mask every word that contains a digit, as the search crate does; a
    // strict snippet may repeat the title, numbers and all ("List of ports (page 2)").
    let title_numbers: Vec<String> = match hiding {
        Hiding::Strict => tokens(&title)
            .into_iter()
            .filter(|t| t.kind == TokenKind::Number)
            .map(|t| normalise_number(t.text))
            .collect(),
        Hiding::None | Hiding::Partial => Vec::new(),
    };
    if let Some(number) = tokens(snippet)
        .into_iter()
        .filter(|t| t.kind == TokenKind::Number)
        .find(|t| !title_numbers.contains(&normalise_number(t.text)))
    {
        return Some(number.text.to_string());
    }
    page.facts
        .iter()
        .filter(|fact| !fact.shown.trim().is_empty())
        .filter(|fact| match hiding {
            Hiding::None => false,
            Hiding::Partial => fact.value_kind.is_hidden_by_partial(),
            // Strict snippets may name the page's subject, which its title states anyway.
            Hiding::Strict => !contains_value(&title, &fact.shown.to_lowercase()),
        })
        .find(|fact| contains_value(&snippet.to_lowercase(), &fact.shown.to_lowercase()))
        .map(|fact| fact.shown.clone())
}

/// Whether `value` occurs in `text` with no letter or digit right before or after it.
pub(crate) fn contains_value(text: &str, value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() {
        return false;
    }
    text.match_indices(value).any(|(start, found)| {
        let before = text[..start].chars().next_back();
        let after = text[start + found.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Words that may start a sentence or label a page without naming anything.
const COMMON_CAPITALISED: &[&str] = &[
    "a", "about", "after", "also", "an", "and", "article", "as", "at", "before", "but", "by",
    "category", "during", "for", "from", "he", "her", "his", "history", "in", "it", "its", "list",
    "news", "of", "on", "or", "page", "report", "see", "she", "since", "the", "their", "there",
    "these", "they", "this", "those", "to", "when", "while", "with",
];

/// A value a text states that the text it is checked against does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// A full date, as `(year, month, day)`.
    Date(Date),
    Number(String),
    /// A capitalised word that is neither a common word nor a month.
    Name(String),
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unknown::Date((y, m, d)) => write!(f, "date {y:04}-{m:02}-{d:02} is not on the page"),
            Unknown::Number(text) => write!(f, "number {text:?} is not on the page"),
            Unknown::Name(text) => write!(f, "name {text:?} is not on the page"),
        }
    }
}

/// What a text states that can be checked: its numbers, dates and words.
#[derive(Debug, Default)]
pub(crate) struct Known {
    numbers: BTreeSet<String>,
    dates: BTreeSet<Date>,
    words: BTreeSet<String>,
}

impl Known {
    pub(crate) fn of_text(text: &str) -> Known {
        let mut known = Known::default();
        known.add(text);
        known
    }

    pub(crate) fn of_page(page: &Page) -> Known {
        let mut known = Known::of_text(&page.title);
        known.add(&page.body);
        if let Some(date) = &page.published {
            known.add(date);
        }
        for fact in &page.facts {
            known.add(&fact.shown);
        }
        known
    }

    pub(crate) fn add(&mut self, text: &str) {
        let tokens = tokens(text);
        self.dates.extend(dates_in(&tokens));
        for token in &tokens {
            match token.kind {
                TokenKind::Number => {
                    self.numbers.insert(normalise_number(token.text));
                }
                TokenKind::Word => {
                    self.words.insert(token.text.to_lowercase());
                }
                TokenKind::Punct => {}
            }
        }
    }

    /// Checks that every date, number and capitalised word `text` states is known; the error is
    /// the first that is not.
    pub(crate) fn check(&self, text: &str) -> Result<(), Unknown> {
        let tokens = tokens(text);
        let spans = date_spans(&tokens);
        for (date, _) in &spans {
            if !self.dates.contains(date) {
                return Err(Unknown::Date(*date));
            }
        }
        let in_date = |idx: usize| spans.iter().any(|(_, span)| span.contains(&idx));
        for (idx, token) in tokens.iter().enumerate() {
            if in_date(idx) {
                continue;
            }
            match token.kind {
                TokenKind::Number if !self.numbers.contains(&normalise_number(token.text)) => {
                    return Err(Unknown::Number(token.text.to_string()));
                }
                TokenKind::Word if token.text.starts_with(char::is_uppercase) => {
                    let lower = token.text.to_lowercase();
                    if !self.words.contains(&lower)
                        && !COMMON_CAPITALISED.contains(&lower.as_str())
                        && month_number(&lower).is_none()
                    {
                        return Err(Unknown::Name(token.text.to_string()));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Drops thousands separators and leading zeros, so `012,345` and `12345` compare equal.
fn normalise_number(text: &str) -> String {
    let plain = text.replace(',', "");
    if plain.contains('.') {
        return plain;
    }
    let trimmed = plain.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".to_string()
    } else {
        trimmed.to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    Word,
    Number,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    kind: TokenKind,
}

/// Splits text into words (letters), numbers (digits with inner `,` or `.` followed by a digit)
/// and single punctuation characters; whitespace is dropped.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |idx: usize| chars.get(idx).map_or(text.len(), |c| c.0);
    let mut out = Vec::new();
    let mut idx = 0;
    while idx < chars.len() {
        let (start, c) = chars[idx];
        if c.is_whitespace() {
            idx += 1;
            continue;
        }
        let mut next = idx + 1;
        let kind = if c.is_ascii_digit() {
            while next < chars.len() {
                let c = chars[next].1;
                let inner = (c == ',' || c == '.')
                    && chars.get(next + 1).is_some_and(|n| n.1.is_ascii_digit());
                if !(c.is_ascii_digit() || inner) {
                    break;
                }
                next += 1;
            }
            TokenKind::Number
        } else if c.is_alphabetic() {
            while next < chars.len() && chars[next].1.is_alphabetic() {
                next += 1;
            }
            TokenKind::Word
        } else {
            TokenKind::Punct
        };
        out.push(Token {
            text: &text[start..end_of(next)],
            kind,
        });
        idx = next;
    }
    out
}

/// A full date as (year, month, day).
type Date = (u32, u32, u32);

/// Finds full dates (`2031-04-02`, `April 2, 2031` and `2 April 2031`) with the token range each
/// spans.
fn date_spans(tokens: &[Token<'_>]) -> Vec<(Date, std::ops::Range<usize>)> {
    let number = |idx: usize, max_len: usize| -> Option<u32> {
        let token = tokens.get(idx)?;
        if token.kind != TokenKind::Number || token.text.len() > max_len {
            return None;
        }
        token.text.parse().ok()
    };
    let year = |idx: usize| -> Option<u32> {
        let token = tokens.get(idx)?;
        if token.kind != TokenKind::Number || token.text.len() != 4 {
            return None;
        }
        token.text.parse().ok()
    };
    let punct = |idx: usize, c: &str| tokens.get(idx).is_some_and(|t| t.text == c);
    let month = |idx: usize| {
        tokens
            .get(idx)
            .filter(|t| t.kind == TokenKind::Word)
            .and_then(|t| month_number(&t.text.to_lowercase()))
    };
    let valid = |y: u32, m: u32, d: u32| (1..=12).contains(&m) && (1..=31).contains(&d) && y > 0;
    let mut dates = Vec::new();
    for idx in 0..tokens.len() {
        if let (Some(y), true, Some(m), true, Some(d)) = (
            year(idx),
            punct(idx + 1, "-"),
            number(idx + 2, 2),
            punct(idx + 3, "-"),
            number(idx + 4, 2),
        ) && valid(y, m, d)
        {
            dates.push(((y, m, d), idx..idx + 5));
        }
        if let (Some(m), Some(d), true, Some(y)) = (
            month(idx),
            number(idx + 1, 2),
            punct(idx + 2, ","),
            year(idx + 3),
        ) && valid(y, m, d)
        {
            dates.push(((y, m, d), idx..idx + 4));
        }
        if let (Some(d), Some(m), Some(y)) = (number(idx, 2), month(idx + 1), year(idx + 2))
            && valid(y, m, d)
        {
            dates.push(((y, m, d), idx..idx + 3));
        }
    }
    dates
}

/// The full dates in `tokens`.
fn dates_in(tokens: &[Token<'_>]) -> Vec<Date> {
    date_spans(tokens)
        .into_iter()
        .map(|(date, _)| date)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_words_numbers_and_punctuation() {
        let texts: Vec<&str> = tokens("Kest had 12,345 people (3.5%).")
            .iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(
            texts,
            ["Kest", "had", "12,345", "people", "(", "3.5", "%", ")", "."]
        );
    }

    #[test]
    fn dates_in_three_forms() {
        for text in [
            "on 2031-04-02.",
            "on April 2, 2031.",
            "on 2 April 2031.",
            "Apr 2, 2031",
        ] {
            assert_eq!(dates_in(&tokens(text)), [(2031, 4, 2)], "{text}");
        }
        assert!(dates_in(&tokens("in 2031, 4 ships")).is_empty());
    }

    #[test]
    fn values_match_on_word_boundaries() {
        assert!(contains_value("the port of kest.", "kest"));
        assert!(!contains_value("the kestrel flew", "kest"));
        assert!(!contains_value("1204 ships", "120"));
    }

    #[test]
    fn strict_snippets_may_repeat_the_title_and_its_numbers() {
        let page = Page {
            url: "https://a.fab/w/List_of_ports_(page_2)".into(),
            title: "List of ports (page 2)".into(),
            kind: fabula_file::PageKind::List,
            published: None,
            body: "# List of ports (page 2)\n\n- Kest: 12 berths\n".into(),
            facts: Vec::new(),
        };
        let snippet = "A reference list: List of ports (page 2).";
        assert_eq!(leaked_value(snippet, &page, Hiding::Strict), None);
        assert_eq!(
            leaked_value(snippet, &page, Hiding::Partial),
            Some("2".to_string())
        );
        let more = "A reference list: List of ports (page 2), 12 berths.";
        assert_eq!(
            leaked_value(more, &page, Hiding::Strict),
            Some("12".to_string())
        );
    }

    #[test]
    fn known_accepts_paraphrase_and_rejects_new_values() {
        let known = Known::of_text("Kest was founded on 2031-04-02 by Oru Venn; 12,345 people.");
        assert!(
            known
                .check("The founder was Oru Venn, on April 2, 2031.")
                .is_ok()
        );
        assert!(known.check("It has 12345 people.").is_ok());
        assert!(known.check("It has 12,346 people.").is_err());
        assert!(known.check("Founded by Ilsa Venn.").is_err());
        assert!(known.check("Founded on 2031-04-03.").is_err());
    }
}
