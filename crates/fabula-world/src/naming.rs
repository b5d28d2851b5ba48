//! Naming languages: each world invents its own syllable inventory, so its names are pronounceable,
//! consistent in sound and never real.
//!
//! A [`Language`] is a choice of onsets, vowels and codas plus a syllable count range. A [`Namer`]
//! draws words from it, fills theme patterns such as `Port {root}`, and guarantees that every name
//! in a world is unique and that neither a name nor any of its words is on the blocklist.

use std::collections::HashSet;

use rand::RngExt;
use rand::seq::IndexedRandom;

use crate::blocklist;
use crate::seed::WorldRng;

const ONSETS: &[&str] = &[
    "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "th",
    "sh", "ch", "br", "dr", "kr", "tr", "st", "gl", "vr", "sk", "qu", "y", "j", "fl", "gr", "pr",
];
const VOWELS: &[&str] = &[
    "a", "e", "i", "o", "u", "ae", "ai", "ou", "ei", "ia", "oa", "y", "au", "io",
];
const CODAS: &[&str] = &[
    "n", "r", "l", "s", "th", "m", "k", "nd", "rn", "st", "x", "sh", "ll", "rk", "nt",
];

/// A naming language: the sounds a world's names are built from.
#[derive(Debug, Clone)]
pub struct Language {
    onsets: Vec<&'static str>,
    vowels: Vec<&'static str>,
    codas: Vec<&'static str>,
    /// Probability that a syllable closes with a coda.
    coda_rate: f64,
    /// Inclusive range of syllables per word.
    syllables: (usize, usize),
}

fn pick_subset(rng: &mut WorldRng, pool: &[&'static str], n: usize) -> Vec<&'static str> {
    let mut chosen: Vec<&'static str> = pool.sample(rng, n).copied().collect();
    // Sorting keeps the inventory independent of the sampling order; only the RNG stream matters.
    chosen.sort_unstable();
    chosen
}

impl Language {
    /// Invents a language.
    pub fn new(rng: &mut WorldRng) -> Language {
        let n_onsets = rng.random_range(9..=16);
        let n_vowels = rng.random_range(4..=7);
        let n_codas = rng.random_range(3..=7);
        Language {
            onsets: pick_subset(rng, ONSETS, n_onsets),
            vowels: pick_subset(rng, VOWELS, n_vowels),
            codas: pick_subset(rng, CODAS, n_codas),
            coda_rate: rng.random_range(0.2..0.6),
            syllables: if rng.random_bool(0.5) { (2, 3) } else { (2, 2) },
        }
    }

    /// Draws one capitalised word.
    pub fn word(&self, rng: &mut WorldRng) -> String {
        let n = rng.random_range(self.syllables.0..=self.syllables.1);
        let mut word = String::new();
        for i in 0..n {
            // A word may open on a vowel; later syllables always have an onset for clarity.
            if i > 0 || rng.random_bool(0.8) {
                word.push_str(self.onsets.choose(rng).expect("non-empty"));
            }
            word.push_str(self.vowels.choose(rng).expect("non-empty"));
            if rng.random_bool(self.coda_rate) {
                word.push_str(self.codas.choose(rng).expect("non-empty"));
            }
        }
        capitalise(&word)
    }
}

/// Upper-cases the first letter of a word.
pub fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Draws unique, unblocked names for one world.
#[derive(Debug)]
pub struct Namer {
    pub language: Language,
    used: HashSet<String>,
    used_roots: HashSet<String>,
}

impl Namer {
    pub fn new(language: Language) -> Namer {
        Namer {
            language,
            used: HashSet::new(),
            used_roots: HashSet::new(),
        }
    }

    /// A fresh root word, 4 to 10 letters long, never used as a root before and not blocked.
    pub fn root(&mut self, rng: &mut WorldRng) -> String {
        loop {
            let word = self.language.word(rng);
            let len = word.chars().count();
            if !(4..=10).contains(&len) || blocklist::is_blocked(&word) {
                continue;
            }
            if self.used_roots.insert(word.to_lowercase()) {
                return word;
            }
        }
    }

    /// Reserves a full name; false when it is taken or blocked.
    pub fn reserve(&mut self, name: &str) -> bool {
        if blocklist::is_blocked(name) || name.split_whitespace().any(blocklist::is_blocked) {
            return false;
        }
        self.used.insert(name.to_lowercase())
    }

    /// A unique name from one of the patterns, with a fresh root.
    pub fn name(&mut self, rng: &mut WorldRng, patterns: &[String]) -> String {
        loop {
            let root = self.root(rng);
            let name = fill(patterns.choose(rng).map_or("{root}", String::as_str), &root);
            if self.reserve(&name) {
                return name;
            }
        }
    }

    /// A unique name from one of the patterns reusing a given root, if one is still free.
    /// Reused roots make near-namesakes: a town `Port Kelvar` and a trading house `Kelvar Company`.
    pub fn name_with_root(
        &mut self,
        rng: &mut WorldRng,
        patterns: &[String],
        root: &str,
    ) -> Option<String> {
        for _ in 0..4 {
            let name = fill(patterns.choose(rng).map_or("{root}", String::as_str), root);
            if self.reserve(&name) {
                return Some(name);
            }
        }
        None
    }
}

/// Replaces `{root}` in a pattern.
pub fn fill(pattern: &str, root: &str) -> String {
    pattern.replace("{root}", root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::rng;

    #[test]
    fn names_are_unique_and_pronounceable() {
        let mut r = rng(1, 2, "names");
        let mut namer = Namer::new(Language::new(&mut r));
        let patterns = vec!["{root}".to_string(), "Port {root}".to_string()];
        let names: Vec<String> = (0..300).map(|_| namer.name(&mut r, &patterns)).collect();
        let unique: HashSet<_> = names.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(unique.len(), names.len());
        for n in &names {
            assert!(n.chars().next().unwrap().is_uppercase(), "{n}");
            assert!(n.chars().any(|c| "aeiouy".contains(c)), "{n}");
        }
    }

    #[test]
    fn languages_differ_between_worlds() {
        let a = Language::new(&mut rng(1, 1, "language")).word(&mut rng(1, 1, "w"));
        let b = Language::new(&mut rng(1, 2, "language")).word(&mut rng(1, 1, "w"));
        assert_ne!(a, b);
    }
}
