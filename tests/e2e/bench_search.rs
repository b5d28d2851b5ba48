//! `fabula bench search --worlds DIR`: the bench starts its own server on a tiny dataset, runs a
//! cold, a warm and a ceiling phase, stops the server, and reports every figure as JSON.

use serde_json::Value;

use super::{fabula, generate};

#[test]
fn a_started_server_is_measured_cold_warm_and_at_its_ceiling() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 3, 5);
    let out = fabula(&[
        "bench",
        "search",
        "--worlds",
        dir.to_str().unwrap(),
        "--cold",
        "1",
        "--duration",
        "1",
        "--ceiling",
        "1",
        "--connections",
        "4",
        "--json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    for phase in ["cold", "warm", "ceiling"] {
        let figures = &report[phase];
        assert!(
            figures["requests"].as_u64().unwrap() > 0,
            "{phase}: {report:#}"
        );
        assert_eq!(figures["errors"], 0, "{phase}: {report:#}");
        assert!(
            figures["p99_ms"].as_f64().unwrap() > 0.0,
            "{phase}: {report:#}"
        );
    }
    assert_eq!(report["worlds"], 3, "{report:#}");
    assert_eq!(report["started_server"], true, "{report:#}");
    let ready = report["ready_s"].as_f64().unwrap();
    assert!(
        ready > 0.0 && ready <= report["setup_s"].as_f64().unwrap(),
        "{report:#}"
    );
    let touched = report["cold"]["worlds_touched"].as_u64().unwrap();
    assert_eq!(
        touched + report["sweep_worlds"].as_u64().unwrap(),
        3,
        "{report:#}"
    );
    let share = report["warm_share_of_ceiling_pct"].as_f64().unwrap();
    assert!(share > 0.0 && share <= 100.0, "{report:#}");
    assert_eq!(report["server_exit"]["code"], 0, "{report:#}");
    assert_eq!(report["server_exit"]["killed"], false, "{report:#}");
}

#[test]
fn server_arguments_need_a_server_to_start() {
    fn check(args: &[&str], expect: &str) {
        let mut all = vec!["bench", "search", "--server-arg=--request-timeout=5s"];
        all.extend_from_slice(args);
        let out = fabula(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
    check(&[], "required arguments were not provided:\n  --worlds");
    check(&["--addr", "127.0.0.1:9"], "cannot be used with");
}
