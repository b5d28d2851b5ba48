//! Picking and filling phrasings from the phrase banks.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use rand::seq::IndexedRandom;

use fabula_world::seed::WorldRng;

use crate::english::{article, close_sentence, upper_first};
use crate::templates;

/// Fills one randomly chosen phrasing of `key` with named values, as a sentence: it starts with a
/// capital, ends with one full stop, and an "a" before a placeholder becomes the article its value
/// takes ("a {value}" with "engineer" reads "an engineer").
pub fn say(rng: &mut WorldRng, key: &str, values: &[(&str, &str)]) -> String {
    close_sentence(&title(rng, key, values))
}

/// Fills one randomly chosen phrasing of `key` as a title: a capital first letter, no full stop.
pub fn title(rng: &mut WorldRng, key: &str, values: &[(&str, &str)]) -> String {
    upper_first(&fill(pick(rng, key), values))
}

/// One randomly chosen phrasing of `key`'s bank.
pub fn pick(rng: &mut WorldRng, key: &str) -> &'static str {
    let bank = templates::banks()
        .get(key)
        .unwrap_or_else(|| panic!("no phrase bank `{key}`"));
    bank.phrases.choose(rng).expect("banks are non-empty")
}

/// The names of the placeholders of the phrasings of every bank, by bank, each once.
fn placeholders() -> &'static BTreeMap<String, BTreeSet<String>> {
    static NAMES: OnceLock<BTreeMap<String, BTreeSet<String>>> = OnceLock::new();
    NAMES.get_or_init(|| {
        templates::banks()
            .iter()
            .map(|(key, bank)| {
                let names = bank.phrases.iter().flat_map(|p| names_in(p)).collect();
                (key.clone(), names)
            })
            .collect()
    })
}

/// The names between braces in a phrasing.
fn names_in(phrasing: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|at| open + at) else {
            break;
        };
        out.push(rest[open + 1..close].to_string());
        rest = &rest[close + 1..];
    }
    out
}

/// Whether `values`, with the names in `also`, fill every placeholder of every phrasing of
/// `key`'s bank: a sentence whose value is missing (a living person's death year) is left out.
pub(crate) fn fills(key: &str, values: &[(&str, &str)], also: &[&str]) -> bool {
    placeholders()[key]
        .iter()
        .all(|name| also.contains(&name.as_str()) || values.iter().any(|(n, _)| n == name))
}

/// Replaces each `{name}` of a phrasing that `values` names; other braces stay as they are.
pub(crate) fn fill(phrasing: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(phrasing.len() + 64);
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|at| open + at) else {
            break;
        };
        let name = &rest[open + 1..close];
        out.push_str(&rest[..open]);
        match values.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => {
                agree_article(&mut out, value);
                out.push_str(value);
            }
            None => out.push_str(&rest[open..=close]),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// When `text` ends with the word "a" or "an" and a space, makes it the article `next` takes,
/// keeping its capital.
fn agree_article(text: &mut String, next: &str) {
    let Some(before_space) = text.strip_suffix(' ') else {
        return;
    };
    let word_start = before_space
        .rfind(|c: char| !c.is_alphanumeric())
        .map_or(0, |at| at + 1);
    let word = &before_space[word_start..];
    if !["a", "an", "A", "An"].contains(&word) {
        return;
    }
    let chosen = article(next);
    let chosen = if word.starts_with('A') {
        upper_first(chosen)
    } else {
        chosen.to_string()
    };
    text.replace_range(word_start..before_space.len(), &chosen);
}

#[cfg(test)]
mod tests {
    use super::{fill, fills};

    fn check(phrasing: &str, values: &[(&str, &str)], expect: &str) {
        assert_eq!(fill(phrasing, values), expect, "{phrasing}");
    }

    #[test]
    fn placeholders_are_filled_with_the_article_their_value_takes() {
        check(
            "{subject} worked as a {value}.",
            &[("subject", "Ann"), ("value", "engineer")],
            "Ann worked as an engineer.",
        );
        check(
            "{subject} worked as an {value}.",
            &[("subject", "Ann"), ("value", "miner")],
            "Ann worked as a miner.",
        );
        check("A {kind} opened.", &[("kind", "album")], "An album opened.");
        check("Bea {kind}", &[("kind", "album")], "Bea album");
        check("Ga {kind}", &[("kind", "album")], "Ga album");
        check("a new {kind}", &[("kind", "album")], "a new album");
        check("{unknown} stays", &[("kind", "x")], "{unknown} stays");
        check("{kind}", &[("kind", "x")], "x");
    }

    #[test]
    fn a_bank_is_filled_when_every_placeholder_has_a_value() {
        let values = [("value", "1900")];
        assert!(fills("person_died", &values, &["subject"]));
        assert!(!fills("person_died", &[], &["subject"]));
        assert!(!fills("person_died", &values, &[]));
    }
}
