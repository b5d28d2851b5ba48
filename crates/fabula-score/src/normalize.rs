//! String normalisation shared by the short-answer and table scorers.
//!
//! Three families live here: WideSearch's own preprocessors ([`norm_str`], [`norm_column`],
//! [`extract_number`]), fabula's name folding for key cells ([`norm_name`]), and the SQuAD-style
//! answer normalisation used for exact match and token F1 ([`answer_tokens`]). The crate docs
//! state every rule in prose; the unit tests below pin them down.

use serde_json::Value;

/// WideSearch's `norm_str`: lowercase, trim, and drop every space and `*`.
///
/// ```
/// assert_eq!(fabula_score::normalize::norm_str(" **Vel Arun** "), "velarun");
/// ```
pub fn norm_str(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c != ' ' && c != '*')
        .collect()
}

/// Normalises a column name: WideSearch's strip, lowercase and remove spaces, plus (because
/// fabula has no LLM to map column names) dropping `*`, `` ` `` and `_`, so that `**Birth year**`,
/// `birth_year` and `Birth Year` all read `birthyear`.
pub fn norm_column(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .chars()
        .filter(|&c| !c.is_whitespace() && !matches!(c, '*' | '`' | '_'))
        .collect()
}

/// Folds a name so that spelling variants of the same canonical name agree.
///
/// This is [`norm_str`] widened to stand in for WideSearch's LLM key alignment, and nothing
/// more: a cell that is a whole Markdown link `[text](url)` reads as `text`; full-width ASCII
/// (U+FF01 to U+FF5E) maps to ASCII; every Unicode whitespace character, zero-width character,
/// soft hyphen, `*`, `` ` `` and straight or typographic quote (`'` `"` `‘` `’` `‚` `‛` `“` `”` `„`
/// `‟` `′` `″` `´` `«` `»` `‹` `›`) is dropped; the dashes U+2010 to U+2015 and U+2212 read as `-`;
/// and the result is lowercased. Diacritics are kept, so `Véla` and `Vela` differ.
///
/// ```
/// use fabula_score::normalize::norm_name;
/// assert_eq!(norm_name("**O’Brien  Hall**"), norm_name("o'brien hall"));
/// ```
pub fn norm_name(text: &str) -> String {
    let text = unwrap_markdown_link(text.trim());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let c = fold_width(c);
        if c.is_whitespace() || is_dropped_in_names(c) {
            continue;
        }
        if is_dash(c) {
            out.push('-');
            continue;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Returns the link text when the whole cell is one Markdown link, else the cell itself.
fn unwrap_markdown_link(text: &str) -> &str {
    link(text).map_or(text, |(label, _)| label)
}

/// Maps full-width ASCII and the ideographic space to their ASCII forms.
fn fold_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        _ => c,
    }
}

/// Characters that [`norm_name`] deletes outright.
fn is_dropped_in_names(c: char) -> bool {
    matches!(
        c,
        '*' | '`'
            | '\''
            | '"'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201A}'
            | '\u{201B}'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{201E}'
            | '\u{201F}'
            | '\u{2032}'
            | '\u{2033}'
            | '\u{00B4}'
            | '\u{00AB}'
            | '\u{00BB}'
            | '\u{2039}'
            | '\u{203A}'
            | '\u{00AD}'
            | '\u{200B}'
            | '\u{200C}'
            | '\u{200D}'
            | '\u{2060}'
            | '\u{FEFF}'
    )
}

/// Typographic dashes and the minus sign, which [`norm_name`] reads as `-`.
fn is_dash(c: char) -> bool {
    matches!(c, '\u{2010}'..='\u{2015}' | '\u{2212}')
}

/// WideSearch's `extract_number`: the first number in the text, commas dropped, a trailing `%`
/// kept; `None` where WideSearch returns `"NULL"`.
///
/// The pattern is WideSearch's regular expression `[-+]?\d*\.\d+%?|[-+]?\d+\.?\d*%?`, tried at
/// each position from the left.
///
/// ```
/// use fabula_score::normalize::extract_number;
/// assert_eq!(extract_number("about 12,345.5 people").as_deref(), Some("12345.5"));
/// assert_eq!(extract_number("rose 4.5% a year").as_deref(), Some("4.5%"));
/// assert_eq!(extract_number("none"), None);
/// ```
pub fn extract_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().filter(|&c| c != ',').collect();
    (0..chars.len()).find_map(|start| match_number_at(&chars, start))
}

/// Matches WideSearch's number pattern starting exactly at `start`.
fn match_number_at(chars: &[char], start: usize) -> Option<String> {
    let mut pos = start;
    if matches!(chars.get(pos), Some('-' | '+')) {
        pos += 1;
    }
    let count_digits = |from: usize| {
        chars[from.min(chars.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int_digits = count_digits(pos);
    // First alternative: `\d*\.\d+%?`.
    let after_int = pos + int_digits;
    let end = if chars.get(after_int) == Some(&'.') && count_digits(after_int + 1) > 0 {
        after_int + 1 + count_digits(after_int + 1)
    } else if int_digits > 0 {
        // Second alternative: `\d+\.?\d*%?`.
        if chars.get(after_int) == Some(&'.') {
            after_int + 1 + count_digits(after_int + 1)
        } else {
            after_int
        }
    } else {
        return None;
    };
    let end = if chars.get(end) == Some(&'%') {
        end + 1
    } else {
        end
    };
    Some(chars[start..end].iter().collect())
}

/// Parses the output of [`extract_number`] the way WideSearch's `number_near` does: a value with
/// `%` is divided by 100.
pub(crate) fn parse_extracted_number(text: &str) -> Option<f64> {
    if text.contains('%') {
        return text
            .replace('%', "")
            .parse::<f64>()
            .ok()
            .map(|value| value / 100.0);
    }
    text.parse::<f64>().ok()
}

/// Returns the canonical form of a plainly written number, or `None` when `text` is not one.
///
/// Accepted: an optional sign, digits either plain or grouped in threes by commas, an optional
/// fraction, and an optional trailing `%` (which is dropped). The canonical form has no commas,
/// no leading zeros, no trailing fractional zeros and no `.` when the fraction is empty, so
/// `12,345`, `12345` and `12345.0` all read `12345`. Done on the digits, not through `f64`, so
/// large integers stay exact.
pub fn canonical_number(text: &str) -> Option<String> {
    let text = text.strip_suffix('%').unwrap_or(text);
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (int_part, frac_part) = match unsigned.split_once('.') {
        Some((int_part, frac_part)) => (int_part, Some(frac_part)),
        None => (unsigned, None),
    };
    if let Some(frac) = frac_part
        && (frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    if int_part.is_empty() && frac_part.is_none() {
        return None;
    }
    let digits = if int_part.contains(',') {
        let groups: Vec<&str> = int_part.split(',').collect();
        let first_ok = (1..=3).contains(&groups[0].len());
        let rest_ok = groups[1..].iter().all(|g| g.len() == 3);
        if !first_ok || !rest_ok {
            return None;
        }
        groups.concat()
    } else {
        int_part.to_string()
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let int_trimmed = digits.trim_start_matches('0');
    let int_trimmed = if int_trimmed.is_empty() {
        "0"
    } else {
        int_trimmed
    };
    let frac_trimmed = frac_part.unwrap_or("").trim_end_matches('0');
    let mut out = String::new();
    let is_zero = int_trimmed == "0" && frac_trimmed.is_empty();
    if negative && !is_zero {
        out.push('-');
    }
    out.push_str(int_trimmed);
    if !frac_trimmed.is_empty() {
        out.push('.');
        out.push_str(frac_trimmed);
    }
    Some(out)
}

/// Renders a JSON number the way a person would write it: integers without a fraction.
pub(crate) fn number_to_string(number: &serde_json::Number) -> String {
    if number.is_i64() || number.is_u64() {
        return number.to_string();
    }
    match number.as_f64() {
        Some(value) if value.fract() == 0.0 && value.abs() < 1e15 => format!("{value:.0}"),
        Some(value) => format!("{value}"),
        None => number.to_string(),
    }
}

/// Renders any JSON value as one cell of text: strings as they are, numbers via
/// [`number_to_string`], `null` as empty, and anything else as compact JSON.
pub(crate) fn value_to_cell(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number_to_string(number),
        Value::Null => String::new(),
        Value::Bool(flag) => flag.to_string(),
        other => other.to_string(),
    }
}

/// Punctuation removed by the SQuAD-style normalisation: all ASCII punctuation (Python's
/// `string.punctuation`) plus common typographic and CJK punctuation.
fn is_answer_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            c,
            '\u{2010}'..='\u{2027}'
                | '\u{2030}'..='\u{205E}'
                | '\u{00A1}'
                | '\u{00A7}'
                | '\u{00AB}'
                | '\u{00B4}'
                | '\u{00B6}'
                | '\u{00B7}'
                | '\u{00BB}'
                | '\u{00BF}'
                | '\u{3001}'..='\u{3003}'
                | '\u{3008}'..='\u{3011}'
                | '\u{3014}'..='\u{301F}'
                | '\u{FF01}'..='\u{FF0F}'
                | '\u{FF1A}'..='\u{FF20}'
                | '\u{FF3B}'..='\u{FF40}'
                | '\u{FF5B}'..='\u{FF65}'
        )
}

/// Normalises a short answer into tokens, SQuAD-style, with numbers and dates made canonical.
///
/// When the whole answer (trimmed, `*` and a final `.` removed) is a date with at least a month,
/// the one token is its ISO form (`YYYY-MM-DD`, or `YYYY-MM` for a month). Otherwise the text is
/// lowercased and split on whitespace; a token that, stripped of surrounding punctuation, is a
/// plain number becomes its [`canonical_number`], and one that is a full numeric date
/// (`1987-03-05`, `03/05/1987`) becomes `YYYY-MM-DD`; other tokens lose every punctuation
/// character; empty tokens and the articles `a`, `an`, `the` are dropped. Dates written in
/// several words inside a longer answer are not recognised.
///
/// ```
/// use fabula_score::normalize::answer_tokens;
/// assert_eq!(answer_tokens("The 12,345.0 Lanterns!"), ["12345", "lanterns"]);
/// assert_eq!(answer_tokens("March 5, 1987"), ["1987-03-05"]);
/// ```
pub fn answer_tokens(text: &str) -> Vec<String> {
    if let Some(date) = crate::date::answer_date(text) {
        return vec![date];
    }
    let lowered = text.to_lowercase();
    let mut tokens = Vec::new();
    for raw in lowered.split_whitespace() {
        let core = raw
            .trim_end_matches(|c: char| c != '%' && is_answer_punctuation(c))
            .trim_start_matches(|c: char| {
                !matches!(c, '-' | '+' | '.') && is_answer_punctuation(c)
            });
        if core.bytes().any(|b| b.is_ascii_digit()) {
            if let Some(number) = canonical_number(core) {
                tokens.push(number);
                continue;
            }
            if let Some(date) = fabula_date::parse_date(core)
                && date.precision == fabula_date::DatePrecision::Day
            {
                tokens.push(date.iso());
                continue;
            }
        }
        let word: String = raw.chars().filter(|&c| !is_answer_punctuation(c)).collect();
        if word.is_empty() || matches!(word.as_str(), "a" | "an" | "the") {
            continue;
        }
        tokens.push(word);
    }
    tokens
}

/// The normalised answer as one string: [`answer_tokens`] joined by single spaces.
pub fn normalize_answer(text: &str) -> String {
    answer_tokens(text).join(" ")
}

/// The text and target of a cell that is one Markdown link, `[text](url)`: the text holds no
/// brackets and the url no white space.
///
/// ```
/// use fabula_score::normalize::link;
/// assert_eq!(link(" [Amo Tal](https://w/wiki/Amo_Tal) "), Some(("Amo Tal", "https://w/wiki/Amo_Tal")));
/// assert_eq!(link("Amo Tal"), None);
/// ```
pub fn link(cell: &str) -> Option<(&str, &str)> {
    let inner = cell.trim().strip_prefix('[')?.strip_suffix(')')?;
    let (text, url) = inner.split_once("](")?;
    if text.contains(['[', ']']) || url.contains(char::is_whitespace) {
        return None;
    }
    Some((text, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_str_matches_widesearch() {
        assert_eq!(norm_str("  **Big Hall** "), "bighall");
        assert_eq!(norm_str("A\tB"), "a\tb");
    }

    #[test]
    fn norm_column_drops_markup() {
        assert_eq!(norm_column(" **Birth Year** "), "birthyear");
        assert_eq!(norm_column("birth_year"), "birthyear");
        assert_eq!(norm_column("`Population`"), "population");
    }

    #[test]
    fn norm_name_folds_variants() {
        assert_eq!(norm_name("Kael’s  “Rest”"), "kaelsrest");
        assert_eq!(norm_name("ＫＡＥＬ"), "kael");
        assert_eq!(norm_name("Vel–Arun"), "vel-arun");
        assert_eq!(norm_name("[Vel Arun](https://x.test/vel)"), "velarun");
        assert_eq!(norm_name("Véla"), "véla");
        assert_ne!(norm_name("Véla"), norm_name("Vela"));
    }

    #[test]
    fn extract_number_follows_the_regex() {
        assert_eq!(extract_number("1,234"), Some("1234".to_string()));
        assert_eq!(extract_number("-3.5 degrees"), Some("-3.5".to_string()));
        assert_eq!(extract_number("v.5"), Some(".5".to_string()));
        assert_eq!(extract_number("12."), Some("12.".to_string()));
        assert_eq!(extract_number("range 5-10"), Some("5".to_string()));
        assert_eq!(extract_number("- 7"), Some("7".to_string()));
        assert_eq!(extract_number("1987-03-05"), Some("1987".to_string()));
        assert_eq!(extract_number("about 40 %"), Some("40".to_string()));
        assert_eq!(extract_number("n/a"), None);
    }

    #[test]
    fn parse_extracted_number_divides_percent() {
        assert_eq!(parse_extracted_number("12.5%"), Some(0.125));
        assert_eq!(parse_extracted_number("12."), Some(12.0));
        assert_eq!(parse_extracted_number("+4"), Some(4.0));
    }

    #[test]
    fn canonical_number_is_exact() {
        assert_eq!(canonical_number("12,345").as_deref(), Some("12345"));
        assert_eq!(canonical_number("12345.0").as_deref(), Some("12345"));
        assert_eq!(canonical_number("0012.50").as_deref(), Some("12.5"));
        assert_eq!(canonical_number("-0.0").as_deref(), Some("0"));
        assert_eq!(canonical_number(".5").as_deref(), Some("0.5"));
        assert_eq!(canonical_number("45%").as_deref(), Some("45"));
        assert_eq!(
            canonical_number("123456789012345678901").as_deref(),
            Some("123456789012345678901")
        );
        assert_eq!(canonical_number("1,23"), None);
        assert_eq!(canonical_number("12a"), None);
        assert_eq!(canonical_number("12."), None);
        assert_eq!(canonical_number(""), None);
    }

    #[test]
    fn answer_tokens_follow_squad() {
        assert_eq!(
            answer_tokens("The Order of the Lamp."),
            ["order", "of", "lamp"]
        );
        assert_eq!(answer_tokens("Jean-Luc's"), ["jeanlucs"]);
        assert_eq!(answer_tokens("$12,345"), ["12345"]);
        assert_eq!(answer_tokens("-4.50 units"), ["-4.5", "units"]);
        assert_eq!(answer_tokens("“An” apple"), ["apple"]);
        assert_eq!(answer_tokens("on 1987-03-05."), ["on", "1987-03-05"]);
        assert_eq!(answer_tokens("on 3/5/1987"), ["on", "1987-03-05"]);
        assert!(answer_tokens("...").is_empty());
    }

    #[test]
    fn json_numbers_render_plainly() {
        let number = |text: &str| serde_json::from_str::<serde_json::Number>(text).unwrap();
        assert_eq!(number_to_string(&number("12345")), "12345");
        assert_eq!(number_to_string(&number("12345.0")), "12345");
        assert_eq!(number_to_string(&number("1.25")), "1.25");
    }
}
