//! The question phrasings of every task template, read from `templates/tasks/questions.toml`,
//! and the reverse mapping from a question back to the phrasing it was written from.
//!
//! A phrasing id is `kind.template.N`. The blind baseline groups tasks by it, and the baseline
//! agent reads the named values (the slots) out of a question with [`match_question`].

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

const QUESTIONS: &str = include_str!("../../../templates/tasks/questions.toml");

/// One task template: how many hops it takes, how it can be asked, and the agent's plan.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub hops: i64,
    pub phrasings: Vec<String>,
    #[serde(default)]
    pub agent: Vec<String>,
}

/// Every template, by kind and then by template name.
pub type Templates = BTreeMap<String, BTreeMap<String, Template>>;

/// The parsed phrasing file, read once.
pub fn templates() -> &'static Templates {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let templates: Templates =
            toml::from_str(QUESTIONS).expect("templates/tasks/questions.toml is valid");
        for (kind, by_name) in &templates {
            for (name, template) in by_name {
                assert!(
                    template.phrasings.len() >= 2,
                    "{kind}.{name} needs several phrasings"
                );
            }
        }
        templates
    })
}

/// A fingerprint of the phrasing file, so task versions change when phrasings do.
pub fn fingerprint() -> u32 {
    // FNV-1a over the file's bytes: stable across platforms and Rust versions.
    QUESTIONS.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The template `kind.name`. Panics on a name the file lacks, which is a bug in the builder.
pub fn template(kind: &str, name: &str) -> &'static Template {
    templates()
        .get(kind)
        .and_then(|t| t.get(name))
        .unwrap_or_else(|| panic!("templates/tasks/questions.toml lacks [{kind}.{name}]"))
}

/// Fills a phrasing's placeholders with named values.
pub fn fill(phrasing: &str, values: &[(&str, String)]) -> String {
    let mut text = phrasing.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    upper_first(&text)
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => text.to_string(),
    }
}

/// One piece of a phrasing: literal text or a named placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Slot(String),
}

fn pieces(phrasing: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            out.push(Piece::Literal(rest[..open].to_string()));
        }
        out.push(Piece::Slot(rest[open + 1..open + close].to_string()));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Literal(rest.to_string()));
    }
    out
}

/// Matches pieces against text, filling slots lazily (shortest first) with backtracking.
fn match_pieces(pieces: &[Piece], text: &str, slots: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = pieces.split_first() else {
        return text.is_empty();
    };
    match first {
        Piece::Literal(lit) => {
            // The first letter of a phrasing is upper-cased when filled, so compare it loosely.
            if slots.is_empty() && text.len() >= lit.len() && text.is_char_boundary(lit.len()) {
                let head = &text[..lit.len()];
                if upper_first(head) == upper_first(lit) {
                    return match_pieces(rest, &text[lit.len()..], slots);
                }
                return false;
            }
            text.strip_prefix(lit.as_str())
                .is_some_and(|after| match_pieces(rest, after, slots))
        }
        Piece::Slot(name) => {
            for (end, _) in text
                .char_indices()
                .skip(1)
                .chain(std::iter::once((text.len(), ' ')))
            {
                let value = &text[..end];
                // A slot already seen must repeat its value.
                if let Some((_, earlier)) = slots.iter().find(|(n, _)| n == name)
                    && earlier != value
                {
                    continue;
                }
                slots.push((name.clone(), value.to_string()));
                if match_pieces(rest, &text[end..], slots) {
                    return true;
                }
                slots.pop();
            }
            false
        }
    }
}

/// A question matched to its phrasing: the phrasing id and the values of its slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionMatch {
    /// `kind.template.N`.
    pub phrasing_id: String,
    pub kind: String,
    pub template: String,
    /// Slot name and value, in order of appearance.
    pub slots: Vec<(String, String)>,
}

impl QuestionMatch {
    /// The value of a slot.
    pub fn slot(&self, name: &str) -> Option<&str> {
        self.slots
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Finds the phrasing a question was written from. When several match, the one with the most
/// literal text wins, then the first in file order.
pub fn match_question(question: &str) -> Option<QuestionMatch> {
    let mut best: Option<(usize, QuestionMatch)> = None;
    for parsed in parsed() {
        if !has_literals(&parsed.pieces, question) {
            continue;
        }
        let mut slots = Vec::new();
        if !match_pieces(&parsed.pieces, question, &mut slots) {
            continue;
        }
        if best.as_ref().is_none_or(|(n, _)| parsed.literal_len > *n) {
            let m = QuestionMatch {
                phrasing_id: format!("{}.{}.{}", parsed.kind, parsed.template, parsed.index),
                kind: parsed.kind.clone(),
                template: parsed.template.clone(),
                slots,
            };
            best = Some((parsed.literal_len, m));
        }
    }
    best.map(|(_, m)| m)
}

/// Whether the question holds every literal piece of a phrasing, which a match needs: a cheap
/// test that rules out most phrasings before [`match_pieces`] backtracks. The first piece is
/// tested without its first character, which filling may upper-case.
fn has_literals(pieces: &[Piece], question: &str) -> bool {
    pieces.iter().enumerate().all(|(i, piece)| match piece {
        Piece::Slot(_) => true,
        Piece::Literal(lit) if i == 0 => {
            let mut chars = lit.chars();
            chars.next();
            question.contains(chars.as_str())
        }
        Piece::Literal(lit) => question.contains(lit.as_str()),
    })
}

/// One phrasing split into pieces, parsed once.
struct Parsed {
    kind: String,
    template: String,
    index: usize,
    pieces: Vec<Piece>,
    /// The length of its literal text, which ranks competing matches.
    literal_len: usize,
}

fn parsed() -> &'static [Parsed] {
    static PARSED: OnceLock<Vec<Parsed>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let mut out = Vec::new();
        for (kind, by_name) in templates() {
            for (name, template) in by_name {
                for (index, phrasing) in template.phrasings.iter().enumerate() {
                    let pieces = pieces(phrasing);
                    let literal_len = pieces
                        .iter()
                        .map(|p| match p {
                            Piece::Literal(l) => l.len(),
                            Piece::Slot(_) => 0,
                        })
                        .sum();
                    out.push(Parsed {
                        kind: kind.clone(),
                        template: name.clone(),
                        index,
                        pieces,
                        literal_len,
                    });
                }
            }
        }
        out
    })
}

/// The phrasing id (`kind.template.N`) of a question, if it was written from a known phrasing.
pub fn phrasing_id(question: &str) -> Option<String> {
    match_question(question).map(|m| m.phrasing_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_has_several_phrasings() {
        let n: usize = templates().values().map(|t| t.len()).sum();
        assert!(n >= 20, "{n} templates");
    }

    #[test]
    fn questions_map_back_to_their_phrasing() {
        let q = fill(
            &template("lookup", "org_founder").phrasings[1],
            &[
                ("person_noun", "artisan".into()),
                ("org", "Vess Hall".into()),
            ],
        );
        assert_eq!(q, "Which artisan was the founder of Vess Hall?");
        let m = match_question(&q).unwrap();
        assert_eq!(m.phrasing_id, "lookup.org_founder.1");
        assert_eq!(m.slot("org"), Some("Vess Hall"));
    }

    #[test]
    fn lower_case_openings_are_upper_cased() {
        let q = fill(
            "{org} was founded in which year?",
            &[("org", "van Orr".into())],
        );
        assert_eq!(q, "Van Orr was founded in which year?");
        assert_eq!(phrasing_id(&q).as_deref(), Some("lookup.org_founded.2"));
    }
}
