//! Passages: a page's plain text cut into runs of about [`PASSAGE_WORDS`] words, the unit that
//! `/retrieve` returns, as Search-R1's Wikipedia corpus cuts articles into 100-word passages.
//!
//! A page's passages cover its content (its plain text after the title, see
//! [`crate::snippet::content_start`]) in order and without overlap: each holds
//! [`PASSAGE_WORDS`] words, and a last run of fewer than [`MIN_TAIL_WORDS`] words joins the
//! passage before it, so a passage has between 1 and `PASSAGE_WORDS + MIN_TAIL_WORDS - 1` words.
//! A passage starts at its first word and ends where the blank space after its last word begins,
//! so it keeps the punctuation that closes its last sentence. The cut depends only on the text,
//! so the passage index and the page it came from always agree on a passage's bytes.

use crate::Hiding;
use crate::snippet::{Window, mask_ranges};
use crate::text::words;

/// The words of a passage, as in Search-R1's `wiki-18` corpus.
pub(crate) const PASSAGE_WORDS: usize = 100;

/// A final run shorter than this joins the passage before it.
pub(crate) const MIN_TAIL_WORDS: usize = 30;

/// What stands in for a masked value.
const ELLIPSIS: &str = "…";

/// The byte ranges of the passages of `text[content_start..]`, in order.
pub(crate) fn passage_ranges(text: &str, content_start: usize) -> Vec<(usize, usize)> {
    let content = &text[content_start..];
    let spans: Vec<(usize, usize)> = words(content).collect();
    let mut ranges = Vec::with_capacity(spans.len() / PASSAGE_WORDS + 1);
    let mut first = 0;
    while first < spans.len() {
        let mut last = (first + PASSAGE_WORDS).min(spans.len());
        if spans.len() - last < MIN_TAIL_WORDS {
            last = spans.len();
        }
        let start = content_start + spans[first].0;
        let end = content_start + end_of_run(content, spans[last - 1].1);
        ranges.push((start, end));
        first = last;
    }
    ranges
}

/// Where the blank space after byte `word_end` starts (or the text ends).
fn end_of_run(text: &str, word_end: usize) -> usize {
    text[word_end..]
        .find(char::is_whitespace)
        .map_or(text.len(), |offset| word_end + offset)
}

/// The text of the passage `text[start..end]` at a hiding level other than strict: as it is for
/// [`Hiding::None`]; for [`Hiding::Partial`], each of the page's hidden ranges (`hidden`, from
/// `snippet::hidden_ranges`) and each word holding a digit replaced by `…`, as snippets are.
pub(crate) fn passage_text(
    text: &str,
    start: usize,
    end: usize,
    hidden: &[(u32, u32)],
    hiding: Hiding,
) -> String {
    let passage = &text[start..end];
    if hiding != Hiding::Partial {
        return passage.to_owned();
    }
    let masks = mask_ranges(text, Window { start, end }, hidden);
    let mut out = String::with_capacity(passage.len());
    let mut pos = start;
    for (mask_start, mask_end) in masks {
        out.push_str(&text[pos..mask_start]);
        if !out.ends_with(ELLIPSIS) {
            out.push_str(ELLIPSIS);
        }
        pos = mask_end;
    }
    out.push_str(&text[pos..end]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (0..n)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// (words in the content, words per passage).
    fn check(n_words: usize, expected: &[usize]) {
        let text = format!("Title {}.", numbered(n_words));
        let ranges = passage_ranges(&text, "Title ".len());
        let counts: Vec<usize> = ranges
            .iter()
            .map(|&(start, end)| words(&text[start..end]).count())
            .collect();
        assert_eq!(counts, expected, "{n_words} words");
        // Together the passages cover every word once, in order, and the closing full stop.
        let joined: Vec<&str> = ranges.iter().map(|&(s, e)| &text[s..e]).collect();
        let content = if n_words == 0 {
            ""
        } else {
            &text["Title ".len()..]
        };
        assert_eq!(joined.join(" "), content);
    }

    #[test]
    fn cuts_runs_of_a_hundred_words_and_joins_a_short_tail() {
        check(0, &[]);
        check(1, &[1]);
        check(100, &[100]);
        check(129, &[129]);
        check(130, &[100, 30]);
        check(250, &[100, 100, 50]);
        check(329, &[100, 100, 129]);
    }

    #[test]
    fn a_passage_keeps_closing_punctuation_and_starts_at_a_word() {
        let text = "Kest · Founded: 1,204. The (old) harbor trades salt!";
        let ranges = passage_ranges(text, "Kest · ".len());
        assert_eq!(ranges.len(), 1);
        let (start, end) = ranges[0];
        assert_eq!(
            &text[start..end],
            "Founded: 1,204. The (old) harbor trades salt!"
        );
    }

    #[test]
    fn partial_hiding_masks_values_and_digits() {
        let text = "Kest · Founded: 1,204 by Arn Vell. Population 88 souls.";
        let start = "Kest · ".len();
        let vell = text.find("Arn Vell").unwrap() as u32;
        let hidden = [(vell, vell + "Arn Vell".len() as u32)];
        let end = text.len();
        assert_eq!(
            passage_text(text, start, end, &hidden, Hiding::None),
            "Founded: 1,204 by Arn Vell. Population 88 souls."
        );
        assert_eq!(
            passage_text(text, start, end, &hidden, Hiding::Partial),
            "Founded: … by …. Population … souls."
        );
    }
}
