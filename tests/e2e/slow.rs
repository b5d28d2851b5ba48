//! Slow end-to-end runs (1,000 worlds): `#[ignore]`d, so `cargo test` lists them as ignored, and
//! run in CI's dedicated step with `cargo test --workspace -- --ignored`. In a debug build the
//! generation and the check of 1,000 worlds take about 900 and 600 CPU seconds, so one
//! generation serves every check of these worlds: the rules, the manifest's spread, and the
//! English of the first 100 worlds' pages.

use std::collections::BTreeMap;

use super::english::assert_reads_as_english;
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

    // The first 100 worlds are byte for byte those of `generate --count 100 --seed 7`.
    let started = std::time::Instant::now();
    assert_reads_as_english(&dir, 100);
    eprintln!(
        "read the pages of 100 worlds as English in {:.1} s (debug build)",
        started.elapsed().as_secs_f64()
    );
}
