//! The clues of an identify question, as its `{clues}` slot writes them and as a reader parses
//! them back: "was born in a campus town of Verel, came into the world after 2210 and once held
//! the seat of Warden". The task builder writes clues only through [`Said::text`] and
//! [`join`], and keeps a question only when [`parse`] reads its clues back unchanged; the
//! baseline agent reads them with [`parse`], as it reads the rest of a question through the
//! public phrasing bank.

/// One clue about a person, with the names the question states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// Born in a settlement of this region.
    BornIn(String),
    Occupation(String),
    BornBefore(i64),
    BornAfter(i64),
    /// Founded an organisation listed under this category.
    FoundedCategory(String),
    /// Founded an organisation based in this region.
    FoundedIn(String),
    /// Held the seat of this title.
    Seat(String),
    /// Was a member of, or held a seat in, an organisation based in this region; founding one
    /// does not count, and the clause says so.
    MemberIn(String),
}

const BORN_IN: &str = "was born in ";
const WORKED_AS: &str = "worked as ";
const BORN_BEFORE: &str = "came into the world before ";
const BORN_AFTER: &str = "came into the world after ";
const FOUNDED: &str = "founded ";
const SEAT: &str = "once held the seat of ";
const BELONGED: &str = "was a member of, or held a seat in, ";
/// What a [`Said::MemberIn`] clause ends with, so no reader counts a founder as belonging.
const NOT_FOUNDING: &str = " (founding one does not count)";
/// How each clause starts; a clause boundary is a `, ` or ` and ` before one of these.
const STARTS: [&str; 7] = [
    BORN_IN,
    WORKED_AS,
    BORN_BEFORE,
    BORN_AFTER,
    FOUNDED,
    SEAT,
    BELONGED,
];

impl Said {
    /// The clause after "the person who"; `settlement` and `organisation` are the theme's
    /// singular nouns.
    pub fn text(&self, settlement: &str, organisation: &str) -> String {
        let a = crate::english::with_article;
        match self {
            Said::BornIn(region) => format!("{BORN_IN}{} of {region}", a(settlement)),
            Said::Occupation(o) => format!("{WORKED_AS}{}", a(o)),
            Said::BornBefore(y) => format!("{BORN_BEFORE}{y}"),
            Said::BornAfter(y) => format!("{BORN_AFTER}{y}"),
            Said::FoundedCategory(c) => format!("{FOUNDED}{} listed under {c}", a(organisation)),
            Said::FoundedIn(region) => format!("{FOUNDED}{} based in {region}", a(organisation)),
            Said::Seat(seat) => format!("{SEAT}{seat}"),
            Said::MemberIn(region) => {
                format!(
                    "{BELONGED}{} based in {region}{NOT_FOUNDING}",
                    a(organisation)
                )
            }
        }
    }

    /// Reads one clause back; `None` when it is no clause.
    fn parse(clause: &str) -> Option<Said> {
        if let Some(rest) = clause.strip_prefix(BORN_IN) {
            let (_, region) = rest.split_once(" of ")?;
            return Some(Said::BornIn(region.to_owned()));
        }
        if let Some(rest) = clause.strip_prefix(WORKED_AS) {
            return Some(Said::Occupation(
                crate::english::without_article(rest).to_owned(),
            ));
        }
        if let Some(year) = clause.strip_prefix(BORN_BEFORE) {
            return year.parse().ok().map(Said::BornBefore);
        }
        if let Some(year) = clause.strip_prefix(BORN_AFTER) {
            return year.parse().ok().map(Said::BornAfter);
        }
        if let Some(rest) = clause.strip_prefix(SEAT) {
            return Some(Said::Seat(rest.to_owned()));
        }
        if let Some(rest) = clause.strip_prefix(FOUNDED) {
            if let Some((_, category)) = rest.split_once(" listed under ") {
                return Some(Said::FoundedCategory(category.to_owned()));
            }
            let (_, region) = rest.split_once(" based in ")?;
            return Some(Said::FoundedIn(region.to_owned()));
        }
        let rest = clause.strip_prefix(BELONGED)?.strip_suffix(NOT_FOUNDING)?;
        let (_, region) = rest.split_once(" based in ")?;
        Some(Said::MemberIn(region.to_owned()))
    }
}

/// "a, b and c".
pub fn join(texts: &[String]) -> String {
    match texts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Reads the clues of a `{clues}` slot back; `None` when a clause is not a clue.
pub fn parse(text: &str) -> Option<Vec<Said>> {
    clauses(text).into_iter().map(Said::parse).collect()
}

/// Splits at each `, ` or ` and ` that a clause start follows.
fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let joint = [", ", " and "]
            .into_iter()
            .find(|j| rest.starts_with(j) && STARTS.iter().any(|s| rest[j.len()..].starts_with(s)));
        match joint {
            Some(j) => {
                out.push(&text[start..i]);
                i += j.len();
                start = i;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out.push(&text[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that `clues` join into `expect` and parse back unchanged.
    fn check(clues: &[Said], expect: &str) {
        let texts: Vec<String> = clues
            .iter()
            .map(|c| c.text("campus town", "institute"))
            .collect();
        let joined = join(&texts);
        assert_eq!(joined, expect);
        assert_eq!(parse(&joined).as_deref(), Some(clues), "{joined}");
    }

    #[test]
    fn clues_join_and_parse_back() {
        check(
            &[Said::Seat("Warden".into())],
            "once held the seat of Warden",
        );
        check(
            &[Said::BornIn("Upper Verel".into()), Said::BornAfter(2210)],
            "was born in a campus town of Upper Verel and came into the world after 2210",
        );
        check(
            &[
                Said::FoundedCategory("arts and letters".into()),
                Said::Occupation("archivist".into()),
                Said::MemberIn("Kest".into()),
                Said::BornBefore(2301),
                Said::FoundedIn("Oma".into()),
            ],
            "founded an institute listed under arts and letters, worked as an archivist, \
             was a member of, or held a seat in, an institute based in Kest (founding one does \
             not count), came into the world before 2301 and founded an institute based in Oma",
        );
    }

    #[test]
    fn text_that_is_no_clue_does_not_parse() {
        assert_eq!(parse("sailed away"), None);
        assert_eq!(parse("came into the world before dawn"), None);
        assert_eq!(parse("was born in Kest"), None);
        assert_eq!(
            parse("was a member of, or held a seat in, a guild based in Kest"),
            None
        );
    }
}
