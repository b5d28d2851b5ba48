//! Small rules of English grammar the page prose and the questions need: the indefinite article
//! before a word or a number, verb agreement with a label, sentence starts and ends, compound
//! nouns, and counts with their thousands grouped.
//!
//! Every "a" or "an" a page prints before a value (a kind, an occupation, a category) comes from
//! [`article`], so no value can put "a" before a vowel sound or "an" before a consonant sound.

/// Beginnings of words that start with a vowel letter but the consonant sound of "you" or "won",
/// lower-cased.
const VOWEL_LETTER_CONSONANT_SOUND: &[&str] = &[
    "once", "uni", "use", "usu", "uti", "ubi", "ura", "ure", "uro", "eu", "ewe",
];

/// Words that begin with a silent "h", so with a vowel sound, lower-cased.
const SILENT_H: &[&str] = &["hour", "honest", "honour", "honor", "heir"];

/// Letters whose spoken name begins with a vowel sound, for initialisms such as "an MP".
const VOWEL_SOUND_LETTERS: &str = "AEFHILMNORSX";

/// The indefinite article, "a" or "an", that goes before `phrase`, judged by the sound of its first
/// word. A Markdown link is judged by its visible text; a number by how it is read aloud ("an 8",
/// "an 11,000", "an 1848 map", but "a 1,100" and "a 110").
///
/// ```text
/// article("album") == "an"    article("union") == "a"    article("hour") == "an"
/// article("8") == "an"        article("18,000") == "an"  article("180") == "a"
/// ```
pub fn article(phrase: &str) -> &'static str {
    let word = phrase
        .trim_start_matches(['[', '(', '"', '\'', '*', '_'])
        .split(|c: char| c.is_whitespace() || c == '-' || c == ']')
        .next()
        .unwrap_or_default();
    if vowel_sound(word) { "an" } else { "a" }
}

/// `phrase` without a leading indefinite article, undoing [`with_article`]: "an album" is
/// "album", "guild" stays "guild".
pub fn without_article(phrase: &str) -> &str {
    phrase
        .strip_prefix("an ")
        .or_else(|| phrase.strip_prefix("a "))
        .unwrap_or(phrase)
}

/// `phrase` after its indefinite article: "an album", "a guild".
pub fn with_article(phrase: &str) -> String {
    format!("{} {phrase}", article(phrase))
}

/// Whether a word begins with a vowel sound.
fn vowel_sound(word: &str) -> bool {
    let Some(first) = word.chars().next() else {
        return false;
    };
    if first.is_ascii_digit() {
        return number_vowel_sound(word);
    }
    let is_initialism = word.len() >= 2 && word.chars().all(|c| c.is_ascii_uppercase());
    if is_initialism {
        return VOWEL_SOUND_LETTERS.contains(first);
    }
    let lower = word.to_lowercase();
    if SILENT_H.iter().any(|w| lower.starts_with(w)) {
        return true;
    }
    if lower == "one"
        || VOWEL_LETTER_CONSONANT_SOUND
            .iter()
            .any(|w| lower.starts_with(w))
    {
        return false;
    }
    let mut letters = lower.chars();
    match letters.next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => true,
        // An invented name such as "Ygryn" is read with a vowel; "yard" is not.
        Some('y') => letters.next().is_some_and(|c| !"aeiouy".contains(c)),
        _ => false,
    }
}

/// Whether a number, as digits with optional thousands commas, is read with a vowel sound: it
/// begins with "eight", "eleven" or "eighteen". A four-digit number without commas is read as a
/// year ("eighteen forty-eight"), any other by its leading group of thousands ("eleven thousand").
fn number_vowel_sound(word: &str) -> bool {
    let number: String = word
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    let digits = number.replace(',', "");
    let read_as_year = digits.len() == 4 && !number.contains(',');
    let lead = if read_as_year {
        &digits[..2]
    } else {
        &digits[..(digits.len() - 1) % 3 + 1]
    };
    lead.starts_with('8') || lead == "11" || lead == "18"
}

/// Whether a column label names a plural ("citations", "copies sold", "market days per month"),
/// so that a sentence about it takes "are". Units in brackets and anything after "per" are not
/// the head of the phrase.
pub fn is_plural(label: &str) -> bool {
    let head = label.split('(').next().unwrap_or_default();
    let head = head.split(" per ").next().unwrap_or_default();
    head.split_whitespace().any(|word| {
        word.ends_with('s') && !["ss", "us", "is"].iter().any(|end| word.ends_with(end))
    })
}

/// "is" or "are", agreeing with a label.
pub fn be(label: &str) -> &'static str {
    if is_plural(label) { "are" } else { "is" }
}

/// A sentence stating a measure of the subject, labelled as a theme labels it: "area (km²)"
/// and "500" make "Its area is 500 km².", "drydocks" and "12" make "It has 12 drydocks.",
/// "copies sold" and "9,000" make "It has sold 9,000 copies.", "capacity" and "800" make "Its
/// capacity is 800."
pub fn measure_sentence(label: &str, value: &str) -> String {
    if let Some((base, unit)) = label.split_once(" (") {
        let unit = unit.trim_end_matches(')');
        return format!("Its {base} {} {value} {unit}.", be(base));
    }
    if let Some(things) = label.strip_suffix(" sold") {
        return format!("It has sold {value} {things}.");
    }
    if is_plural(label) {
        format!("It has {value} {label}.")
    } else {
        format!("Its {label} is {value}.")
    }
}

/// Upper-cases the first letter a reader sees, for sentences that open with a lower-case value
/// or with a Markdown link.
pub fn upper_first(text: &str) -> String {
    let skip = text.len() - text.trim_start_matches('[').len();
    let (head, rest) = text.split_at(skip);
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => {
            let mut out = head.to_string();
            out.extend(c.to_uppercase());
            out.push_str(chars.as_str());
            out
        }
        _ => text.to_string(),
    }
}

/// Drops the full stop that closes a sentence when the text before it already ends with one, as
/// a name like "Kessa Sound Co." does, shown plainly or as a link.
pub fn close_sentence(text: &str) -> String {
    let Some(before) = text.strip_suffix('.') else {
        return text.to_string();
    };
    let visible_end = match before.strip_suffix(')') {
        // A Markdown link: what a reader sees ends before "](".
        Some(link) => link.rfind("](").map_or(link, |at| &link[..at]),
        None => before,
    };
    if visible_end.ends_with('.') {
        before.to_string()
    } else {
        text.to_string()
    }
}

/// A modifier before a noun, without saying a shared word twice: "passenger rail" and "rail
/// company" make "passenger rail company", "folk" and "band" make "folk band".
pub fn compound(modifier: &str, noun: &str) -> String {
    if repeats_word(modifier, noun) {
        let last = modifier.rsplit(' ').next().unwrap_or_default();
        let kept = &modifier[..modifier.len() - last.len()];
        format!("{kept}{noun}")
    } else {
        format!("{modifier} {noun}")
    }
}

/// Whether `after`, written right after `before`, would repeat a word: the last word of `before`
/// equals the first word of `after`, whatever their case ("trading house" and "House of Lai").
pub fn repeats_word(before: &str, after: &str) -> bool {
    let last = before.rsplit(' ').next().unwrap_or_default();
    let first = after.split(' ').next().unwrap_or_default();
    !last.is_empty() && last.to_lowercase() == first.to_lowercase()
}

/// Formats a count or amount with its thousands grouped by commas: `12345` becomes `12,345`.
pub fn fmt_count(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(phrase: &str, expect: &str) {
        assert_eq!(article(phrase), expect, "{phrase}");
    }

    #[test]
    fn articles_follow_the_sound_of_words() {
        check("album", "an");
        check("archivist", "an");
        check("engineer", "an");
        check("island of towns", "an");
        check("ocean shipping rail company", "an");
        check("amateur club", "an");
        check("accord", "an");
        check("guild", "a");
        check("new guild", "a");
        check("rail company", "a");
        check("union", "a");
        check("university", "a");
        check("user", "a");
        check("one-off", "a");
        check("onerous task", "an");
        check("European league", "a");
        check("umbrella", "an");
        check("hour", "an");
        check("honest broker", "an");
        check("harbour pilot", "a");
        check("yard", "a");
        check("Ygryn Trading House", "an");
        check("MP", "an");
        check("BBC", "a");
        check("Oslo", "an");
        check("[Ulla Guild](https://x.org/wiki/Ulla_Guild)", "an");
        check("[Kessa](https://x.org/wiki/Kessa)", "a");
        check("", "a");
    }

    #[test]
    fn articles_follow_how_numbers_are_read() {
        check("8", "an");
        check("80", "an");
        check("800", "an");
        check("8,500", "an");
        check("11", "an");
        check("18", "an");
        check("11,000", "an");
        check("18,250", "an");
        check("1848", "an");
        check("1100", "an");
        check("1,100", "a");
        check("1,800", "a");
        check("110", "a");
        check("180", "a");
        check("118", "a");
        check("11000", "an");
        check("0", "a");
        check("1", "a");
        check("2", "a");
        check("7,000", "a");
        check("9", "a");
        check("100", "a");
        check("1948", "a");
    }

    #[test]
    fn with_article_prefixes_the_phrase() {
        assert_eq!(with_article("album"), "an album");
        assert_eq!(with_article("guild league"), "a guild league");
    }

    #[test]
    fn plural_labels_take_are() {
        let cases = [
            ("citations", true),
            ("copies sold", true),
            ("tracks", true),
            ("stations", true),
            ("live venues", true),
            ("market days per month", true),
            ("registered supporters", true),
            ("coal reserves (kt)", true),
            ("length (km)", false),
            ("value (crowns)", false),
            ("tonnage (t)", false),
            ("orbital period (days)", false),
            ("crew capacity", false),
            ("annual tithe (crowns)", false),
            ("research budget (thalers)", false),
            ("address", false),
            ("status", false),
            ("capacity", false),
        ];
        for (label, plural) in cases {
            assert_eq!(is_plural(label), plural, "{label}");
            assert_eq!(be(label), if plural { "are" } else { "is" }, "{label}");
        }
    }

    #[test]
    fn measures_read_as_sentences() {
        for (label, value, expect) in [
            ("area (km²)", "500", "Its area is 500 km²."),
            ("drydocks", "12", "It has 12 drydocks."),
            ("copies sold", "9,000", "It has sold 9,000 copies."),
            ("capacity", "800", "Its capacity is 800."),
            ("coal reserves (kt)", "70", "Its coal reserves are 70 kt."),
            (
                "market days per month",
                "4",
                "It has 4 market days per month.",
            ),
        ] {
            assert_eq!(measure_sentence(label, value), expect);
        }
    }

    #[test]
    fn sentences_start_upper_case() {
        let cases = [
            ("guild", "Guild"),
            ("Guild", "Guild"),
            ("[kessa](u)", "[Kessa](u)"),
            ("5 people", "5 people"),
            ("", ""),
        ];
        for (text, expect) in cases {
            assert_eq!(upper_first(text), expect, "{text}");
        }
    }

    #[test]
    fn sentences_end_with_one_full_stop() {
        let cases = [
            ("It joined Kessa Sound Co..", "It joined Kessa Sound Co."),
            (
                "It joined [Kessa Sound Co.](https://x.org/wiki/Kessa_Sound_Co.).",
                "It joined [Kessa Sound Co.](https://x.org/wiki/Kessa_Sound_Co.)",
            ),
            (
                "It joined [Kessa](https://x.org/wiki/Kessa).",
                "It joined [Kessa](https://x.org/wiki/Kessa).",
            ),
            ("It joined Kessa.", "It joined Kessa."),
            ("No stop", "No stop"),
        ];
        for (text, expect) in cases {
            assert_eq!(close_sentence(text), expect, "{text}");
        }
    }

    #[test]
    fn compounds_say_a_shared_word_once() {
        let cases = [
            ("passenger rail", "rail company", "passenger rail company"),
            ("folk", "band", "folk band"),
            ("spice trade", "trading house", "spice trade trading house"),
            ("Rail", "rail company", "rail company"),
        ];
        for (modifier, noun, expect) in cases {
            assert_eq!(compound(modifier, noun), expect);
        }
    }

    #[test]
    fn repeated_words_are_found_whatever_their_case() {
        let cases = [
            ("trading house", "House of Lai", true),
            ("guild", "Lai Guild", false),
            ("rail", "rail company", true),
            ("", "rail", false),
        ];
        for (before, after, expect) in cases {
            assert_eq!(repeats_word(before, after), expect, "{before} {after}");
        }
    }

    #[test]
    fn counts_group_thousands() {
        for (n, expect) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (12345, "12,345"),
            (-1234567, "-1,234,567"),
        ] {
            assert_eq!(fmt_count(n), expect);
        }
    }
}
