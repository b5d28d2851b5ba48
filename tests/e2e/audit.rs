//! `fabula audit` from the command line: the table, and the JSON with one row per kind and tier.

use crate::{fabula, generate};

#[test]
fn audit_prints_the_ladder_as_a_table_and_as_json() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 2, 31);
    let path = dir.path().to_str().unwrap();
    let out = fabula(&["audit", path, "--jobs", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let head = text.lines().next().unwrap_or_default();
    let tasks: u64 = head
        .strip_prefix("2 worlds, ")
        .and_then(|rest| rest.strip_suffix(" tasks"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(tasks >= 2 * fabula_tasks::MIN_TASKS as u64, "{text}");
    assert!(
        text.lines().nth(1).is_some_and(|l| l.starts_with("kind")),
        "{text}"
    );
    let out = fabula(&["audit", path, "--json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let last = rows.last().unwrap();
    assert_eq!(
        (last["kind"].as_str(), last["tier"].as_str()),
        (Some("all"), Some("all"))
    );
    assert_eq!(last["tasks"], tasks);
    let missing = fabula(&["audit", "/nonexistent/dataset"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("auditing /nonexistent/dataset"));
}

/// `fabula eval --blind`: the most common train answer scored on the test split, then the cheap
/// guessers per kind and tier over every task (7 worlds: world 6 is the first of the test split).
#[test]
fn eval_blind_reports_the_guessers_per_kind_and_tier() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 7, 31);
    let path = dir.path().to_str().unwrap();
    let out = fabula(&["eval", "--blind", "--worlds", path, "--jobs", "1", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let test_tasks = report["test_split"]["per_task"].as_array().unwrap().len();
    let rows = report["guessers"]["rows"].as_array().unwrap();
    let all = rows.last().unwrap();
    assert_eq!(
        (all["kind"].as_str(), all["tier"].as_str()),
        (Some("all"), Some("all"))
    );
    let tasks = all["tasks"].as_u64().unwrap() as usize;
    assert!(
        test_tasks >= fabula_tasks::MIN_TASKS && tasks >= 7 * test_tasks / 2,
        "{tasks}"
    );
    for row in rows {
        let tier = row["tier"].as_str().unwrap();
        assert!(
            ["easy", "medium", "hard", "frontier", "all"].contains(&tier),
            "{row}"
        );
        for guesser in ["most_common", "random_entity", "first_option"] {
            let share = &row[guesser];
            assert!(
                share.is_null() || (0.0..=1.0).contains(&share.as_f64().unwrap()),
                "{row}"
            );
        }
    }
    assert!(
        rows.iter()
            .any(|r| r["tier"] == "hard" && r["kind"] != "all")
    );
    let out = fabula(&["eval", "--blind", "--worlds", path, "--jobs", "1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("cheap guessers per kind and tier"), "{text}");
    let header = ["kind", "tier", "tasks", "common", "random", "first", "1/n"];
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().eq(header.iter().copied())),
        "{text}"
    );
}
