//! What a task's answer is, re-derived by the checker from the rows its SQL returns, and what an
//! evidence page must state for a reader to find it.
//!
//! The rules (the task SQL convention, `fabula_tasks`' crate docs): for a short answer every
//! result row's first cell is the answer, so all rows agree, and the further cells are the values
//! it is computed from; a list answer is the first cell of every row; a table answer's rows are
//! the result rows, compared as a multiset. A page states a value by a recorded fact showing it
//! (numbers with or without thousands separators) or in its text as a whole word.
//!
//! This is a second implementation, written apart from the generator's (`fabula_tasks::answer`)
//! so that a bug in one shows as a disagreement: the tests hold it to the stored gold of
//! generated worlds.

use std::collections::BTreeSet;

use fabula_file::TaskKind;
use serde_json::Value;

use crate::numbers::{plain_integer, spellings, with_separators};

/// An answer read as text: a short answer, or list items or table rows in sorted order, so two
/// answers are the same exactly when they are equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Text(String),
    Items(Vec<String>),
    Rows(Vec<Vec<String>>),
}

impl Answer {
    /// Reads a stored answer: a string, a list of strings, or a table with `rows` of strings.
    pub fn stored(value: &Value) -> Result<Answer, String> {
        match value {
            Value::String(text) => Ok(Answer::Text(text.clone())),
            Value::Array(items) => texts(items, "list item").map(sorted).map(Answer::Items),
            Value::Object(table) => {
                let Some(Value::Array(rows)) = table.get("rows") else {
                    return Err("the table answer has no list of rows".into());
                };
                let rows = rows
                    .iter()
                    .map(|row| match row {
                        Value::Array(cells) => texts(cells, "table cell"),
                        other => Err(format!("a table row is not a list: {other}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Answer::Rows(sorted(rows)))
            }
            other => Err(format!(
                "the stored answer is not a string, a list or a table: {other}"
            )),
        }
    }

    /// The answer of the same shape as `self` that a query's rows give, or why they give none.
    pub fn from_rows(&self, rows: &[Vec<String>]) -> Result<Answer, String> {
        let firsts = rows.iter().filter_map(|row| row.first().cloned());
        match self {
            Answer::Text(_) => {
                let distinct: BTreeSet<String> = firsts.collect();
                let mut distinct = distinct.into_iter();
                match (distinct.next(), distinct.len()) {
                    (Some(one), 0) => Ok(Answer::Text(one)),
                    (None, _) => Err("query returns no rows".into()),
                    (Some(_), more) => Err(format!("query returns {} different answers", more + 1)),
                }
            }
            Answer::Items(_) => Ok(Answer::Items(sorted(firsts.collect()))),
            Answer::Rows(_) => Ok(Answer::Rows(sorted(rows.to_vec()))),
        }
    }

    /// The answer as JSON in the shape of `stored`: a table keeps its other fields.
    pub fn to_json_like(&self, stored: &Value) -> Value {
        match (self, stored) {
            (Answer::Rows(rows), Value::Object(table)) => {
                let mut table = table.clone();
                table.insert("rows".into(), Value::from(rows.clone()));
                Value::Object(table)
            }
            _ => self.to_json(),
        }
    }

    /// The answer as JSON, for messages.
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Text(text) => Value::from(text.as_str()),
            Answer::Items(items) => Value::from(items.clone()),
            Answer::Rows(rows) => serde_json::json!({ "rows": rows }),
        }
    }

    /// The values an evidence page must state: every gold value, and for a short answer the
    /// values it is computed from (the query's further columns); an aggregate's own answer is
    /// computed, not stated, so only its inputs count. Empty values need no stating.
    pub fn must_state(&self, kind: TaskKind, rows: &[Vec<String>]) -> BTreeSet<String> {
        let mut values: BTreeSet<String> = match self {
            Answer::Text(text) => {
                let inputs = rows.iter().flat_map(|row| row.iter().skip(1).cloned());
                let own = (kind != TaskKind::Aggregate).then(|| text.clone());
                own.into_iter().chain(inputs).collect()
            }
            Answer::Items(items) => items.iter().cloned().collect(),
            Answer::Rows(gold) => gold.iter().flatten().cloned().collect(),
        };
        values.remove("");
        values
    }
}

/// The strings of a JSON list, or which element is not one.
fn texts(values: &[Value], what: &str) -> Result<Vec<String>, String> {
    values
        .iter()
        .map(|v| match v {
            Value::String(text) => Ok(text.clone()),
            other => Err(format!("a {what} is not text: {other}")),
        })
        .collect()
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

/// Whether a page states `value`: one of its facts shows it, or its text has it as a word.
pub fn page_states(body: &str, shown: &[String], value: &str) -> bool {
    shown_by_fact(shown, value) || in_text(body, value)
}

/// Whether a fact shows the value as it is, or an integer value with thousands separators.
fn shown_by_fact(shown: &[String], value: &str) -> bool {
    let separated = plain_integer(value).map(with_separators);
    shown
        .iter()
        .any(|s| s == value || separated.as_deref() == Some(s.as_str()))
}

/// Whether a text has the value as a whole word (an integer also with thousands separators):
/// neither a letter nor a digit on either side, nor a number it continues (`12` is not in
/// `12,345`, and `345` is not in it either).
fn in_text(text: &str, value: &str) -> bool {
    let needles = match plain_integer(value) {
        Some(n) => spellings(n),
        None => vec![value.to_string()],
    };
    needles
        .iter()
        .filter(|needle| !needle.is_empty())
        .any(|needle| starts(text, needle).any(|at| stands_alone(text, at, at + needle.len())))
}

/// Where `needle` starts in `text`, overlapping occurrences included.
fn starts<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + text.get(from..)?.find(needle)?;
        from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        Some(at)
    })
}

/// Whether `text[start..end]` is a whole word and no part of a longer number.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let before = &text[..start];
    let after = &text[end..];
    let word = |c: char| c.is_alphanumeric();
    if before.chars().next_back().is_some_and(word) || after.chars().next().is_some_and(word) {
        return false;
    }
    let inner = &text[start..end];
    let continued_after =
        ends_in_digit(inner) && after.strip_prefix(',').is_some_and(starts_with_digit);
    let continued_before =
        starts_with_digit(inner) && before.strip_suffix(',').is_some_and(ends_in_digit);
    !continued_after && !continued_before
}

fn starts_with_digit(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

fn ends_in_digit(s: &str) -> bool {
    s.chars().next_back().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cells: &[&[&str]]) -> Vec<Vec<String>> {
        cells
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    /// Derives the answer of `stored`'s shape from `rows` and compares it with `expect` (the
    /// answer as JSON, or the error).
    fn check(stored: Value, result: &[&[&str]], expect: Result<Value, &str>) {
        let got = Answer::stored(&stored)
            .and_then(|a| a.from_rows(&rows(result)))
            .map(|a| a.to_json());
        assert_eq!(
            got,
            expect.map_err(str::to_string),
            "{stored} from {result:?}"
        );
    }

    #[test]
    fn answers_derive_from_rows() {
        let text = || Value::from("x");
        check(
            text(),
            &[&["Vess", "12"], &["Vess", "9"]],
            Ok("Vess".into()),
        );
        check(text(), &[], Err("query returns no rows"));
        check(
            text(),
            &[&["Vess"], &["Orr"], &["Vess"]],
            Err("query returns 2 different answers"),
        );
        let list = || Value::from(Vec::<String>::new());
        check(
            list(),
            &[&["b"], &["a"], &["b"]],
            Ok(serde_json::json!(["a", "b", "b"])),
        );
        check(list(), &[], Ok(serde_json::json!([])));
        let table = || serde_json::json!({"columns": ["N"], "key": ["N"], "rows": []});
        check(
            table(),
            &[&["b", "2"], &["a", "1"]],
            Ok(serde_json::json!({"rows": [["a", "1"], ["b", "2"]]})),
        );
        check(
            Value::from(3),
            &[],
            Err("the stored answer is not a string, a list or a table: 3"),
        );
        check(
            serde_json::json!({"columns": ["N"]}),
            &[],
            Err("the table answer has no list of rows"),
        );
        check(
            serde_json::json!(["a", 1]),
            &[],
            Err("a list item is not text: 1"),
        );
    }

    /// Whether the stored answer and the one `result` gives are the same.
    fn check_same(stored: Value, result: &[&[&str]], expect: bool) {
        let stored_answer = Answer::stored(&stored).unwrap();
        let derived = stored_answer.from_rows(&rows(result)).unwrap();
        assert_eq!(stored_answer == derived, expect, "{stored} vs {result:?}");
    }

    #[test]
    fn lists_and_tables_compare_in_any_order_with_their_counts() {
        check_same(serde_json::json!(["a", "b"]), &[&["b"], &["a"]], true);
        check_same(
            serde_json::json!(["a", "b"]),
            &[&["b"], &["a"], &["a"]],
            false,
        );
        check_same(serde_json::json!(["a"]), &[&["b"]], false);
        let table = serde_json::json!({"columns": ["N", "Y"], "rows": [["a", "1"], ["b", "2"]]});
        check_same(table.clone(), &[&["b", "2"], &["a", "1"]], true);
        check_same(table.clone(), &[&["b", "2"], &["a", "3"]], false);
        check_same(table, &[&["b", "2"]], false);
        check_same(Value::from("12"), &[&["12", "a"]], true);
        check_same(Value::from("12"), &[&["13"]], false);
    }

    fn check_must_state(kind: TaskKind, stored: Value, result: &[&[&str]], expect: &[&str]) {
        let answer = Answer::stored(&stored).unwrap();
        let got: Vec<String> = answer.must_state(kind, &rows(result)).into_iter().collect();
        assert_eq!(got, expect, "{kind:?} {stored}");
    }

    #[test]
    fn pages_must_state_the_gold_and_its_inputs() {
        let result: &[&[&str]] = &[&["Vess", "12"], &["Vess", "9"], &["Vess", ""]];
        check_must_state(
            TaskKind::Lookup,
            "Vess".into(),
            result,
            &["12", "9", "Vess"],
        );
        check_must_state(TaskKind::Aggregate, "21".into(), result, &["12", "9"]);
        let list = serde_json::json!(["b", "a", ""]);
        check_must_state(TaskKind::Lookup, list, &[], &["a", "b"]);
        let table = serde_json::json!({"columns": ["N", "Y"], "rows": [["a", "1"], ["b", ""]]});
        check_must_state(TaskKind::Table, table, &[], &["1", "a", "b"]);
    }

    fn check_states(text: &str, value: &str, expect: bool) {
        assert_eq!(
            page_states(text, &[], value),
            expect,
            "{value:?} in {text:?}"
        );
    }

    #[test]
    fn texts_state_whole_words_and_whole_numbers() {
        check_states("born in 1921 in Vess", "1921", true);
        check_states("born in 19210", "1921", false);
        check_states("population 12,345.", "12345", true);
        check_states("population 12,345.", "12", false);
        check_states("population 12,345.", "345", false);
        check_states("in 12, 345 more", "345", true);
        check_states("Vessa Hall", "Vess", false);
        check_states("[Vess](https://x/wiki/Vess)", "Vess", true);
        check_states("Vessa and Vess", "Vess", true);
        check_states("anything", "", false);
        check_states("1,000 and 1000", "1000", true);
        check_states("Ka Ka Kan", "Ka Kan", true);
        check_states("Ka Ka Kan", "Ka Ka", true);
        check_states("Ka Kaa Kan", "Ka Kan", false);
        check_states("Ölund Ølberg", "Ølberg", true);
    }

    #[test]
    fn facts_state_values_as_shown_or_separated() {
        let shown = ["12,345".to_owned(), "Vess".to_owned(), "1,2".to_owned()];
        let check = |value: &str, expect: bool| {
            assert_eq!(page_states("", &shown, value), expect, "{value}");
        };
        check("12345", true);
        check("Vess", true);
        check("1234", false);
        check("12", false);
        check("1,2", true);
    }
}
