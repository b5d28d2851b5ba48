//! Trusting nothing on disk: an edited manifest stops the server at start; a world file that is
//! missing, damaged, foreign or not the file the manifest hashes makes that world 503
//! `world_unavailable` from its first use on (kept, not retried), `/health` says `degraded` and
//! lists it, and the other worlds are still served.

use std::path::Path;

use fabula_server::{AppState, ServeConfig, app};
use serde_json::{Value, json};

use crate::support::{TestApp, assert_error, fixture_worlds, write_corpus};

/// A corpus of the fixture worlds (0 and 3) in a temporary directory, changed by `damage`
/// before the app opens it.
fn app_after(damage: impl FnOnce(&Path)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &fixture_worlds());
    damage(dir.path());
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        ..ServeConfig::default()
    };
    TestApp {
        router: app(AppState::open(&config).unwrap()),
        dir,
    }
}

/// Rewrites `dir/manifest.json` through `edit`.
fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

/// Writes the fixture corpus, edits its manifest and asserts that the server refuses to open
/// it with a message that contains `part`.
#[track_caller]
fn check_refused(edit: impl FnOnce(&mut Value), part: &str) {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &fixture_worlds());
    edit_manifest(dir.path(), edit);
    let config = ServeConfig {
        worlds: dir.path().to_owned(),
        ..ServeConfig::default()
    };
    let Err(error) = AppState::open(&config) else {
        panic!("a manifest that should fail with {part:?} was accepted");
    };
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message = format!("{message}: {cause}");
        source = cause.source();
    }
    assert!(message.contains(part), "{message}");
    assert!(message.contains("invalid manifest"), "{message}");
}

#[test]
fn edited_manifests_stop_the_server_at_start() {
    check_refused(
        |m| m["count"] = json!(3),
        "count is 3 but 2 worlds are listed",
    );
    check_refused(
        |m| m["worlds"][1]["id"] = json!(0),
        "world id 0 is listed twice",
    );
    check_refused(
        |m| m["worlds"][1]["file"] = json!("../other/world-00003.sqlite"),
        r#"world 3: file "../other/world-00003.sqlite" is not a plain file name inside the dataset directory"#,
    );
    check_refused(
        |m| m["worlds"][0]["file"] = json!("/etc/passwd"),
        r#"world 0: file "/etc/passwd" is not a plain file name"#,
    );
    check_refused(
        |m| m["worlds"][1]["file"] = json!("world-00000.sqlite"),
        r#"world 3: file "world-00000.sqlite" is not the expected "world-00003.sqlite""#,
    );
    check_refused(
        |m| m["worlds"][0]["sha256"] = json!("0"),
        r#"world 0: sha256 "0" is not 64 lower-case hex digits"#,
    );
    check_refused(
        |m| m["worlds"][0]["sha256"] = json!("A".repeat(64)),
        "is not 64 lower-case hex digits",
    );
}

/// Damages world 3 with `damage` before the app opens the corpus, then asserts that world 3
/// answers 503 `world_unavailable` with `reason` on search and extract (and `/health` lists it
/// from the start when its file is missing), that `/health` is degraded listing it, that world 0 is served, and that the failure is kept once world 3's good
/// file is back.
async fn check_unavailable(damage: impl FnOnce(&Path), reason: &str) {
    let mut good_file = Vec::new();
    let app = app_after(|dir| {
        good_file = std::fs::read(dir.join("world-00003.sqlite")).unwrap();
        damage(dir);
    });
    let expected = format!("world 3 is unavailable: {reason}");
    // A missing file is found at start (one stat per world); the contents are checked before
    // the first use (by the served app's sweep, which this router, served without it, has not run).
    let missing = !app.dir.path().join("world-00003.sqlite").exists();
    let at_start = if missing {
        (Some("degraded"), json!([3]))
    } else {
        (Some("ok"), json!([]))
    };
    let health = app.get("/health").await;
    assert_eq!(
        (
            health.json["status"].as_str(),
            health.json["unavailable"].clone()
        ),
        at_start,
        "only a missing file is found at start"
    );
    let search = json!({"query": "ferry"});
    let extract = json!({"url": "https://dravosk.example/wiki/Dravosk"});
    for (route, body) in [("search", &search), ("extract", &extract)] {
        let answer = app
            .post(&format!("/v1/worlds/3/{route}"), body.clone())
            .await;
        assert_error(&answer, 503, "world_unavailable");
        assert_eq!(answer.json["error"]["message"], expected, "{route}");
    }
    let health = app.get("/health").await;
    assert_eq!(health.status, 200, "a degraded instance stays in the pool");
    assert_eq!(
        health.json,
        json!({"status": "degraded", "worlds": 2, "sessions": 0, "unavailable": [3]})
    );
    let other = app
        .post("/v1/worlds/0/search", json!({"query": "harbour"}))
        .await;
    assert_eq!(
        other.status, 200,
        "other worlds still answer: {:#}",
        other.json
    );
    std::fs::write(app.dir.path().join("world-00003.sqlite"), &good_file).unwrap();
    let again = app.post("/v1/worlds/3/search", search).await;
    assert_error(&again, 503, "world_unavailable");
    assert_eq!(
        again.json["error"]["message"], expected,
        "kept, not retried"
    );
}

#[tokio::test]
async fn damaged_and_foreign_world_files_are_unavailable() {
    let world_3 = |dir: &Path| dir.join("world-00003.sqlite");
    let not_hashed = "its file does not match the manifest's sha256";
    check_unavailable(
        |dir| std::fs::remove_file(world_3(dir)).unwrap(),
        "its file is missing",
    )
    .await;
    check_unavailable(|dir| std::fs::write(world_3(dir), b"").unwrap(), not_hashed).await;
    check_unavailable(
        |dir| {
            let bytes = std::fs::read(world_3(dir)).unwrap();
            std::fs::write(world_3(dir), &bytes[..bytes.len() / 3]).unwrap();
        },
        not_hashed,
    )
    .await;
    check_unavailable(
        |dir| std::fs::write(world_3(dir), b"\x00\x17 random bytes \xff").unwrap(),
        not_hashed,
    )
    .await;
    let copy_world_0 = |dir: &Path| {
        std::fs::copy(dir.join("world-00000.sqlite"), world_3(dir)).unwrap();
    };
    check_unavailable(copy_world_0, not_hashed).await;
    check_unavailable(
        |dir| edit_manifest(dir, |m| m["worlds"][1]["sha256"] = json!("f".repeat(64))),
        not_hashed,
    )
    .await;
    // The manifest edited to hash the foreign file: its metadata still names world 0.
    let rehash = |dir: &Path| {
        let sha256 = fabula_file::sha256_file(&world_3(dir)).unwrap();
        edit_manifest(dir, |m| m["worlds"][1]["sha256"] = json!(sha256));
    };
    check_unavailable(
        |dir| {
            copy_world_0(dir);
            rehash(dir);
        },
        "its file holds world 0",
    )
    .await;
    check_unavailable(
        |dir| {
            std::fs::write(world_3(dir), b"not a database").unwrap();
            rehash(dir);
        },
        "its file is not a readable world file",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_uses_of_a_broken_world_all_answer_503() {
    let app = app_after(|dir| std::fs::write(dir.join("world-00003.sqlite"), b"").unwrap());
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let router = app.router.clone();
        tasks.push(tokio::spawn(async move {
            use tower::ServiceExt;
            let body = serde_json::to_vec(&json!({"query": "ferry"})).unwrap();
            let request = axum::http::Request::post("/v1/worlds/3/search")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body))
                .unwrap();
            router.oneshot(request).await.unwrap().status()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 503);
    }
    assert_eq!(app.get("/health").await.json["unavailable"], json!([3]));
}

#[tokio::test]
async fn a_healthy_corpus_reports_ok_with_no_unavailable_worlds() {
    let app = TestApp::new();
    for world in [0, 3] {
        let answer = app
            .post(
                &format!("/v1/worlds/{world}/search"),
                json!({"query": "ferry"}),
            )
            .await;
        assert_eq!(answer.status, 200, "{:#}", answer.json);
    }
    let health = app.get("/health").await;
    assert_eq!(
        health.json,
        json!({"status": "ok", "worlds": 2, "sessions": 0, "unavailable": []})
    );
}
