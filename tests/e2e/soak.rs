//! `fabula bench soak` against a server it starts on a tiny dataset: a few seconds of the `mix`
//! scenario with no real errors and an RSS series, and an `initialize` flood that the server's MCP
//! session cap turns into counted 429 refusals.

use serde_json::Value;

use super::{fabula, generate};

/// Runs `fabula bench soak --json ARGS` on a fresh two-world dataset and returns the report.
fn soak(args: &[&str]) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 2, 8);
    let mut all = vec!["bench", "soak", "--worlds", dir.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let out = fabula(&all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The report's line for one operation.
fn op<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|op| op["op"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report:#}"))
}

#[test]
fn a_short_mixed_soak_has_no_real_errors_and_an_rss_series() {
    let report = soak(&[
        "--scenario",
        "mix",
        "--duration",
        "3s",
        "--connections",
        "8",
        "--error-rate",
        "0.2",
        "--settle",
        "1s",
    ]);
    assert_eq!(report["real_errors"], 0, "{report:#}");
    assert!(report["requests"].as_u64().unwrap() > 50, "{report:#}");
    for name in [
        "search",
        "search_batch",
        "extract",
        "session_create",
        "session_search",
        "session_log",
        "session_delete",
        "mcp_initialize",
        "mcp_tool_call",
        "mcp_delete",
    ] {
        let line = op(&report, name);
        assert!(line["ok"].as_u64().unwrap() > 0, "{name}: {line}");
        assert!(line["p99_ms"].as_f64().unwrap() > 0.0, "{name}: {line}");
    }
    // Injected faults are counted apart from real errors, at about the rate asked.
    assert!(
        report["injected_errors"].as_u64().unwrap() > 0,
        "{report:#}"
    );
    let seen = report["injected_rate_seen"].as_f64().unwrap();
    assert!((0.05..0.5).contains(&seen), "{seen}");
    let samples = report["rss"]["samples"].as_array().unwrap();
    assert!(samples.len() >= 3, "{report:#}");
    assert!(samples.iter().all(|s| s["rss_kib"].as_u64().unwrap() > 0));
    assert!(report["rss"]["max_kib"].as_u64().unwrap() > 0);
    assert!(
        report["rss"]["flat_within_10pct"].is_boolean(),
        "{report:#}"
    );
}

#[test]
fn an_initialize_flood_is_refused_at_the_mcp_session_cap() {
    let report = soak(&[
        "--scenario",
        "mcp-flood",
        "--calls",
        "300",
        "--connections",
        "8",
        "--server-arg=--max-mcp-sessions=100",
    ]);
    let line = op(&report, "mcp_initialize");
    assert_eq!(line["requests"], 300, "{line}");
    assert_eq!(line["ok"], 100, "{line}");
    assert_eq!(line["refused"], 200, "{line}");
    assert_eq!(report["refusals_429"], 200);
    assert_eq!(report["real_errors"], 0, "{report:#}");
}

#[test]
fn a_log_flood_keeps_one_session_and_reads_its_log() {
    let report = soak(&[
        "--scenario",
        "log-flood",
        "--calls",
        "20",
        "--connections",
        "4",
    ]);
    assert_eq!(op(&report, "session_search")["ok"], 20, "{report:#}");
    assert_eq!(report["real_errors"], 0, "{report:#}");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("session log after the flood: 20 calls"),
        "{notes}"
    );
}
