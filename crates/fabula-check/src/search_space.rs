//! The search space of a frontier question, measured on the world file alone: how many rows
//! each of its clues holds for (the smallest is the smallest candidate set a single clue
//! reaches) and how many rows fail exactly one clue (near misses).
//!
//! A frontier task's query is `SELECT ... FROM ... WHERE (c1) AND (c2) ...`, one parenthesised
//! condition per clue (the SQL convention of frontier questions, `fabula-tasks`'
//! `build/frontier.rs`); each condition is counted on its own with the world file's read-only
//! query. `fabula check` holds frontier questions to these figures and `fabula audit` (crate
//! `fabula-audit`) reports them through this module.

use fabula_file::WorldFile;

/// The measured search space of one question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSpace {
    /// The fewest rows any one clue holds for.
    pub smallest_candidates: usize,
    /// The rows that fail exactly one clue.
    pub near_misses: usize,
    /// The rows every clue holds for.
    pub answers: usize,
}

/// Measures a task's query; `None` when it is not one `SELECT ... WHERE (c1) AND ...` of at
/// least two clues. A query the world file refuses is an error, with the reason.
pub fn measure(file: &WorldFile, sql: &str) -> Result<Option<SearchSpace>, String> {
    let Some((from, clues)) = split(sql) else {
        return Ok(None);
    };
    if clues.len() < 2 {
        return Ok(None);
    }
    let count = |condition: &str| -> Result<usize, String> {
        let sql = format!("SELECT COUNT(*) FROM {from} WHERE {condition}");
        let rows = file.query_text(&sql)?;
        let cell = rows.first().and_then(|r| r.first());
        Ok(cell.and_then(|c| c.parse().ok()).unwrap_or(0))
    };
    let mut smallest = usize::MAX;
    for clue in &clues {
        smallest = smallest.min(count(&format!("({clue})"))?);
    }
    let held: Vec<String> = clues
        .iter()
        .map(|c| format!("COALESCE(({c}), 0)"))
        .collect();
    let sum = held.join(" + ");
    Ok(Some(SearchSpace {
        smallest_candidates: smallest,
        near_misses: count(&format!("({sum}) = {}", clues.len() - 1))?,
        answers: count(&format!("({sum}) = {}", clues.len()))?,
    }))
}

/// The `FROM` part and the clue conditions of `SELECT ... FROM f WHERE (c1) AND (c2) ...`.
fn split(sql: &str) -> Option<(&str, Vec<&str>)> {
    let (head, condition) = sql.split_once(" WHERE ")?;
    let (_, from) = head.split_once(" FROM ")?;
    let mut clues = Vec::new();
    let (mut depth, mut quoted, mut start) = (0_i32, false, 0);
    let bytes = condition.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => depth -= 1,
            b' ' if !quoted && depth == 0 && condition[i..].starts_with(" AND ") => {
                clues.push(condition[start..i].trim());
                i += " AND ".len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    clues.push(condition[start..].trim());
    let inner: Option<Vec<&str>> = clues
        .into_iter()
        .map(|c| c.strip_prefix('(')?.strip_suffix(')'))
        .collect();
    Some((from, inner?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sql: &str, expect: Option<(&str, &[&str])>) {
        let got = split(sql);
        let got = got.as_ref().map(|(f, c)| (*f, c.as_slice()));
        assert_eq!(got, expect, "{sql}");
    }

    #[test]
    fn clues_split_at_top_level_ands() {
        check(
            "SELECT p.name FROM people p WHERE (p.born BETWEEN 2140 AND 2159) AND \
             (p.job IN ('a AND b', 'c')) AND (EXISTS (SELECT 1 FROM x WHERE x.a = 1 AND x.b = 2))",
            Some((
                "people p",
                &[
                    "p.born BETWEEN 2140 AND 2159",
                    "p.job IN ('a AND b', 'c')",
                    "EXISTS (SELECT 1 FROM x WHERE x.a = 1 AND x.b = 2)",
                ],
            )),
        );
        check("SELECT p.name FROM people p WHERE p.born < 2100", None);
        check("SELECT 1", None);
    }
}
