//! What a task's answer means: the answer its SQL result gives, when two answers are the same,
//! and which values a page must state for a reader to find the answer. The answerability check
//! uses these rules; `fabula check` derives them again on its own (`fabula_check::answer`), so a
//! bug here shows there as a violation.

use fabula_file::TaskKind;
use serde_json::Value;

/// The answer a query result gives, in the shape of the stored answer, or why it gives none.
pub fn answer_from_rows(stored: &Value, rows: &[Vec<String>]) -> Result<Value, String> {
    match stored {
        Value::String(_) => {
            let mut firsts: Vec<&str> = rows
                .iter()
                .filter_map(|r| r.first())
                .map(String::as_str)
                .collect();
            firsts.sort_unstable();
            firsts.dedup();
            match firsts.as_slice() {
                [one] => Ok(Value::String((*one).to_string())),
                [] => Err("query returns no rows".into()),
                many => Err(format!("query returns {} different answers", many.len())),
            }
        }
        Value::Array(_) => {
            let mut items: Vec<String> = rows.iter().filter_map(|r| r.first()).cloned().collect();
            items.sort();
            Ok(Value::from(items))
        }
        Value::Object(table) => {
            let mut out = table.clone();
            out.insert("rows".into(), Value::from(rows.to_vec()));
            Ok(Value::Object(out))
        }
        other => Err(format!(
            "stored answer is neither a string, a list nor a table: {other}"
        )),
    }
}

/// The answer in a canonical form: list items and table rows sorted.
fn canonical(answer: &Value) -> Value {
    match answer {
        Value::Array(items) => {
            let mut items = items.clone();
            items.sort_by_key(|v| v.to_string());
            Value::Array(items)
        }
        Value::Object(table) => {
            let mut table = table.clone();
            if let Some(Value::Array(rows)) = table.get_mut("rows") {
                rows.sort_by_key(|v| v.to_string());
            }
            Value::Object(table)
        }
        other => other.clone(),
    }
}

/// Whether a recomputed answer equals the stored one.
pub fn same_answer(stored: &Value, recomputed: &Value) -> bool {
    canonical(stored) == canonical(recomputed)
}

/// The values an evidence page must state: every gold value, and for short answers the values
/// the answer is computed from (the query's further columns). An aggregate's own answer is
/// computed, not stated, so only its inputs are required.
pub fn required_values(kind: TaskKind, stored: &Value, rows: &[Vec<String>]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    match stored {
        Value::String(text) => {
            if kind != TaskKind::Aggregate {
                values.push(text.clone());
            }
            values.extend(rows.iter().flat_map(|r| r.iter().skip(1)).cloned());
        }
        Value::Array(items) => {
            values.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
        }
        Value::Object(table) => {
            if let Some(Value::Array(gold_rows)) = table.get("rows") {
                for row in gold_rows {
                    if let Value::Array(cells) = row {
                        values.extend(cells.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                }
            }
        }
        _ => {}
    }
    values.retain(|v| !v.is_empty());
    values.sort();
    values.dedup();
    values
}

/// Whether `text` states `value`: as a whole word (not inside a longer word or number), or, for a
/// plain integer, also with thousands separators as pages write counts.
pub fn text_states(text: &str, value: &str) -> bool {
    let mut spellings = vec![value.to_string()];
    if let Ok(n) = value.parse::<i64>()
        && n.to_string() == value
    {
        spellings.push(crate::english::fmt_count(n));
    }
    spellings.iter().any(|needle| contains_word(text, needle))
}

fn contains_word(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric();
    let mut from = 0;
    while let Some(pos) = text[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        // A number followed by `,digit` continues, so `12` is not stated by `12,345`.
        let continues_number = needle.chars().last().is_some_and(|c| c.is_ascii_digit())
            && text[end..].starts_with(',')
            && text[end + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit());
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) && !continues_number {
            return true;
        }
        from = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether a page states a value through one of its recorded facts.
pub fn fact_states(shown: &[String], value: &str) -> bool {
    shown
        .iter()
        .any(|s| s == value || (s.contains(',') && s.replace(',', "") == value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_states(text: &str, value: &str, expect: bool) {
        assert_eq!(text_states(text, value), expect, "{value:?} in {text:?}");
    }

    #[test]
    fn words_and_numbers_are_matched_whole() {
        check_states("born in 1921 in Vess", "1921", true);
        check_states("born in 19210", "1921", false);
        check_states("population 12,345.", "12345", true);
        check_states("population 12,345.", "12", false);
        check_states("Vessa Hall", "Vess", false);
        check_states("[Vess](https://x/wiki/Vess)", "Vess", true);
        check_states("anything", "", false);
    }

    #[test]
    fn facts_state_values_with_or_without_separators() {
        let shown = ["12,345".to_owned(), "Vess".to_owned()];
        assert!(fact_states(&shown, "12345"));
        assert!(fact_states(&shown, "Vess"));
        assert!(!fact_states(&shown, "1234"));
    }

    #[test]
    fn answers_recompute_from_rows() {
        let rows = vec![
            vec!["Vess".to_string(), "12".to_string()],
            vec!["Vess".to_string(), "9".to_string()],
        ];
        let got = answer_from_rows(&Value::from("Vess"), &rows).unwrap();
        assert_eq!(got, Value::from("Vess"));
        assert_eq!(
            required_values(TaskKind::Aggregate, &got, &rows),
            ["12", "9"]
        );
        assert_eq!(
            required_values(TaskKind::Lookup, &got, &rows),
            ["12", "9", "Vess"]
        );
        let bad = vec![vec!["Vess".to_string()], vec!["Orr".to_string()]];
        assert!(answer_from_rows(&Value::from("Vess"), &bad).is_err());
        let list = answer_from_rows(&Value::from(Vec::<String>::new()), &bad).unwrap();
        assert!(same_answer(&Value::from(vec!["Vess", "Orr"]), &list));
    }
}
