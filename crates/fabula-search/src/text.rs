//! Markdown to plain text, the form snippets are cut from, and word scanning over that text.
//!
//! The conversion is line based, which is all that generated pages need: headings, list items,
//! table rows and quotes lose their markers; table separator rows and rules disappear; inline links
//! and images keep only their text; emphasis and code markers are dropped. Each block (a paragraph,
//! a heading, a list item, a table row) becomes one run of text, and blocks are joined into a single
//! line: with a space after a block that ends a sentence, else with `" · "`. A two-cell table row
//! `| Founded | 1,204 |` reads `Founded: 1,204`; wider rows join their cells with `" · "`.
//!
//! The output never contains `|`, `#`, `*`, a backtick or a line break, so snippets cut from it
//! carry no Markdown syntax.
//!
//! Why hand-written: a CommonMark parser (pulldown-cmark, comrak) builds an event stream or tree
//! per page, which costs more than the whole index build at this size, and would still need this
//! module's joining rules. Table rows are read here line by line in the same pass, unlike
//! `fabula_score::markdown::pipe_tables`, which collects whole tables for agents.

/// Converts a page's Markdown to the single line of plain text that snippets are cut from.
///
/// ```
/// let text = fabula_search::plain_text("# Kest\n\n| Founded | **1,204** |\n|---|---|\n\nA [port](/wiki/port).");
/// assert_eq!(text, "Kest · Founded: 1,204 · A port.");
/// ```
pub fn plain_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut in_paragraph = false;
    for line in markdown.lines() {
        let line = line.trim();
        if line.is_empty() || is_rule(line) || is_table_separator(line) {
            in_paragraph = false;
            continue;
        }
        if line.starts_with('|') {
            push_table_row(&mut out, line);
            in_paragraph = false;
            continue;
        }
        if let Some(text) = heading_text(line) {
            start_block(&mut out);
            push_inline(&mut out, text);
            in_paragraph = false;
            continue;
        }
        if let Some(text) = list_item_text(line) {
            start_block(&mut out);
            push_inline(&mut out, text);
            // A wrapped list item continues on the next line like a paragraph does.
            in_paragraph = true;
            continue;
        }
        let text = line.strip_prefix('>').map_or(line, str::trim_start);
        if in_paragraph {
            push_separator(&mut out, " ");
        } else {
            start_block(&mut out);
        }
        push_inline(&mut out, text);
        in_paragraph = true;
    }
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    out
}

/// The byte ranges of the words of `text`: maximal runs of alphanumeric characters, the same
/// split as tantivy's `SimpleTokenizer`.
pub(crate) fn words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        pos = skip_class(text, pos, false);
        if pos >= text.len() {
            return None;
        }
        let start = pos;
        pos = skip_class(text, pos, true);
        Some((start, pos))
    })
}

/// Where the run of characters from byte `pos` that are alphanumeric (or not, as `is_alnum`
/// says) ends. ASCII bytes are looked at one by one, without decoding characters.
fn skip_class(text: &str, mut pos: usize, is_alnum: bool) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        let byte = bytes[pos];
        if byte.is_ascii() {
            if byte.is_ascii_alphanumeric() != is_alnum {
                break;
            }
            pos += 1;
            continue;
        }
        let (alnum, len) = char_class(text, pos);
        if alnum != is_alnum {
            break;
        }
        pos += len;
    }
    pos
}

/// Whether the character at byte `pos` (a character boundary) is alphanumeric, and its length,
/// with a fast path for ASCII, which is nearly all of a page.
fn char_class(text: &str, pos: usize) -> (bool, usize) {
    let byte = text.as_bytes()[pos];
    if byte.is_ascii() {
        return (byte.is_ascii_alphanumeric(), 1);
    }
    let Some(c) = text[pos..].chars().next() else {
        return (false, 1);
    };
    // The separators plain text itself writes, answered without Unicode table lookups.
    let is_alnum =
        !matches!(c, '·' | '…' | '–' | '—' | '‘' | '’' | '“' | '”') && c.is_alphanumeric();
    (is_alnum, c.len_utf8())
}

/// Whether the character just before byte `idx` is alphanumeric.
pub(crate) fn alnum_before(text: &str, idx: usize) -> bool {
    text[..idx]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

/// Whether the character starting at byte `idx` is alphanumeric.
pub(crate) fn alnum_at(text: &str, idx: usize) -> bool {
    text[idx..]
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric)
}

/// Moves `idx` down to the nearest character boundary.
pub(crate) fn floor_boundary(text: &str, mut idx: usize) -> usize {
    if idx >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(idx) {
        idx -= 1;
    }
    idx
}

/// Moves `idx` up to the nearest character boundary.
pub(crate) fn ceil_boundary(text: &str, mut idx: usize) -> usize {
    if idx >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(idx) {
        idx += 1;
    }
    idx
}

/// Starts a new block, separating it from the previous one.
fn start_block(out: &mut String) {
    if out.is_empty() {
        return;
    }
    let ends_sentence = out.ends_with(['.', '!', '?', ':', ';', '…']);
    push_separator(out, if ends_sentence { " " } else { " · " });
}

/// Appends a separator unless the text so far is empty or already ends with blank space.
fn push_separator(out: &mut String, separator: &str) {
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    if !out.is_empty() {
        out.push_str(separator);
    }
}

fn push_table_row(out: &mut String, line: &str) {
    let inner = line.trim_matches('|');
    let n_cells = inner
        .split('|')
        .filter(|cell| !cell.trim().is_empty())
        .count();
    if n_cells == 0 {
        return;
    }
    start_block(out);
    let cells = inner
        .split('|')
        .map(str::trim)
        .filter(|cell| !cell.is_empty());
    for (cell_idx, cell) in cells.enumerate() {
        if cell_idx > 0 {
            let separator = if n_cells == 2 { ": " } else { " · " };
            push_separator(out, separator);
        }
        push_inline(out, cell);
    }
}

fn is_rule(line: &str) -> bool {
    let Some(first) = line.chars().next() else {
        return false;
    };
    matches!(first, '-' | '*' | '_')
        && line.chars().filter(|&c| c == first).count() >= 3
        && line.chars().all(|c| c == first || c == ' ')
}

fn is_table_separator(line: &str) -> bool {
    line.starts_with('|')
        && line.contains('-')
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

fn heading_text(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches('#');
    let level = line.len() - rest.len();
    if level == 0 || level > 6 || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim_end())
}

fn list_item_text(line: &str) -> Option<&str> {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some(rest.trim_start());
        }
    }
    let n_digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if n_digits > 0 && n_digits <= 9 {
        let rest = &line[n_digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(rest.trim_start());
        }
    }
    None
}

/// Appends one line's inline Markdown as plain text: links and images keep their text, emphasis
/// and code markers go, `#` goes, a stray `|` becomes `/`, and runs of blank space collapse.
/// Runs of bytes that need none of this (see [`ORDINARY`]) are copied at once, which is most of
/// a line.
fn push_inline(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let run = rest
            .bytes()
            .position(|byte| !ORDINARY[usize::from(byte)])
            .unwrap_or(rest.len());
        if run > 0 {
            out.push_str(&rest[..run]);
            rest = &rest[run..];
            continue;
        }
        if c == '[' || (c == '!' && rest[1..].starts_with('[')) {
            let label_start = if c == '!' { 2 } else { 1 };
            if let Some((label, after)) = split_link(&rest[label_start..]) {
                push_inline(out, label);
                rest = after;
                continue;
            }
        }
        let mut len = c.len_utf8();
        match c {
            '*' | '`' | '#' => {}
            '_' if rest.starts_with("__") => len = 2,
            '\\' => {
                if let Some(escaped) = rest[1..].chars().next() {
                    len += escaped.len_utf8();
                    if escaped.is_ascii_punctuation() {
                        push_inline_char(out, escaped);
                    } else {
                        push_inline_char(out, '\\');
                        push_inline_char(out, escaped);
                    }
                }
            }
            _ => push_inline_char(out, c),
        }
        rest = &rest[len..];
    }
}

/// The bytes that [`push_inline`] copies as they are: ASCII, not blank space (as
/// `char::is_whitespace` has it) and none of the characters inline Markdown gives a meaning.
const ORDINARY: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = !matches!(
            byte as u8,
            b'[' | b'!'
                | b'*'
                | b'`'
                | b'#'
                | b'_'
                | b'\\'
                | b'|'
                | b'\t'
                | b'\n'
                | 0x0b
                | 0x0c
                | b'\r'
                | b' '
        );
        byte += 1;
    }
    table
};

fn push_inline_char(out: &mut String, c: char) {
    match c {
        '*' | '`' | '#' => {}
        '|' => out.push('/'),
        c if c.is_whitespace() => {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        }
        c => out.push(c),
    }
}

/// Splits `label](target) rest` into the label and the rest, if `text` continues a link.
fn split_link(text: &str) -> Option<(&str, &str)> {
    let label_end = text.find(']')?;
    let after_label = &text[label_end + 1..];
    let target = after_label.strip_prefix('(')?;
    let target_end = target.find(')')?;
    Some((&text[..label_end], &target[target_end + 1..]))
}

/// `count` pseudo-random texts of fewer than `max_len` characters of `alphabet`, the same for a
/// given `seed` (xorshift), for tests that compare a fast path with its reference.
#[cfg(test)]
pub(crate) fn random_texts(
    alphabet: &str,
    seed: u64,
    count: usize,
    max_len: u64,
) -> impl Iterator<Item = String> {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut state = seed;
    (0..count).map(move |_| {
        let len = state % max_len;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_inline` as it was, char by char: the fast one must write the same.
    fn push_inline_reference(out: &mut String, text: &str) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '[' || (c == '!' && rest[1..].starts_with('[')) {
                let label_start = if c == '!' { 2 } else { 1 };
                if let Some((label, after)) = split_link(&rest[label_start..]) {
                    push_inline_reference(out, label);
                    rest = after;
                    continue;
                }
            }
            let mut len = c.len_utf8();
            match c {
                '*' | '`' | '#' => {}
                '_' if rest.starts_with("__") => len = 2,
                '\\' => {
                    if let Some(escaped) = rest[1..].chars().next() {
                        len += escaped.len_utf8();
                        if escaped.is_ascii_punctuation() {
                            push_inline_char(out, escaped);
                        } else {
                            push_inline_char(out, '\\');
                            push_inline_char(out, escaped);
                        }
                    }
                }
                _ => push_inline_char(out, c),
            }
            rest = &rest[len..];
        }
    }

    /// Pushes `text` both ways after the same prefix and compares.
    #[track_caller]
    fn check_inline(prefix: &str, text: &str) {
        let (mut fast, mut slow) = (prefix.to_owned(), prefix.to_owned());
        push_inline(&mut fast, text);
        push_inline_reference(&mut slow, text);
        assert_eq!(fast, slow, "prefix {prefix:?}, text {text:?}");
    }

    #[test]
    fn inline_matches_char_by_char() {
        let texts = [
            "",
            "plain words, 1,204 of them.",
            "**bold** [link](/x) ![img](/y) `code` __strong__ _one_ #tag a|b \\* \\n \\",
            "tabs\tand\u{b}odd\u{c}blanks\r  and\u{a0}non-breaking\u{2003}em space",
            "Vélmora — “quoted” · [unclosed and ![x] and [a](b",
        ];
        for prefix in ["", "x", "x "] {
            for text in texts {
                check_inline(prefix, text);
            }
        }
        // Pseudo-random lines over an alphabet of every byte class push_inline treats apart.
        let alphabet = "ab1 \t[]()!*`#_\\|é\u{a0}—.";
        for text in random_texts(alphabet, 0x9e37_79b9_7f4a_7c15, 2000, 40) {
            check_inline("", &text);
            check_inline("y ", &text);
        }
    }

    fn check(markdown: &str, expect: &str) {
        assert_eq!(plain_text(markdown), expect, "markdown: {markdown:?}");
    }

    #[test]
    fn strips_blocks() {
        check(
            "# Title\n\nSome text\nwrapped here.\n\n## History\n\nMore.",
            "Title · Some text wrapped here. History · More.",
        );
        check("- one\n- two\n* three\n1. four", "one · two · three · four");
        check("> quoted\n---\nafter", "quoted · after");
        check("", "");
        check("\n\n  \n", "");
    }

    #[test]
    fn strips_tables() {
        check(
            "| Field | Value |\n|---|:---:|\n| Founded | 1,204 |\n| Region | [North](/wiki/north) |",
            "Field: Value · Founded: 1,204 · Region: North",
        );
        check(
            "| Name | Region | Population |\n| Kest | North | 12 |",
            "Name · Region · Population · Kest · North · 12",
        );
        check("| | |\n|--|--|", "");
    }

    #[test]
    fn strips_inline() {
        check(
            "**bold** and *it* and `code` and __strong__",
            "bold and it and code and strong",
        );
        check(
            "![a map](/img.png) of [Kest](/wiki/kest).",
            "a map of Kest.",
        );
        check(
            "odd [bracket and a|pipe and #tag",
            "odd [bracket and a/pipe and tag",
        );
        check("escaped \\| pipe \\* star \\n", "escaped / pipe star \\n");
        check("spaces   \t collapse", "spaces collapse");
        check("###### deep\n####### not a heading", "deep · not a heading");
    }

    #[test]
    fn output_has_no_markdown_syntax() {
        let text = plain_text("# A | b\n| x | **y** |\n|-|-|\n* `c` #d | e\n\\|");
        assert!(!text.contains(['|', '#', '*', '`', '\n']), "{text}");
    }

    #[test]
    fn words_split_like_simple_tokenizer() {
        let text = "Kest's 1,204 — Vélmora!";
        let words: Vec<&str> = words(text).map(|(start, end)| &text[start..end]).collect();
        assert_eq!(words, ["Kest", "s", "1", "204", "Vélmora"]);
        assert_eq!(super::words("").count(), 0);
        assert_eq!(super::words("...").count(), 0);
        let text = "a·b …c1— ünï9 ";
        let words: Vec<&str> = super::words(text)
            .map(|(start, end)| &text[start..end])
            .collect();
        assert_eq!(words, ["a", "b", "c1", "ünï9"]);
    }

    #[test]
    fn boundaries() {
        let text = "aé";
        assert_eq!(floor_boundary(text, 2), 1);
        assert_eq!(ceil_boundary(text, 2), 3);
        assert_eq!(floor_boundary(text, 9), 3);
        assert!(alnum_before(text, 1));
        assert!(!alnum_before(text, 0));
        assert!(alnum_at(text, 1));
        assert!(!alnum_at(text, 3));
    }
}
