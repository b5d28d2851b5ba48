//! Task building: determinism, counts and kinds, ids, phrasings and unambiguous answers.

use std::collections::{BTreeMap, BTreeSet};

use fabula_file::TaskKind;
use fabula_tasks::phrasings::match_question;

use rayon::prelude::*;

use crate::common::{rendered, rendered_many, rendered_of};

#[test]
fn tasks_are_deterministic() {
    let (_, _, a) = rendered(3);
    let (_, _, b) = rendered(3);
    assert_eq!(a, b);
    let (_, _, c) = rendered(4);
    assert_ne!(a, c);
}

#[test]
fn every_world_has_enough_tasks_of_every_kind() {
    for (world, _, tasks) in rendered_many(24) {
        let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for t in &tasks {
            *by_kind.entry(t.kind.as_str()).or_default() += 1;
        }
        let tables = by_kind.get("table").copied().unwrap_or(0);
        assert!(
            tasks.len() >= fabula_tasks::MIN_TASKS,
            "world {}: {by_kind:?}",
            world.id
        );
        assert!(tables >= 5, "world {}: {by_kind:?}", world.id);
        for kind in ["lookup", "multi_hop", "compare", "aggregate", "temporal"] {
            assert!(
                by_kind.get(kind).copied().unwrap_or(0) >= 1,
                "world {} lacks {kind}: {by_kind:?}",
                world.id
            );
        }
        let ids: BTreeSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids.len(), tasks.len(), "ids are unique");
        let questions: BTreeSet<&str> = tasks.iter().map(|t| t.question.as_str()).collect();
        assert_eq!(questions.len(), tasks.len(), "questions are unique");
        for t in &tasks {
            assert!(t.id.starts_with(&format!("w{:05}-t", world.id)), "{}", t.id);
        }
    }
}

/// The worlds of master seed 0 with the fewest people (60 to 68): the fewest frontier questions
/// a world allows.
const FEW_PEOPLE: [u32; 8] = [435, 455, 576, 880, 446, 389, 619, 199];

/// Every world keeps a fifth of its tasks easy whatever search shows (one page answers them),
/// small worlds too. A sixteenth of all tasks are frontier questions, and three worlds in four
/// have two or more: a frontier question's cheapest plan must reach 35 calls, and 45 for an
/// agent that stops at the first candidate fitting every clue, with no place or organisation as
/// a handle. A world of 60 people allows that for few of its people or none (an agent pages
/// through them all and opens half in about 33 calls).
#[test]
fn every_world_mixes_easy_and_frontier_tasks() {
    let small = FEW_PEOPLE.into_par_iter().map(|id| rendered_of(0, id));
    let worlds: Vec<_> = rendered_many(24).into_par_iter().chain(small).collect();
    let (mut frontier_all, mut tasks_all, mut with_frontier) = (0, 0, 0);
    let count = worlds.len();
    for (world, _, tasks) in worlds {
        let one_page = tasks
            .iter()
            .filter(|t| {
                serde_json::from_str::<Vec<String>>(&t.evidence)
                    .unwrap()
                    .len()
                    <= 1
            })
            .count();
        assert!(
            one_page * 5 >= tasks.len(),
            "world {}: {one_page} of {} tasks on one page",
            world.id,
            tasks.len()
        );
        let frontier = tasks
            .iter()
            .filter(|t| fabula_tasks::difficulty::is_frontier(&t.question))
            .count();
        with_frontier += usize::from(frontier >= 2);
        frontier_all += frontier;
        tasks_all += tasks.len();
    }
    eprintln!(
        "{frontier_all} of {tasks_all} tasks frontier; {with_frontier} of {count} worlds with 2 \
         or more"
    );
    assert!(
        with_frontier * 10 >= count * 7,
        "{with_frontier} of {count} worlds have 2 frontier tasks or more"
    );
    assert!(
        frontier_all * 16 >= tasks_all,
        "{frontier_all} of {tasks_all} tasks frontier"
    );
}

#[test]
fn questions_map_back_to_their_phrasing_and_name_no_tables() {
    let mut phrasings = BTreeSet::new();
    for (world, _, tasks) in rendered_many(12) {
        let layout = fabula_world::schema::layout(&world);
        for t in &tasks {
            let m = match_question(&t.question).unwrap_or_else(|| panic!("{}", t.question));
            assert_eq!(m.kind, t.kind.as_str(), "{}", t.question);
            phrasings.insert(m.phrasing_id);
            assert!(!t.question.contains('_'), "{}", t.question);
            for table in &layout.tables {
                if table.name.contains('_') {
                    assert!(!t.question.contains(&table.name), "{}", t.question);
                }
            }
        }
    }
    // Several phrasings per kind are in use.
    for kind in [
        "lookup",
        "multi_hop",
        "compare",
        "aggregate",
        "temporal",
        "table",
    ] {
        let n = phrasings
            .iter()
            .filter(|p| p.starts_with(&format!("{kind}.")))
            .count();
        assert!(n >= 3, "{kind}: {n} phrasings used");
    }
}

#[test]
fn table_answers_have_a_key_and_three_to_six_attributes() {
    for (world, _, tasks) in rendered_many(12) {
        for t in tasks.iter().filter(|t| t.kind == TaskKind::Table) {
            let answer: serde_json::Value = serde_json::from_str(&t.answer).unwrap();
            let columns = answer["columns"].as_array().unwrap();
            let rows = answer["rows"].as_array().unwrap();
            assert!(
                (4..=7).contains(&columns.len()),
                "world {} {}",
                world.id,
                t.answer
            );
            assert!(
                (5..=95).contains(&rows.len()),
                "world {} {}",
                world.id,
                t.id
            );
            let keys: BTreeSet<String> = rows.iter().map(|r| r[0].to_string()).collect();
            assert_eq!(keys.len(), rows.len(), "keys are unique");
            fabula_score::Gold::from_json(&answer).unwrap();
        }
    }
}
