//! Bad input gets a JSON error with a stable code and a 4xx status, never a 500, a panic or
//! axum's plain-text rejections; a handler that panics (a bug) gets a JSON 500.

use axum::Router;
use axum::extract::Path;
use axum::routing::{get, post};
use serde_json::json;

use crate::support::{TestApp, assert_error};

#[tokio::test]
async fn a_handler_that_panics_answers_a_json_500_and_the_server_goes_on() {
    async fn boom() -> &'static str {
        panic!("a bug in a handler")
    }
    async fn boom_n(Path(n): Path<u32>) -> String {
        panic!("{n} bugs in a handler")
    }
    let extra = Router::new()
        .route("/boom", get(boom))
        .route("/boom/{n}", post(boom_n));
    let app = TestApp::with_routes(extra);
    for answer in [app.get("/boom").await, app.post("/boom/2", json!({})).await] {
        assert_error(&answer, 500, "handler_panicked");
        // The panic's message goes to the log, not to the client.
        assert!(
            !answer.json.to_string().contains("bug"),
            "{:#}",
            answer.json
        );
    }
    let health = app.get("/health").await;
    assert_eq!(health.status, 200, "{:#}", health.json);
}

#[tokio::test]
async fn error_body_shape() {
    let app = TestApp::new();
    let answer = app
        .post("/v1/worlds/99/search", json!({"query": "harbour"}))
        .await;
    insta::assert_json_snapshot!(answer.json, @r#"
    {
      "error": {
        "code": "world_not_found",
        "message": "no world with id 99"
      }
    }
    "#);
}

#[tokio::test]
async fn unknown_world_and_url_are_404() {
    let app = TestApp::new();
    assert_error(
        &app.post("/v1/worlds/99/search", json!({"query": "x"}))
            .await,
        404,
        "world_not_found",
    );
    assert_error(
        &app.post("/v1/worlds/99/extract", json!({"url": "x"})).await,
        404,
        "world_not_found",
    );
    assert_error(
        &app.post(
            "/v1/worlds/0/extract",
            json!({"url": "https://veloria.example/nope"}),
        )
        .await,
        404,
        "url_not_found",
    );
    assert_error(
        &app.post("/v1/worlds/99/retrieve", json!({"queries": ["x"]}))
            .await,
        404,
        "world_not_found",
    );
}

#[tokio::test]
async fn malformed_json_and_wrong_types_are_400() {
    let app = TestApp::new();
    for body in [
        "",
        "{",
        "not json",
        "[]",
        "{\"query\": 5}",
        "{\"queries\": \"harbour\"}",
        "{\"queries\": [1, 2]}",
        "{\"query\": \"harbour\", \"top_k\": \"ten\"}",
        "{\"query\": \"harbour\", \"top_k\": -1}",
        "{\"query\": \"harbour\", \"top_k\": 1e40}",
        "{\"query\": \"harbour\", \"hiding\": \"some\"}",
        "{\"query\": \"harbour\", \"topk\": 3}",
        "{\"query\": \"harbour\"} trailing",
    ] {
        let answer = app.post_raw("/v1/worlds/0/search", body).await;
        assert_error(&answer, 400, "bad_request");
    }
    for body in ["{}", "{\"url\": 7}", "{\"url\": \"x\", \"start\": -3}"] {
        assert_error(
            &app.post_raw("/v1/worlds/0/extract", body).await,
            400,
            "bad_request",
        );
    }
}

#[tokio::test]
async fn query_and_paging_ranges_are_checked() {
    let app = TestApp::new();
    let long_query = "a".repeat(2001);
    for body in [
        json!({"query": ""}),
        json!({"query": "   "}),
        json!({"query": long_query}),
        json!({"queries": []}),
        json!({"queries": ["harbour", ""]}),
        json!({"query": "harbour", "queries": ["harbour"]}),
        json!({"top_k": 3}),
        json!({"query": "harbour", "top_k": 0}),
        json!({"query": "harbour", "top_k": 51}),
        json!({"query": "harbour", "page": 0}),
        json!({"query": "harbour", "page": 1001}),
        json!({"queries": vec!["harbour"; 101]}),
    ] {
        let answer = app.post("/v1/worlds/0/search", body.clone()).await;
        assert_error(&answer, 400, "bad_request");
    }
    let longest = "a".repeat(2000);
    assert_eq!(
        app.post("/v1/worlds/0/search", json!({"query": longest}))
            .await
            .status,
        200
    );
    let url = "https://veloria.example/wiki/Port_Amsel";
    for body in [
        json!({"url": ""}),
        json!({"url": url, "max_chars": 0}),
        json!({"url": url, "max_chars": 100_001}),
    ] {
        assert_error(
            &app.post("/v1/worlds/0/extract", body).await,
            400,
            "bad_request",
        );
    }
    let past_end = app
        .post(
            "/v1/worlds/0/extract",
            json!({"url": url, "start": 1_000_000}),
        )
        .await;
    assert!(
        past_end.status == 200 || past_end.status == 400,
        "{:#}",
        past_end.json
    );
}

#[tokio::test]
async fn bodies_over_64_kib_are_413() {
    let app = TestApp::new();
    let padding = "a".repeat(70 * 1024);
    let body = format!("{{\"query\": \"harbour\", \"pad\": \"{padding}\"}}");
    assert_error(
        &app.post_raw("/v1/worlds/0/extract", &body).await,
        413,
        "payload_too_large",
    );
    assert_error(
        &app.post_raw("/v1/sessions", &body).await,
        413,
        "payload_too_large",
    );
}

#[tokio::test]
async fn the_longest_schema_valid_search_is_accepted_and_one_byte_more_is_413() {
    use fabula_server::wire::{MAX_QUERIES, MAX_QUERY_CHARS, MAX_SEARCH_BODY_BYTES};
    let app = TestApp::new();
    // Every query at its longest, each character an escaped surrogate pair (12 bytes), written
    // with Python's separators: the largest body a client's JSON writer makes for a valid search.
    let query = format!("\"{}\"", "\\ud83c\\udf0a".repeat(MAX_QUERY_CHARS));
    let queries = vec![query; MAX_QUERIES].join(", ");
    let body = format!(
        "{{\"query\": null, \"queries\": [{queries}], \"top_k\": 50, \"page\": 1000, \"hiding\": \"partial\"}}"
    );
    assert!(body.len() <= MAX_SEARCH_BODY_BYTES, "{}", body.len());
    assert!(body.len() > MAX_SEARCH_BODY_BYTES - 1024, "{}", body.len());
    let session = app
        .post("/v1/sessions", json!({"world": 0, "seed": 1}))
        .await;
    let sid = session.json["session"].as_str().unwrap();
    let paths = [
        "/v1/worlds/0/search".to_owned(),
        format!("/v1/sessions/{sid}/search"),
    ];
    for path in &paths {
        let answer = app.post_raw(path, &body).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.json);
        assert_eq!(
            answer.json["responses"].as_array().unwrap().len(),
            MAX_QUERIES
        );
    }

    let padding = " ".repeat(MAX_SEARCH_BODY_BYTES + 1 - body.len());
    let over = format!("{body}{padding}");
    for path in &paths {
        assert_error(&app.post_raw(path, &over).await, 413, "payload_too_large");
    }
}

#[tokio::test]
async fn bad_paths_and_methods_answer_json() {
    let app = TestApp::new();
    assert_error(
        &app.post("/v1/worlds/abc/search", json!({"query": "x"}))
            .await,
        400,
        "bad_request",
    );
    assert_error(
        &app.post("/v1/worlds/-1/search", json!({"query": "x"}))
            .await,
        400,
        "bad_request",
    );
    assert_error(&app.get("/v1/nothing").await, 404, "not_found");
    assert_error(
        &app.get("/v1/worlds/0/search").await,
        405,
        "method_not_allowed",
    );
    assert_error(
        &app.post("/health", json!({})).await,
        405,
        "method_not_allowed",
    );
}

#[tokio::test]
async fn odd_queries_are_searched_not_rejected() {
    let app = TestApp::new();
    for query in [
        "\"unclosed",
        "AND OR NOT",
        "title:harbour",
        "(((",
        "*",
        "ünïcødé 港口",
        "a\u{0}b",
        "-",
    ] {
        let answer = app
            .post("/v1/worlds/0/search", json!({"query": query}))
            .await;
        assert_eq!(answer.status, 200, "query {query:?}: {:#}", answer.json);
    }
}

#[tokio::test]
async fn a_broken_world_file_is_a_503_without_internals() {
    let app = TestApp::new();
    std::fs::write(
        app.dir.path().join("world-00003.sqlite"),
        b"not a database at all",
    )
    .unwrap();
    let answer = app
        .post("/v1/worlds/3/search", json!({"query": "ferry"}))
        .await;
    assert_error(&answer, 503, "world_unavailable");
    assert_eq!(
        answer.json["error"]["message"],
        "world 3 is unavailable: its file does not match the manifest's sha256",
        "no paths in the body"
    );
    let healthy = app
        .post("/v1/worlds/0/search", json!({"query": "harbour"}))
        .await;
    assert_eq!(healthy.status, 200, "other worlds still answer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_uses_share_one_build() {
    let app = TestApp::new();
    let mut tasks = Vec::new();
    for idx in 0..16 {
        let router = app.router.clone();
        tasks.push(tokio::spawn(async move {
            use tower::ServiceExt;
            let body = serde_json::to_vec(&json!({"query": format!("harbour {idx}")})).unwrap();
            let request = axum::http::Request::post("/v1/worlds/0/search")
                .body(axum::body::Body::from(body))
                .unwrap();
            router.oneshot(request).await.unwrap().status()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 200);
    }
}
