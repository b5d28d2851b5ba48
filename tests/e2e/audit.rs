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
