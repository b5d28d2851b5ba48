//! A task's difficulty features, measured rather than assigned by kind, and the tier they give.
//! The world browser and `fabula audit` both measure them; search is theirs to run.
//!
//! - pages needed: the task's evidence pages, the small set of pages whose provenance covers
//!   every needed cell (the task builder's set cover);
//! - hops and gold rows, from the task itself;
//! - whether the answer shows in the question, or in the top 10 results (title, snippet, url
//!   or date) that searching the question itself returns, with the hiding agents get by default.
//!
//! The generator measures every task once, with its world's index built in memory, and stores
//! the tier in the world file (`fabula_tasks.tier`); [`measure`] is that measure, given what the
//! question's search returned.
//!
//! Tiers: `easy` when one page is enough or the answer shows in the question or its results;
//! `hard` when at least 4 pages are needed and the answer shows in neither; `medium` otherwise.
//! `frontier` is the tier of the questions built to the frontier's constraints (blurred clues
//! that name no entity, at least 20 candidates for any one clue, near misses, a cheapest plan of
//! at least 35 calls: `build/frontier.rs`), which `fabula audit` measures on the world file.
//! A choice among options the question names (a comparison) always shows its answer in the
//! question and, mostly, in the results; for it only the pages needed count.

use fabula_file::{Task, TaskKind};
use serde::Serialize;
use serde_json::Value;

/// The measured features of one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Features {
    pub pages_needed: usize,
    pub hops: i64,
    /// Rows of a table answer; 1 for a short answer.
    pub rows: usize,
    pub answer_in_question: bool,
    /// `None` when the search could not be run (the world is unavailable).
    pub answer_in_results: Option<bool>,
    /// The question names the options the answer is chosen from (a comparison).
    pub choice: bool,
    /// The question comes from a frontier family ([`is_frontier`]).
    pub frontier: bool,
}

pub use fabula_file::Tier;

impl Features {
    /// The tier these features give (see the module docs).
    pub fn tier(&self) -> Tier {
        if self.frontier {
            return Tier::Frontier;
        }
        let shows =
            !self.choice && (self.answer_in_question || self.answer_in_results == Some(true));
        if shows || self.pages_needed <= 1 {
            Tier::Easy
        } else if self.pages_needed >= 4 {
            Tier::Hard
        } else {
            Tier::Medium
        }
    }

    /// Whether the question's search results could change the tier: not for a frontier
    /// question, a choice, an answer the question already shows, or one page needed.
    pub fn results_matter(&self) -> bool {
        !self.frontier && !self.choice && !self.answer_in_question && self.pages_needed > 1
    }
}

/// How many results of searching a question the measure reads: the first page an agent gets.
pub const RESULTS_READ: usize = 10;

/// Measures a task's features: its evidence, hops and rows from the task itself, and whether
/// the answer shows in the question or in `results`, the text of the first [`RESULTS_READ`]
/// results of searching the question (each made by [`result_text`]); `None` when the search
/// could not be run. A task whose answer or evidence is not JSON has no values and no pages.
pub fn measure(task: &Task, results: Option<&str>) -> Features {
    measure_known(task, results, is_frontier(&task.question))
}

/// [`measure`] for a task whose caller knows whether it is a frontier question (reading the
/// question's phrasing again is most of the measure's cost).
pub fn measure_known(task: &Task, results: Option<&str>, frontier: bool) -> Features {
    let answer: Value = serde_json::from_str(&task.answer).unwrap_or(Value::Null);
    let evidence: Value = serde_json::from_str(&task.evidence).unwrap_or(Value::Null);
    let values = answer_values(&answer);
    Features {
        pages_needed: evidence.as_array().map_or(0, Vec::len),
        hops: task.hops,
        rows: answer_rows(&answer),
        answer_in_question: all_shown(&values, &task.question),
        answer_in_results: results.map(|text| all_shown(&values, text)),
        choice: task.kind == TaskKind::Compare,
        frontier,
    }
}

/// The fewest people any one clue of a frontier question holds for: the smallest candidate set
/// a single clue reaches.
pub const FRONTIER_MIN_CANDIDATES: usize = 20;
/// The fewest near misses (people who fail exactly one clue) of a frontier question.
pub const FRONTIER_MIN_NEAR_MISSES: usize = 2;
/// The fewest calls the cheapest plan of a frontier question needs.
pub const FRONTIER_MIN_PLAN_CALLS: usize = 35;
/// The fewest calls the cheapest plan of a frontier question needs when it stops at the first
/// candidate that fits every clue, as research agents do (on average halfway through the
/// candidates): with 40 calls such an agent should mostly fail. At least
/// [`FRONTIER_MIN_PLAN_CALLS`], which it then implies.
pub const FRONTIER_MIN_FIRST_CALLS: usize = 45;
const _: () = assert!(FRONTIER_MIN_FIRST_CALLS >= FRONTIER_MIN_PLAN_CALLS);
/// The most calls the cheapest plan that checks every candidate of a frontier question may
/// need: long, but finishable.
pub const FRONTIER_MAX_PLAN_CALLS: usize = 150;

/// The phrasing ids of the frontier families start so: one person to identify, two to four to
/// name, or a few to tabulate.
const FRONTIER_PREFIXES: [&str; 3] = [
    "identify.person_by_blurred_clues.",
    "aggregate.people_by_blurred_clues.",
    "table.people_by_blurred_clues.",
];

/// Whether a question was written from a frontier family.
pub fn is_frontier(question: &str) -> bool {
    crate::phrasings::match_question(question).is_some_and(|m| {
        FRONTIER_PREFIXES
            .iter()
            .any(|p| m.phrasing_id.starts_with(p))
    })
}

/// The values an answer consists of: a short answer's text, a list's items, or a table's key
/// cells (its first column when it names no key).
pub fn answer_values(answer: &Value) -> Vec<String> {
    match answer {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(answer_values).collect(),
        Value::Object(table) => {
            let columns = table.get("columns").and_then(Value::as_array);
            let key = table
                .get("key")
                .and_then(Value::as_array)
                .and_then(|key| key.first())
                .and_then(Value::as_str);
            let key_idx = columns
                .and_then(|columns| columns.iter().position(|c| c.as_str() == key))
                .unwrap_or(0);
            table
                .get("rows")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|row| row.get(key_idx).and_then(Value::as_str).map(str::to_owned))
                .collect()
        }
        Value::Number(n) => vec![n.to_string()],
        _ => Vec::new(),
    }
}

/// The number of rows of a table answer; 1 for anything else.
pub fn answer_rows(answer: &Value) -> usize {
    match answer.get("rows").and_then(Value::as_array) {
        Some(rows) => rows.len(),
        None => 1,
    }
}

/// Whether every value occurs in `text` as whole words, ignoring case, and reading `_`, `-`,
/// `/` and `.` as spaces (so `.../1869/12/06/...` and `Kest_Line` in urls count). False when
/// there are no values.
pub fn all_shown(values: &[String], text: &str) -> bool {
    let haystack = words(text);
    !values.is_empty()
        && values.iter().all(|value| {
            let needle = words(value);
            !needle.trim().is_empty() && haystack.contains(&format!(" {} ", needle.trim()))
        })
}

/// The text of one search result that [`measure`] looks in: what an agent sees of it before
/// opening the page (title, snippet, url and date). Join several with [`join_results`].
pub fn result_text(title: &str, snippet: &str, url: &str, date: Option<&str>) -> String {
    format!(
        "{title} \n {snippet} \n {url} \n {}",
        date.unwrap_or_default()
    )
}

/// The text of several results, as [`measure`] reads it.
pub fn join_results(texts: impl IntoIterator<Item = String>) -> String {
    texts.into_iter().collect::<Vec<_>>().join(" \n ")
}

/// Lowercased text with every run of non-alphanumeric characters (except `'` and `,` inside
/// numbers) turned into one space, padded with spaces.
fn words(text: &str) -> String {
    let mut out = String::from(" ");
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' {
            out.extend(c.to_lowercase());
        } else if c == ',' && out.ends_with(|p: char| p.is_ascii_digit()) {
            continue;
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn features(pages: usize, in_question: bool, in_results: Option<bool>) -> Features {
        Features {
            pages_needed: pages,
            hops: 2,
            rows: 1,
            answer_in_question: in_question,
            answer_in_results: in_results,
            choice: false,
            frontier: false,
        }
    }

    /// The results matter exactly when the tier with the answer in them differs from the tier
    /// without, over every combination of the other features.
    #[test]
    fn results_matter_exactly_when_they_change_the_tier() {
        for pages in 0..6 {
            for (in_question, choice, frontier) in flag_combinations() {
                let with = |in_results| Features {
                    choice,
                    frontier,
                    ..features(pages, in_question, Some(in_results))
                };
                let changes = with(true).tier() != with(false).tier();
                assert_eq!(with(false).results_matter(), changes, "{:?}", with(false));
            }
        }
    }

    /// Every combination of three flags.
    fn flag_combinations() -> impl Iterator<Item = (bool, bool, bool)> {
        (0..8).map(|bits| (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0))
    }

    #[test]
    fn tiers_follow_pages_needed_and_where_the_answer_shows() {
        let check = |f: Features, tier: Tier| assert_eq!(f.tier(), tier, "{f:?}");
        check(features(1, false, Some(false)), Tier::Easy);
        check(features(5, true, Some(false)), Tier::Easy);
        check(features(5, false, Some(true)), Tier::Easy);
        check(features(3, false, Some(false)), Tier::Medium);
        check(features(4, false, Some(false)), Tier::Hard);
        check(features(4, false, None), Tier::Hard);
        let choice = |pages| Features {
            choice: true,
            ..features(pages, true, Some(true))
        };
        check(choice(1), Tier::Easy);
        check(choice(2), Tier::Medium);
        check(choice(4), Tier::Hard);
        let frontier = Features {
            frontier: true,
            ..features(9, false, Some(false))
        };
        check(frontier, Tier::Frontier);
    }

    #[test]
    fn answers_show_as_whole_words_in_text_and_urls() {
        let check = |values: &[&str], text: &str, expect: bool| {
            let values: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
            assert_eq!(all_shown(&values, text), expect, "{values:?} in {text}");
        };
        check(&["1869"], "https://n.org/1869/12/06/new-barge", true);
        check(&["Kest Line"], "see /wiki/Kest_Line today", true);
        check(&["Kest"], "Kesta is far", false);
        check(&["12519"], "population 12,519 in", true);
        check(&["Grithy"], "Which town hosted Grithy Cup?", true);
        check(&["a", "b"], "only a here", false);
        check(&[], "anything", false);
    }

    #[test]
    fn answer_values_read_strings_lists_and_table_keys() {
        assert_eq!(answer_values(&json!("Kest")), ["Kest"]);
        assert_eq!(answer_values(&json!(["a", "b"])), ["a", "b"]);
        let table =
            json!({"columns": ["Town", "Pop"], "key": ["Town"], "rows": [["A", "1"], ["B", "2"]]});
        assert_eq!(answer_values(&table), ["A", "B"]);
        assert_eq!(answer_rows(&table), 2);
        assert_eq!(answer_rows(&json!("x")), 1);
    }
}
