//! An article's prose, composed from phrase-bank sentences, and read back by label.
//!
//! Composing: the subject is named in full in the first sentence and after that by a pronoun
//! ("it"), a noun ("the colony") or a surname, or again by name; the sentences after the first
//! come in a varying order, and some pairs are joined into one ("...; it was founded in 1850").
//! So two articles about the same kind of entity rarely share their prose's shape.
//!
//! Reading: a bank in `phrases.toml` may name the infobox label of the value a placeholder holds
//! (`labels = { value = "founded" }`), and `fabula_vocab::read_stated` reads that value back out
//! of the prose composed here.

use rand::RngExt;
use rand::seq::SliceRandom;

use fabula_world::seed::WorldRng;

use crate::english::{close_sentence, upper_first};
use crate::phrases::{fill, pick};

/// How often a sentence after the first is joined to the one before it.
const JOIN_SHARE: f64 = 0.25;

/// Who the subject is after its first mention.
#[derive(Clone)]
pub enum Alias {
    /// A thing: "it" at the start of a sentence, else "the" and its kind ("the colony").
    Kind(String),
    /// A thing whose name a phrasing puts after "the" ("the Grithy Cup"): always its name.
    Name,
    /// A person: the surname or, once their occupation has been said, "the" and it ("the
    /// miner").
    Person {
        surname: String,
        occupation: Option<String>,
    },
}

impl Alias {
    /// The alias of a person named `name`: the name's last word or, when given (a paragraph
    /// after the one that states it), the occupation.
    pub fn person(name: &str, occupation: Option<&str>) -> Alias {
        Alias::Person {
            surname: name.rsplit(' ').next().unwrap_or(name).to_string(),
            occupation: occupation.map(str::to_string),
        }
    }

    /// The alias of a thing of kind `kind` ("colony").
    pub fn thing(kind: &str) -> Alias {
        Alias::Kind(kind.to_string())
    }
}

/// One sentence, filled but not yet capitalised or joined.
struct Piece {
    text: String,
    /// Whether it opens with the phrasing's own words (lower-cased when joined after another),
    /// not with a name.
    literal_start: bool,
}

/// A paragraph being composed about one subject.
pub struct Prose {
    name: String,
    alias: Alias,
    /// Whether the subject has been named in full yet.
    named: bool,
    pieces: Vec<Piece>,
}

impl Prose {
    pub fn new(name: &str, alias: Alias) -> Prose {
        Prose {
            name: name.to_string(),
            alias,
            named: false,
            pieces: Vec::new(),
        }
    }

    /// A paragraph about a subject the page has named before: every mention may be an alias.
    pub fn continued(name: &str, alias: Alias) -> Prose {
        Prose {
            named: true,
            ..Prose::new(name, alias)
        }
    }

    /// Adds a sentence that opens with the subject's name, written by the caller.
    pub fn fixed(&mut self, text: String) {
        self.named = true;
        self.pieces.push(Piece {
            text,
            literal_start: false,
        });
    }

    /// Adds a sentence of the caller's own words that refers to the subject as "it" or "its".
    pub fn plain(&mut self, text: String) {
        self.pieces.push(Piece {
            text,
            literal_start: true,
        });
    }

    /// Adds one phrasing of `key`'s bank, filled with `values` and the subject (named in full in
    /// the paragraph's first sentence, then by name or alias).
    pub fn say(&mut self, rng: &mut WorldRng, key: &str, values: &[(&str, &str)]) {
        let phrasing = pick(rng, key);
        self.say_phrasing(rng, phrasing, values);
    }

    /// Adds one chosen phrasing, filled as [`Prose::say`] fills a bank's.
    pub fn say_phrasing(&mut self, rng: &mut WorldRng, phrasing: &str, values: &[(&str, &str)]) {
        // "It" never opens a paragraph: under a new heading the subject is named or called
        // by its kind.
        let opens_with_subject = phrasing.starts_with("{subject}") && !self.pieces.is_empty();
        let subject = if self.named {
            self.mention(rng, opens_with_subject)
        } else {
            self.name.clone()
        };
        self.named = true;
        let mut all = vec![("subject", subject.as_str())];
        all.extend_from_slice(values);
        let literal_start = !phrasing.starts_with('{');
        self.pieces.push(Piece {
            text: fill(phrasing, &all),
            literal_start,
        });
    }

    /// The subject after its first mention: by name one time in three, else by alias.
    fn mention(&self, rng: &mut WorldRng, opens_sentence: bool) -> String {
        let roll = rng.random_range(0..3);
        match (&self.alias, roll) {
            (Alias::Name, _) | (_, 0) => self.name.clone(),
            (Alias::Kind(_), 1) if opens_sentence => "it".to_string(),
            (Alias::Kind(kind), _) => format!("the {kind}"),
            (
                Alias::Person {
                    occupation: Some(occupation),
                    ..
                },
                1,
            ) => format!("the {occupation}"),
            (Alias::Person { surname, .. }, _) => surname.clone(),
        }
    }

    /// The paragraph: the first sentence first, the others shuffled, some joined in pairs.
    pub fn finish(self, rng: &mut WorldRng) -> String {
        self.compose(rng, true)
    }

    /// The paragraph with its sentences in the order they were added, some joined in pairs.
    pub fn finish_in_order(self, rng: &mut WorldRng) -> String {
        self.compose(rng, false)
    }

    fn compose(self, rng: &mut WorldRng, shuffle: bool) -> String {
        let mut pieces = self.pieces.into_iter();
        let Some(first) = pieces.next() else {
            return String::new();
        };
        let mut rest: Vec<Piece> = pieces.collect();
        if shuffle {
            rest.shuffle(rng);
        }
        let mut sentences = vec![upper_first(&first.text)];
        let mut joined_last = false;
        for piece in rest {
            let join = !joined_last && rng.random_bool(JOIN_SHARE);
            joined_last = join;
            if !join {
                sentences.push(upper_first(&piece.text));
                continue;
            }
            let last = sentences.pop().expect("the first sentence is there");
            let connector = if rng.random_bool(0.5) { "; " } else { ", and " };
            let head = last.strip_suffix('.').unwrap_or(&last);
            let tail = if piece.literal_start {
                lower_first(&piece.text)
            } else {
                piece.text
            };
            sentences.push(format!("{head}{connector}{tail}"));
        }
        let closed: Vec<String> = sentences.iter().map(|s| close_sentence(s)).collect();
        closed.join(" ")
    }
}

/// Lower-cases the first letter of a sentence's own words ("It was" becomes "it was").
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Links joined as a reader lists them: "A", "A and B", "A, B and C".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabula_vocab::read_stated;

    #[test]
    fn lists_read_as_a_reader_writes_them() {
        let items = |n: usize| (0..n).map(|i| format!("L{i}")).collect::<Vec<_>>();
        assert_eq!(and_list(&items(1)), "L0");
        assert_eq!(and_list(&items(2)), "L0 and L1");
        assert_eq!(and_list(&items(3)), "L0, L1 and L2");
    }

    /// A settlement's lead, composed with the page RNG of world `world`.
    fn compose(world: u32) -> String {
        let mut rng = fabula_world::seed::rng(7, world, "pages");
        let mut prose = Prose::new("Kest", Alias::thing("town"));
        let region = "[Upper Vess](https://w/wiki/Upper_Vess)";
        let values = [("kind", "town"), ("kinds", "towns"), ("object", region)];
        prose.say(&mut rng, "settlement_region", &values);
        prose.say(
            &mut rng,
            "settlement_founded",
            &[("kind", "town"), ("value", "1650")],
        );
        prose.say(&mut rng, "settlement_population", &[("value", "12,000")]);
        prose.plain("It has 4 bridges.".to_string());
        prose.finish(&mut rng)
    }

    #[test]
    fn composed_prose_names_its_subject_first_and_varies() {
        let leads: Vec<String> = (0..40).map(compose).collect();
        for lead in &leads {
            let first_sentence = lead.split(". ").next().unwrap();
            assert!(first_sentence.contains("Kest"), "{lead}");
            for fact in ["1650", "12,000", "Upper Vess", "4 bridges"] {
                assert!(lead.contains(fact), "{lead} lacks {fact}");
            }
            assert!(lead.ends_with('.') && !lead.contains(".."), "{lead}");
            for sentence in lead.split(". ") {
                let first = sentence.chars().find(|c| c.is_alphabetic()).unwrap();
                assert!(first.is_uppercase(), "{sentence} in {lead}");
            }
            assert_eq!(read_stated(lead, "founded", false).as_deref(), Some("1650"));
            let field = "The guild operates in the field of coastal shipping.";
            assert_eq!(
                read_stated(field, "category", false).as_deref(),
                Some("coastal shipping")
            );
            assert_eq!(
                read_stated(lead, "population", false).as_deref(),
                Some("12,000")
            );
        }
        let distinct: std::collections::BTreeSet<&String> = leads.iter().collect();
        assert!(
            distinct.len() >= 30,
            "{} distinct leads of 40",
            distinct.len()
        );
        assert!(
            leads
                .iter()
                .any(|l| l.contains("; ") || l.contains(", and "))
        );
        assert_eq!(compose(3), compose(3));
    }
}
