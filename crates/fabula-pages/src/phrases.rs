//! Picking and filling phrasings from the phrase banks.

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
    use super::fill;

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
}
