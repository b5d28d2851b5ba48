//! How pages may write a number, re-derived for the checker: plain digits, or with a comma
//! between each group of three digits from the right (`12,345`).
//!
//! This is the checker's own formatting, written apart from the renderer's (`fabula-pages`), so a
//! bug in one shows as a disagreement instead of passing both. It is a few lines with one fixed
//! rule, no locale and no options, which is why no formatting library is used.

/// The number with thousands separators: `-1234567` is `-1,234,567`.
pub(crate) fn with_separators(n: i64) -> String {
    let reversed: Vec<char> = n.unsigned_abs().to_string().chars().rev().collect();
    let groups: Vec<String> = reversed
        .chunks(3)
        .rev()
        .map(|group| group.iter().rev().collect())
        .collect();
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}", groups.join(","))
}

/// The texts a page may write for an integer: plain, and with separators when they differ.
pub(crate) fn spellings(n: i64) -> Vec<String> {
    let plain = n.to_string();
    let separated = with_separators(n);
    if separated == plain {
        vec![plain]
    } else {
        vec![plain, separated]
    }
}

/// The integer a text holds when it is one written plainly (`-12`, not `012`, `+12` or `1,2`).
pub(crate) fn plain_integer(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|n| n.to_string() == text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(n: i64, expect: &str) {
        assert_eq!(with_separators(n), expect, "{n}");
        assert_eq!(with_separators(n), fabula_pages::fmt_count(n), "{n}");
    }

    #[test]
    fn groups_of_three_from_the_right() {
        check(0, "0");
        check(7, "7");
        check(999, "999");
        check(1000, "1,000");
        check(12_345, "12,345");
        check(123_456, "123,456");
        check(1_234_567, "1,234,567");
        check(-1_234_567, "-1,234,567");
        check(-12, "-12");
        check(i64::MAX, "9,223,372,036,854,775,807");
        check(i64::MIN, "-9,223,372,036,854,775,808");
    }

    #[test]
    fn plain_spellings_only() {
        assert_eq!(spellings(999), ["999"]);
        assert_eq!(spellings(1000), ["1000", "1,000"]);
        assert_eq!(plain_integer("-12"), Some(-12));
        for text in ["012", "+12", "1,2", "12a", ""] {
            assert_eq!(plain_integer(text), None, "{text}");
        }
    }
}
