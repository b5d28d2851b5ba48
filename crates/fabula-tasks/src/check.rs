//! Verifying stored tasks from a world file alone, as `fabula check` runs it.
//!
//! [`TaskCheck`] re-runs each task's SQL (see the convention in the crate docs) and compares the
//! result with the stored answer, confirms that the evidence urls are pages of the world and that
//! each gold value is stated on at least one of them (by a recorded fact or in the page text),
//! and counts the tasks of each world. Rules: `tasks.count`, `tasks.id`, `tasks.kind`,
//! `tasks.question`, `tasks.sql`, `tasks.answer`, `tasks.evidence` and `tasks.stated`.

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::Value;

use fabula_world::check::{ExtraCheck, Violation, violation};
use fabula_world::records::TaskRecord;

use crate::{MIN_SHORT_TASKS, MIN_TABLE_TASKS, TASK_KINDS};

const TASKS_TABLE: &str = "fabula_tasks";

/// The task rules of `fabula check`.
pub struct TaskCheck;

/// Reads every stored task of an open world file, in id order.
pub fn stored_tasks(conn: &Connection) -> rusqlite::Result<Vec<TaskRecord>> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, question, answer, evidence, hops, sql FROM fabula_tasks ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(TaskRecord {
            id: r.get(0)?,
            kind: r.get(1)?,
            question: r.get(2)?,
            answer: r.get(3)?,
            evidence: r.get(4)?,
            hops: r.get(5)?,
            sql: r.get(6)?,
        })
    })?;
    rows.collect()
}

/// A result cell as text: integers as plain digits, NULL as the empty string.
fn cell_text(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

/// Runs a task's query, which must be read-only, and returns its rows as text.
pub fn run_sql(conn: &Connection, sql: &str) -> Result<Vec<Vec<String>>, String> {
    let mut stmt = conn
        .prepare(sql)
        .map_err(|e| format!("query does not prepare: {e}"))?;
    if !stmt.readonly() {
        return Err("query is not read-only".into());
    }
    let n = stmt.column_count();
    let rows = stmt
        .query_map([], |r| {
            (0..n)
                .map(|i| r.get_ref(i).map(cell_text))
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .map_err(|e| format!("query fails: {e}"))?;
    rows.collect::<rusqlite::Result<Vec<_>>>()
        .map_err(|e| format!("query fails: {e}"))
}

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
pub fn required_values(kind: &str, stored: &Value, rows: &[Vec<String>]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    match stored {
        Value::String(text) => {
            if kind != "aggregate" {
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
        spellings.push(fabula_pages::fmt_count(n));
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

/// Checks the id format `wNNNNN-tNNN` against the world id.
fn id_matches(id: &str, world_id: Option<u32>) -> bool {
    let Some((w, t)) = id.split_once('-') else {
        return false;
    };
    let digits = |s: &str, min: usize| s.len() >= min && s.chars().all(|c| c.is_ascii_digit());
    let Some(w) = w.strip_prefix('w') else {
        return false;
    };
    let Some(t) = t.strip_prefix('t') else {
        return false;
    };
    digits(w, 5) && digits(t, 3) && world_id.is_none_or(|id| w.parse::<u32>().ok() == Some(id))
}

/// One page of a world as the checks read it.
struct StoredPage {
    body: String,
    shown: Vec<String>,
}

fn stored_page(conn: &Connection, url: &str) -> rusqlite::Result<Option<StoredPage>> {
    let mut stmt = conn.prepare_cached("SELECT id, body FROM fabula_pages WHERE url = ?1")?;
    let mut rows = stmt.query([url])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let (id, body): (i64, String) = (row.get(0)?, row.get(1)?);
    let mut facts =
        conn.prepare_cached("SELECT shown FROM fabula_page_facts WHERE page_id = ?1")?;
    let shown = facts
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(Some(StoredPage { body, shown }))
}

impl ExtraCheck for TaskCheck {
    fn check(&self, conn: &Connection, world: &str, out: &mut Vec<Violation>) {
        let tasks = match stored_tasks(conn) {
            Ok(tasks) => tasks,
            Err(e) => {
                out.push(violation(
                    world,
                    TASKS_TABLE,
                    None,
                    "tasks.count",
                    &format!("cannot read tasks: {e}"),
                ));
                return;
            }
        };
        let world_id: Option<u32> = conn
            .query_row(
                "SELECT value FROM fabula_meta WHERE key = 'world_id'",
                [],
                |r| r.get::<_, String>(0),
            )
            .ok()
            .and_then(|v| v.parse().ok());
        let n_tables = tasks.iter().filter(|t| t.kind == "table").count();
        let n_short = tasks.len() - n_tables;
        if n_short < MIN_SHORT_TASKS || n_tables < MIN_TABLE_TASKS {
            let detail = format!(
                "{n_short} short-answer and {n_tables} table tasks, want at least {MIN_SHORT_TASKS} and {MIN_TABLE_TASKS}"
            );
            out.push(violation(world, TASKS_TABLE, None, "tasks.count", &detail));
        }
        for task in &tasks {
            check_task(conn, world, world_id, task, out);
        }
    }
}

/// Runs every per-task rule on one task.
fn check_task(
    conn: &Connection,
    world: &str,
    world_id: Option<u32>,
    task: &TaskRecord,
    out: &mut Vec<Violation>,
) {
    let mut report = |rule: &str, detail: String| {
        out.push(violation(
            world,
            TASKS_TABLE,
            None,
            rule,
            &format!("task {}: {detail}", task.id),
        ));
    };
    if !id_matches(&task.id, world_id) {
        report(
            "tasks.id",
            "id is not `wNNNNN-tNNN` with this world's id".into(),
        );
    }
    if !TASK_KINDS.contains(&task.kind.as_str()) {
        report("tasks.kind", format!("unknown kind `{}`", task.kind));
    }
    if task.question.trim().is_empty() || task.question.contains('_') {
        report(
            "tasks.question",
            "question is empty or names a table or column".into(),
        );
    }
    let stored: Value = match serde_json::from_str(&task.answer) {
        Ok(v) => v,
        Err(e) => return report("tasks.answer", format!("answer is not JSON: {e}")),
    };
    if let Err(e) = fabula_score::Gold::from_json(&stored) {
        report("tasks.answer", e.to_string());
    }
    if (task.kind == "table") != stored.is_object() {
        report(
            "tasks.answer",
            "table tasks, and only they, have table answers".into(),
        );
    }
    let rows = match run_sql(conn, &task.sql) {
        Ok(rows) => rows,
        Err(e) => return report("tasks.sql", e),
    };
    match answer_from_rows(&stored, &rows) {
        Ok(recomputed) if same_answer(&stored, &recomputed) => {}
        Ok(recomputed) => report(
            "tasks.answer",
            format!("stored {stored} but the database gives {recomputed}"),
        ),
        Err(e) => report("tasks.answer", e),
    }
    let urls: Vec<String> = match serde_json::from_str(&task.evidence) {
        Ok(urls) => urls,
        Err(e) => {
            return report(
                "tasks.evidence",
                format!("evidence is not a JSON list of urls: {e}"),
            );
        }
    };
    if urls.is_empty() {
        report("tasks.evidence", "no evidence pages".into());
    }
    let mut pages = Vec::new();
    for url in &urls {
        match stored_page(conn, url) {
            Ok(Some(page)) => pages.push(page),
            Ok(None) => report(
                "tasks.evidence",
                format!("evidence page {url} does not exist"),
            ),
            Err(e) => report("tasks.evidence", format!("cannot read page {url}: {e}")),
        }
    }
    for value in required_values(&task.kind, &stored, &rows) {
        let stated = pages
            .iter()
            .any(|p| fact_states(&p.shown, &value) || text_states(&p.body, &value));
        if !stated {
            report("tasks.stated", format!("no evidence page states `{value}`"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_numbers_are_matched_whole() {
        assert!(text_states("born in 1921 in Vess", "1921"));
        assert!(!text_states("born in 19210", "1921"));
        assert!(text_states("population 12,345.", "12345"));
        assert!(!text_states("population 12,345.", "12"));
        assert!(!text_states("Vessa Hall", "Vess"));
        assert!(text_states("[Vess](https://x/wiki/Vess)", "Vess"));
    }

    #[test]
    fn ids_carry_the_world() {
        assert!(id_matches("w00042-t017", Some(42)));
        assert!(!id_matches("w00042-t017", Some(41)));
        assert!(!id_matches("w42-t017", None));
        assert!(!id_matches("t017", None));
    }

    #[test]
    fn answers_recompute_from_rows() {
        let rows = vec![
            vec!["Vess".to_string(), "12".to_string()],
            vec!["Vess".to_string(), "9".to_string()],
        ];
        let got = answer_from_rows(&Value::from("Vess"), &rows).unwrap();
        assert_eq!(got, Value::from("Vess"));
        assert_eq!(required_values("aggregate", &got, &rows), ["12", "9"]);
        let bad = vec![vec!["Vess".to_string()], vec!["Orr".to_string()]];
        assert!(answer_from_rows(&Value::from("Vess"), &bad).is_err());
    }
}
