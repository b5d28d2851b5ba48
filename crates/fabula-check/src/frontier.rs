//! Which questions are frontier questions, recognised by the checker itself: a question written
//! from one of the phrasings of the frontier families, `[identify.person_by_blurred_clues]` (one
//! person), `[aggregate.people_by_blurred_clues]` (two to four, all named) and
//! `[table.people_by_blurred_clues]` (a few, tabulated) in the shared data file
//! `templates/tasks/questions.toml`.
//!
//! The phrasings are data, read from the same file as the generator; the matching is the
//! checker's own and needs no theme: a placeholder (`{person_noun}`, `{clues}`) stands for any
//! non-empty text, the same text wherever it repeats, and the first letter matches in either
//! case (questions start upper-cased).

use std::ops::RangeInclusive;
use std::sync::OnceLock;

use crate::contract::{FRONTIER_SET_ANSWERS, FRONTIER_TABLE_ROWS};

const QUESTIONS: &str = include_str!("../../../templates/tasks/questions.toml");

/// The kind and template of each frontier family in the question file, with how many people
/// its clues fit.
const FAMILIES: [(&str, &str, RangeInclusive<usize>); 3] = [
    ("identify", "person_by_blurred_clues", 1..=1),
    ("aggregate", "people_by_blurred_clues", FRONTIER_SET_ANSWERS),
    ("table", "people_by_blurred_clues", FRONTIER_TABLE_ROWS),
];

/// One piece of a phrasing: literal text or a named placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Slot(String),
}

/// The frontier families' phrasings, cut into pieces, each with how many people its clues fit;
/// empty for a family the file lacks, which the tests rule out.
fn phrasings() -> &'static [(Vec<Piece>, RangeInclusive<usize>)] {
    static PHRASINGS: OnceLock<Vec<(Vec<Piece>, RangeInclusive<usize>)>> = OnceLock::new();
    PHRASINGS.get_or_init(|| {
        let file: toml::Table = toml::from_str(QUESTIONS).unwrap_or_default();
        let mut out = Vec::new();
        for (kind, template, answers) in FAMILIES {
            let list = file
                .get(kind)
                .and_then(|k| k.get(template))
                .and_then(|t| t.get("phrasings"))
                .and_then(toml::Value::as_array);
            out.extend(
                list.into_iter()
                    .flatten()
                    .filter_map(toml::Value::as_str)
                    .map(|phrasing| (cut(&lower_first(phrasing)), answers.clone())),
            );
        }
        out
    })
}

/// A phrasing cut at its `{placeholders}`.
fn cut(phrasing: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for (i, part) in phrasing.split('{').enumerate() {
        let (slot, text) = match part.split_once('}') {
            Some((slot, text)) if i > 0 => (Some(slot), text),
            _ => (None, part),
        };
        pieces.extend(slot.map(|s| Piece::Slot(s.to_string())));
        if !text.is_empty() {
            pieces.push(Piece::Text(text.to_string()));
        }
    }
    pieces
}

/// Whether a question was written from a frontier phrasing.
pub fn is_frontier(question: &str) -> bool {
    frontier_answers(question).is_some()
}

/// How many people the clues of a frontier question fit (one, or two to four for a name-all
/// question); `None` for a question of no frontier phrasing.
pub fn frontier_answers(question: &str) -> Option<RangeInclusive<usize>> {
    let question = lower_first(question);
    phrasings()
        .iter()
        .find(|(pieces, _)| fits(pieces, &question, &mut Vec::new()))
        .map(|(_, answers)| answers.clone())
}

/// The text with its first letter in lower case, so that questions and phrasings compare
/// whichever case they start in.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Whether `text` is `pieces` with each slot filled, the same slot with the same text; `bound`
/// holds the slots filled so far.
fn fits<'p, 't>(pieces: &'p [Piece], text: &'t str, bound: &mut Vec<(&'p str, &'t str)>) -> bool {
    let Some((piece, rest)) = pieces.split_first() else {
        return text.is_empty();
    };
    let name = match piece {
        Piece::Text(literal) => {
            return text
                .strip_prefix(literal.as_str())
                .is_some_and(|after| fits(rest, after, bound));
        }
        Piece::Slot(name) => name.as_str(),
    };
    if let Some(&(_, value)) = bound.iter().find(|(n, _)| *n == name) {
        return text
            .strip_prefix(value)
            .is_some_and(|after| fits(rest, after, bound));
    }
    // A slot holds at least one character; try the shortest filling first.
    let ends = text.char_indices().map(|(at, _)| at).skip(1);
    for end in ends.chain([text.len()]).filter(|&end| end > 0) {
        bound.push((name, &text[..end]));
        if fits(rest, &text[end..], bound) {
            return true;
        }
        bound.pop();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(question: &str, expect: bool) {
        assert_eq!(is_frontier(question), expect, "{question}");
    }

    #[test]
    fn frontier_phrasings_are_recognised_in_any_theme() {
        assert_eq!(phrasings().len(), 25, "the families' phrasings are read");
        check(
            "Track down the colonist who was born in the 2140s; and held an office in a guild.",
            true,
        );
        check("Track down the  who x.", false);
        check("track down the colonist who x.", true);
        check(
            "Exactly one keeper was born late; and sailed. Name that keeper.",
            true,
        );
        // The same placeholder holds the same text.
        check("Exactly one keeper was born late. Name that sailor.", false);
        check("There was an envoy who was born late. Give the name.", true);
        // A question of the plain identify family is not a frontier one.
        check("Exactly one keeper was born late. Who is it?", false);
        check("Identify the keeper who was born in 2140.", false);
        check("", false);
    }

    #[test]
    fn phrasings_cut_at_placeholders() {
        let text = |s: &str| Piece::Text(s.into());
        let slot = |s: &str| Piece::Slot(s.into());
        assert_eq!(
            cut("{a} b {c}{d}."),
            [slot("a"), text(" b "), slot("c"), slot("d"), text(".")]
        );
        assert_eq!(cut("plain"), [text("plain")]);
    }
}
