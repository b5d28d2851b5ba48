//! The optional API key: `Authorization: Bearer KEY` on every route but `GET /health`.

use serde_json::json;

use crate::support::{TestApp, assert_error};

#[tokio::test]
async fn requests_without_the_key_are_401() {
    let app = TestApp::with_config(|config| config.api_keys = vec!["sekret".to_owned()]);
    assert_eq!(app.get("/health").await.status, 200, "health stays open");
    let missing = app.get("/v1/worlds").await;
    assert_error(&missing, 401, "unauthorized");
    assert_eq!(missing.headers["www-authenticate"], "Bearer");
    let wrong = app
        .send(
            "GET",
            "/v1/worlds",
            None,
            &[("authorization", "Bearer nope")],
        )
        .await;
    assert_error(&wrong, 401, "unauthorized");
    let not_bearer = app
        .send("GET", "/v1/worlds", None, &[("authorization", "sekret")])
        .await;
    assert_error(&not_bearer, 401, "unauthorized");
    assert_error(
        &app.post("/v1/sessions", json!({"world": 0})).await,
        401,
        "unauthorized",
    );
    let right = app
        .send(
            "GET",
            "/v1/worlds",
            None,
            &[("authorization", "Bearer sekret")],
        )
        .await;
    assert_eq!(right.status, 200);
    let body = serde_json::to_vec(&json!({"query": "harbour"})).unwrap();
    let search = app
        .send(
            "POST",
            "/v1/worlds/0/search",
            Some(body),
            &[("authorization", "Bearer sekret")],
        )
        .await;
    assert_eq!(search.status, 200);
}

#[tokio::test]
async fn tavily_routes_answer_401_in_tavily_shape() {
    let app = TestApp::with_config(|config| config.api_keys = vec!["tvly-key".to_owned()]);
    let answer = app
        .post("/compat/tavily/0/search", json!({"query": "harbour"}))
        .await;
    assert_eq!(answer.status, 401);
    assert!(
        answer.json["detail"]["error"].is_string(),
        "{:#}",
        answer.json
    );
    let body = serde_json::to_vec(&json!({"query": "harbour"})).unwrap();
    let ok = app
        .send(
            "POST",
            "/compat/tavily/0/search",
            Some(body),
            &[("authorization", "Bearer tvly-key")],
        )
        .await;
    assert_eq!(ok.status, 200);
}

#[tokio::test]
async fn without_a_key_everything_is_open() {
    let app = TestApp::new();
    assert_eq!(app.get("/v1/worlds").await.status, 200);
}
