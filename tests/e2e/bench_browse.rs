//! `fabula bench browse --worlds DIR`: the bench serves a tiny dataset in process, requests every
//! view of the world browser and reports each view's latency as JSON; every answer is a page.

use serde_json::Value;

use super::{fabula, generate};

/// Every view the report must hold, by its JSON name.
const VIEWS: [&str; 10] = [
    "agent_dataset",
    "agent_theme_page",
    "world",
    "page",
    "row",
    "admin_dataset",
    "admin_world",
    "task",
    "sessions",
    "session",
];

#[test]
fn every_browser_view_is_timed_and_answers_a_page() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 3, 5);
    let dir = dir.to_str().unwrap();
    let out = fabula(&[
        "bench",
        "browse",
        "--worlds",
        dir,
        "--requests",
        "3",
        "--json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let views = report["views"].as_array().unwrap();
    let names: Vec<&str> = views.iter().map(|v| v["view"].as_str().unwrap()).collect();
    assert_eq!(names, VIEWS, "{report:#}");
    for view in views {
        assert_eq!(view["requests"], 3, "{view:#}");
        assert_eq!(view["failures"], 0, "{view:#}");
        let (p99, max) = (
            view["p99_ms"].as_f64().unwrap(),
            view["max_ms"].as_f64().unwrap(),
        );
        assert!(0.0 < p99 && p99 <= max, "{view:#}");
    }
    let first = &report["first_admin_dataset"];
    assert_eq!(
        (&first["view"], &first["requests"], &first["failures"]),
        (
            &Value::from("admin_dataset"),
            &Value::from(1),
            &Value::from(0)
        ),
        "{report:#}"
    );
    assert_eq!(report["worlds"], 3, "{report:#}");
    assert_eq!(report["failed_requests"], 0, "{report:#}");
    assert!(report["session_calls"].as_u64().unwrap() > 0, "{report:#}");
}

#[test]
fn a_directory_without_a_manifest_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = fabula(&["bench", "browse", "--worlds", tmp.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("reading the manifest of"), "{stderr}");
}
