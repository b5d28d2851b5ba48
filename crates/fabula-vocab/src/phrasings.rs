//! The question phrasings of every task template, read from `templates/tasks/questions.toml`,
//! and the reverse mapping from a question back to the phrasing it was written from.
//!
//! A phrasing id is `kind.template.N`. The blind baseline groups tasks by it, and the baseline
//! agent reads the named values (the slots) out of a question with [`match_question`].
//!
//! A theme noun slot (`{org_noun}`, `{a_settlement_noun}`, `{verb}`) matches only a noun some
//! theme gives it, so "the {org_noun} {org}" reads "the trading house House of Orr" whole, and
//! two phrasings whose literal text is the same but whose nouns differ stay apart.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use serde::Deserialize;

use crate::theme::{self, Theme};

const QUESTIONS: &str = include_str!("../../../templates/tasks/questions.toml");

/// One task template: how many hops it takes, how it can be asked, and the agent's plan.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub hops: i64,
    pub phrasings: Vec<String>,
    #[serde(default)]
    pub agent: Vec<String>,
}

/// The fewest phrasings a template may have.
pub const MIN_PHRASINGS: usize = 8;

/// The singular theme nouns that questions may also use with an indefinite article, as
/// `{a_org_noun}` ("an institute").
const ARTICLE_NOUNS: &[(&str, &str)] = &[
    ("person_noun", "a_person_noun"),
    ("org_noun", "a_org_noun"),
    ("settlement_noun", "a_settlement_noun"),
    ("region_noun", "a_region_noun"),
    ("work_noun", "a_work_noun"),
    ("event_noun", "a_event_noun"),
    ("alliance_noun", "a_alliance_noun"),
];

/// The theme noun slots of a question and their values in one theme: the nouns, the work verb
/// and each singular noun with its article.
pub fn theme_nouns(t: &Theme) -> Vec<(&'static str, String)> {
    let mut nouns = vec![
        ("person_noun", t.person.singular.clone()),
        ("people_noun", t.person.plural.clone()),
        ("org_noun", t.organisation.singular.clone()),
        ("orgs_noun", t.organisation.plural.clone()),
        ("settlement_noun", t.settlement.singular.clone()),
        ("settlements_noun", t.settlement.plural.clone()),
        ("region_noun", t.region.singular.clone()),
        ("regions_noun", t.region.plural.clone()),
        ("work_noun", t.work.singular.clone()),
        ("works_noun", t.work.plural.clone()),
        ("event_noun", t.event.singular.clone()),
        ("alliance_noun", t.alliance.singular.clone()),
        ("verb", t.work.verb.clone().unwrap_or_default()),
    ];
    let with_article: Vec<(&'static str, String)> = ARTICLE_NOUNS
        .iter()
        .filter_map(|&(noun, slot)| {
            let (_, value) = nouns.iter().find(|(n, _)| *n == noun)?;
            Some((slot, crate::english::with_article(value)))
        })
        .collect();
    nouns.extend(with_article);
    nouns
}

/// Every value a theme noun slot takes in some theme, by slot, longest first.
fn noun_values() -> &'static BTreeMap<&'static str, Vec<String>> {
    static VALUES: OnceLock<BTreeMap<&'static str, Vec<String>>> = OnceLock::new();
    VALUES.get_or_init(|| {
        let themes = theme::all().expect("the compiled-in themes parse");
        let mut values: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        for (slot, value) in themes.iter().flat_map(theme_nouns) {
            let known = values.entry(slot).or_default();
            if !value.is_empty() && !known.contains(&value) {
                known.push(value);
            }
        }
        for known in values.values_mut() {
            known.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        }
        values
    })
}

/// Every template, by kind and then by template name.
pub type Templates = BTreeMap<String, BTreeMap<String, Template>>;

/// The parsed phrasing file, read once.
pub fn templates() -> &'static Templates {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let templates: Templates =
            toml::from_str(QUESTIONS).expect("templates/tasks/questions.toml is valid");
        for (kind, by_name) in &templates {
            for (name, template) in by_name {
                assert!(
                    template.phrasings.len() >= MIN_PHRASINGS,
                    "{kind}.{name} needs {MIN_PHRASINGS} phrasings"
                );
            }
        }
        templates
    })
}

/// A fingerprint of the phrasing file, so task versions change when phrasings do.
pub fn fingerprint() -> u32 {
    crate::fnv1a([QUESTIONS])
}

/// The template `kind.name`. Panics on a name the file lacks, which is a bug in the builder.
pub fn template(kind: &str, name: &str) -> &'static Template {
    templates()
        .get(kind)
        .and_then(|t| t.get(name))
        .unwrap_or_else(|| panic!("templates/tasks/questions.toml lacks [{kind}.{name}]"))
}

/// Fills a phrasing's placeholders with named values.
pub fn fill(phrasing: &str, values: &[(&str, String)]) -> String {
    let mut text = phrasing.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    upper_first(&text)
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_lowercase() => c.to_uppercase().chain(chars).collect(),
        _ => text.to_string(),
    }
}

/// One piece of a phrasing: literal text or a named placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Slot(String),
}

fn pieces(phrasing: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            out.push(Piece::Literal(rest[..open].to_string()));
        }
        out.push(Piece::Slot(rest[open + 1..open + close].to_string()));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Literal(rest.to_string()));
    }
    out
}

/// Matches pieces against text, filling slots lazily (shortest first) with backtracking.
fn match_pieces(pieces: &[Piece], text: &str, slots: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = pieces.split_first() else {
        return text.is_empty();
    };
    match first {
        Piece::Literal(lit) => {
            // The first letter of a phrasing is upper-cased when filled, so compare it loosely.
            if slots.is_empty() && text.len() >= lit.len() && text.is_char_boundary(lit.len()) {
                let head = &text[..lit.len()];
                if upper_first(head) == upper_first(lit) {
                    return match_pieces(rest, &text[lit.len()..], slots);
                }
                return false;
            }
            text.strip_prefix(lit.as_str())
                .is_some_and(|after| match_pieces(rest, after, slots))
        }
        Piece::Slot(name) if noun_values().contains_key(name.as_str()) => {
            noun_values()[name.as_str()].iter().any(|value| {
                let head = text.get(..value.len());
                let fits = match head {
                    // A noun may open the question, upper-cased.
                    Some(head) if slots.is_empty() => upper_first(head) == upper_first(value),
                    Some(head) => head == value,
                    None => false,
                };
                fits && fill_slot(name, value, rest, &text[value.len()..], slots)
            })
        }
        Piece::Slot(name) => {
            for (end, _) in text
                .char_indices()
                .skip(1)
                .chain(std::iter::once((text.len(), ' ')))
            {
                if fill_slot(name, &text[..end], rest, &text[end..], slots) {
                    return true;
                }
            }
            false
        }
    }
}

/// Gives a slot a value and matches the rest of the pieces against the text after it; a slot
/// already seen must repeat its value.
fn fill_slot(
    name: &str,
    value: &str,
    rest: &[Piece],
    after: &str,
    slots: &mut Vec<(String, String)>,
) -> bool {
    if let Some((_, earlier)) = slots.iter().find(|(n, _)| n == name) {
        return earlier == value && match_pieces(rest, after, slots);
    }
    slots.push((name.to_string(), value.to_string()));
    if match_pieces(rest, after, slots) {
        return true;
    }
    slots.pop();
    false
}

/// A question matched to its phrasing: the phrasing id and the values of its slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionMatch {
    /// `kind.template.N`.
    pub phrasing_id: String,
    pub kind: String,
    pub template: String,
    /// Slot name and value, in order of appearance.
    pub slots: Vec<(String, String)>,
}

impl QuestionMatch {
    /// The value of a slot.
    pub fn slot(&self, name: &str) -> Option<&str> {
        self.slots
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Finds the phrasing a question was written from. When several match, the one with the most
/// literal text wins, then the first in file order.
pub fn match_question(question: &str) -> Option<QuestionMatch> {
    let bank = bank();
    let found = bank.literals_in(question);
    let mut best: Option<(usize, QuestionMatch)> = None;
    for parsed in &bank.parsed {
        if !parsed.literals.iter().all(|&id| found[id]) {
            continue;
        }
        let mut slots = Vec::new();
        if !match_pieces(&parsed.pieces, question, &mut slots) {
            continue;
        }
        if best.as_ref().is_none_or(|(n, _)| parsed.literal_len > *n) {
            let m = QuestionMatch {
                phrasing_id: format!("{}.{}.{}", parsed.kind, parsed.template, parsed.index),
                kind: parsed.kind.clone(),
                template: parsed.template.clone(),
                slots,
            };
            best = Some((parsed.literal_len, m));
        }
    }
    best.map(|(_, m)| m)
}

/// The literal texts a question must hold to match a phrasing, which rules out most phrasings
/// before [`match_pieces`] backtracks: every literal piece, the first without its first
/// character (filling may upper-case it); empty texts, which every question holds, left out.
fn needed_literals(pieces: &[Piece]) -> impl Iterator<Item = &str> {
    pieces
        .iter()
        .enumerate()
        .filter_map(|(i, piece)| match piece {
            Piece::Slot(_) => None,
            Piece::Literal(lit) if i == 0 => {
                let mut chars = lit.chars();
                chars.next();
                Some(chars.as_str())
            }
            Piece::Literal(lit) => Some(lit.as_str()),
        })
        .filter(|text| !text.is_empty())
}

/// One phrasing split into pieces, parsed once.
struct Parsed {
    kind: String,
    template: String,
    index: usize,
    pieces: Vec<Piece>,
    /// The length of its literal text, which ranks competing matches.
    literal_len: usize,
    /// The ids of its [`needed_literals`] in [`Bank::literals`].
    literals: Vec<usize>,
}

/// Every phrasing parsed, and an automaton that finds every needed literal of every phrasing
/// in a question in one pass.
struct Bank {
    parsed: Vec<Parsed>,
    literals: AhoCorasick,
    count: usize,
}

impl Bank {
    /// Which literals (by id) a question holds.
    fn literals_in(&self, question: &str) -> Vec<bool> {
        let mut found = vec![false; self.count];
        for m in self.literals.find_overlapping_iter(question) {
            found[m.pattern().as_usize()] = true;
        }
        found
    }
}

fn bank() -> &'static Bank {
    static BANK: OnceLock<Bank> = OnceLock::new();
    BANK.get_or_init(|| {
        let mut ids: BTreeMap<String, usize> = BTreeMap::new();
        let mut parsed = Vec::new();
        for (kind, by_name) in templates() {
            for (name, template) in by_name {
                for (index, phrasing) in template.phrasings.iter().enumerate() {
                    let pieces = pieces(phrasing);
                    let literal_len = pieces
                        .iter()
                        .map(|p| match p {
                            Piece::Literal(l) => l.len(),
                            Piece::Slot(_) => 0,
                        })
                        .sum();
                    let literals = needed_literals(&pieces)
                        .map(|text| {
                            let next = ids.len();
                            *ids.entry(text.to_string()).or_insert(next)
                        })
                        .collect();
                    parsed.push(Parsed {
                        kind: kind.clone(),
                        template: name.clone(),
                        index,
                        pieces,
                        literal_len,
                        literals,
                    });
                }
            }
        }
        let mut texts: Vec<(usize, String)> = ids.into_iter().map(|(t, id)| (id, t)).collect();
        texts.sort_unstable();
        let literals = AhoCorasick::new(texts.iter().map(|(_, t)| t))
            .expect("the phrasing literals build an automaton");
        Bank {
            parsed,
            literals,
            count: texts.len(),
        }
    })
}

/// The phrasing id (`kind.template.N`) of a question, if it was written from a known phrasing.
pub fn phrasing_id(question: &str) -> Option<String> {
    match_question(question).map(|m| m.phrasing_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_has_several_phrasings() {
        let n: usize = templates().values().map(|t| t.len()).sum();
        assert!(n >= 20, "{n} templates");
    }

    #[test]
    fn questions_map_back_to_their_phrasing() {
        let q = fill(
            &template("lookup", "org_founder").phrasings[1],
            &[
                ("person_noun", "artisan".into()),
                ("org", "Vess Hall".into()),
            ],
        );
        assert_eq!(q, "Which artisan was the founder of Vess Hall?");
        let m = match_question(&q).unwrap();
        assert_eq!(m.phrasing_id, "lookup.org_founder.1");
        assert_eq!(m.slot("org"), Some("Vess Hall"));
    }

    #[test]
    fn lower_case_openings_are_upper_cased() {
        let q = fill(
            "{org} was founded in which year?",
            &[("org", "van Orr".into())],
        );
        assert_eq!(q, "Van Orr was founded in which year?");
        assert_eq!(phrasing_id(&q).as_deref(), Some("lookup.org_founded.2"));
    }
}

/// Checks of the whole phrasing bank: enough phrasings per template, the same named values in
/// each, the agent's plan readable from each, and every phrasing, filled in every theme, read
/// back as itself with its values.
#[cfg(test)]
mod bank_tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::clues::{self, Said};

    /// A value for every slot that is not a theme noun: names with spaces, "of" and "The", as
    /// generated names have them.
    const SAMPLES: &[(&str, &str)] = &[
        ("person", "Ilse van Orr"),
        ("org", "House of Vess"),
        ("settlement", "Port Amber"),
        ("region", "Isle of Kell"),
        ("work", "The Orr Tapes"),
        ("event", "Race of Dun"),
        ("alliance", "League of Tarn"),
        ("world", "The Vess Federation"),
        ("year", "1844"),
        ("seat", "Master of Barges"),
        ("occupation", "reactor engineer"),
        ("category", "spice trade"),
        ("extra", "orbital period (days)"),
        ("a", "New Harl"),
        ("b", "Spirit of Mey"),
        ("c", "Oskel Hill"),
        ("d", "The Dun Quarter"),
    ];

    /// Slots whose value every question of a world gets, so a phrasing may leave them out.
    fn is_context(slot: &str) -> bool {
        slot == "world" || noun_values().contains_key(slot)
    }

    fn placeholders(text: &str) -> BTreeSet<String> {
        pieces(text)
            .into_iter()
            .filter_map(|p| match p {
                Piece::Slot(name) => Some(name),
                Piece::Literal(_) => None,
            })
            .collect()
    }

    /// Every template with its id prefix `kind.name`.
    fn each_template() -> impl Iterator<Item = (String, &'static Template)> {
        templates().iter().flat_map(|(kind, by_name)| {
            by_name
                .iter()
                .map(move |(name, t)| (format!("{kind}.{name}"), t))
        })
    }

    #[test]
    fn every_template_has_enough_phrasings_with_the_same_values() {
        for (id, template) in each_template() {
            assert!(template.phrasings.len() >= MIN_PHRASINGS, "{id}");
            let values = |p: &String| -> BTreeSet<String> {
                placeholders(p)
                    .into_iter()
                    .filter(|s| !is_context(s))
                    .collect()
            };
            let first = values(&template.phrasings[0]);
            for p in &template.phrasings {
                assert_eq!(values(p), first, "{id}: {p}");
                let distinct: BTreeSet<&String> = template.phrasings.iter().collect();
                assert_eq!(distinct.len(), template.phrasings.len(), "{id} repeats one");
            }
        }
    }

    /// The slot of a theme noun in the other number, when every theme's noun makes its plural
    /// by the plain English rule, which is how the baseline agent derives one from the other.
    fn other_number(slot: &str) -> Option<&'static str> {
        const PAIRS: &[(&str, &str)] = &[
            ("person_noun", "people_noun"),
            ("org_noun", "orgs_noun"),
            ("settlement_noun", "settlements_noun"),
            ("region_noun", "regions_noun"),
            ("work_noun", "works_noun"),
        ];
        let &(one, many) = PAIRS.iter().find(|(a, b)| *a == slot || *b == slot)?;
        let regular = theme::all().unwrap().iter().all(|t| {
            let nouns = theme_nouns(t);
            let get = |s: &str| nouns.iter().find(|(n, _)| *n == s).unwrap().1.clone();
            let (one, many) = (get(one), get(many));
            let stem = one.strip_suffix('y').unwrap_or("");
            [format!("{one}s"), format!("{one}es"), format!("{stem}ies")].contains(&many)
        });
        regular.then_some(if slot == one { many } else { one })
    }

    #[test]
    fn every_phrasing_gives_the_agent_its_plan_slots() {
        let mut wrong = Vec::new();
        for (id, template) in each_template() {
            let needed: BTreeSet<String> = template
                .agent
                .iter()
                .flat_map(|step| placeholders(step))
                .collect();
            for p in &template.phrasings {
                let has = placeholders(p);
                for slot in &needed {
                    let found = has.contains(slot)
                        || has.contains(&format!("a_{slot}"))
                        || other_number(slot)
                            .is_some_and(|o| has.contains(o) || has.contains(&format!("a_{o}")));
                    if !found {
                        wrong.push(format!("{id}: {p} lacks {{{slot}}}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The clues of an identify question in one theme, as the builder writes them.
    fn sample_clues(nouns: &[(&'static str, String)]) -> String {
        let noun = |s: &str| nouns.iter().find(|(n, _)| *n == s).unwrap().1.clone();
        let said = [
            Said::BornIn("Isle of Kell".into()),
            Said::Occupation("reactor engineer".into()),
            Said::FoundedCategory("spice trade".into()),
            Said::BornAfter(1790),
        ];
        let texts: Vec<String> = said
            .iter()
            .map(|s| s.text(&noun("settlement_noun"), &noun("org_noun")))
            .collect();
        let text = clues::join(&texts);
        assert_eq!(clues::parse(&text).as_deref(), Some(&said[..]));
        text
    }

    /// Every phrasing the question matches, with its length of literal text.
    fn all_matches(question: &str) -> Vec<(String, usize)> {
        bank()
            .parsed
            .iter()
            .filter(|p| match_pieces(&p.pieces, question, &mut Vec::new()))
            .map(|p| {
                (
                    format!("{}.{}.{}", p.kind, p.template, p.index),
                    p.literal_len,
                )
            })
            .collect()
    }

    #[test]
    fn every_phrasing_maps_back_to_itself_in_every_theme() {
        let mut wrong = Vec::new();
        for theme in theme::all().unwrap() {
            let nouns = theme_nouns(&theme);
            let mut values: Vec<(&str, String)> =
                SAMPLES.iter().map(|&(n, v)| (n, v.to_owned())).collect();
            values.push(("clues", sample_clues(&nouns)));
            values.extend(nouns.iter().cloned());
            for (id, template) in each_template() {
                for (index, phrasing) in template.phrasings.iter().enumerate() {
                    let own = format!("{id}.{index}");
                    let question = fill(phrasing, &values);
                    wrong.extend(round_trip(&own, &question, &values));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// What is wrong with reading a question filled from the phrasing `own` back.
    fn round_trip(own: &str, question: &str, values: &[(&str, String)]) -> Vec<String> {
        if question.contains('{') {
            return vec![format!("{own} leaves a slot: {question}")];
        }
        let mut wrong = Vec::new();
        match match_question(question) {
            Some(m) if m.phrasing_id == own => {
                for (slot, value) in &m.slots {
                    let (_, given) = values.iter().find(|(n, _)| n == slot).unwrap();
                    if value != given {
                        wrong.push(format!("{own} reads {slot} {value:?}: {question}"));
                    }
                }
            }
            m => wrong.push(format!("{own} read as {m:?}: {question}")),
        }
        let matches = all_matches(question);
        let own_len = matches.iter().find(|(i, _)| i == own).map_or(0, |m| m.1);
        for (other, len) in matches {
            if other != own && len >= own_len {
                wrong.push(format!("{own} as well as {other}: {question}"));
            }
        }
        wrong
    }
}
