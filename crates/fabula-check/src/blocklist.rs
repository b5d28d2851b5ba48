//! The real-world names no invented name may equal or contain as a word, read from the shared
//! data file `templates/blocklist.txt` with the checker's own matching.
//!
//! The list is data, so the checker reads the same file as the generator; the code that reads it
//! and compares names is the checker's own, so a bug in the generator's matching is caught here.
//! Names compare without regard to case or surrounding blanks.

use std::collections::HashSet;
use std::sync::OnceLock;

const BLOCKLIST: &str = include_str!("../../../templates/blocklist.txt");

/// A name as it compares: trimmed and lower-cased.
pub(crate) fn folded(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Every listed name, folded: the file's lines less blanks and `#` comments.
fn listed() -> &'static HashSet<String> {
    static LISTED: OnceLock<HashSet<String>> = OnceLock::new();
    LISTED.get_or_init(|| {
        BLOCKLIST
            .lines()
            .filter(|line| {
                let line = line.trim();
                !line.is_empty() && !line.starts_with('#')
            })
            .map(folded)
            .collect()
    })
}

/// Whether a name is a real one: the whole name, or any of its words, is listed.
pub(crate) fn is_real(name: &str) -> bool {
    let names = listed();
    names.contains(&folded(name)) || name.split_whitespace().any(|w| names.contains(&folded(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, expect: bool) {
        assert_eq!(is_real(name), expect, "{name}");
        let generator = fabula_world::blocklist::is_blocked(name)
            || name
                .split_whitespace()
                .any(fabula_world::blocklist::is_blocked);
        assert_eq!(
            is_real(name),
            generator,
            "the generator disagrees on {name}"
        );
    }

    #[test]
    fn real_names_whole_or_as_a_word() {
        assert!(listed().len() >= 500, "{}", listed().len());
        check("Peru", true);
        check("oslo", true);
        check("  OSLO ", true);
        check("Port Oslo", true);
        check("Osloway", false);
        check("Kelvarane", false);
        check("", false);
    }

    #[test]
    fn names_fold_by_case_and_blanks() {
        assert_eq!(folded(" Vess Hall "), "vess hall");
        assert_eq!(folded("O'Rin-Vel"), "o'rin-vel");
    }
}
