//! Themes: the vocabulary and table shapes of a kind of world, read from `templates/themes/`.
//!
//! A theme names the tables of each role (regions, settlements, people, organisations, ...), the
//! patterns their entity names follow, the plausible ranges of their numbers and the extra columns
//! that give each theme its own table shapes. The files are compiled into the binary, so a world
//! depends only on the generator version and never on files found at run time.

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

/// The shape of a link table in a theme.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkShape {
    pub table: String,
    /// Participations: what the number of a participation means ("placing").
    #[serde(default)]
    pub result_label: Option<String>,
}

/// A theme-specific integer column of an entity table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    pub column: String,
    pub label: String,
    pub min: i64,
    pub max: i64,
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
        &theme.region,
        &theme.settlement,
        &theme.person,
        &theme.organisation,
        &theme.work,
        &theme.event,
        &theme.alliance,
    ];
    for shape in entities {
        for extra in &shape.extras {
            if extra.min > extra.max || extra.min < 0 {
                return Err(invalid(format!("extra `{}` has a bad range", extra.column)));
            }
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
    if theme.work.verb.is_none() || theme.work.year_column.is_none() {
        return Err(invalid("work needs a verb and a year_column".into()));
    }
    Ok(theme)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_theme_parses() {
        let themes = super::all().unwrap();
        assert!(themes.len() >= 8);
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
