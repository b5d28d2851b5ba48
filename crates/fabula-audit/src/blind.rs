//! The blind baseline: answers every task without searching, to show tasks are not guessable.
//!
//! For each test task it answers the most common gold answer among the train tasks of the same
//! kind and phrasing (the phrasing id comes from [`fabula_vocab::phrasing_id`]); failing that, of the
//! same kind; ties go to the answer whose JSON text sorts first. Scored with fabula-score, its
//! exact match on the test split must stay under 5% for every short-answer kind.

use std::collections::BTreeMap;

use fabula_score::{PredictionRecord, TaskKind, TaskRecord};
use serde_json::Value;

use fabula_vocab::phrasing_id;

/// Counts answers by their JSON text and returns the most common, ties to the smallest text.
fn most_common(counts: &BTreeMap<String, (usize, Value)>) -> Option<Value> {
    counts
        .iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(a.0)))
        .map(|(_, (_, v))| v.clone())
}

/// Predicts every test task from the train tasks alone, in test order.
pub fn blind_baseline(train: &[TaskRecord], test: &[TaskRecord]) -> Vec<PredictionRecord> {
    let mut by_phrasing: BTreeMap<(TaskKind, String), BTreeMap<String, (usize, Value)>> =
        BTreeMap::new();
    let mut by_kind: BTreeMap<TaskKind, BTreeMap<String, (usize, Value)>> = BTreeMap::new();
    for task in train {
        let text = task.answer.to_string();
        let phrasing = phrasing_id(&task.question).unwrap_or_default();
        for counts in [
            by_phrasing.entry((task.kind, phrasing)).or_default(),
            by_kind.entry(task.kind).or_default(),
        ] {
            counts
                .entry(text.clone())
                .or_insert((0, task.answer.clone()))
                .0 += 1;
        }
    }
    test.iter()
        .map(|task| {
            let phrasing = phrasing_id(&task.question).unwrap_or_default();
            let answer = by_phrasing
                .get(&(task.kind, phrasing))
                .and_then(most_common)
                .or_else(|| by_kind.get(&task.kind).and_then(most_common))
                .unwrap_or(Value::String(String::new()));
            PredictionRecord {
                task_id: task.id.clone(),
                answer,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(id: &str, question: &str, answer: &str) -> TaskRecord {
        serde_json::from_value(
            json!({"world": 1, "id": id, "kind": "lookup", "question": question, "answer": answer}),
        )
        .unwrap()
    }

    #[test]
    fn answers_the_most_common_answer_of_the_phrasing() {
        let train = [
            task("a", "In what year was Vess Orr born?", "1900"),
            task("b", "In what year was Kel Orr born?", "1900"),
            task("c", "In what year was Amo Tal born?", "1901"),
            task("d", "Who founded the guild Vess Hall?", "Amo Tal"),
        ];
        let test = [
            task("e", "In what year was Ila Tal born?", "1777"),
            task("f", "Who founded the guild Kel Hall?", "x"),
        ];
        let predictions = blind_baseline(&train, &test);
        assert_eq!(predictions[0].answer, json!("1900"));
        assert_eq!(predictions[1].answer, json!("Amo Tal"));
    }
}
