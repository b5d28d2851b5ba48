//! The world browser driven in process: every view of a generated world renders, the admin
//! views show tasks and sessions, the agent listener shows neither, errors are HTML pages with
//! their status, and text from a world file is escaped.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use fabula_browse::Browse;
use fabula_file::WorldFile;
use fabula_server::{AppState, ServeConfig};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

mod escaping;

/// A dataset of two generated worlds, written once per test run.
fn dataset() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("worlds");
        let config = fabula_dataset::GenerateConfig {
            count: 2,
            master_seed: 14,
            out: path.clone(),
            jobs: 1,
            shard: None,
            force: true,
            themes: Vec::new(),
            write_indexes: false,
        };
        fabula_dataset::generate_dataset(&config, &fabula_dataset::FullRenderer, &|| {}).unwrap();
        (dir, path)
    });
    path
}

fn state(dir: &Path) -> AppState {
    let config = ServeConfig {
        worlds: dir.to_owned(),
        write_indexes: false,
        ..ServeConfig::default()
    };
    AppState::open(&config).unwrap()
}

/// The agent-facing service with the agent browser, and the admin browser alone, over one state.
fn apps(dir: &Path) -> (Router, Router, AppState) {
    let state = state(dir);
    let agent = fabula_server::app_with(
        state.clone(),
        vec![fabula_server::Suite::routes(
            Browse::agent(state.clone()).mount(Router::new()),
        )],
    );
    let admin = Browse::admin(state.clone()).mount(Router::new());
    (agent, admin, state)
}

/// GETs `uri` and returns the status and the body.
async fn get(app: &Router, uri: &str) -> (StatusCode, String) {
    let request = Request::get(uri).body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    if status == StatusCode::OK {
        let kind = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
        assert_eq!(kind, "text/html; charset=utf-8", "{uri}");
    }
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

async fn get_ok(app: &Router, uri: &str) -> String {
    let (status, body) = get(app, uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {body}");
    body
}

async fn post(app: &Router, uri: &str, body: Value) -> Value {
    let request = Request::post(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{uri}");
    let body = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

fn page_link(world: u32, url: &str) -> String {
    format!(
        "/ui/worlds/{world}/page?url={}",
        fabula_browse::percent_encode(url)
    )
}

#[tokio::test]
async fn every_page_and_row_of_a_world_renders_with_its_stated_cells_marked() {
    let (agent, _, _) = apps(dataset());
    let file = WorldFile::open(&dataset().join("world-00000.sqlite")).unwrap();
    let meta = file.meta().unwrap();
    let world = get_ok(&agent, "/ui/worlds/0").await;
    assert!(
        world.contains(&format!("<h1>{}</h1>", meta.name)),
        "{world}"
    );
    assert!(world.contains("<svg") && world.contains("Entity graph"));
    assert!(world.contains("Dated facts per decade"));
    assert!(
        !world.contains("id=\"tasks\""),
        "the agent listener lists no tasks"
    );
    for stored in file.pages().unwrap() {
        let html = get_ok(&agent, &page_link(0, &stored.page.url)).await;
        let marks = html.matches("<mark class=\"fact\">").count();
        // A list names its rows in their links and states nothing else: its row names are
        // facts, but the marks are for the values a page states.
        let shown = stored.page.facts.iter().any(|f| {
            f.value_kind != fabula_file::ValueKind::Name
                || stored.page.kind != fabula_file::PageKind::List
        });
        assert_eq!(
            marks > 0,
            shown,
            "{}: {marks} marks for {} facts",
            stored.page.url,
            stored.page.facts.len()
        );
    }
    for table in file.tables().unwrap() {
        for row in file.table_rows(&table).unwrap() {
            let fabula_file::Value::Int(id) = row[0] else {
                panic!("ids are integers")
            };
            let html = get_ok(&agent, &format!("/ui/worlds/0/rows/{}/{id}", table.name)).await;
            assert!(html.contains("Facts and the pages that state them"));
        }
    }
    for uri in ["/", "/ui", "/ui/", "/ui/?theme=nothing-like-it&page=9"] {
        let html = get_ok(&agent, uri).await;
        assert!(html.contains("worlds"), "{uri}");
    }
    let dataset_view = get_ok(&agent, "/").await;
    assert!(dataset_view.contains(&meta.name));
    assert!(!dataset_view.contains("Task tiers"));
}

#[tokio::test]
async fn the_admin_views_show_tiers_tasks_with_their_gold_answers_and_evidence() {
    let (_, admin, _) = apps(dataset());
    let file = WorldFile::open(&dataset().join("world-00001.sqlite")).unwrap();
    let dataset_view = get_ok(&admin, "/").await;
    assert!(dataset_view.contains("Task tiers") && dataset_view.contains("Tasks per tier"));
    assert!(dataset_view.contains("Tasks per kind and tier"));
    let world = get_ok(&admin, "/ui/worlds/1").await;
    let tasks = file.tasks().unwrap();
    for task in &tasks {
        assert!(
            world.contains(&format!("/ui/worlds/1/tasks/{}", task.id)),
            "{} is listed",
            task.id
        );
        let html = get_ok(&admin, &format!("/ui/worlds/1/tasks/{}", task.id)).await;
        let answer: Value = serde_json::from_str(&task.answer).unwrap();
        let shown = match &answer {
            Value::String(text) => text.clone(),
            Value::Object(table) => table["rows"][0][0].as_str().unwrap().to_owned(),
            other => other[0].as_str().unwrap().to_owned(),
        };
        assert!(html.contains(&escape(&shown)), "{}: {shown}", task.id);
        let evidence: Vec<String> = serde_json::from_str(&task.evidence).unwrap();
        assert_eq!(
            html[..html.find("id=\"first-search\"").unwrap()]
                .matches("<li><a href=\"/ui/worlds/1/page?url=")
                .count(),
            evidence.len()
        );
        assert!(
            html.contains("pages needed") && html.contains("tier-"),
            "{}",
            task.id
        );
        assert!(html.contains("What searching the question returns"));
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[tokio::test]
async fn sessions_show_every_call_its_results_and_the_page_opened() {
    let (agent, admin, _) = apps(dataset());
    let created = post(
        &agent,
        "/v1/sessions",
        json!({"world": 0, "seed": 5, "controls": {"page_size": 3}}),
    )
    .await;
    let sid = created["session"].as_str().unwrap().to_owned();
    let found = post(
        &agent,
        &format!("/v1/sessions/{sid}/search"),
        json!({"query": "founded"}),
    )
    .await;
    let first = found["results"][0]["url"].as_str().unwrap().to_owned();
    post(
        &agent,
        &format!("/v1/sessions/{sid}/extract"),
        json!({"url": first}),
    )
    .await;
    let list = get_ok(&admin, "/ui/sessions").await;
    assert!(list.contains(&sid));
    let html = get_ok(&admin, &format!("/ui/sessions/{sid}")).await;
    assert!(
        html.contains("Call 0: search") && html.contains("Call 1: extract"),
        "{html}"
    );
    assert!(html.contains("<q>founded</q>"));
    assert_eq!(
        html.matches(&format!(">{}</a>", escape(&first))).count(),
        2,
        "{html}"
    );
    assert!(
        html.contains("&quot;page_size&quot;: 3"),
        "the controls are shown"
    );
    assert!(
        html.contains("POST /v1/sessions"),
        "the replay request is shown"
    );
    let (status, _) = get(&agent, "/ui/sessions").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "sessions are admin-only");
}

#[tokio::test]
async fn the_search_view_shows_what_an_agent_search_returns() {
    let (agent, _, state) = apps(dataset());
    let html = get_ok(&agent, "/ui/worlds/0/search?q=founded&hiding=none").await;
    let options = fabula_search::SearchOptions {
        top_k: 20,
        offset: 0,
        hiding: fabula_search::Hiding::None,
    };
    let hits = state
        .search_world(0, "founded".into(), options)
        .await
        .unwrap()
        .hits;
    assert!(!hits.is_empty());
    assert_eq!(
        html.matches("<li><a href=\"/ui/worlds/0/page?url=").count(),
        hits.len()
    );
    for hit in &hits {
        assert!(html.contains(&escape(&hit.snippet)), "{}", hit.snippet);
    }
    let empty = get_ok(&agent, "/ui/worlds/0/search").await;
    assert!(empty.contains("Search this world") && !empty.contains("results for"));
    let hostile = get_ok(&agent, "/ui/worlds/0/search?q=%3Cscript%3Ex").await;
    assert!(hostile.contains("&lt;script&gt;x") && !hostile.contains("<script>"));
    let (status, _) = get(&agent, "/ui/worlds/0/search?q=a&hiding=loud").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let long = format!("/ui/worlds/0/search?q={}", "a".repeat(2_001));
    let (status, _) = get(&agent, &long).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn errors_are_html_pages_with_their_status() {
    let (agent, admin, _) = apps(dataset());
    let check = |app: Router, uri: &'static str, status: StatusCode| async move {
        let (got, body) = get(&app, uri).await;
        assert_eq!(got, status, "{uri}: {body}");
        assert!(body.starts_with("<!doctype html>"), "{uri}: {body}");
    };
    check(agent.clone(), "/ui/worlds/7", StatusCode::NOT_FOUND).await;
    check(agent.clone(), "/ui/worlds/x", StatusCode::NOT_FOUND).await;
    check(agent.clone(), "/ui/worlds/0/page", StatusCode::BAD_REQUEST).await;
    check(
        agent.clone(),
        "/ui/worlds/0/page?url=",
        StatusCode::BAD_REQUEST,
    )
    .await;
    check(
        agent.clone(),
        "/ui/worlds/0/page?url=https%3A%2F%2Fno.where%2F",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(
        agent.clone(),
        "/ui/worlds/0/rows/nope/1",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(
        agent.clone(),
        "/ui/worlds/0/rows/fabula_pages/1",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(
        agent.clone(),
        "/ui/worlds/0/rows/x/y",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(
        agent.clone(),
        "/ui/worlds/0/tasks/w00000-t000",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(agent.clone(), "/ui/nowhere", StatusCode::NOT_FOUND).await;
    check(
        admin.clone(),
        "/ui/worlds/0/tasks/none",
        StatusCode::NOT_FOUND,
    )
    .await;
    check(admin.clone(), "/ui/sessions/s_0", StatusCode::NOT_FOUND).await;
}

#[tokio::test]
async fn a_world_that_fails_its_check_is_503() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dataset()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut bytes = std::fs::read(dir.path().join("world-00001.sqlite")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(dir.path().join("world-00001.sqlite"), bytes).unwrap();
    let (agent, admin, _) = apps(dir.path());
    let (status, body) = get(&agent, "/ui/worlds/1").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    get_ok(&agent, "/ui/worlds/0").await;
    let dataset_view = get_ok(&admin, "/").await;
    assert!(
        dataset_view.contains("Worlds whose tasks could not be read: 1"),
        "{dataset_view}"
    );
}
