//! The blocklist of real names (countries, capitals, famous cities and organisations) that no
//! invented name may equal, read from `templates/blocklist.txt` at compile time.

use std::collections::HashSet;
use std::sync::OnceLock;

const BLOCKLIST: &str = include_str!("../../../templates/blocklist.txt");

/// Folds a name for comparison: lower case, with apostrophes and hyphens kept.
pub fn fold(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Every blocked name, folded.
pub fn names() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        BLOCKLIST
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(fold)
            .collect()
    })
}

/// Whether a name (or a single word) is on the blocklist.
pub fn is_blocked(name: &str) -> bool {
    names().contains(&fold(name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn list_is_large_and_catches_real_names() {
        assert!(super::names().len() >= 500, "{}", super::names().len());
        assert!(super::is_blocked("Peru"));
        assert!(super::is_blocked("oslo"));
        assert!(!super::is_blocked("Kelvarane"));
    }
}
