//! Picking and filling phrasings from the phrase banks.

use rand::seq::IndexedRandom;

use fabula_world::seed::WorldRng;

use crate::templates;

/// Fills one randomly chosen phrasing of `key` with named values.
pub fn say(rng: &mut WorldRng, key: &str, values: &[(&str, &str)]) -> String {
    let bank = templates::phrases()
        .get(key)
        .unwrap_or_else(|| panic!("no phrase bank `{key}`"));
    let mut text = bank.choose(rng).expect("banks are non-empty").clone();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    upper_first(&text)
}

/// Upper-cases the first character, for sentences that open with a lower-case value.
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => text.to_string(),
    }
}
