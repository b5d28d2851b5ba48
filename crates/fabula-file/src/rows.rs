//! The typed rows of a world file: metadata, table and column roles, pages with their facts, and
//! tasks. The generator builds these values and [`crate::write_world`] stores them; every reader
//! gets the same types back from [`crate::WorldFile`].

use std::collections::BTreeMap;

use crate::kinds::{PageKind, TaskKind, Tier, ValueKind};
use crate::limits::Limits;
use crate::roles::{ColumnRole, SqlType, TableRole};

/// The `fabula_meta` keys every world file has (besides the optional `limit.*` keys of
/// [`Limits`]).
pub const META_KEYS: [&str; 10] = [
    "earliest_year",
    "format_version",
    "generator_version",
    "master_seed",
    "name",
    "present_year",
    "theme",
    "theme_label",
    "world_id",
    "world_seed",
];

/// A world's metadata, stored as `fabula_meta(key, value)` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub world_id: u32,
    pub name: String,
    pub theme: String,
    pub theme_label: String,
    pub master_seed: u64,
    pub world_seed: u64,
    pub generator_version: String,
    pub format_version: u32,
    /// The year the world is observed in; nothing happens after it.
    pub present_year: i64,
    /// The earliest year any settlement was founded.
    pub earliest_year: i64,
    /// The theme's plausibility limits; `None` in files written before they were recorded.
    pub limits: Option<Limits>,
}

impl Meta {
    /// The stored `(key, value)` rows, in key order.
    pub fn to_rows(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = self
            .base_rows()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        rows.extend(self.limits.iter().flat_map(Limits::to_rows));
        rows.sort();
        rows
    }

    /// The rows of [`META_KEYS`], in key order.
    fn base_rows(&self) -> Vec<(&'static str, String)> {
        vec![
            ("earliest_year", self.earliest_year.to_string()),
            ("format_version", self.format_version.to_string()),
            ("generator_version", self.generator_version.clone()),
            ("master_seed", self.master_seed.to_string()),
            ("name", self.name.clone()),
            ("present_year", self.present_year.to_string()),
            ("theme", self.theme.clone()),
            ("theme_label", self.theme_label.clone()),
            ("world_id", self.world_id.to_string()),
            ("world_seed", self.world_seed.to_string()),
        ]
    }

    /// Parses stored rows; the error names the first missing or malformed key.
    pub fn from_rows(rows: &BTreeMap<String, String>) -> Result<Meta, String> {
        fn text(rows: &BTreeMap<String, String>, key: &str) -> Result<String, String> {
            rows.get(key)
                .cloned()
                .ok_or_else(|| format!("missing meta key `{key}`"))
        }
        fn number<T: std::str::FromStr>(
            rows: &BTreeMap<String, String>,
            key: &str,
        ) -> Result<T, String> {
            let value = text(rows, key)?;
            value
                .parse()
                .map_err(|_| format!("meta key `{key}` is not a number: `{value}`"))
        }
        Ok(Meta {
            world_id: number(rows, "world_id")?,
            name: text(rows, "name")?,
            theme: text(rows, "theme")?,
            theme_label: text(rows, "theme_label")?,
            master_seed: number(rows, "master_seed")?,
            world_seed: number(rows, "world_seed")?,
            generator_version: text(rows, "generator_version")?,
            format_version: number(rows, "format_version")?,
            present_year: number(rows, "present_year")?,
            earliest_year: number(rows, "earliest_year")?,
            limits: Limits::from_rows(rows)?,
        })
    }
}

/// One column of a domain table, as `fabula_columns` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub sql_type: SqlType,
    pub role: ColumnRole,
    pub nullable: bool,
    /// The table a foreign key points at.
    pub references: Option<String>,
    /// How a derived column is computed: `sum:TABLE.COLUMN` or `count:TABLE`; or, for a number
    /// drawn in proportion to another of its row, `ratio:SOURCE:LO..HI:MIN..MAX`: the value is
    /// SOURCE times a ratio in `LO..HI`, rounded, unless held at MIN or MAX. SOURCE is a column of
    /// the same table, or `present_year-COLUMN` for the row's age.
    pub derived: Option<String>,
    /// A human label for pages and overviews ("area (km²)").
    pub label: String,
}

/// One domain table with its columns in position order, as `fabula_tables` and
/// `fabula_columns` describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub role: TableRole,
    pub name: String,
    pub singular: String,
    pub plural: String,
    pub columns: Vec<Column>,
}

impl Table {
    /// The first column with a role, if the table has one.
    pub fn get(&self, role: ColumnRole) -> Option<&Column> {
        self.columns.iter().find(|c| c.role == role)
    }

    /// The first column with a role. Panics when the table has none, which is a bug in the
    /// caller: the generator knows which roles each table role has.
    pub fn column(&self, role: ColumnRole) -> &Column {
        self.get(role)
            .unwrap_or_else(|| panic!("table {} has no `{role}` column", self.name))
    }

    /// Every column with a role, in position order.
    pub fn columns_with(&self, role: ColumnRole) -> impl Iterator<Item = &Column> + '_ {
        self.columns.iter().filter(move |c| c.role == role)
    }

    /// The `CREATE TABLE` statement: STRICT, the `id` column the primary key, names unique and
    /// foreign keys declared.
    pub fn create_sql(&self) -> String {
        let mut parts = Vec::new();
        for c in &self.columns {
            let mut part = format!("{} {}", c.name, c.sql_type.as_str());
            if c.role == ColumnRole::Id {
                part.push_str(" PRIMARY KEY");
            } else if !c.nullable {
                part.push_str(" NOT NULL");
            }
            if c.role == ColumnRole::Name {
                part.push_str(" UNIQUE");
            }
            if let Some(target) = &c.references {
                part.push_str(&format!(" REFERENCES {target}(id)"));
            }
            parts.push(part);
        }
        format!(
            "CREATE TABLE {} (\n  {}\n) STRICT",
            self.name,
            parts.join(",\n  ")
        )
    }
}

/// A domain cell value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    Null,
}

/// One domain cell that a page states (a row of `fabula_page_facts`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PageFact {
    pub table: String,
    pub row_id: i64,
    pub column: String,
    /// The exact text the page uses for the value (`12,345`, or a referenced entity's name).
    pub shown: String,
    pub value_kind: ValueKind,
}

/// One rendered page with the facts it states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub url: String,
    pub title: String,
    pub kind: PageKind,
    /// ISO date (`YYYY-MM-DD`) for dated pages, None for reference pages.
    pub published: Option<String>,
    /// Markdown.
    pub body: String,
    pub facts: Vec<PageFact>,
}

/// A page as stored, with its row id in `fabula_pages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPage {
    pub id: i64,
    pub page: Page,
}

/// A page's head: what links to it need, without its body or facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHead {
    pub id: i64,
    pub url: String,
    pub title: String,
    pub kind: PageKind,
    pub published: Option<String>,
}

/// One task with its gold answer (a row of `fabula_tasks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: String,
    pub kind: TaskKind,
    pub question: String,
    /// JSON: a string, a list of strings, or a table.
    pub answer: String,
    /// JSON list of page urls.
    pub evidence: String,
    pub hops: i64,
    /// A read-only SQL query over the domain tables that recomputes the answer, so `fabula check`
    /// can verify it without the task builder's code.
    pub sql: String,
    /// The difficulty tier measured when the world was generated.
    pub tier: Tier,
    /// What answering costs an agent that knows every page layout, for the tasks the generator
    /// models it for (the frontier tier); `None` for the others.
    pub effort: Option<Effort>,
}

/// The estimated effort of a task (`fabula_tasks.effort`, JSON): the calls of the cheapest plan
/// of an agent that knows every page layout, when it opens every candidate left (certain of the
/// one answer) and when it stops at the first that fits (as research agents do), and whether
/// that plan starts above the person (from settlements, organisations, categories or news
/// rather than the list of people); the smallest candidate set one clue leaves; the rows that
/// fail exactly one clue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Effort {
    pub plan_calls: u32,
    pub plan_calls_first_fit: u32,
    pub plan_starts_above: bool,
    pub candidates: u32,
    pub near_misses: u32,
    /// The smallest candidate set any two clues leave together (absent from files written
    /// before it was stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates_after_two: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_effort_written_before_the_two_clue_set_reads_without_it() {
        let old = r#"{"plan_calls":61,"plan_calls_first_fit":48,"plan_starts_above":true,"candidates":23,"near_misses":14}"#;
        let effort: Effort = serde_json::from_str(old).unwrap();
        assert_eq!(effort.candidates_after_two, None);
        let text = serde_json::to_string(&effort).unwrap();
        assert_eq!(text, old, "an absent figure is not written back");
    }

    fn meta() -> Meta {
        Meta {
            world_id: 7,
            name: "Kestrand".into(),
            theme: "islands".into(),
            theme_label: "island nation".into(),
            master_seed: 42,
            world_seed: 99,
            generator_version: "g".into(),
            format_version: 1,
            present_year: 2240,
            earliest_year: 1800,
            limits: None,
        }
    }

    fn check(edit: impl FnOnce(&mut BTreeMap<String, String>), expect: Result<Meta, &str>) {
        let mut rows: BTreeMap<String, String> = meta().to_rows().into_iter().collect();
        edit(&mut rows);
        assert_eq!(Meta::from_rows(&rows), expect.map_err(str::to_owned));
    }

    #[test]
    fn meta_rows_round_trip_and_name_the_bad_key() {
        check(|_| {}, Ok(meta()));
        check(
            |rows| {
                rows.remove("world_seed");
            },
            Err("missing meta key `world_seed`"),
        );
        check(
            |rows| {
                rows.insert("present_year".into(), "soon".into());
            },
            Err("meta key `present_year` is not a number: `soon`"),
        );
        check(
            |rows| {
                rows.insert("limit.founder_age".into(), "20..60".into());
            },
            Err("missing meta key `limit.member_age`"),
        );
    }

    #[test]
    fn limits_are_stored_among_the_meta_rows() {
        let limits = Limits {
            founder_age: crate::AgeRange { min: 20, max: 60 },
            member_age: crate::AgeRange { min: 14, max: 50 },
            office_age: BTreeMap::from([("Warden".into(), crate::AgeRange { min: 28, max: 66 })]),
            offices_at_once: 1,
        };
        let meta = Meta {
            limits: Some(limits),
            ..meta()
        };
        let rows = meta.to_rows();
        let keys: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys[..5],
            [
                "earliest_year",
                "format_version",
                "generator_version",
                "limit.founder_age",
                "limit.member_age"
            ]
        );
        let rows: BTreeMap<String, String> = rows.into_iter().collect();
        assert_eq!(Meta::from_rows(&rows), Ok(meta));
    }

    #[test]
    fn meta_keys_are_the_stored_keys_in_order() {
        let keys: Vec<String> = meta().to_rows().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, META_KEYS);
    }

    #[test]
    fn create_sql_declares_keys_and_constraints() {
        let column = |name: &str, role, references: Option<&str>, nullable| Column {
            name: name.into(),
            sql_type: if role == ColumnRole::Name {
                SqlType::Text
            } else {
                SqlType::Integer
            },
            role,
            nullable,
            references: references.map(str::to_owned),
            derived: None,
            label: name.into(),
        };
        let table = Table {
            role: TableRole::Settlement,
            name: "towns".into(),
            singular: "town".into(),
            plural: "towns".into(),
            columns: vec![
                column("id", ColumnRole::Id, None, false),
                column("name", ColumnRole::Name, None, false),
                column("isle_id", ColumnRole::Region, Some("isles"), false),
                column("closed_year", ColumnRole::EndYear, None, true),
            ],
        };
        assert_eq!(
            table.create_sql(),
            "CREATE TABLE towns (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL UNIQUE,\n  \
             isle_id INTEGER NOT NULL REFERENCES isles(id),\n  closed_year INTEGER\n) STRICT"
        );
        assert_eq!(table.column(ColumnRole::Region).name, "isle_id");
        assert!(table.get(ColumnRole::Founder).is_none());
    }
}
