//! The plausibility limits of a world's theme, stored as `limit.*` rows of `fabula_meta`, so that
//! `fabula check` verifies them from the file alone: the ages at which people found, join and hold
//! office, and how many offices one person holds at once.
//!
//! | key | value |
//! | --- | --- |
//! | `limit.founder_age` | `MIN..MAX`: a founder's age in the founding year |
//! | `limit.member_age` | `MIN..MAX`: a member's age in the year they joined |
//! | `limit.office_age.SEAT` | `MIN..MAX`: a holder's age when a term of seat `SEAT` starts |
//! | `limit.offices_at_once` | the most terms one person holds at any one time |

use std::collections::BTreeMap;

/// The prefix of every limit key.
const PREFIX: &str = "limit.";

/// An inclusive range of ages in years.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgeRange {
    pub min: i64,
    pub max: i64,
}

impl AgeRange {
    /// Whether an age lies in the range.
    pub fn contains(&self, age: i64) -> bool {
        (self.min..=self.max).contains(&age)
    }

    fn parse(value: &str) -> Option<AgeRange> {
        let (min, max) = value.split_once("..")?;
        Some(AgeRange {
            min: min.parse().ok()?,
            max: max.parse().ok()?,
        })
    }
}

impl std::fmt::Display for AgeRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.min, self.max)
    }
}

/// What people of a world plausibly do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The age at which a person founds an organisation.
    pub founder_age: AgeRange,
    /// The age at which a person joins an organisation.
    pub member_age: AgeRange,
    /// The age at which a person starts a term, by seat title.
    pub office_age: BTreeMap<String, AgeRange>,
    /// How many terms one person holds at any one time (never two of one seat title).
    pub offices_at_once: u32,
}

impl Limits {
    /// The stored `(key, value)` rows, in key order.
    pub fn to_rows(&self) -> Vec<(String, String)> {
        let mut rows = vec![
            (key("founder_age"), self.founder_age.to_string()),
            (key("member_age"), self.member_age.to_string()),
        ];
        for (seat, range) in &self.office_age {
            rows.push((key(&format!("office_age.{seat}")), range.to_string()));
        }
        rows.push((key("offices_at_once"), self.offices_at_once.to_string()));
        rows.sort();
        rows
    }

    /// Parses the `limit.*` rows among a file's metadata: `None` when there are none (a file
    /// written before limits were recorded), an error naming the first missing or malformed key.
    pub fn from_rows(rows: &BTreeMap<String, String>) -> Result<Option<Limits>, String> {
        if !rows.keys().any(|k| k.starts_with(PREFIX)) {
            return Ok(None);
        }
        let range = |name: &str| -> Result<AgeRange, String> {
            let k = key(name);
            let value = rows
                .get(&k)
                .ok_or_else(|| format!("missing meta key `{k}`"))?;
            AgeRange::parse(value)
                .ok_or_else(|| format!("meta key `{k}` is not an age range: `{value}`"))
        };
        let founder_age = range("founder_age")?;
        let member_age = range("member_age")?;
        let seat_prefix = key("office_age.");
        let mut office_age = BTreeMap::new();
        for (k, _) in rows.range(seat_prefix.clone()..) {
            let Some(seat) = k.strip_prefix(&seat_prefix) else {
                break;
            };
            office_age.insert(seat.to_owned(), range(&format!("office_age.{seat}"))?);
        }
        let at_once = key("offices_at_once");
        let value = rows
            .get(&at_once)
            .ok_or_else(|| format!("missing meta key `{at_once}`"))?;
        let offices_at_once = value
            .parse()
            .map_err(|_| format!("meta key `{at_once}` is not a number: `{value}`"))?;
        Ok(Some(Limits {
            founder_age,
            member_age,
            office_age,
            offices_at_once,
        }))
    }
}

fn key(name: &str) -> String {
    format!("{PREFIX}{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            founder_age: AgeRange { min: 20, max: 65 },
            member_age: AgeRange { min: 16, max: 36 },
            office_age: BTreeMap::from([
                ("Captain".to_owned(), AgeRange { min: 20, max: 35 }),
                ("Head Coach".to_owned(), AgeRange { min: 32, max: 68 }),
            ]),
            offices_at_once: 1,
        }
    }

    /// Edits the stored rows of [`limits`] and compares what they parse to.
    fn check(
        edit: impl FnOnce(&mut BTreeMap<String, String>),
        expect: Result<Option<Limits>, &str>,
    ) {
        let mut rows: BTreeMap<String, String> = limits().to_rows().into_iter().collect();
        edit(&mut rows);
        assert_eq!(Limits::from_rows(&rows), expect.map_err(str::to_owned));
    }

    #[test]
    fn limit_rows_round_trip_and_name_the_bad_key() {
        check(|_| {}, Ok(Some(limits())));
        check(
            |rows| rows.retain(|k, _| !k.starts_with("limit.")),
            Ok(None),
        );
        check(
            |rows| {
                rows.remove("limit.member_age");
            },
            Err("missing meta key `limit.member_age`"),
        );
        check(
            |rows| {
                rows.insert("limit.office_age.Captain".into(), "20-35".into());
            },
            Err("meta key `limit.office_age.Captain` is not an age range: `20-35`"),
        );
        check(
            |rows| {
                rows.insert("limit.offices_at_once".into(), "one".into());
            },
            Err("meta key `limit.offices_at_once` is not a number: `one`"),
        );
    }

    #[test]
    fn rows_are_in_key_order() {
        let keys: Vec<String> = limits().to_rows().into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "limit.founder_age",
                "limit.member_age",
                "limit.office_age.Captain",
                "limit.office_age.Head Coach",
                "limit.offices_at_once"
            ]
        );
    }
}
