//! Slow end-to-end runs (1,000 worlds): `#[ignore]`d, so `cargo test` lists them as ignored, and
//! run in CI's dedicated step with `cargo test --workspace -- --ignored`.

use std::collections::BTreeMap;

use super::fabula;

#[test]
#[ignore = "slow: 1,000 worlds; CI runs it with --ignored"]
fn slow_thousand_worlds_generate_and_check() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    let started = std::time::Instant::now();
    let out = fabula(&[
        "generate",
        "--count",
        "1000",
        "--seed",
        "7",
        "--out",
        dir.to_str().unwrap(),
        // What this test measures is generation and the check; the indexes are tested apart.
        "--no-index",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "generated 1,000 worlds in {:.1} s (debug build)",
        started.elapsed().as_secs_f64()
    );
    let out = fabula(&["check", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("checked 1000 worlds"), "{stdout}");

    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut per_theme: BTreeMap<String, usize> = BTreeMap::new();
    for w in manifest["worlds"].as_array().unwrap() {
        *per_theme
            .entry(w["theme"].as_str().unwrap().to_string())
            .or_default() += 1;
        let pages = w["pages"].as_u64().unwrap();
        assert!((300..=2000).contains(&pages), "{w}");
    }
    assert!(
        per_theme.len() >= 8 && per_theme.values().all(|n| *n >= 50),
        "{per_theme:?}"
    );
}
