//! The closed sets of names a world file stores as text: page kinds, fact (value) kinds, task
//! kinds and tiers, and the hiding levels that decide which fact kinds a snippet may show.
//!
//! Each enum has one spelling per variant (`as_str`) and a `parse` that is its exact inverse, so
//! every crate reads and writes the same words.

use serde::{Deserialize, Serialize};

/// Declares a fieldless enum with its stored spellings, `ALL`, `as_str`, `parse` and `Display`
/// (and, with the `clap` feature, `clap::ValueEnum` over the same spellings).
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
        pub enum $name {
            $($(#[$vmeta])* #[cfg_attr(feature = "clap", value(name = $text))] $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$(stringify!($variant),)+].len()] = [$($name::$variant,)+];

            /// The spelling stored in the world file.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Parses a stored spelling; `None` for any other text.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use named_enum;

named_enum! {
    /// The kind of a page, as `fabula_pages.kind` stores it.
    PageKind {
        /// An encyclopedia article about one entity, with an infobox and prose.
        Entity = "entity",
        /// A list of the entities of one table.
        List = "list",
        /// The entities of one category or region.
        Category = "category",
        /// A dated news item about several entities.
        News = "news",
        /// A dated yearbook page of an archive.
        History = "history",
    }
}

named_enum! {
    /// What kind of value a page states, as `fabula_page_facts.value_kind` stores it; it decides
    /// whether partial hiding masks the value in snippets.
    ValueKind {
        /// A count, size or amount.
        Number = "number",
        /// A calendar year.
        Year = "year",
        /// A full date.
        Date = "date",
        /// The name of another entity that a reference points at.
        Entity = "entity",
        /// A word or phrase such as an occupation.
        Text = "text",
        /// The page subject's own name.
        Name = "name",
    }
}

impl ValueKind {
    /// Whether partial hiding masks values of this kind in snippets.
    pub fn is_hidden_by_partial(self) -> bool {
        matches!(
            self,
            ValueKind::Number | ValueKind::Year | ValueKind::Date | ValueKind::Entity
        )
    }
}

named_enum! {
    /// How much of a page's detail a search snippet may show; partial unless asked otherwise.
    #[derive(Default)]
    Hiding {
        /// The best-matching passage, as the page states it.
        None = "none",
        /// The passage with stated numbers, years, dates and related-entity names masked or cut.
        #[default]
        Partial = "partial",
        /// A generic one-line description by page kind only, beside the hit's title.
        Strict = "strict",
    }
}

named_enum! {
    /// The kind of a task, as `fabula_tasks.kind` stores it. `fabula-score` has its own
    /// `TaskKind` for task files, with the same spellings, so that this crate depends on no other
    /// fabula crate; `fabula-audit` converts between the two and tests that they agree.
    TaskKind {
        /// One fact about one entity.
        Lookup = "lookup",
        /// A fact reached through two or three hops.
        MultiHop = "multi_hop",
        /// A comparison between entities.
        Compare = "compare",
        /// A count, sum or extreme over many rows.
        Aggregate = "aggregate",
        /// A fact as it stood at a date.
        Temporal = "temporal",
        /// A person singled out by several clues from different pages.
        Identify = "identify",
        /// A WideSearch-style table.
        Table = "table",
    }
}

named_enum! {
    /// A task's difficulty tier, as `fabula_tasks.tier` stores it: measured when the world is
    /// generated (`fabula_tasks::difficulty` says how), ordered from easiest to hardest.
    Tier {
        /// One page is enough, or the answer shows in the question or its top 10 results.
        Easy = "easy",
        /// Two or three pages, the answer shown in neither the question nor its results.
        Medium = "medium",
        /// Four pages or more, the answer shown in neither.
        Hard = "hard",
        /// Built to the frontier's constraints: blurred clues that name no entity.
        Frontier = "frontier",
    }
}

impl Serialize for Tier {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::str::FromStr for Tier {
    type Err = String;

    /// A tier by its name: `easy`, `medium`, `hard` or `frontier`.
    fn from_str(s: &str) -> Result<Tier, String> {
        Tier::parse(s)
            .ok_or_else(|| format!("unknown tier `{s}` (known: easy, medium, hard, frontier)"))
    }
}

/// The spellings of every `TaskKind`, for serde's error messages.
const TASK_KINDS: &[&str] = &[
    "lookup",
    "multi_hop",
    "compare",
    "aggregate",
    "temporal",
    "identify",
    "table",
];

impl Serialize for TaskKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TaskKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TaskKind, D::Error> {
        let text = String::deserialize(deserializer)?;
        TaskKind::parse(&text).ok_or_else(|| serde::de::Error::unknown_variant(&text, TASK_KINDS))
    }
}

impl Serialize for Hiding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Hiding {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Hiding, D::Error> {
        let text = String::deserialize(deserializer)?;
        Hiding::parse(&text)
            .ok_or_else(|| serde::de::Error::unknown_variant(&text, &["none", "partial", "strict"]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Copy + PartialEq + std::fmt::Debug, const N: usize>(
        all: [T; N],
        as_str: fn(T) -> &'static str,
        parse: fn(&str) -> Option<T>,
        expect: &str,
    ) {
        let names: Vec<&str> = all.iter().map(|&v| as_str(v)).collect();
        assert_eq!(names.join(" "), expect);
        for v in all {
            assert_eq!(parse(as_str(v)), Some(v));
            assert_eq!(parse(&as_str(v).to_uppercase()), None);
        }
        assert_eq!(parse(""), None);
    }

    #[test]
    fn spellings_round_trip() {
        check(
            PageKind::ALL,
            PageKind::as_str,
            PageKind::parse,
            "entity list category news history",
        );
        check(
            ValueKind::ALL,
            ValueKind::as_str,
            ValueKind::parse,
            "number year date entity text name",
        );
        check(
            Hiding::ALL,
            Hiding::as_str,
            Hiding::parse,
            "none partial strict",
        );
        check(
            TaskKind::ALL,
            TaskKind::as_str,
            TaskKind::parse,
            "lookup multi_hop compare aggregate temporal identify table",
        );
        assert_eq!(TASK_KINDS, TaskKind::ALL.map(TaskKind::as_str));
        check(
            Tier::ALL,
            Tier::as_str,
            Tier::parse,
            "easy medium hard frontier",
        );
        assert!(Tier::Easy < Tier::Frontier);
        assert_eq!("hard".parse::<Tier>(), Ok(Tier::Hard));
        assert!("Hard".parse::<Tier>().unwrap_err().contains("known: easy"));
    }

    #[test]
    fn task_kind_serde_uses_the_stored_spelling() {
        assert_eq!(
            serde_json::to_string(&TaskKind::MultiHop).unwrap(),
            "\"multi_hop\""
        );
        let parsed: TaskKind = serde_json::from_str("\"table\"").unwrap();
        assert_eq!(parsed, TaskKind::Table);
        assert!(serde_json::from_str::<TaskKind>("\"MultiHop\"").is_err());
    }

    #[test]
    fn partial_hiding_masks_values_not_words() {
        let hidden: Vec<&str> = ValueKind::ALL
            .iter()
            .filter(|k| k.is_hidden_by_partial())
            .map(|k| k.as_str())
            .collect();
        assert_eq!(hidden, ["number", "year", "date", "entity"]);
    }

    #[test]
    fn hiding_serde_uses_the_stored_spelling() {
        assert_eq!(
            serde_json::to_string(&Hiding::Strict).unwrap(),
            "\"strict\""
        );
        let parsed: Hiding = serde_json::from_str("\"none\"").unwrap();
        assert_eq!(parsed, Hiding::None);
        let err = serde_json::from_str::<Hiding>("\"loud\"").unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown variant `loud`, expected one of `none`, `partial`, `strict`"),
            "{err}"
        );
    }
}
