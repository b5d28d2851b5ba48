//! Integration tests of the admin listener, driven in process.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use fabula_file::{Meta, Task, TaskKind, WorldContents};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use fabula_admin::{AdminState, admin_app};

mod openapi;
mod openenv;

const TOKEN: &str = "s3cret";

fn task(id: &str, kind: TaskKind, question: &str, answer: &str, hops: i64) -> Task {
    Task {
        id: id.to_owned(),
        kind,
        question: question.to_owned(),
        answer: answer.to_owned(),
        evidence: r#"["https://a.org/wiki/Kelvar"]"#.to_owned(),
        hops,
        sql: "SELECT 1".to_owned(),
        tier: fabula_file::Tier::Easy,
        effort: None,
    }
}

/// A dataset of one world holding two tasks, written through the world file's own writer.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        task(
            "w00042-t000",
            TaskKind::Lookup,
            "When was Kelvar founded?",
            r#""1841""#,
            1,
        ),
        task(
            "w00042-t001",
            TaskKind::Table,
            "List the guilds of Kelvar.",
            r#"{"columns": ["guild", "founded"], "key": ["guild"], "rows": [["Oak Guild", "1801"], ["Elm Hall", "1822"]]}"#,
            2,
        ),
    ];
    let meta = Meta {
        world_id: 42,
        name: "Test".to_owned(),
        theme: "guild-economy".to_owned(),
        theme_label: "guild economy".to_owned(),
        master_seed: 0,
        world_seed: 42,
        generator_version: "test".to_owned(),
        format_version: fabula_file::FORMAT_VERSION,
        present_year: 2240,
        earliest_year: 1800,
        limits: None,
    };
    let contents = WorldContents {
        meta: &meta,
        tables: &[],
        pages: &[],
        tasks: &tasks,
    };
    fabula_file::write_world(&dir.path().join("world-00042.sqlite"), &contents).unwrap();
    let sha256 = fabula_file::sha256_file(&dir.path().join("world-00042.sqlite")).unwrap();
    let manifest = json!({"format_version": fabula_file::FORMAT_VERSION, "generator_version": "test", "master_seed": 0, "count": 1,
        "worlds": [{"id": 42, "file": "world-00042.sqlite", "sha256": sha256, "theme": "guild-economy", "name": "Test",
                    "rows": 300, "tables": 7, "pages": 300, "tasks": 2}]});
    std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
    dir
}

/// The admin state over a search server opened on `dir`, as `fabula serve --admin-addr` makes it.
fn admin_state(dir: &std::path::Path, token: &str) -> fabula_admin::Result<AdminState> {
    let config = fabula_server::ServeConfig {
        worlds: dir.to_owned(),
        ..fabula_server::ServeConfig::default()
    };
    AdminState::new(fabula_server::AppState::open(&config).unwrap(), token)
}

async fn call(
    dir: &std::path::Path,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let app = admin_app(admin_state(dir, TOKEN).unwrap());
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
    assert!(admin_state(dir.path(), "").is_err());
}

#[tokio::test]
async fn the_browser_asks_for_the_token_as_basic_auth_and_then_shows_the_tasks() {
    let dir = fixture();
    let app = admin_app(admin_state(dir.path(), TOKEN).unwrap());
    let send = |authorization: Option<&'static str>, uri: &'static str| {
        let app = app.clone();
        async move {
            let mut request = Request::get(uri);
            if let Some(value) = authorization {
                request = request.header("authorization", value);
            }
            let response = app
                .oneshot(request.body(Body::empty()).unwrap())
                .await
                .unwrap();
            let status = response.status();
            let challenge = response.headers().get("www-authenticate").cloned();
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            (
                status,
                challenge,
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        }
    };
    for uri in ["/", "/ui/worlds/42", "/ui/sessions"] {
        let (status, challenge, _) = send(None, uri).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{uri}");
        let challenge = challenge.expect("a 401 asks for Basic auth");
        assert!(challenge.to_str().unwrap().starts_with("Basic realm="));
    }
    // base64("admin:s3cret")
    let (status, _, html) = send(Some("Basic YWRtaW46czNjcmV0"), "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Task tiers"), "{html}");
    let (status, _, html) = send(Some("Bearer s3cret"), "/ui/worlds/42/tasks/w00042-t001").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        html.contains("Oak Guild") && html.contains("Elm Hall"),
        "{html}"
    );
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

#[tokio::test]
async fn the_episode_api_refuses_bad_input_with_stable_codes() {
    let dir = fixture();
    let reset = |body: Value| call(dir.path(), "POST", "/v1/env/reset", Some(TOKEN), Some(body));
    let (status, body) = reset(json!({})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request"))
    );
    let (status, body) = reset(json!({"task_id": "w00042-t999"})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("task_not_found"))
    );
    let (status, body) = reset(json!({"task_id": "w00042-t000", "world": 7})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request"))
    );
    let (status, body) = reset(json!({"world": 42, "controls": {"error_rate": 2}})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request"))
    );
    let (status, body) = reset(json!({"world": 9})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("world_not_found"))
    );
    let (status, body) = call(
        dir.path(),
        "POST",
        "/v1/env/step",
        Some(TOKEN),
        Some(json!({"episode_id": "e0", "action": {"tool": "answer", "answer": "1841"}})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("episode_not_found"))
    );
    let (status, _) = call(dir.path(), "GET", "/v1/env/state", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = call(dir.path(), "GET", "/v1/env/state", Some(TOKEN), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["episodes"], json!([]));
}

#[tokio::test]
async fn an_episode_without_pages_still_scores_its_answer() {
    // The fixture has tasks but no pages: reset and answer need no search at all.
    let dir = fixture();
    let app = admin_app(admin_state(dir.path(), TOKEN).unwrap());
    let send = |method: &str, uri: &str, body: Value| {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {TOKEN}"))
            .body(Body::from(body.to_string()))
            .unwrap();
        let app = app.clone();
        async move {
            let response = app.oneshot(request).await.unwrap();
            let status = response.status();
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            (status, serde_json::from_slice::<Value>(&bytes).unwrap())
        }
    };
    let (status, reset) = send("POST", "/v1/env/reset", json!({"task_id": "w00042-t000"})).await;
    assert_eq!(status, StatusCode::OK, "{reset}");
    assert_eq!(reset["observation"], "When was Kelvar founded?");
    let episode = reset["episode_id"].as_str().unwrap();
    let action = json!({"episode_id": episode, "action": {"tool": "answer", "answer": "1841"}});
    let (status, step) = send("POST", "/v1/env/step", action).await;
    assert_eq!(status, StatusCode::OK, "{step}");
    assert_eq!(step["done"], json!(true));
    assert_eq!(step["reward"], json!(1.0));
    let (_, state) = send(
        "GET",
        &format!("/v1/env/state?episode_id={episode}"),
        Value::Null,
    )
    .await;
    assert_eq!(state["reward"], json!(1.0));
    assert_eq!(state["step_count"], 1);
}

#[tokio::test]
async fn both_listeners_share_one_state() {
    // An episode's session, made through the admin listener, is the agent-facing server's own.
    let dir = fixture();
    let config = fabula_server::ServeConfig {
        worlds: dir.path().to_owned(),
        ..fabula_server::ServeConfig::default()
    };
    let search = fabula_server::AppState::open(&config).unwrap();
    let admin = admin_app(AdminState::new(search.clone(), TOKEN).unwrap());
    let request = Request::builder()
        .method("POST")
        .uri("/v1/env/reset")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {TOKEN}"))
        .body(Body::from(json!({"world": 42, "seed": 7}).to_string()))
        .unwrap();
    let response = admin.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    let request = Request::builder()
        .uri("/health")
        .body(Body::empty())
        .unwrap();
    let response = fabula_server::app(search).oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let health: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(health["sessions"], 1, "{health}");
}

#[tokio::test]
async fn resets_read_whole_numbers_written_with_a_fraction() {
    // As the agent-facing listener reads its bodies, and as the OpenAPI document's `integer`
    // counts them.
    let dir = fixture();
    let check = |uri: &'static str, body: Value, expect: StatusCode| {
        let dir = dir.path().to_owned();
        async move {
            let (status, answer) = call(&dir, "POST", uri, Some(TOKEN), Some(body.clone())).await;
            assert_eq!(status, expect, "{uri} {body}: {answer}");
        }
    };
    let whole = json!({"world": 42.0, "seed": 7.0, "controls": {"timeout_ms": 100.0}});
    let fraction = json!({"world": 42, "seed": 7.5});
    for uri in ["/v1/env/reset", "/reset"] {
        check(uri, whole.clone(), StatusCode::OK).await;
        check(uri, fraction.clone(), StatusCode::BAD_REQUEST).await;
    }
    let other_world = json!({"task_id": "w00042-t000", "world": 7});
    check("/reset", other_world, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413() {
    let dir = fixture();
    let answer = "x".repeat(fabula_admin::MAX_BODY_BYTES);
    let body = json!({"task_id": "w00042-t000", "answer": answer});
    let (status, body) = call(dir.path(), "POST", "/admin/score", Some(TOKEN), Some(body)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(body["error"]["code"], "payload_too_large");
}
