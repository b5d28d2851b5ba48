//! The task rules of `fabula check`: each stored task is verified from the world file alone.
//!
//! Each task's SQL is re-run and its result compared with the stored answer; the evidence urls
//! must be pages of the world and each gold value must be stated on at least one of them (by a
//! recorded fact or in the page text); and each world must hold enough tasks. Rules:
//! `tasks.count`, `tasks.id`, `tasks.kind`, `tasks.question`, `tasks.sql`, `tasks.answer`,
//! `tasks.evidence`, `tasks.stated`, `tasks.tier` (the stored tier fits the evidence count and
//! whether the question is a frontier one), `tasks.threshold` (no number a query compares a column
//! with is a value of that column in the world, [`crate::threshold`]) and `tasks.frontier` (a
//! frontier question's clues each hold for at least 20 people, together for exactly one, and at
//! least 2 people fail exactly one, counted by SQL on the world file) and `tasks.fields` (every
//! field a frontier clue stands for is defined on a glossary page of its world,
//! [`crate::glossary`]). What an answer means is
//! the checker's own [`crate::answer`], the numbers are its [`crate::contract`], and frontier
//! questions are told by [`crate::frontier`] and measured by [`crate::search_space`].

use fabula_file::{Task, TaskKind, Tier, WorldFile};
use serde_json::Value;

use crate::answer::{Answer, page_states};
use crate::contract::{
    FRONTIER_MIN_CANDIDATES, FRONTIER_MIN_NEAR_MISSES, MIN_TABLE_TASKS, MIN_TASKS,
};
use crate::frontier::{frontier_answers, is_frontier};
use crate::glossary::Glossaries;
use crate::search_space;
use crate::threshold::Values;
use crate::{Violation, violation};

const TASKS_TABLE: &str = "fabula_tasks";

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

/// Runs the task rules on one open world file named `world` in violations.
pub(crate) fn check_tasks(file: &WorldFile, world: &str, out: &mut Vec<Violation>) {
    let tasks = match file.tasks() {
        Ok(tasks) => tasks,
        Err(e) => {
            // The values of `fabula_tasks` the reader refuses are a kind or a tier it does not
            // know.
            let rule = match &e {
                fabula_file::Error::BadValue {
                    table: TASKS_TABLE,
                    reason,
                    ..
                } if reason.contains("tier") => "tasks.tier",
                fabula_file::Error::BadValue {
                    table: TASKS_TABLE, ..
                } => "tasks.kind",
                _ => "tasks.count",
            };
            let detail = format!("cannot read tasks: {e}");
            out.push(violation(world, TASKS_TABLE, None, rule, &detail));
            return;
        }
    };
    let world_id: Option<u32> = file
        .meta_value("world_id")
        .ok()
        .flatten()
        .and_then(|v| v.parse().ok());
    let n_tables = tasks.iter().filter(|t| t.kind == TaskKind::Table).count();
    if tasks.len() < MIN_TASKS || n_tables < MIN_TABLE_TASKS {
        let detail = format!(
            "{} tasks of which {n_tables} table tasks, want at least {MIN_TASKS} and {MIN_TABLE_TASKS}",
            tasks.len()
        );
        out.push(violation(world, TASKS_TABLE, None, "tasks.count", &detail));
    }
    let report = |out: &mut Vec<Violation>, rule: &str, detail: String| {
        out.push(violation(world, TASKS_TABLE, None, rule, &detail));
    };
    let values = match Values::read(file) {
        Ok(values) => Some(values),
        Err(e) => {
            let detail = format!("cannot read the domain rows: {e}");
            report(out, "tasks.threshold", detail);
            None
        }
    };
    // Read once, and only for a world with frontier questions.
    let mut glossaries = None;
    for task in &tasks {
        check_task(file, world, world_id, task, out);
        if let Some(detail) = frontier_problem(file, task) {
            report(out, "tasks.frontier", format!("task {}: {detail}", task.id));
        }
        if is_frontier(&task.question) {
            let read = glossaries.get_or_insert_with(|| Glossaries::read(file));
            match read {
                Ok(glossaries) => {
                    for set in glossaries.undefined(&task.sql) {
                        let detail = format!(
                            "task {}: no glossary page defines the field {set:?} a clue stands for",
                            task.id
                        );
                        report(out, "tasks.fields", detail);
                    }
                }
                Err(e) => report(out, "tasks.fields", format!("cannot read the pages: {e}")),
            }
        }
        if let Some(detail) = tier_problem(task) {
            report(out, "tasks.tier", format!("task {}: {detail}", task.id));
        }
        for detail in values.iter().flat_map(|v| v.on_values(&task.sql)) {
            let detail = format!("task {}: threshold on a value, {detail}", task.id);
            report(out, "tasks.threshold", detail);
        }
    }
}

/// What keeps a frontier question from its constraints, measured on the world file: every clue
/// holds for at least [`FRONTIER_MIN_CANDIDATES`] people, all of them for exactly one (two to four for a name-all question), and at
/// least [`FRONTIER_MIN_NEAR_MISSES`] people fail exactly one. `None` for any other question.
fn frontier_problem(file: &WorldFile, task: &Task) -> Option<String> {
    let answers = frontier_answers(&task.question)?;
    let space = match search_space::measure(file, &task.sql) {
        Ok(Some(space)) => space,
        Ok(None) => return Some("the query is not one condition per clue".into()),
        Err(e) => return Some(format!("the clues cannot be counted: {e}")),
    };
    let fits = space.smallest_candidates >= FRONTIER_MIN_CANDIDATES
        && space.near_misses >= FRONTIER_MIN_NEAR_MISSES
        && answers.contains(&space.answers);
    (!fits).then(|| {
        format!(
            "a clue holds for {} rows (want {FRONTIER_MIN_CANDIDATES}+), {} near misses (want \
             {FRONTIER_MIN_NEAR_MISSES}+), {} rows fit every clue (want {answers:?})",
            space.smallest_candidates, space.near_misses, space.answers
        )
    })
}

/// What makes a stored tier impossible by what the world file alone says: a frontier tier
/// exactly for frontier questions; otherwise one evidence page is easy, `medium` needs 2 or 3
/// pages and `hard` 4 or more. An easy task may need more pages (its answer may show in the
/// question or in the results of searching it, which the checker does not run).
fn tier_problem(task: &Task) -> Option<String> {
    let frontier = is_frontier(&task.question);
    if frontier != (task.tier == Tier::Frontier) {
        return Some(format!(
            "tier {} for a {}frontier question",
            task.tier,
            if frontier { "" } else { "non-" }
        ));
    }
    let pages = serde_json::from_str::<Vec<String>>(&task.evidence).map_or(0, |urls| urls.len());
    let fits = match task.tier {
        Tier::Frontier | Tier::Easy => true,
        Tier::Medium => (2..=3).contains(&pages),
        Tier::Hard => pages >= 4,
    };
    (!fits).then(|| format!("tier {} with {pages} evidence pages", task.tier))
}

/// One evidence page as the rules read it: its body and the texts its facts show.
struct Evidence {
    body: String,
    shown: Vec<String>,
}

fn evidence_page(file: &WorldFile, url: &str) -> fabula_file::Result<Option<Evidence>> {
    Ok(file.page(url)?.map(|stored| Evidence {
        shown: stored.page.facts.into_iter().map(|f| f.shown).collect(),
        body: stored.page.body,
    }))
}

/// Runs every per-task rule on one task.
fn check_task(
    file: &WorldFile,
    world: &str,
    world_id: Option<u32>,
    task: &Task,
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
    if (task.kind == TaskKind::Table) != stored.is_object() {
        report(
            "tasks.answer",
            "table tasks, and only they, have table answers".into(),
        );
    }
    let rows = match file.query_text(&task.sql) {
        Ok(rows) => rows,
        Err(e) => return report("tasks.sql", e),
    };
    let gold = match Answer::stored(&stored) {
        Ok(gold) => Some(gold),
        Err(e) => {
            report("tasks.answer", e);
            None
        }
    };
    match gold.as_ref().map(|gold| (gold, gold.from_rows(&rows))) {
        None => {}
        Some((gold, Ok(derived))) if derived == *gold => {}
        Some((_, Ok(derived))) => report(
            "tasks.answer",
            format!(
                "stored {stored} but the database gives {}",
                derived.to_json_like(&stored)
            ),
        ),
        Some((_, Err(e))) => report("tasks.answer", e),
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
        match evidence_page(file, url) {
            Ok(Some(page)) => pages.push(page),
            Ok(None) => report(
                "tasks.evidence",
                format!("evidence page {url} does not exist"),
            ),
            Err(e) => report("tasks.evidence", format!("cannot read page {url}: {e}")),
        }
    }
    let required = gold.map(|gold| gold.must_state(task.kind, &rows));
    for value in required.into_iter().flatten() {
        if !pages.iter().any(|p| page_states(&p.body, &p.shown, &value)) {
            report("tasks.stated", format!("no evidence page states `{value}`"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, world_id: Option<u32>, expect: bool) {
        assert_eq!(
            id_matches(id, world_id),
            expect,
            "{id} in world {world_id:?}"
        );
    }

    #[test]
    fn ids_carry_the_world() {
        check("w00042-t017", Some(42), true);
        check("w00042-t017", Some(41), false);
        check("w00042-t017", None, true);
        check("w42-t017", None, false);
        check("t017", None, false);
        check("w00042-x017", None, false);
    }

    #[test]
    fn stored_tiers_fit_the_evidence_and_the_question() {
        let frontier =
            "Track down the colonist who was born in the 2140s; and held an office in a guild.";
        let check = |question: &str, pages: usize, tier: Tier, expect: Option<&str>| {
            let urls: Vec<String> = (0..pages).map(|i| format!("/p{i}")).collect();
            let task = Task {
                id: "w00000-t000".into(),
                kind: TaskKind::Identify,
                question: question.into(),
                answer: "\"1\"".into(),
                evidence: serde_json::to_string(&urls).unwrap(),
                hops: 1,
                sql: "SELECT 1".into(),
                tier,
                effort: None,
            };
            assert_eq!(tier_problem(&task).as_deref(), expect, "{tier} {pages}");
        };
        check("How many?", 1, Tier::Easy, None);
        check("How many?", 5, Tier::Easy, None);
        check("How many?", 3, Tier::Medium, None);
        check("How many?", 4, Tier::Hard, None);
        check(frontier, 9, Tier::Frontier, None);
        check(
            "How many?",
            1,
            Tier::Medium,
            Some("tier medium with 1 evidence pages"),
        );
        check(
            "How many?",
            3,
            Tier::Hard,
            Some("tier hard with 3 evidence pages"),
        );
        check(
            "How many?",
            9,
            Tier::Frontier,
            Some("tier frontier for a non-frontier question"),
        );
        check(
            frontier,
            9,
            Tier::Hard,
            Some("tier hard for a frontier question"),
        );
    }
}
