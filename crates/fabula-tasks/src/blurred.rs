//! The blurred clues of a frontier question, as its `{clues}` slot writes them and as a reader
//! parses them back: "was born in the 2140s or the 2150s; worked in the life sciences; was
//! born in a colony of more than 20,000 people today; and belonged, as a member or an officer,
//! to a consortium in heavy industry".
//!
//! A blurred clue names no entity: it states a range instead of a year (decades), a round bound
//! instead of a count, a broader field instead of an occupation or a category (the theme's
//! `fields`, whose phrases share no word with the names they cover, so no search for the
//! clue's words lands on a category page), or a relation to another unnamed entity (a
//! birthplace that is home to an organisation in some field). The task builder writes clues
//! only through [`Hint::text`] and [`join`], and keeps a question only when [`parse`] reads its
//! clues back unchanged; the baseline agent reads them with [`parse`], which knows every
//! theme's fields (their phrases are unique over all themes, a test makes sure).
//! Clauses are joined by `; `, since a clause's own lists use `, ` and ` or `.

use std::sync::OnceLock;

use fabula_world::theme::Field;

/// One blurred clue about a person, as the question states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// Born in one of these decades (their first years, consecutive).
    BornIn(Vec<i64>),
    /// Worked in one of the occupations of this field.
    WorkedIn(Field),
    /// Born in a settlement whose present population is above this bound.
    BirthplaceOver(i64),
    /// Born in a settlement whose present population is below this bound.
    BirthplaceUnder(i64),
    /// Born in a settlement founded before this decade (its first year).
    BirthplaceBefore(i64),
    /// Born in a settlement founded in this decade (its first year) or later.
    BirthplaceSince(i64),
    /// Born in a settlement that is home to an organisation of a category of this field.
    BirthplaceHosts(Field),
    /// Founded an organisation of a category of this field.
    Founded(Field),
    /// Belonged, as a member or as an office holder, to an organisation of more members than
    /// this bound.
    BelongedOver(i64),
    /// Belonged, as a member or as an office holder, to an organisation of a category of this
    /// field.
    BelongedTo(Field),
    /// Held an office (any seat) of some organisation.
    HeldOffice,
    /// Died in one of these decades (their first years, consecutive).
    DiedIn(Vec<i64>),
    /// Joined an organisation as a member before this decade (its first year).
    JoinedBefore(i64),
    /// Joined an organisation as a member in this decade (its first year) or later.
    JoinedSince(i64),
    /// Belonged, as a member or as an office holder, to an organisation that made a work (the
    /// theme's verb and noun: "completed a masterwork") in one of these decades.
    BelongedToMaker {
        verb: String,
        work: String,
        decades: Vec<i64>,
    },
}

const BORN_IN_THE: &str = "was born in the ";
const WORKED: &str = "worked ";
const BORN_IN: &str = "was born in ";
const FOUNDED: &str = "founded ";
const BELONGED: &str = "belonged, as a member or an officer, to ";
/// Clauses about the same thing start differently, so a question does not say "was born in"
/// four times: the birthplace's population and an organisation's size read so.
const NATIVE_OF: &str = "was a native of ";
const MEMBER_OF: &str = "was a member or an officer of ";
const HELD_OFFICE: &str = "held an office in ";
const DIED_IN: &str = "died in ";
const DIED_IN_THE: &str = "died in the ";
const JOINED: &str = "joined ";
const AS_MEMBER_BEFORE: &str = " as a member before the ";
const AS_MEMBER_IN: &str = " as a member in the ";
const PEOPLE_TODAY: &str = " people today";
const MORE_THAN: &str = " of more than ";
const FEWER_THAN: &str = " of fewer than ";
const FOUNDED_BEFORE: &str = " founded before the ";
const FOUNDED_IN: &str = " founded in the ";
const OR_LATER: &str = "s or later";
const HOME_TO: &str = " that is home to ";
const MEMBERS: &str = " members";

/// The theme nouns a clue uses: the singular of a settlement and of an organisation.
#[derive(Debug, Clone, Copy)]
pub struct Nouns<'a> {
    pub settlement: &'a str,
    pub organisation: &'a str,
}

const THAT: &str = " that ";
const IN_THE: &str = " in the ";

impl Hint {
    /// The clause after "the person who".
    pub fn text(&self, nouns: Nouns<'_>) -> String {
        let a = fabula_pages::with_article;
        let (place, org) = (a(nouns.settlement), a(nouns.organisation));
        match self {
            Hint::BornIn(decades) => format!("{BORN_IN}{}", decade_list(decades)),
            Hint::WorkedIn(field) => format!("{WORKED}{}", field.phrase),
            Hint::BirthplaceOver(n) => {
                format!("{NATIVE_OF}{place}{MORE_THAN}{}{PEOPLE_TODAY}", count(*n))
            }
            Hint::BirthplaceUnder(n) => {
                format!("{NATIVE_OF}{place}{FEWER_THAN}{}{PEOPLE_TODAY}", count(*n))
            }
            Hint::BirthplaceBefore(d) => format!("{BORN_IN}{place}{FOUNDED_BEFORE}{d}s"),
            Hint::BirthplaceSince(d) => format!("{BORN_IN}{place}{FOUNDED_IN}{d}{OR_LATER}"),
            Hint::BirthplaceHosts(field) => {
                format!("{BORN_IN}{place}{HOME_TO}{org} {}", field.phrase)
            }
            Hint::Founded(field) => format!("{FOUNDED}{org} {}", field.phrase),
            Hint::BelongedOver(n) => format!("{MEMBER_OF}{org}{MORE_THAN}{}{MEMBERS}", count(*n)),
            Hint::BelongedTo(field) => format!("{BELONGED}{org} {}", field.phrase),
            Hint::HeldOffice => format!("{HELD_OFFICE}{org}"),
            Hint::DiedIn(decades) => format!("{DIED_IN}{}", decade_list(decades)),
            Hint::JoinedBefore(d) => format!("{JOINED}{org}{AS_MEMBER_BEFORE}{d}s"),
            Hint::JoinedSince(d) => format!("{JOINED}{org}{AS_MEMBER_IN}{d}{OR_LATER}"),
            Hint::BelongedToMaker {
                verb,
                work,
                decades,
            } => format!(
                "{BELONGED}{org}{THAT}{verb} {} in {}",
                a(work),
                decade_list(decades)
            ),
        }
    }

    /// Reads one clause back; `None` when it is no clue.
    fn parse(clause: &str) -> Option<Hint> {
        if let Some(rest) = clause.strip_prefix(BORN_IN_THE) {
            return decades(rest).map(Hint::BornIn);
        }
        if let Some(rest) = clause.strip_prefix(DIED_IN_THE) {
            return decades(rest).map(Hint::DiedIn);
        }
        if let Some(rest) = clause.strip_prefix(JOINED) {
            if let Some((_, d)) = rest.split_once(AS_MEMBER_BEFORE) {
                return number(d.strip_suffix('s')?).map(Hint::JoinedBefore);
            }
            let (_, d) = rest.split_once(AS_MEMBER_IN)?;
            return number(d.strip_suffix(OR_LATER)?).map(Hint::JoinedSince);
        }
        if let Some(rest) = clause.strip_prefix(WORKED) {
            let field = vocabulary().occupations.iter().find(|f| f.phrase == rest);
            return field.cloned().map(Hint::WorkedIn);
        }
        if let Some(rest) = clause.strip_prefix(BORN_IN) {
            return birthplace(rest);
        }
        if let Some(rest) = clause.strip_prefix(NATIVE_OF) {
            return population(rest);
        }
        if let Some(rest) = clause.strip_prefix(MEMBER_OF) {
            let (_, n) = rest.split_once(MORE_THAN)?;
            return number(n.strip_suffix(MEMBERS)?).map(Hint::BelongedOver);
        }
        if let Some(rest) = clause.strip_prefix(FOUNDED) {
            return category_field(rest).map(Hint::Founded);
        }
        if let Some(rest) = clause.strip_prefix(BELONGED) {
            if let Some(field) = category_field(rest) {
                return Some(Hint::BelongedTo(field));
            }
            return maker(rest);
        }
        clause.strip_prefix(HELD_OFFICE).map(|_| Hint::HeldOffice)
    }
}

/// "a guild that completed a masterwork in the 1280s or the 1290s", after "belonged ... to ".
fn maker(rest: &str) -> Option<Hint> {
    let (_, made) = rest.split_once(THAT)?;
    let (verb, made) = made.split_once(' ')?;
    let (work, tail) = made.rsplit_once(IN_THE)?;
    Some(Hint::BelongedToMaker {
        verb: verb.to_owned(),
        work: fabula_pages::without_article(work).to_owned(),
        decades: decades(tail)?,
    })
}

/// A clause about the birthplace, after "was born in ".
fn birthplace(rest: &str) -> Option<Hint> {
    if let Some((_, organisation)) = rest.split_once(HOME_TO) {
        return category_field(organisation).map(Hint::BirthplaceHosts);
    }
    if let Some((_, d)) = rest.split_once(FOUNDED_BEFORE) {
        return number(d.strip_suffix('s')?).map(Hint::BirthplaceBefore);
    }
    let (_, d) = rest.split_once(FOUNDED_IN)?;
    number(d.strip_suffix(OR_LATER)?).map(Hint::BirthplaceSince)
}

/// A clause about the birthplace's population, after "was a native of ".
fn population(rest: &str) -> Option<Hint> {
    if let Some((_, n)) = rest.split_once(MORE_THAN) {
        return number(n.strip_suffix(PEOPLE_TODAY)?).map(Hint::BirthplaceOver);
    }
    let (_, n) = rest.split_once(FEWER_THAN)?;
    number(n.strip_suffix(PEOPLE_TODAY)?).map(Hint::BirthplaceUnder)
}

/// Every theme's fields, read once: the parser's vocabulary.
struct Vocabulary {
    occupations: Vec<Field>,
    categories: Vec<Field>,
}

fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: OnceLock<Vocabulary> = OnceLock::new();
    VOCABULARY.get_or_init(|| {
        let themes = fabula_world::theme::all().unwrap_or_default();
        Vocabulary {
            occupations: themes
                .iter()
                .flat_map(|t| t.person.fields.clone())
                .collect(),
            categories: themes
                .iter()
                .flat_map(|t| t.organisation.fields.clone())
                .collect(),
        }
    })
}

/// The category field an organisation's description ends with: "a guild of the cloth trades".
fn category_field(organisation: &str) -> Option<Field> {
    vocabulary()
        .categories
        .iter()
        .filter(|f| {
            organisation
                .strip_suffix(f.phrase.as_str())
                .is_some_and(|noun| noun.ends_with(' '))
        })
        .max_by_key(|f| f.phrase.len())
        .cloned()
}

/// "the 2140s or the 2150s".
fn decade_list(decades: &[i64]) -> String {
    let named: Vec<String> = decades.iter().map(|d| format!("the {d}s")).collect();
    or_list(&named)
}

/// Reads a [`decade_list`] back, after its first "the ".
fn decades(rest: &str) -> Option<Vec<i64>> {
    let decades: Option<Vec<i64>> = split_or(&format!("the {rest}"))
        .iter()
        .map(|d| d.strip_prefix("the ")?.strip_suffix('s')?.parse().ok())
        .collect();
    decades.filter(|d| !d.is_empty())
}

/// "a", "a or b", "a, b or c".
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Reads an [`or_list`] back.
fn split_or(text: &str) -> Vec<String> {
    match text.rsplit_once(" or ") {
        None => vec![text.to_owned()],
        Some((rest, last)) => rest.split(", ").chain([last]).map(str::to_owned).collect(),
    }
}

/// A bound as the question writes it: digits grouped by commas.
fn count(n: i64) -> String {
    fabula_pages::fmt_count(n)
}

fn number(text: &str) -> Option<i64> {
    text.replace(',', "").parse().ok()
}

/// "a; b; and c": clauses of a frontier question.
pub fn join(texts: &[String]) -> String {
    match texts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}; and {last}", rest.join("; ")),
    }
}

/// Reads the clues of a `{clues}` slot back; `None` when a clause is not a clue.
pub fn parse(text: &str) -> Option<Vec<Hint>> {
    text.split("; ")
        .map(|clause| Hint::parse(clause.strip_prefix("and ").unwrap_or(clause)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Checks that `hints` join into `expect` and parse back unchanged.
    fn check(hints: &[Hint], expect: &str) {
        let nouns = Nouns {
            settlement: "campus town",
            organisation: "institute",
        };
        let texts: Vec<String> = hints.iter().map(|h| h.text(nouns)).collect();
        let joined = join(&texts);
        assert_eq!(joined, expect);
        assert_eq!(parse(&joined).as_deref(), Some(hints), "{joined}");
    }

    /// The field with this phrase among `fields`.
    fn field(fields: &[Field], phrase: &str) -> Field {
        let found = fields.iter().find(|f| f.phrase == phrase).cloned();
        found.unwrap_or_else(|| panic!("no field `{phrase}`"))
    }

    #[test]
    fn hints_join_and_parse_back() {
        check(&[Hint::HeldOffice], "held an office in an institute");
        check(
            &[Hint::BornIn(vec![2140, 2150]), Hint::BirthplaceOver(20_000)],
            "was born in the 2140s or the 2150s; and was a native of a campus town of more \
             than 20,000 people today",
        );
        check(
            &[
                Hint::WorkedIn(field(&vocabulary().occupations, "in the humanities")),
                Hint::BirthplaceUnder(900),
                Hint::BirthplaceBefore(2100),
                Hint::BirthplaceSince(1850),
                Hint::BirthplaceHosts(field(&vocabulary().categories, "in the study of life")),
                Hint::Founded(field(&vocabulary().categories, "in the hard sciences")),
                Hint::BelongedOver(1_200),
                Hint::BelongedTo(field(&vocabulary().categories, "of the cloth trades")),
                Hint::DiedIn(vec![2190, 2200, 2210]),
                Hint::JoinedBefore(2100),
                Hint::JoinedSince(2120),
                Hint::BelongedToMaker {
                    verb: "published".into(),
                    work: "atlas".into(),
                    decades: vec![2130, 2140],
                },
            ],
            "worked in the humanities; was a native of a campus town of fewer than 900 people \
             today; was born in a campus town founded before the 2100s; was born in a campus \
             town founded in the 1850s or later; was born in a campus town that is home to an \
             institute in the study of life; founded an institute in the hard sciences; \
             was a member or an officer of an institute of more than 1,200 members; \
             belonged, as a member or an officer, to an institute of the cloth trades; died in \
             the 2190s, the 2200s or the 2210s; joined an institute as a member before the \
             2100s; joined an institute as a member in the 2120s or later; and belonged, as a member \
             or an officer, to an institute that published an atlas in the 2130s or the 2140s",
        );
    }

    #[test]
    fn text_that_is_no_clue_does_not_parse() {
        assert_eq!(parse("sailed away"), None);
        assert_eq!(parse("was born in the spring"), None);
        assert_eq!(parse("was born in Kest"), None);
        assert_eq!(parse("worked as a weaver"), None);
        assert_eq!(parse("founded a guild listed under weavers"), None);
    }

    /// The parser reads fields over every theme, so a phrase must mean one field: unique among
    /// the occupations' fields and among the categories' fields, and (for categories, matched at
    /// the end of a clause) no phrase the end of another.
    #[test]
    fn field_phrases_are_unique_over_all_themes() {
        let v = vocabulary();
        assert!(v.occupations.len() >= 16 && v.categories.len() >= 16);
        for fields in [&v.occupations, &v.categories] {
            let phrases: BTreeSet<&str> = fields.iter().map(|f| f.phrase.as_str()).collect();
            assert_eq!(phrases.len(), fields.len(), "{phrases:?}");
            for a in &phrases {
                for b in &phrases {
                    assert!(
                        a == b || !a.ends_with(&format!(" {b}")),
                        "{a} ends with {b}"
                    );
                }
            }
        }
    }
}
