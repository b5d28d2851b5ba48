//! Themes: the vocabulary and table shapes of a kind of world, read from `templates/themes/`.
//!
//! A theme names the tables of each role (regions, settlements, people, organisations, ...), the
//! patterns their entity names follow, the plausible ranges of their numbers, the extra columns
//! that give each theme its own table shapes (some drawn in a ratio to another number of their
//! row), and the limits on people: the ages at which they found, join and hold office, and how
//! many offices one person holds at once. The files are compiled into the binary, so a world
//! depends only on the generator version and never on files found at run time.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::{Error, Result};

/// The theme files, in the order that gives each its index.
const THEME_FILES: &[(&str, &str)] = &[
    (
        "island-nation",
        include_str!("../../../templates/themes/island-nation.toml"),
    ),
    (
        "star-colony",
        include_str!("../../../templates/themes/star-colony.toml"),
    ),
    (
        "river-cities",
        include_str!("../../../templates/themes/river-cities.toml"),
    ),
    (
        "guild-economy",
        include_str!("../../../templates/themes/guild-economy.toml"),
    ),
    (
        "sports-league",
        include_str!("../../../templates/themes/sports-league.toml"),
    ),
    (
        "research-academy",
        include_str!("../../../templates/themes/research-academy.toml"),
    ),
    (
        "music-scene",
        include_str!("../../../templates/themes/music-scene.toml"),
    ),
    (
        "rail-empire",
        include_str!("../../../templates/themes/rail-empire.toml"),
    ),
];

/// One theme, as its file describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Theme {
    pub id: String,
    pub label: String,
    /// Patterns for the world's own name; `{root}` is replaced by an invented word.
    pub world_names: Vec<String>,
    /// The range the world's present year is drawn from.
    pub present_year: [i64; 2],
    /// Optional table groups this theme supports: `events`, `alliances`.
    pub groups: Vec<String>,
    pub region: EntityShape,
    pub settlement: EntityShape,
    pub person: EntityShape,
    pub organisation: EntityShape,
    pub work: EntityShape,
    pub event: EntityShape,
    pub participation: LinkShape,
    pub alliance: EntityShape,
    pub alliance_membership: LinkShape,
    pub limits: Limits,
}

/// What people of a theme plausibly do: the ages at which they act and how many offices they
/// hold at once. Ranges are inclusive `[min, max]` ages in years.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// The age at which a person founds an organisation.
    pub founder_age: [i64; 2],
    /// The age at which a person joins an organisation.
    pub member_age: [i64; 2],
    /// The age at which a person starts a term, for every seat of the organisation shape.
    pub office_age: BTreeMap<String, [i64; 2]>,
    /// How many offices one person holds at once, whatever their titles (never two of one title).
    pub offices_at_once: u32,
}

/// The shape of an entity table in a theme.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityShape {
    pub table: String,
    pub singular: String,
    pub plural: String,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub extras: Vec<Extra>,
    /// Settlements: the range of populations.
    #[serde(default)]
    pub population: Option<[i64; 2]>,
    /// People: occupations.
    #[serde(default)]
    pub occupations: Vec<String>,
    /// Organisations: categories.
    #[serde(default)]
    pub categories: Vec<String>,
    /// People: broader fields of the occupations; organisations: broader fields of the
    /// categories. A frontier question names a field instead of an occupation or a category, so
    /// that no word of its clue is a page's title.
    #[serde(default)]
    pub fields: Vec<Field>,
    /// Organisations: the seats whose holders the tenure table records.
    #[serde(default)]
    pub seats: Vec<String>,
    /// Organisations: the roles members hold.
    #[serde(default)]
    pub member_roles: Vec<String>,
    /// Works: the verb for the work's year ("launched", "released").
    #[serde(default)]
    pub verb: Option<String>,
    /// Works: the name of the year column.
    #[serde(default)]
    pub year_column: Option<String>,
}

/// A broader field of occupations or categories, as a clue writes it: "worked {phrase}" for
/// people ("worked in the textile crafts"), "a guild {phrase}" for organisations ("a guild of a
/// craft working glass or precious metal"). Its phrase shares no word with the names of its
/// members, and blind readers read it as the theme does (`templates/themes/field-readings.json`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    pub phrase: String,
    /// The occupations or categories it covers, at least two.
    pub members: Vec<String>,
}

/// The shape of a link table in a theme.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkShape {
    pub table: String,
    /// Participations: what the number of a participation means ("placing").
    #[serde(default)]
    pub result_label: Option<String>,
}

/// A theme-specific integer column of an entity table. Drawn log-uniformly in `min..=max`, or,
/// with `per` and `ratio`, as another number of the same row times a ratio drawn uniformly in
/// `ratio`, rounded and kept within `min..=max` (stations per kilometre of track).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    pub column: String,
    pub label: String,
    pub min: i64,
    pub max: i64,
    /// The number this column is drawn in proportion to: another extra of the same shape, a
    /// column of the table's own (`population`, `member_count`), or [`AGE`].
    #[serde(default)]
    pub per: Option<String>,
    /// The range of the ratio to `per`.
    #[serde(default)]
    pub ratio: Option<[f64; 2]>,
}

/// The `per` source meaning the row's age: years from its founding or its year to the present.
pub const AGE: &str = "age";

/// The kinds of entity shape, for the sources a ratio may be drawn against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShapeKind {
    Region,
    Settlement,
    Organisation,
    Work,
    /// Events and alliances, whose extras have no column of their own to be drawn against.
    Other,
}

impl ShapeKind {
    /// The columns of the table's own that an extra may be drawn in proportion to.
    fn ratio_sources(self) -> &'static [&'static str] {
        match self {
            ShapeKind::Region => &["population"],
            ShapeKind::Settlement => &["population", AGE],
            ShapeKind::Organisation => &["member_count", AGE],
            ShapeKind::Work => &[AGE],
            ShapeKind::Other => &[],
        }
    }
}

impl EntityShape {
    /// The foreign-key column stem for this entity: "trading house" becomes `trading_house`.
    pub fn key_stem(&self) -> String {
        self.singular.replace([' ', '-'], "_")
    }
}

/// Parses every compiled-in theme, in index order.
pub fn all() -> Result<Vec<Theme>> {
    THEME_FILES
        .iter()
        .map(|(name, text)| parse(name, text))
        .collect()
}

/// The names of every compiled-in theme, in index order.
pub fn names() -> Vec<&'static str> {
    THEME_FILES.iter().map(|(name, _)| *name).collect()
}

/// Finds a theme by its id.
pub fn by_name(name: &str) -> Result<Theme> {
    match THEME_FILES.iter().find(|(id, _)| *id == name) {
        Some((id, text)) => parse(id, text),
        None => Err(Error::UnknownTheme {
            name: name.to_string(),
            known: names().join(", "),
        }),
    }
}

fn parse(name: &str, text: &str) -> Result<Theme> {
    let theme: Theme = toml::from_str(text).map_err(|e| Error::Theme {
        name: name.to_string(),
        message: e.to_string(),
    })?;
    let invalid = |message: String| Error::Theme {
        name: name.to_string(),
        message,
    };
    if theme.id != name {
        return Err(invalid(format!(
            "id `{}` differs from the file name",
            theme.id
        )));
    }
    let entities = [
        (&theme.region, ShapeKind::Region),
        (&theme.settlement, ShapeKind::Settlement),
        (&theme.person, ShapeKind::Other),
        (&theme.organisation, ShapeKind::Organisation),
        (&theme.work, ShapeKind::Work),
        (&theme.event, ShapeKind::Other),
        (&theme.alliance, ShapeKind::Other),
    ];
    for (shape, kind) in entities {
        for extra in &shape.extras {
            check_extra(shape, kind, extra).map_err(invalid)?;
        }
        if shape.table.starts_with("fabula_") {
            return Err(invalid(format!(
                "table `{}` uses the reserved prefix",
                shape.table
            )));
        }
    }
    let org = &theme.organisation;
    if org.seats.is_empty() || org.categories.is_empty() || org.member_roles.is_empty() {
        return Err(invalid(
            "organisation needs seats, categories and member_roles".into(),
        ));
    }
    if theme.person.occupations.is_empty() || theme.settlement.population.is_none() {
        return Err(invalid(
            "person needs occupations and settlement a population".into(),
        ));
    }
    check_fields(&theme.person.fields, &theme.person.occupations).map_err(invalid)?;
    check_fields(&theme.organisation.fields, &theme.organisation.categories).map_err(invalid)?;
    if theme.work.verb.is_none() || theme.work.year_column.is_none() {
        return Err(invalid("work needs a verb and a year_column".into()));
    }
    check_limits(&theme).map_err(invalid)?;
    Ok(theme)
}

/// Every field covers at least two of `names`, and only those, and its phrase shares no word
/// with them (so a search for the phrase does not find its members' pages): words of four or
/// more letters, compared by their first five, so "physical" and "physician" share one.
fn check_fields(fields: &[Field], names: &[String]) -> std::result::Result<(), String> {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3)
            .map(|w| w.to_lowercase().chars().take(5).collect())
            .collect()
    };
    for field in fields {
        let phrase = &field.phrase;
        if field.members.len() < 2 {
            return Err(format!("field `{phrase}` needs at least two members"));
        }
        for member in &field.members {
            if !names.contains(member) {
                return Err(format!("field `{phrase}` names an unknown `{member}`"));
            }
        }
        let shared = names.iter().flat_map(|n| words(n)).find(|w| {
            words(phrase)
                .iter()
                .any(|p| p.starts_with(w.as_str()) || w.starts_with(p.as_str()))
        });
        if let Some(word) = shared {
            return Err(format!(
                "field `{phrase}` shares the word `{word}` with a name"
            ));
        }
    }
    Ok(())
}

/// An extra's range is sound, and a ratio is drawn against a number its row has.
fn check_extra(
    shape: &EntityShape,
    kind: ShapeKind,
    extra: &Extra,
) -> std::result::Result<(), String> {
    let column = &extra.column;
    if extra.min > extra.max || extra.min < 0 {
        return Err(format!("extra `{column}` has a bad range"));
    }
    match (&extra.per, extra.ratio) {
        (None, None) => Ok(()),
        (Some(per), Some([lo, hi])) => {
            if !(0.0 <= lo && lo <= hi && hi.is_finite()) {
                return Err(format!("extra `{column}` has a bad ratio"));
            }
            let own = kind.ratio_sources().contains(&per.as_str());
            let sibling = shape
                .extras
                .iter()
                .any(|e| &e.column == per && e.per.is_none());
            if own || sibling {
                Ok(())
            } else {
                Err(format!(
                    "extra `{column}` is drawn per `{per}`, which its row does not have"
                ))
            }
        }
        _ => Err(format!("extra `{column}` needs both `per` and `ratio`")),
    }
}

/// Age ranges are adult enough for the time rules of `fabula check` (founders and office
/// holders 18, members 14), every seat has one, and a person holds at least one office at once.
fn check_limits(theme: &Theme) -> std::result::Result<(), String> {
    let limits = &theme.limits;
    let check_range = |what: &str, [lo, hi]: [i64; 2], youngest: i64| {
        if lo < youngest || lo > hi || hi > 100 {
            Err(format!(
                "limits: {what} age {lo}..{hi} outside {youngest}..100"
            ))
        } else {
            Ok(())
        }
    };
    check_range("founder", limits.founder_age, 18)?;
    check_range("member", limits.member_age, 14)?;
    let seats = &theme.organisation.seats;
    for (seat, range) in &limits.office_age {
        if !seats.contains(seat) {
            return Err(format!(
                "limits: office_age names `{seat}`, which is no seat"
            ));
        }
        check_range(seat, *range, 18)?;
    }
    if let Some(seat) = seats.iter().find(|s| !limits.office_age.contains_key(*s)) {
        return Err(format!("limits: seat `{seat}` has no office_age"));
    }
    if limits.offices_at_once == 0 {
        return Err("limits: offices_at_once must be at least 1".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_theme_parses() {
        let themes = super::all().unwrap();
        assert!(themes.len() >= 8);
    }

    /// Parses the rail-empire theme with `from` replaced by `to` and compares the error, if any.
    fn check(from: &str, to: &str, expect: &str) {
        let (name, text) = super::THEME_FILES
            .iter()
            .find(|(name, _)| *name == "rail-empire")
            .unwrap();
        assert!(text.contains(from), "{from}");
        let err = match super::parse(name, &text.replacen(from, to, 1)) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        assert_eq!(err, expect);
    }

    #[test]
    fn fields_cover_known_names_in_other_words() {
        let fields =
            r#"{ phrase = "running trains", members = ["freight rail", "passenger rail"] }"#;
        check(fields, fields, "");
        let bad = "theme file rail-empire is invalid: ";
        check(
            fields,
            r#"{ phrase = "by rail", members = ["freight rail", "passenger rail"] }"#,
            &format!("{bad}field `by rail` shares the word `rail` with a name"),
        );
        check(
            fields,
            r#"{ phrase = "on railways", members = ["freight rail", "passenger rail"] }"#,
            &format!("{bad}field `on railways` shares the word `rail` with a name"),
        );
        check(
            fields,
            r#"{ phrase = "running trains", members = ["freight rail", "river rafting"] }"#,
            &format!("{bad}field `running trains` names an unknown `river rafting`"),
        );
        check(
            fields,
            r#"{ phrase = "running trains", members = ["freight rail"] }"#,
            &format!("{bad}field `running trains` needs at least two members"),
        );
    }

    #[test]
    fn ratios_and_limits_are_validated() {
        let stations = r#"per = "length_km", ratio = [0.03, 0.12]"#;
        check(stations, stations, "");
        check(stations, r#"per = "age", ratio = [0.5, 4.0]"#, "");
        let bad = "theme file rail-empire is invalid: ";
        check(
            stations,
            r#"per = "gauge_mm", ratio = [0.03, 0.12]"#,
            &format!("{bad}extra `stations` is drawn per `gauge_mm`, which its row does not have"),
        );
        check(
            stations,
            r#"per = "member_count", ratio = [0.03, 0.12]"#,
            &format!(
                "{bad}extra `stations` is drawn per `member_count`, which its row does not have"
            ),
        );
        check(
            stations,
            r#"per = "length_km""#,
            &format!("{bad}extra `stations` needs both `per` and `ratio`"),
        );
        check(
            stations,
            r#"per = "length_km", ratio = [0.12, 0.03]"#,
            &format!("{bad}extra `stations` has a bad ratio"),
        );
        check(
            "founder_age = [25, 70]",
            "founder_age = [16, 70]",
            &format!("{bad}limits: founder age 16..70 outside 18..100"),
        );
        check(
            r#""Chief Engineer" = [30, 65]"#,
            r#""Stoker" = [30, 65]"#,
            &format!("{bad}limits: office_age names `Stoker`, which is no seat"),
        );
        check(
            r#", "Chief Engineer" = [30, 65]"#,
            "",
            &format!("{bad}limits: seat `Chief Engineer` has no office_age"),
        );
        check(
            "offices_at_once = 1",
            "offices_at_once = 0",
            &format!("{bad}limits: offices_at_once must be at least 1"),
        );
    }

    #[derive(serde::Deserialize)]
    struct Reading {
        theme: String,
        side: String,
        phrase: String,
        /// Each reader's names the phrase covers.
        readers: Vec<Vec<String>>,
    }

    /// The blind readings of `templates/themes/field-readings.json`: each reader saw a phrase
    /// and its theme's whole list, never a world, and said which names the phrase covers
    /// (`scripts/field-readings.py` writes what readers see and merges their answers).
    fn readings() -> Vec<Reading> {
        #[derive(serde::Deserialize)]
        struct Readings {
            readings: Vec<Reading>,
        }
        let file = include_str!("../../../templates/themes/field-readings.json");
        serde_json::from_str::<Readings>(file).unwrap().readings
    }

    /// The names of `names` on which fewer than 90% of the readers agree with `field`, member
    /// or not.
    fn disputes(reading: &Reading, field: &super::Field, names: &[String]) -> Vec<String> {
        let readers = reading.readers.len();
        names
            .iter()
            .filter_map(|name| {
                let member = field.members.contains(name);
                let agree = reading
                    .readers
                    .iter()
                    .filter(|covered| covered.contains(name) == member)
                    .count();
                (agree * 10 < readers * 9).then(|| format!("`{name}`: {agree} of {readers} agree"))
            })
            .collect()
    }

    /// Every field's blind reading agrees with the theme on every name for at least 90% of
    /// readers, so a clue built on a field has one reading. The file keeps the phrases readers
    /// disputed, so a field cannot come back without a new reading.
    #[test]
    fn fields_read_alike_by_blind_readers() {
        let readings = readings();
        let mut disputed = Vec::new();
        for theme in super::all().unwrap() {
            let sides = [
                ("person", &theme.person, &theme.person.occupations),
                (
                    "organisation",
                    &theme.organisation,
                    &theme.organisation.categories,
                ),
            ];
            for (side, shape, names) in sides {
                for field in &shape.fields {
                    let reading = readings.iter().find(|r| {
                        r.theme == theme.id && r.side == side && r.phrase == field.phrase
                    });
                    let Some(reading) = reading else {
                        disputed.push(format!("{}: `{}` was never read", theme.id, field.phrase));
                        continue;
                    };
                    for dispute in disputes(reading, field, names) {
                        disputed.push(format!("{}: `{}`, {dispute}", theme.id, field.phrase));
                    }
                }
            }
        }
        assert!(disputed.is_empty(), "{disputed:#?}");
    }

    /// An earlier field that readers disputed is caught: no reader counts a lighthouse keeper
    /// or a cartographer as working "in wayfinding at sea".
    #[test]
    fn a_disputed_field_is_caught() {
        let readings = readings();
        let reading = readings
            .iter()
            .find(|r| r.phrase == "in wayfinding at sea")
            .unwrap();
        let names = [
            "navigator",
            "cartographer",
            "harbour pilot",
            "lighthouse keeper",
        ];
        let field = super::Field {
            phrase: reading.phrase.clone(),
            members: names.map(String::from).to_vec(),
        };
        let island = super::by_name("island-nation").unwrap();
        let disputed = disputes(reading, &field, &island.person.occupations);
        assert_eq!(
            disputed,
            [
                "`lighthouse keeper`: 0 of 5 agree",
                "`cartographer`: 0 of 5 agree"
            ]
        );
    }

    #[test]
    fn unknown_theme_is_named() {
        let err = super::by_name("moon-base").unwrap_err().to_string();
        assert!(
            err.contains("moon-base") && err.contains("island-nation"),
            "{err}"
        );
    }
}
