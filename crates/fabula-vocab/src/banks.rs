//! The phrase banks of `templates/pages/phrases.toml`, which the page renderer writes prose from,
//! and the reading of a stated value back out of that prose by the infobox label it belongs to.
//!
//! A bank may name the infobox label of the value a placeholder holds
//! (`labels = { value = "founded" }`). [`read_stated`] matches every phrasing of such banks
//! against a page's prose and returns that placeholder's text, which is what a reader of a page
//! whose infobox leaves the fact out must do. The baseline agent reads with it; the patterns are
//! built once from the banks, so a new phrasing is readable as soon as it is written.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

/// The phrase banks' file, compiled in.
pub const PHRASES: &str = include_str!("../../../templates/pages/phrases.toml");

/// One fact type's phrasings, and the infobox label of each placeholder that holds a value a
/// reader may look up by label (see [`read_stated`]).
#[derive(Deserialize)]
pub struct Bank {
    pub phrases: Vec<String>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// The phrase banks, by fact type.
pub fn banks() -> &'static BTreeMap<String, Bank> {
    static PHRASE_BANKS: OnceLock<BTreeMap<String, Bank>> = OnceLock::new();
    PHRASE_BANKS.get_or_init(|| toml::from_str(PHRASES).expect("phrases.toml is valid"))
}

/// A pattern for one labelled placeholder of one phrasing.
struct Reading {
    label: String,
    pattern: Regex,
}

/// What a Markdown link looks like in prose.
const LINK: &str = r"\[[^\]]+\]\([^)\s]+\)";
/// What an entity's name looks like in prose where it is no link: words, no sentence break.
const NAME: &str = r"[^\s.;,\[\]()][^.;,\[\]()]*?";
/// A value: a number (thousands grouped) or a few words.
const VALUE: &str = r"\d[\d,]*\d|\d|[^\s.;,\[\]()\d][^.;,\[\]()]*?";

/// Every labelled placeholder of every phrasing, as a pattern capturing its text in group `v`.
fn readings() -> &'static [Reading] {
    static READINGS: OnceLock<Vec<Reading>> = OnceLock::new();
    READINGS.get_or_init(|| {
        let mut out = Vec::new();
        for (key, bank) in banks() {
            for (slot, label) in &bank.labels {
                for phrasing in &bank.phrases {
                    let pattern = pattern(phrasing, slot);
                    let pattern = Regex::new(&pattern)
                        .unwrap_or_else(|e| panic!("bank `{key}`, `{phrasing}`: {e}"));
                    out.push(Reading {
                        label: label.clone(),
                        pattern,
                    });
                }
            }
        }
        out
    })
}

/// The pattern of a phrasing that captures placeholder `slot`: its words literally (first letter
/// in either case, "a" before a placeholder as "a" or "an", the closing full stop also as the
/// ";" or "," of a joined sentence), the other placeholders as what they may hold.
fn pattern(phrasing: &str, slot: &str) -> String {
    let mut out = String::from("(?i)");
    if !phrasing.starts_with('{') || phrasing.starts_with(&format!("{{{slot}}}")) {
        // A value or a word that opens its sentence starts after a sentence end or a join, not
        // within the words before it ("..., and mining is its field" reads "mining"; "In
        // {value}, {subject} died." does not read the "in 1952" of "born there in 1952, and in
        // 1997, Vrask died").
        out.push_str(r"(?:^|[.;]\s+|, and\s+)");
    }
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("placeholders are closed");
        out.push_str(&literal(&rest[..open]));
        let name = &rest[open + 1..close];
        let object = format!("{LINK}|{NAME}");
        let what = match name {
            "object" => object.as_str(),
            "list" => LINK,
            "value" => VALUE,
            "subject" => r"[^.;]+?",
            _ => r"[^.;\[\]]+?",
        };
        if name == slot {
            out.push_str(&format!("(?P<v>{what})"));
        } else {
            out.push_str(&format!("(?:{what})"));
        }
        rest = &rest[close + 1..];
    }
    match rest.strip_suffix('.') {
        Some(words) => {
            out.push_str(&literal(words));
            out.push_str("[.;,]");
        }
        None => out.push_str(&literal(rest)),
    }
    out
}

/// A phrasing's own words as a pattern, with a final "a " read as "a " or "an ".
fn literal(words: &str) -> String {
    let before_article = words
        .strip_suffix("a ")
        .filter(|w| w.is_empty() || w.ends_with(' '));
    match before_article {
        Some(w) => format!("{}an? ", regex::escape(w)),
        None => regex::escape(words),
    }
}

/// The text a page's prose gives for the value labelled `label` (lower-case; with `prefix`, any
/// label starting with it); `None` when no phrasing matches. Where several phrasings match, the
/// most specific wins: the one that leaves the least to its value ("operates in the field of
/// mining" is read by "operates in the field of {value}", not by "operates in {value}").
pub fn read_stated(prose: &str, label: &str, prefix: bool) -> Option<String> {
    readings()
        .iter()
        .filter(|r| {
            if prefix {
                r.label.starts_with(label)
            } else {
                r.label == label
            }
        })
        .filter_map(|r| r.pattern.captures(prose))
        .map(|c| c["v"].to_string())
        .min_by_key(String::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(phrasing: &str, slot: &str, prose: &str, expect: Option<&str>) {
        let pattern = Regex::new(&pattern(phrasing, slot)).unwrap();
        let got = pattern.captures(prose).map(|c| c["v"].to_string());
        assert_eq!(got.as_deref(), expect, "{phrasing} in {prose}");
    }

    #[test]
    fn patterns_read_a_placeholder_back() {
        let link = "[Kest](https://w/wiki/Kest)";
        check(
            "{subject} was born in {value} in {object}.",
            "value",
            &format!("Ann Vrask was born in 1850 in {link}."),
            Some("1850"),
        );
        check(
            "{subject} was born in {value} in {object}.",
            "object",
            &format!("Tal lies in X. Vrask was born in 1850 in {link}; she left."),
            Some(link),
        );
        check(
            "{subject} was born in {value} in {object}.",
            "object",
            "Tal lies in X. Vrask was born in 1850 in Kest Vale; she left.",
            Some("Kest Vale"),
        );
        check(
            "{object} is the birthplace of {subject}, who was born there in {value}.",
            "object",
            "It rained. Kest Vale is the birthplace of Ann Vrask, who was born there in 1850.",
            Some("Kest Vale"),
        );
        check(
            "Born in {object} in {value}, {subject} grew up there.",
            "value",
            "Born in Kest Vale in 1850, Ann Vrask grew up there.",
            Some("1850"),
        );
        check(
            "{subject} worked as a {value}.",
            "value",
            "It rained, and Vrask worked as an engineer, and then left.",
            Some("engineer"),
        );
        check(
            "It has {value} residents.",
            "value",
            "Kest lies in X; it has 161,454 residents.",
            Some("161,454"),
        );
        check(
            "Its population is {value}.",
            "value",
            "Its population is 161,454.",
            Some("161,454"),
        );
        check("It has {value} residents.", "value", "It has many.", None);
        check(
            "In {value}, {subject} died.",
            "value",
            "Kest is the birthplace of Ann Vrask, who was born there in 1952, and in 1997, \
             Vrask died.",
            Some("1997"),
        );
        check(
            "{value} is the field of the {kind}.",
            "value",
            "It lies in X, and mining is the field of the guild.",
            Some("mining"),
        );
        check(
            "{value} is the field of the {kind}.",
            "value",
            "It lies in X. Mining is the field of the guild.",
            Some("Mining"),
        );
    }

    #[test]
    fn every_labelled_phrasing_compiles() {
        assert!(!readings().is_empty());
    }

    /// Banks that state a fact: every one but the census report's opening, the filler pages'
    /// and the background sections' headings.
    fn states_a_fact(key: &str) -> bool {
        key != "census_intro" && !key.starts_with("filler_") && !key.starts_with("heading_")
    }

    #[test]
    fn every_fact_has_ten_phrasings_and_each_states_its_labelled_values() {
        for (key, bank) in banks() {
            let n = bank.phrases.len();
            assert!(n >= 3, "{key} has {n} phrasings");
            assert!(!states_a_fact(key) || n >= 10, "{key} has {n} phrasings");
            for phrasing in bank.phrases.iter().filter(|_| states_a_fact(key)) {
                // A sentence's first letter is upper-cased: a value there would no longer read
                // as the text its fact records ("mining" as "Mining").
                assert!(!phrasing.starts_with("{value}"), "{key}: {phrasing}");
            }
            for (slot, phrasing) in bank
                .labels
                .keys()
                .flat_map(|s| bank.phrases.iter().map(move |p| (s, p)))
            {
                let placeholder = format!("{{{slot}}}");
                assert!(
                    phrasing.contains(&placeholder),
                    "{key}: {phrasing} lacks {placeholder}"
                );
            }
        }
    }
}
