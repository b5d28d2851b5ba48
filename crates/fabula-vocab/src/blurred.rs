//! The blurred clues of a frontier question, as its `{clues}` slot writes them and as a reader
//! parses them back: "was born in the 2140s or the 2150s in a colony of more than 20,000
//! people today that was founded before the 2100s; worked, by occupation, in growing or studying
//! living things; and belonged, as a member or an officer (not counting founders), to a
//! consortium in extraction or manufacturing". Each clause says which relation it means: an
//! occupation, not a role in an organisation; a seat, not a founding or a membership; a
//! membership, not a seat or a founding.
//!
//! A blurred clue names no entity: it states a range instead of a year (decades, or a decade
//! bound), a round bound instead of a count, a broader field instead of an occupation or a
//! category (the theme's `fields`, whose phrases share no word with the names they cover, so no
//! search for the clue's words lands on a category page), or a relation to another unnamed
//! entity (a birthplace that is home to an organisation in some field). The task builder
//! writes clues only through [`write`](fn@write) (after [`arrange`]), and keeps a question only when
//! [`parse`] reads its clues back unchanged; the baseline agent reads them with [`parse`],
//! which knows every theme's fields (their phrases are unique over all themes, a test makes
//! sure).
//!
//! Clauses are joined by `; `, since a clause's own lists use `, ` and ` or `. The clues about
//! a person's birth (when, and the birthplace's population, founding and organisations) share
//! one clause, "was born in the 1890s in a town of more than 15,000 people today that was
//! founded before the 1700s and is home to a guild of the textile crafts", so a question says
//! "was born" once; every other clause opens with its own words.

use std::sync::OnceLock;

use crate::theme::Field;

/// One blurred clue about a person, as the question states it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Hint {
    /// Born in one of these decades (their first years, consecutive).
    BornIn(Vec<i64>),
    /// Born before this decade (its first year).
    BornBefore(i64),
    /// Born in this decade (its first year) or later.
    BornSince(i64),
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
    /// Died before this decade (its first year).
    DiedBefore(i64),
    /// Died in this decade (its first year) or later.
    DiedSince(i64),
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

const BORN: &str = "was born";
const WORKED: &str = "worked, by occupation, ";
const FOUNDED: &str = "founded ";
// "Not counting founders": a founder is neither a member nor an officer in the world, and
// research agents counted a founder as one (a miss on seed 77841).
const BELONGED: &str = "belonged, as a member or an officer (not counting founders), to ";
const MEMBER_OF: &str = "was a member or an officer (not counting founders) of ";
const AMONG: &str = "was among the members or officers (not counting founders) of ";
const HELD_OFFICE: &str = "held an office (a seat, not a founding or a membership) in ";
const DIED: &str = "died";
const JOINED: &str = "joined ";
const AS_MEMBER_BEFORE: &str = " as a member (not an office holder) before the ";
const AS_MEMBER_IN: &str = " as a member (not an office holder) in the ";
const PEOPLE_TODAY: &str = " people today";
const MORE_THAN: &str = " of more than ";
const FEWER_THAN: &str = " of fewer than ";
const IN: &str = " in ";
const IN_THE: &str = " in the ";
const BEFORE_THE: &str = " before the ";
const OR_LATER: &str = " or later";
const THAT: &str = " that ";
const AND: &str = " and ";
const WAS_FOUNDED: &str = "was founded";
const IS_HOME_TO: &str = "is home to ";
const MEMBERS: &str = " members";

/// The theme nouns a clue uses: the singular of a settlement and of an organisation.
#[derive(Debug, Clone, Copy)]
pub struct Nouns<'a> {
    pub settlement: &'a str,
    pub organisation: &'a str,
}

impl Hint {
    /// Whether a year (of birth or of death) fits a clue about it; `false` for other clues.
    pub fn fits_year(&self, year: i64) -> bool {
        match self {
            Hint::BornIn(decades) | Hint::DiedIn(decades) => {
                decades.iter().any(|d| (*d..=d + 9).contains(&year))
            }
            Hint::BornBefore(d) | Hint::DiedBefore(d) => year < *d,
            Hint::BornSince(d) | Hint::DiedSince(d) => year >= *d,
            _ => false,
        }
    }

    /// Whether a clue is about the person's birthplace (its population, founding or
    /// organisations) rather than the person.
    pub fn birth_place(&self) -> bool {
        self.birth_part().is_some_and(|part| part > 0)
    }

    /// Where a clue about the person's birth goes in the shared birth clause: its time, the
    /// birthplace's population, its founding, its organisations; `None` for other clues.
    fn birth_part(&self) -> Option<u8> {
        match self {
            Hint::BornIn(_) | Hint::BornBefore(_) | Hint::BornSince(_) => Some(0),
            Hint::BirthplaceOver(_) | Hint::BirthplaceUnder(_) => Some(1),
            Hint::BirthplaceBefore(_) | Hint::BirthplaceSince(_) => Some(2),
            Hint::BirthplaceHosts(_) => Some(3),
            _ => None,
        }
    }

    /// The clause of a clue not about the person's birth, after "the person who".
    fn text(&self, nouns: Nouns<'_>) -> String {
        let org = crate::english::with_article(nouns.organisation);
        match self {
            Hint::WorkedIn(field) => format!("{WORKED}{}", field.phrase),
            Hint::Founded(field) => format!("{FOUNDED}{org} {}", field.phrase),
            Hint::BelongedOver(n) => format!("{MEMBER_OF}{org}{MORE_THAN}{}{MEMBERS}", count(*n)),
            Hint::BelongedTo(field) => format!("{BELONGED}{org} {}", field.phrase),
            Hint::HeldOffice => format!("{HELD_OFFICE}{org}"),
            Hint::DiedIn(_) | Hint::DiedBefore(_) | Hint::DiedSince(_) => {
                format!("{DIED}{}", when(self))
            }
            Hint::JoinedBefore(d) => format!("{JOINED}{org}{AS_MEMBER_BEFORE}{d}s"),
            Hint::JoinedSince(d) => format!("{JOINED}{org}{AS_MEMBER_IN}{d}s{OR_LATER}"),
            Hint::BelongedToMaker {
                verb,
                work,
                decades,
            } => format!(
                "{AMONG}{org}{THAT}{verb} {} in {}",
                crate::english::with_article(work),
                decade_list(decades)
            ),
            _ => birth_clause(&[self], nouns),
        }
    }

    /// Reads one clause back that is not about the person's birth; `None` when it is no clue.
    fn parse(clause: &str) -> Option<Hint> {
        if let Some(rest) = clause.strip_prefix(DIED) {
            return match time(rest)? {
                (When::Decades(decades), "") => Some(Hint::DiedIn(decades)),
                (When::Before(d), "") => Some(Hint::DiedBefore(d)),
                (When::Since(d), "") => Some(Hint::DiedSince(d)),
                _ => None,
            };
        }
        if let Some(rest) = clause.strip_prefix(JOINED) {
            if let Some((_, d)) = rest.split_once(AS_MEMBER_BEFORE) {
                return decade(d).map(Hint::JoinedBefore);
            }
            let (_, d) = rest.split_once(AS_MEMBER_IN)?;
            return decade(d.strip_suffix(OR_LATER)?).map(Hint::JoinedSince);
        }
        if let Some(rest) = clause.strip_prefix(WORKED) {
            let field = vocabulary().occupations.iter().find(|f| f.phrase == rest);
            return field.cloned().map(Hint::WorkedIn);
        }
        if let Some(rest) = clause.strip_prefix(MEMBER_OF) {
            let (_, n) = rest.split_once(MORE_THAN)?;
            return number(n.strip_suffix(MEMBERS)?).map(Hint::BelongedOver);
        }
        if let Some(rest) = clause.strip_prefix(AMONG) {
            return maker(rest);
        }
        if let Some(rest) = clause.strip_prefix(FOUNDED) {
            return category_field(rest).map(Hint::Founded);
        }
        if let Some(rest) = clause.strip_prefix(BELONGED) {
            return category_field(rest).map(Hint::BelongedTo);
        }
        clause.strip_prefix(HELD_OFFICE).map(|_| Hint::HeldOffice)
    }
}

/// The hints in the order [`write`](fn@write) states them and [`parse`] reads them back: the clues about
/// the person's birth together (time, population, founding, organisations), where the first of
/// them was, the others as they come.
pub fn arrange(hints: &[Hint]) -> Vec<Hint> {
    let mut birth: Vec<&Hint> = hints.iter().filter(|h| h.birth_part().is_some()).collect();
    birth.sort_by_key(|h| h.birth_part());
    let mut out = Vec::with_capacity(hints.len());
    for hint in hints {
        if hint.birth_part().is_none() {
            out.push(hint.clone());
        } else if !birth.is_empty() {
            out.extend(birth.drain(..).cloned());
        }
    }
    out
}

/// The `{clues}` slot of the hints: a clause each ("a; b; and c"), except that a run of clues
/// about the person's birth, one of each part in [`arrange`]'s order, shares one clause.
pub fn write(hints: &[Hint], nouns: Nouns<'_>) -> String {
    let mut clauses = Vec::new();
    let mut run: Vec<&Hint> = Vec::new();
    for hint in hints {
        let part = hint.birth_part();
        // A birth clue joins the run when its part comes after the run's last one.
        let joins = part.is_some() && run.last().and_then(|h| h.birth_part()) < part;
        if !joins && !run.is_empty() {
            clauses.push(birth_clause(&run, nouns));
            run.clear();
        }
        match part {
            Some(_) => run.push(hint),
            None => clauses.push(hint.text(nouns)),
        }
    }
    if !run.is_empty() {
        clauses.push(birth_clause(&run, nouns));
    }
    join(&clauses)
}

/// "was born in the 1890s in a town of more than 15,000 people today that was founded before
/// the 1700s and is home to a guild of the textile crafts": the clues about the birth, one of
/// each part at most.
fn birth_clause(hints: &[&Hint], nouns: Nouns<'_>) -> String {
    let mut text = BORN.to_owned();
    let mut size = String::new();
    let mut facets = Vec::new();
    let mut place = false;
    for hint in hints {
        place |= hint.birth_part() > Some(0);
        match hint {
            Hint::BirthplaceOver(n) => size = format!("{MORE_THAN}{}{PEOPLE_TODAY}", count(*n)),
            Hint::BirthplaceUnder(n) => size = format!("{FEWER_THAN}{}{PEOPLE_TODAY}", count(*n)),
            Hint::BirthplaceBefore(d) => facets.push(format!("{WAS_FOUNDED}{BEFORE_THE}{d}s")),
            Hint::BirthplaceSince(d) => facets.push(format!("{WAS_FOUNDED}{IN_THE}{d}s{OR_LATER}")),
            Hint::BirthplaceHosts(field) => facets.push(format!(
                "{IS_HOME_TO}{} {}",
                crate::english::with_article(nouns.organisation),
                field.phrase
            )),
            _ => text.push_str(&when(hint)),
        }
    }
    if place {
        let settlement = crate::english::with_article(nouns.settlement);
        text.push_str(&format!("{IN}{settlement}{size}"));
    }
    if !facets.is_empty() {
        text.push_str(&format!("{THAT}{}", facets.join(AND)));
    }
    text
}

/// " in the 1890s or the 1900s", " before the 1900s" or " in the 1900s or later": when a
/// person was born or died.
fn when(hint: &Hint) -> String {
    match hint {
        Hint::BornIn(decades) | Hint::DiedIn(decades) => format!("{IN}{}", decade_list(decades)),
        Hint::BornBefore(d) | Hint::DiedBefore(d) => format!("{BEFORE_THE}{d}s"),
        Hint::BornSince(d) | Hint::DiedSince(d) => format!("{IN_THE}{d}s{OR_LATER}"),
        _ => String::new(),
    }
}

/// When a person was born or died, or a settlement was founded, as a clause states it.
enum When {
    Decades(Vec<i64>),
    Before(i64),
    Since(i64),
}

/// Reads a [`when`] back at the start of `text`, with the text after it (from the " in " of a
/// birthplace on).
fn time(text: &str) -> Option<(When, &str)> {
    if let Some(rest) = text.strip_prefix(BEFORE_THE) {
        let (d, after) = rest.split_at(rest.find('s')? + 1);
        return Some((When::Before(decade(d)?), after));
    }
    let rest = text.strip_prefix(IN_THE)?;
    let (time, after) = rest.split_at(rest.find(IN).unwrap_or(rest.len()));
    let when = match time.strip_suffix(OR_LATER) {
        Some(d) => When::Since(decade(d)?),
        None => When::Decades(decades(time)?),
    };
    Some((when, after))
}

/// The clues of a birth clause, after "was born"; `None` when it states none or is no clue.
fn birth(rest: &str) -> Option<Vec<Hint>> {
    let mut hints = Vec::new();
    let mut place = rest;
    if rest.starts_with(BEFORE_THE) || rest.starts_with(IN_THE) {
        let (when, after) = time(rest)?;
        hints.push(match when {
            When::Decades(decades) => Hint::BornIn(decades),
            When::Before(d) => Hint::BornBefore(d),
            When::Since(d) => Hint::BornSince(d),
        });
        place = after;
    }
    if !place.is_empty() {
        hints.extend(birthplace(place.strip_prefix(IN)?)?);
    }
    (!hints.is_empty()).then_some(hints)
}

/// The clues about a birthplace, after "was born ... in ": "a town of more than 15,000 people
/// today that was founded before the 1700s and is home to a guild of the textile crafts".
fn birthplace(place: &str) -> Option<Vec<Hint>> {
    let (head, facets) = match place.split_once(THAT) {
        Some((head, facets)) => (head, Some(facets)),
        None => (place, None),
    };
    let mut hints = Vec::new();
    if let Some((_, n)) = head.split_once(MORE_THAN) {
        hints.push(Hint::BirthplaceOver(number(n.strip_suffix(PEOPLE_TODAY)?)?));
    } else if let Some((_, n)) = head.split_once(FEWER_THAN) {
        hints.push(Hint::BirthplaceUnder(number(
            n.strip_suffix(PEOPLE_TODAY)?,
        )?));
    }
    let mut hosts = facets;
    if let Some(founded) = facets.and_then(|f| f.strip_prefix(WAS_FOUNDED)) {
        let (founding, rest) = match founded.split_once(AND) {
            Some((founding, rest)) => (founding, Some(rest)),
            None => (founded, None),
        };
        hints.push(match time(founding)? {
            (When::Before(d), "") => Hint::BirthplaceBefore(d),
            (When::Since(d), "") => Hint::BirthplaceSince(d),
            _ => return None,
        });
        hosts = rest;
    }
    if let Some(hosts) = hosts {
        let field = category_field(hosts.strip_prefix(IS_HOME_TO)?)?;
        hints.push(Hint::BirthplaceHosts(field));
    }
    (!hints.is_empty()).then_some(hints)
}

/// "a guild that completed a masterwork in the 1280s or the 1290s", after "was among the
/// members or officers of ".
fn maker(rest: &str) -> Option<Hint> {
    let (_, made) = rest.split_once(THAT)?;
    let (verb, made) = made.split_once(' ')?;
    let (work, tail) = made.rsplit_once(IN_THE)?;
    Some(Hint::BelongedToMaker {
        verb: verb.to_owned(),
        work: crate::english::without_article(work).to_owned(),
        decades: decades(tail)?,
    })
}

/// Every theme's fields, read once: the parser's vocabulary.
struct Vocabulary {
    occupations: Vec<Field>,
    categories: Vec<Field>,
}

fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: OnceLock<Vocabulary> = OnceLock::new();
    VOCABULARY.get_or_init(|| {
        let themes = crate::theme::all().unwrap_or_default();
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

/// The category field an organisation's description ends with: "a guild of the textile crafts".
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

/// "the 2140s or the 2150s". A decade that starts a century is written as its years ("the
/// 1290s or the years 1300 to 1309"): "the 1300s" alone reads as the century to many readers.
/// Bounds keep the short form ("before the 1800s", "in the 1800s or later"), which means the
/// same year under either reading.
fn decade_list(decades: &[i64]) -> String {
    let named: Vec<String> = decades
        .iter()
        .map(|&d| {
            if d % 100 == 0 {
                format!("the years {d} to {}", d + 9)
            } else {
                format!("the {d}s")
            }
        })
        .collect();
    or_list(&named)
}

/// Reads a [`decade_list`] back, after its first "the ".
fn decades(rest: &str) -> Option<Vec<i64>> {
    let decades: Option<Vec<i64>> = split_or(&format!("the {rest}"))
        .iter()
        .map(|d| {
            let d = d.strip_prefix("the ")?;
            match d.strip_prefix("years ") {
                Some(years) => {
                    let (from, to) = years.split_once(" to ")?;
                    let (from, to): (i64, i64) = (from.parse().ok()?, to.parse().ok()?);
                    (from % 100 == 0 && to == from + 9).then_some(from)
                }
                // The short form of a century's first decade is read too: files written before
                // the long form keep parsing.
                None => d.strip_suffix('s')?.parse().ok(),
            }
        })
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
    crate::english::fmt_count(n)
}

/// Reads a decade back: "1890s".
fn decade(text: &str) -> Option<i64> {
    text.strip_suffix('s')?.parse().ok()
}

fn number(text: &str) -> Option<i64> {
    text.replace(',', "").parse().ok()
}

/// "a; b; and c": clauses of a frontier question.
fn join(texts: &[String]) -> String {
    match texts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}; and {last}", rest.join("; ")),
    }
}

/// Reads the clues of a `{clues}` slot back, in the order [`write`](fn@write) states them; `None` when a
/// clause is not a clue.
pub fn parse(text: &str) -> Option<Vec<Hint>> {
    let mut hints = Vec::new();
    for clause in text.split("; ") {
        let clause = clause.strip_prefix("and ").unwrap_or(clause);
        match clause.strip_prefix(BORN) {
            Some(rest) => hints.extend(birth(rest)?),
            None => hints.push(Hint::parse(clause)?),
        }
    }
    Some(hints)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    const NOUNS: Nouns<'static> = Nouns {
        settlement: "campus town",
        organisation: "institute",
    };

    /// Checks that `hints` are written as `expect` and parse back unchanged.
    fn check(hints: &[Hint], expect: &str) {
        let written = write(hints, NOUNS);
        assert_eq!(written, expect);
        assert_eq!(parse(&written).as_deref(), Some(hints), "{written}");
    }

    /// The field with this phrase among `fields`.
    fn field(fields: &[Field], phrase: &str) -> Field {
        let found = fields.iter().find(|f| f.phrase == phrase).cloned();
        found.unwrap_or_else(|| panic!("no field `{phrase}`"))
    }

    fn category(phrase: &str) -> Field {
        field(&vocabulary().categories, phrase)
    }

    fn maker() -> Hint {
        Hint::BelongedToMaker {
            verb: "published".into(),
            work: "atlas".into(),
            decades: vec![2130, 2140],
        }
    }

    #[test]
    fn hints_are_written_and_parse_back() {
        check(
            &[Hint::HeldOffice],
            "held an office (a seat, not a founding or a membership) in an institute",
        );
        check(
            &[
                Hint::WorkedIn(field(&vocabulary().occupations, "in the humanities")),
                Hint::Founded(category("in the physical sciences")),
                Hint::BelongedOver(1_200),
                Hint::BelongedTo(category("of the textile crafts")),
                Hint::DiedIn(vec![2190, 2200, 2210]),
                Hint::JoinedBefore(2100),
                maker(),
            ],
            "worked, by occupation, in the humanities; founded an institute in the physical \
             sciences; was a member or an officer (not counting founders) of an institute of \
             more than 1,200 members; belonged, as a member or an officer (not counting \
             founders), to an institute of the textile crafts; died in the 2190s, the years \
             2200 to 2209 or the 2210s; joined an institute as a member (not an office holder) before the \
             2100s; and was among the members or officers (not counting founders) of an \
             institute that published an atlas in the 2130s or the 2140s",
        );
        check(
            &[Hint::DiedBefore(2200), Hint::JoinedSince(2120)],
            "died before the 2200s; and joined an institute as a member (not an office holder) \
             in the 2120s or later",
        );
        check(&[Hint::DiedSince(1850)], "died in the 1850s or later");
        check(
            &[Hint::BornIn(vec![1300])],
            "was born in the years 1300 to 1309",
        );
        // The short form of a century's first decade, as older files write it, still parses.
        assert_eq!(
            parse("died in the 1290s or the 1300s"),
            Some(vec![Hint::DiedIn(vec![1290, 1300])])
        );
        assert_eq!(parse("died in the years 1300 to 1310"), None);
    }

    #[test]
    fn clues_about_the_birth_share_one_clause() {
        check(
            &[
                Hint::BornIn(vec![2140, 2150]),
                Hint::BirthplaceOver(20_000),
                Hint::BirthplaceBefore(2100),
                Hint::BirthplaceHosts(category("dealing in plant goods")),
                Hint::HeldOffice,
            ],
            "was born in the 2140s or the 2150s in a campus town of more than 20,000 people \
             today that was founded before the 2100s and is home to an institute dealing in \
             plant goods; and held an office (a seat, not a founding or a membership) in an \
             institute",
        );
        check(
            &[
                Hint::HeldOffice,
                Hint::BornBefore(1900),
                Hint::BirthplaceSince(1850),
            ],
            "held an office (a seat, not a founding or a membership) in an institute; and was \
             born before the 1900s in a campus town that was founded in the 1850s or later",
        );
        check(
            &[
                Hint::BornSince(1900),
                Hint::BirthplaceUnder(900),
                Hint::BirthplaceHosts(category("of a craft working glass or precious metal")),
            ],
            "was born in the 1900s or later in a campus town of fewer than 900 people today \
             that is home to an institute of a craft working glass or precious metal",
        );
        check(
            &[Hint::BirthplaceHosts(category(
                "in the study of plants, animals or disease",
            ))],
            "was born in a campus town that is home to an institute in the study of plants, \
             animals or disease",
        );
        check(&[Hint::BornIn(vec![2140])], "was born in the 2140s");
        check(
            &[Hint::BornSince(2140), Hint::DiedIn(vec![2200])],
            "was born in the 2140s or later; and died in the years 2200 to 2209",
        );
        // Out of order, birth clues take a clause each and still read back.
        check(
            &[Hint::BirthplaceBefore(2100), Hint::BornIn(vec![2140])],
            "was born in a campus town that was founded before the 2100s; and was born in the \
             2140s",
        );
    }

    #[test]
    fn arranged_birth_clues_come_together_in_order() {
        let hints = [
            Hint::HeldOffice,
            Hint::BirthplaceHosts(category("in the study of plants, animals or disease")),
            Hint::WorkedIn(field(&vocabulary().occupations, "in the humanities")),
            Hint::BornBefore(2100),
            Hint::BirthplaceUnder(900),
        ];
        let arranged = arrange(&hints);
        assert_eq!(
            arranged,
            [
                Hint::HeldOffice,
                Hint::BornBefore(2100),
                Hint::BirthplaceUnder(900),
                Hint::BirthplaceHosts(category("in the study of plants, animals or disease")),
                Hint::WorkedIn(field(&vocabulary().occupations, "in the humanities")),
            ]
        );
        let written = write(&arranged, NOUNS);
        assert_eq!(written.matches("was born").count(), 1, "{written}");
        assert_eq!(parse(&written), Some(arranged));
    }

    /// With a clue of every kind, no two clauses open with the same three words.
    #[test]
    fn every_clause_opens_differently() {
        let hints = arrange(&[
            Hint::BornIn(vec![2140]),
            Hint::WorkedIn(field(&vocabulary().occupations, "in the humanities")),
            Hint::BirthplaceOver(900),
            Hint::BirthplaceBefore(2100),
            Hint::BirthplaceHosts(category("in the study of plants, animals or disease")),
            Hint::Founded(category("in the physical sciences")),
            Hint::BelongedOver(1_200),
            Hint::BelongedTo(category("of the textile crafts")),
            Hint::HeldOffice,
            Hint::DiedBefore(2200),
            Hint::JoinedSince(2120),
            maker(),
        ]);
        let written = write(&hints, NOUNS);
        let openers: Vec<String> = written
            .split("; ")
            .map(|c| c.strip_prefix("and ").unwrap_or(c))
            .map(|c| c.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .collect();
        let unique: BTreeSet<&String> = openers.iter().collect();
        assert_eq!(unique.len(), openers.len(), "{openers:?}");
        assert_eq!(parse(&written), Some(hints));
    }

    #[test]
    fn years_fit_their_clues() {
        assert!(Hint::BornIn(vec![1890, 1900]).fits_year(1909));
        assert!(!Hint::BornIn(vec![1890, 1900]).fits_year(1910));
        assert!(Hint::DiedBefore(1900).fits_year(1899));
        assert!(!Hint::BornBefore(1900).fits_year(1900));
        assert!(Hint::DiedSince(1900).fits_year(1900));
        assert!(!Hint::BornSince(1900).fits_year(1899));
        assert!(!Hint::HeldOffice.fits_year(1900));
    }

    #[test]
    fn text_that_is_no_clue_does_not_parse() {
        assert_eq!(parse("sailed away"), None);
        assert_eq!(parse("was born in the spring"), None);
        assert_eq!(parse("was born in Kest"), None);
        assert_eq!(parse("was born"), None);
        assert_eq!(parse("was born in a town"), None);
        assert_eq!(parse("was born before the 1900s in Kest"), None);
        assert_eq!(parse("was born in the 1900s or later in"), None);
        assert_eq!(parse("died in the spring"), None);
        assert_eq!(parse("died before the 1900s in a town"), None);
        assert_eq!(parse("worked as a weaver"), None);
        assert_eq!(parse("founded a guild listed under weavers"), None);
    }

    /// The parser reads fields over every theme, so a phrase must mean one field: unique among
    /// the occupations' fields and among the categories' fields, and (for categories, matched at
    /// the end of a clause) no phrase the end of another.
    #[test]
    fn field_phrases_are_unique_over_all_themes() {
        let v = vocabulary();
        assert!(v.occupations.len() >= 16 && v.categories.len() >= 12);
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
