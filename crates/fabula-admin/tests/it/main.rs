//! Integration tests of the admin listener, driven in process.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use rusqlite::Connection;
use serde_json::{Value, json};
use tower::ServiceExt;

use fabula_admin::{AdminState, admin_app};

const TOKEN: &str = "s3cret";

/// A dataset of one world holding two tasks.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("world-00042.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE fabula_tasks (id TEXT PRIMARY KEY, kind TEXT NOT NULL, question TEXT NOT NULL,
           answer TEXT NOT NULL, evidence TEXT NOT NULL, hops INTEGER NOT NULL, sql TEXT NOT NULL) STRICT;
         INSERT INTO fabula_tasks VALUES ('w00042-t000', 'lookup', 'When was Kelvar founded?', '\"1841\"',
           '[\"https://a.org/wiki/Kelvar\"]', 1, 'SELECT 1841');
         INSERT INTO fabula_tasks VALUES ('w00042-t001', 'table', 'List the guilds of Kelvar.',
           '{\"columns\": [\"guild\", \"founded\"], \"key\": [\"guild\"], \"rows\": [[\"Oak Guild\", \"1801\"], [\"Elm Hall\", \"1822\"]]}',
           '[\"https://a.org/wiki/Kelvar\"]', 2, 'SELECT 1');",
    )
    .unwrap();
    let manifest = json!({"format_version": 1, "generator_version": "test", "master_seed": 0, "count": 43,
        "worlds": [{"id": 42, "file": "world-00042.sqlite", "sha256": "", "theme": "guild-economy", "name": "Test",
                    "rows": 300, "tables": 7, "pages": 300, "tasks": 2}]});
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    dir
}

async fn call(
    dir: &std::path::Path,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let app = admin_app(AdminState::open(dir, TOKEN).unwrap());
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json");
    if let Some(t) = token {
        request = request.header("authorization", format!("Bearer {t}"));
    }
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    let response = app.oneshot(request.body(body).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn every_route_needs_the_token() {
    let dir = fixture();
    for token in [None, Some("wrong")] {
        let (status, body) = call(dir.path(), "GET", "/admin/worlds/42/tasks", token, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["error"]["code"], "unauthorized");
        let (status, _) = call(
            dir.path(),
            "POST",
            "/admin/score",
            token,
            Some(json!({"task_id": "w00042-t000", "answer": "1841"})),
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    assert!(AdminState::open(dir.path(), "").is_err());
}

#[tokio::test]
async fn tasks_are_listed_with_gold() {
    let dir = fixture();
    let (status, body) = call(
        dir.path(),
        "GET",
        "/admin/worlds/42/tasks",
        Some(TOKEN),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["tasks"][0]["answer"], "1841");
    assert_eq!(body["tasks"][1]["answer"]["key"], json!(["guild"]));
    let (status, body) = call(
        dir.path(),
        "GET",
        "/admin/worlds/7/tasks",
        Some(TOKEN),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "world_not_found");
}

#[tokio::test]
async fn answers_are_scored() {
    let dir = fixture();
    let (status, body) = call(
        dir.path(),
        "POST",
        "/admin/score",
        Some(TOKEN),
        Some(json!({"task_id": "w00042-t000", "answer": "1,841"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["score"]["em"], 1.0);
    assert_eq!(body["reward"], 1.0);

    let table = "| guild | founded |\n|---|---|\n| Oak Guild | 1801 |\n| Elm Hall | 1900 |";
    let (_, body) = call(
        dir.path(),
        "POST",
        "/admin/score",
        Some(TOKEN),
        Some(json!({"task_id": "w00042-t001", "answer": table})),
    )
    .await;
    assert_eq!(body["score"]["row_f1"], 0.5);
    assert_eq!(body["score"]["item_f1"], 0.75);

    let (status, body) = call(
        dir.path(),
        "POST",
        "/admin/score",
        Some(TOKEN),
        Some(json!({"task_id": "w00042-t999", "answer": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "task_not_found");
    let (status, body) = call(
        dir.path(),
        "POST",
        "/admin/score",
        Some(TOKEN),
        Some(json!({"answer": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], "bad_request");
}
