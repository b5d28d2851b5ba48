//! The English of generated pages: every page of a generated dataset, read through the typed
//! reader, is scanned for a list of error patterns (an article before the wrong sound, "Its
//! citations is", doubled words, stray spaces, sentences that start lower-case, empty pages (no
//! prose, or no fact and under 30 words of prose),
//! headings over nothing, tables without rows), and the test fails naming the first offending
//! page and line of each pattern.

use std::path::Path;

use fabula_file::{StoredPage, WorldFile};

use super::generate;

#[test]
fn pages_of_ten_worlds_read_as_english() {
    let tmp = tempfile::tempdir().unwrap();
    generate(tmp.path(), 10, 17);
    assert_reads_as_english(tmp.path(), 10);
}

// The slow run over 100 worlds (seed 7) reads the first 100 of the 1,000 worlds that
// `slow::slow_thousand_worlds_generate_and_check` generates: a world's file depends on the seed
// and its id only, so they are the worlds `generate --count 100 --seed 7` writes, generated once.

/// Asserts that no page of the worlds of `dir` whose id is under `max_id` matches any pattern.
pub(crate) fn assert_reads_as_english(dir: &Path, max_id: u32) {
    let findings = scan_dir(dir, max_id);
    let mut report = Vec::new();
    for (pattern, finding) in PATTERNS.iter().zip(&findings) {
        eprintln!("{:>6} pages  {}", finding.pages, pattern.name);
        if let Some(first) = &finding.first {
            report.push(format!(
                "{} ({} pages): {first}",
                pattern.name, finding.pages
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// How many pages match a pattern, and where the first match is.
#[derive(Default)]
struct Finding {
    pages: usize,
    first: Option<String>,
}

/// Scans every page of the worlds of a dataset whose id is under `max_id`; returns one finding
/// per entry of [`PATTERNS`].
fn scan_dir(dir: &Path, max_id: u32) -> Vec<Finding> {
    let manifest = fabula_file::read_manifest(dir).unwrap();
    let mut findings: Vec<Finding> = PATTERNS.iter().map(|_| Finding::default()).collect();
    let worlds: Vec<_> = manifest.worlds.iter().filter(|w| w.id < max_id).collect();
    assert_eq!(
        worlds.len(),
        manifest.worlds.len().min(max_id as usize),
        "the worlds under id {max_id} in {}",
        dir.display()
    );
    for world in worlds {
        let file = WorldFile::open(&dir.join(&world.file)).unwrap();
        for stored in file.pages().unwrap() {
            for (pattern, finding) in PATTERNS.iter().zip(&mut findings) {
                let Some(line) = (pattern.find)(&stored) else {
                    continue;
                };
                finding.pages += 1;
                finding
                    .first
                    .get_or_insert_with(|| format!("{} {}: `{line}`", world.file, stored.page.url));
            }
        }
    }
    findings
}

/// One error pattern: its name, and the first offending line of a page (or a description of
/// what the page lacks), if any.
struct Pattern {
    name: &'static str,
    find: fn(&StoredPage) -> Option<String>,
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        name: "`a` before a vowel sound",
        find: |p| first_line(p, |_| true, a_before_vowel),
    },
    Pattern {
        name: "`an` before a consonant sound",
        find: |p| first_line(p, |_| true, an_before_consonant),
    },
    Pattern {
        name: "`a` before a number read with a vowel (8, 11, 18, 80...)",
        find: |p| first_line(p, |_| true, a_before_vowel_number),
    },
    Pattern {
        name: "`an` before a number read with a consonant",
        find: |p| first_line(p, |_| true, an_before_consonant_number),
    },
    Pattern {
        name: "`Its <plural> is`",
        find: |p| first_line(p, |_| true, plural_with_is),
    },
    Pattern {
        name: "a doubled word",
        find: |p| first_line(p, |_| true, doubled_word),
    },
    Pattern {
        name: "a double space in prose",
        find: |p| first_line(p, Line::is_text, |t| t.contains("  ")),
    },
    Pattern {
        name: "a space before punctuation",
        find: |p| first_line(p, Line::is_text, space_before_punctuation),
    },
    Pattern {
        name: "a sentence that starts lower-case",
        find: |p| first_line(p, Line::is_text, lower_case_start),
    },
    Pattern {
        name: "`..`",
        find: |p| first_line(p, |_| true, |t| t.contains("..")),
    },
    Pattern {
        name: EMPTY_PAGE,
        find: empty_page,
    },
    Pattern {
        name: "a `## ` heading over nothing",
        find: heading_over_nothing,
    },
    Pattern {
        name: "a table header with no rows",
        find: table_without_rows,
    },
];

/// A line of a page body, by what it is.
#[derive(Clone, Copy, PartialEq)]
enum Line {
    Heading,
    Table,
    Prose,
}

impl Line {
    fn of(line: &str) -> Option<Line> {
        if line.trim().is_empty() {
            None
        } else if line.starts_with('#') {
            Some(Line::Heading)
        } else if line.starts_with('|') {
            Some(Line::Table)
        } else {
            Some(Line::Prose)
        }
    }

    /// Prose and headings: the lines read as sentences or titles, not table cells.
    fn is_text(self) -> bool {
        self != Line::Table
    }
}

/// The first line of a page's body, of a kind `kinds` accepts, whose visible text `bad` flags.
fn first_line(page: &StoredPage, kinds: fn(Line) -> bool, bad: fn(&str) -> bool) -> Option<String> {
    page.page
        .body
        .lines()
        .filter(|l| Line::of(l).is_some_and(kinds))
        .find(|l| bad(&visible(l)))
        .map(str::to_string)
}

/// What a reader sees of a Markdown line: link texts without their targets, without the list
/// bullet, heading marks and the emphasis around a dateline.
fn visible(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](").map(|at| open + at) else {
            break;
        };
        let Some(close) = rest[mid..].find(')').map(|at| mid + at) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..mid]);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    let text = out.trim_start_matches('#').trim_start();
    let text = text.strip_prefix("- ").unwrap_or(text);
    let text = match text.strip_prefix('*').and_then(|t| t.strip_suffix('*')) {
        Some(inner) => inner,
        None => text,
    };
    text.to_string()
}

/// Pairs of neighbouring words.
fn word_pairs(text: &str) -> Vec<(&str, &str)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(2).map(|pair| (pair[0], pair[1])).collect()
}

/// Words that begin with a vowel letter but take "a": "a union", "a one".
const A_BEFORE_VOWEL_LETTER: &[&str] = &["uni", "one", "once", "use", "usu", "eu"];

/// Words that begin with a consonant letter but take "an": "an hour".
const AN_BEFORE_CONSONANT_LETTER: &[&str] = &["hour", "honest", "honour", "heir"];

fn is_a(word: &str) -> bool {
    word == "a" || word == "A"
}

fn is_an(word: &str) -> bool {
    word == "an" || word == "An"
}

fn a_before_vowel(text: &str) -> bool {
    word_pairs(text).into_iter().any(|(first, next)| {
        let lower = next.to_lowercase();
        is_a(first)
            && lower.starts_with(['a', 'e', 'i', 'o', 'u'])
            && !A_BEFORE_VOWEL_LETTER.iter().any(|w| lower.starts_with(w))
    })
}

fn an_before_consonant(text: &str) -> bool {
    word_pairs(text).into_iter().any(|(first, next)| {
        let lower = next.to_lowercase();
        is_an(first)
            && lower.starts_with(|c: char| c.is_ascii_alphabetic() && !"aeiou".contains(c))
            && !AN_BEFORE_CONSONANT_LETTER
                .iter()
                .any(|w| lower.starts_with(w))
    })
}

/// Whether a number is read starting "eight", "eleven" or "eighteen": 8, 80, 800, 8,000, 11,
/// 18, 11,000, 18,000.
fn number_read_with_vowel(word: &str) -> bool {
    let number = word.trim_end_matches(|c: char| !c.is_ascii_digit());
    let lead = number.split(',').next().unwrap_or_default();
    number.starts_with('8') || lead == "11" || lead == "18"
}

fn a_before_vowel_number(text: &str) -> bool {
    word_pairs(text).into_iter().any(|(first, next)| {
        is_a(first)
            && next.starts_with(|c: char| c.is_ascii_digit())
            && number_read_with_vowel(next)
    })
}

fn an_before_consonant_number(text: &str) -> bool {
    word_pairs(text).into_iter().any(|(first, next)| {
        is_an(first)
            && next.starts_with(['1', '2', '3', '4', '5', '6', '7', '9'])
            && !number_read_with_vowel(next)
    })
}

/// "Its citations is": a plural label (a word ending in "s", not "ss", "us" or "is", before any
/// bracketed unit or "per") with a singular verb.
fn plural_with_is(text: &str) -> bool {
    text.match_indices("Its ").any(|(at, _)| {
        let rest = &text[at + 4..];
        let Some(end) = rest.find(" is ") else {
            return false;
        };
        let label = &rest[..end];
        if label.contains(['.', ',', ';']) {
            return false;
        }
        let head = label.split('(').next().unwrap_or_default();
        let head = head.split(" per ").next().unwrap_or_default();
        head.split_whitespace().any(|w| {
            w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is")
        })
    })
}

/// A word said twice in a row, whatever the case ("rail rail", "house House"); a capitalised
/// word repeated exactly is a name ("Aisvu Aisvu") and passes.
fn doubled_word(text: &str) -> bool {
    word_pairs(text).into_iter().any(|(first, next)| {
        let next = next.trim_end_matches(|c: char| !c.is_alphanumeric());
        let is_name = first == next && first.starts_with(char::is_uppercase);
        first.chars().all(char::is_alphabetic) && first.eq_ignore_ascii_case(next) && !is_name
    })
}

fn space_before_punctuation(text: &str) -> bool {
    [" .", " ,", " ;", " :", " !", " ?"]
        .iter()
        .any(|p| text.contains(p))
}

/// Words that end with a full stop without ending a sentence.
const ABBREVIATIONS: &[&str] = &["Co.", "St.", "Mt.", "Dr.", "Mr.", "Mrs.", "Jr."];

/// The line starts lower-case, or a word after a sentence's end does.
fn lower_case_start(text: &str) -> bool {
    let starts_lower = |word: &str| word.starts_with(|c: char| c.is_lowercase());
    let mut words = text.split_whitespace();
    if words.next().is_some_and(starts_lower) {
        return true;
    }
    word_pairs(text).into_iter().any(|(first, next)| {
        first.ends_with(['.', '!', '?']) && !ABBREVIATIONS.contains(&first) && starts_lower(next)
    })
}

const EMPTY_PAGE: &str = "an empty page (no prose line, or no fact and little prose)";

/// The fewest words of prose a page that states no fact (an opinion column, a notice) has.
const MIN_FILLER_WORDS: usize = 30;

/// A page with no prose line, or one that states no fact and has little prose.
fn empty_page(page: &StoredPage) -> Option<String> {
    let prose: Vec<&str> = page
        .page
        .body
        .lines()
        .filter(|l| Line::of(l) == Some(Line::Prose))
        .collect();
    if prose.is_empty() {
        return Some("no prose line".into());
    }
    let words: usize = prose.iter().map(|l| l.split_whitespace().count()).sum();
    (page.page.facts.is_empty() && words < MIN_FILLER_WORDS)
        .then(|| format!("states no fact in {words} words of prose"))
}

/// A `## ` heading followed by another heading or by the end of the page.
fn heading_over_nothing(page: &StoredPage) -> Option<String> {
    let lines: Vec<&str> = page
        .page
        .body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines.iter().enumerate().find_map(|(i, line)| {
        let next = lines.get(i + 1);
        let empty = next.is_none_or(|n| n.starts_with('#'));
        (line.starts_with("## ") && empty).then(|| line.to_string())
    })
}

/// A table header and its `|---|` line with no row after them.
fn table_without_rows(page: &StoredPage) -> Option<String> {
    let lines: Vec<&str> = page.page.body.lines().collect();
    lines.windows(2).enumerate().find_map(|(i, pair)| {
        let is_rule = pair[1].starts_with("|-") && pair[1].chars().all(|c| "|-: ".contains(c));
        let has_row = lines.get(i + 2).is_some_and(|l| l.starts_with('|'));
        (pair[0].starts_with('|') && is_rule && !has_row).then(|| pair[0].to_string())
    })
}

mod tests {
    use super::*;

    /// The names of the patterns that flag `line`, a line of a page body.
    fn flagged(line: &str) -> Vec<&'static str> {
        let page = StoredPage {
            id: 1,
            page: fabula_file::Page {
                url: "https://x.org/p".into(),
                title: "P".into(),
                kind: fabula_file::PageKind::Entity,
                published: None,
                body: format!("# P\n\n{line}\n"),
                facts: Vec::new(),
            },
        };
        PATTERNS
            .iter()
            .filter(|p| p.name != EMPTY_PAGE)
            .filter(|p| (p.find)(&page).is_some())
            .map(|p| p.name)
            .collect()
    }

    fn check(line: &str, expect: &[&str]) {
        assert_eq!(flagged(line), expect, "{line}");
    }

    #[test]
    fn each_pattern_flags_its_error_and_passes_good_english() {
        check("X is a album.", &["`a` before a vowel sound"]);
        check("X is a union of guilds.", &[]);
        check("X is an guild.", &["`an` before a consonant sound"]);
        check("It took an hour.", &[]);
        check(
            "It has a 8 members and a 11,000 more.",
            &["`a` before a number read with a vowel (8, 11, 18, 80...)"],
        );
        check("It has an 80 and an 18.", &[]);
        check(
            "It has an 7 members.",
            &["`an` before a number read with a consonant"],
        );
        check("Its citations is 5.", &["`Its <plural> is`"]);
        check("Its copies sold is 5.", &["`Its <plural> is`"]);
        check("Its length (km) is 5. Its citations are 5.", &[]);
        check("A passenger rail rail company.", &["a doubled word"]);
        check(
            "# New trading house House of Lai founded",
            &["a doubled word"],
        );
        check("Aisvu Aisvu was born in 1428.", &[]);
        check("Two  spaces.", &["a double space in prose"]);
        check("A space .", &["a space before punctuation"]);
        check(
            "started lower-case.",
            &["a sentence that starts lower-case"],
        );
        check("One. two.", &["a sentence that starts lower-case"]);
        check("It joined [Kessa Sound Co.](u) this year. It left.", &[]);
        check("It joined [Kessa Sound Co.](u). It left.", &["`..`"]);
        check("It joined Kessa Sound Co. is fine.", &[]);
        check("It joined [Kessa Co.](u).", &["`..`"]);
        check("## Members", &["a `## ` heading over nothing"]);
        check("| Name |\n|---|\n\nText.", &["a table header with no rows"]);
        check("| Name |\n|---|\n| [Kessa](u) |", &[]);
    }

    /// A page without facts passes only with enough prose to read as an article.
    #[test]
    fn a_page_without_facts_needs_prose() {
        let page = |body: &str| StoredPage {
            id: 1,
            page: fabula_file::Page {
                url: "https://x.org/p".into(),
                title: "P".into(),
                kind: fabula_file::PageKind::News,
                published: None,
                body: format!("# P\n\n{body}\n"),
                facts: Vec::new(),
            },
        };
        let short = page("Readers are invited to share their views.");
        assert_eq!(
            empty_page(&short).as_deref(),
            Some("states no fact in 7 words of prose")
        );
        let long = page(&"Readers are invited to share their views. ".repeat(5));
        assert_eq!(empty_page(&long), None);
        assert_eq!(
            empty_page(&page("| A |\n|---|\n| b |")).as_deref(),
            Some("no prose line")
        );
    }
}
