//! `GET /openapi.json` in process: the document parses and is stable (a snapshot), it lists
//! exactly the routes the router declares, every documented route is routed, and answers the
//! server really gives are documented for their operation (status, error code, shape).

use std::path::Path;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::TestApp;

/// The `(method, path)` pairs the router declares, read from every source file of the crate and
/// of the protocol crates mounted with it (`.route("PATH", METHOD(..))` and
/// `.route_service("PATH", ..)`, which serves GET, POST and DELETE), so the test follows the
/// router whatever routes are added.
fn declared_routes() -> Vec<(String, String)> {
    let mut sources = Vec::new();
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for name in ["fabula-server", "fabula-compat", "fabula-mcp"] {
        collect_sources(&crates.join(name).join("src"), &mut sources);
    }
    let mut routes = Vec::new();
    for source in &sources {
        for part in source.split(".route(").skip(1) {
            let Some(part) = part.trim_start().strip_prefix('"') else {
                continue;
            };
            let Some((path, rest)) = part.split_once('"') else {
                continue;
            };
            let method = rest.trim_start_matches(',').trim();
            let method = method.split('(').next().unwrap_or_default().trim();
            routes.push((method.to_owned(), path.to_owned()));
        }
        for part in source.split(".route_service(\"").skip(1) {
            let Some((path, _)) = part.split_once('"') else {
                continue;
            };
            for method in ["get", "post", "delete"] {
                routes.push((method.to_owned(), path.to_owned()));
            }
        }
    }
    routes.sort();
    routes.dedup();
    routes
}

fn collect_sources(dir: &Path, sources: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_sources(&path, sources);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            sources.push(std::fs::read_to_string(&path).unwrap());
        }
    }
}

fn documented_routes(document: &Value) -> Vec<(String, String)> {
    let mut documented = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                documented.push((method.to_owned(), path.clone()));
            }
        }
    }
    documented.sort();
    documented
}

#[tokio::test]
async fn the_served_document_is_the_generated_one_and_is_stable() {
    let app = TestApp::new();
    let answer = app.get("/openapi.json").await;
    assert_eq!(answer.status.as_u16(), 200);
    assert_eq!(answer.json["openapi"], "3.1.0");
    assert_eq!(answer.json, whole_document());
    insta::assert_json_snapshot!(answer.json);
}

/// The whole document, the mounted suites' parts included (MCP has none).
fn whole_document() -> Value {
    fabula_server::openapi::document_with(&[fabula_compat::DOCUMENT_PART])
}

/// The routes the mounted suites leave out of the document.
fn undocumented() -> Vec<(&'static str, &'static str)> {
    [
        fabula_compat::UNDOCUMENTED_ROUTES,
        fabula_mcp::UNDOCUMENTED_ROUTES,
    ]
    .concat()
}

#[tokio::test]
async fn the_document_lists_every_route_of_the_router_and_no_other() {
    let declared = declared_routes();
    assert!(declared.len() >= 17, "too few routes read: {declared:?}");
    let undocumented = undocumented();
    let expected: Vec<(String, String)> = declared
        .into_iter()
        .filter(|(method, path)| !undocumented.contains(&(method.as_str(), path.as_str())))
        .collect();
    let document = TestApp::new().get("/openapi.json").await.json;
    assert_eq!(documented_routes(&document), expected);
}

#[test]
fn the_native_document_lists_the_native_routes_only() {
    let native = documented_routes(&fabula_server::openapi::document());
    assert!(native.contains(&("post".to_owned(), "/v1/worlds/{id}/search".to_owned())));
    assert!(
        native
            .iter()
            .all(|(_, path)| !path.contains("retrieve") && !path.starts_with("/compat/")),
        "{native:?}"
    );
}

#[tokio::test]
async fn the_undocumented_routes_are_routed_and_refuse_plain_json() {
    // MCP's own client test (tests/it/mcp_limits.rs and the e2e tests) drives `/mcp/{world}`;
    // here each left-out route answers something other than "no such route".
    let app = TestApp::new();
    for (method, path) in undocumented() {
        let uri = path.replace("{id}", "0").replace("{world}", "0");
        let answer = app
            .send(&method.to_uppercase(), &uri, Some(b"{}".to_vec()), &[])
            .await;
        assert_ne!(
            answer.status.as_u16(),
            404,
            "{method} {uri}: {}",
            answer.json
        );
        assert_ne!(
            answer.status.as_u16(),
            405,
            "{method} {uri}: {}",
            answer.json
        );
        assert!(
            answer.status.is_client_error(),
            "{method} {uri}: {}",
            answer.json
        );
    }
}

#[tokio::test]
async fn every_documented_route_is_routed() {
    let app = TestApp::new();
    let document = whole_document();
    let mut n_checked = 0;
    for (method, path) in documented_routes(&document) {
        let uri = path
            .replace("{id}", "0")
            .replace("{world}", "0")
            .replace("{sid}", "no-such-session");
        let request = Request::builder()
            .method(method.to_uppercase().as_str())
            .uri(&uri)
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(Body::from("{}"))
            .unwrap();
        let response = app.router.clone().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_ne!(status, 405, "{method} {uri} is documented but not routed");
        assert_ne!(
            body["error"]["code"], "not_found",
            "{method} {uri} is documented but not routed"
        );
        n_checked += 1;
    }
    assert!(n_checked >= 15, "only {n_checked} operations checked");
}

/// Sends `body` to `method path` (the path as the document writes it, `uri` with its parameters
/// filled in) and checks that the answer's status is documented for the operation, that an API
/// error's code is one of the codes documented for that status, and that a Tavily route's
/// error has Tavily's shape; returns the answer's JSON.
async fn check(app: &TestApp, method: &str, path: &str, uri: &str, body: Option<Value>) -> Value {
    let document = whole_document();
    let operation = &document["paths"][path][method.to_lowercase()];
    assert!(operation.is_object(), "{method} {path} is not documented");
    let body = body.map(|body| serde_json::to_vec(&body).unwrap());
    let answer = app.send(method, uri, body, &[]).await;
    let status = answer.status.as_str();
    let response = &operation["responses"][status];
    assert!(
        response.is_object(),
        "{method} {uri} answered {status}, not documented: {}",
        answer.json
    );
    if let Some(code) = answer.json["error"]["code"].as_str() {
        let schema = &response["content"]["application/json"]["schema"];
        let envelope = schema.get("oneOf").map_or(schema, |branches| &branches[0]);
        let codes = &envelope["properties"]["error"]["properties"]["code"]["enum"];
        let codes = codes.as_array().unwrap();
        assert!(
            codes.contains(&json!(code)),
            "{method} {uri}: code {code} is not documented for {status} ({codes:?})"
        );
    }
    if path.starts_with("/compat/tavily/") && answer.status.as_u16() >= 400 {
        assert!(
            answer.json["detail"]["error"].is_string(),
            "{}",
            answer.json
        );
    }
    answer.json
}

#[tokio::test]
async fn the_answers_the_server_gives_are_documented() {
    let app = TestApp::new();
    let search = "/v1/worlds/{id}/search";
    let extract = "/v1/worlds/{id}/extract";
    let url = "https://veloria.example/wiki/Port_Amsel";
    let cases: [(&str, &str, &str, Option<Value>); 14] = [
        ("GET", "/health", "/health", None),
        ("GET", "/v1/worlds", "/v1/worlds", None),
        (
            "POST",
            search,
            "/v1/worlds/0/search",
            Some(json!({"query": "harbour"})),
        ),
        (
            "POST",
            search,
            "/v1/worlds/0/search",
            Some(json!({"queries": ["harbour"]})),
        ),
        ("POST", search, "/v1/worlds/0/search", Some(json!({}))),
        (
            "POST",
            search,
            "/v1/worlds/9/search",
            Some(json!({"query": "harbour"})),
        ),
        (
            "POST",
            search,
            "/v1/worlds/x/search",
            Some(json!({"query": "harbour"})),
        ),
        (
            "POST",
            extract,
            "/v1/worlds/0/extract",
            Some(json!({"url": url})),
        ),
        (
            "POST",
            extract,
            "/v1/worlds/0/extract",
            Some(json!({"url": "https://no.example/"})),
        ),
        (
            "POST",
            "/retrieve",
            "/retrieve",
            Some(json!({"queries": ["harbour"]})),
        ),
        (
            "POST",
            "/compat/tavily/{id}/search",
            "/compat/tavily/9/search",
            Some(json!({"query": "a"})),
        ),
        (
            "POST",
            "/compat/tavily/{id}/extract",
            "/compat/tavily/0/extract",
            Some(json!({"urls": []})),
        ),
        (
            "POST",
            "/v1/sessions",
            "/v1/sessions",
            Some(json!({"world": 9})),
        ),
        (
            "GET",
            "/v1/sessions/{sid}/log",
            "/v1/sessions/nope/log",
            None,
        ),
    ];
    for (method, path, uri, body) in cases {
        check(&app, method, path, uri, body).await;
    }
}

#[tokio::test]
async fn a_session_s_answers_and_injected_faults_are_documented() {
    let app = TestApp::new();
    let controls = json!({"error_rate": 1, "error_kinds": ["rate_limit", "server_error"]});
    let created = check(
        &app,
        "POST",
        "/v1/sessions",
        "/v1/sessions",
        Some(json!({"world": 0, "controls": controls})),
    )
    .await;
    let session = created["session"].as_str().unwrap();
    for call in 0..4 {
        let body = json!({"query": format!("harbour {call}")});
        let uri = format!("/v1/sessions/{session}/search");
        check(&app, "POST", "/v1/sessions/{sid}/search", &uri, Some(body)).await;
    }
    let uri = format!("/v1/sessions/{session}/log");
    let log = check(&app, "GET", "/v1/sessions/{sid}/log", &uri, None).await;
    assert_eq!(log["calls"], 4);
    let uri = format!("/v1/sessions/{session}");
    check(&app, "DELETE", "/v1/sessions/{sid}", &uri, None).await;
}

#[tokio::test]
async fn whole_numbers_written_with_a_fraction_are_integers() {
    let app = TestApp::new();
    let cases = [
        (json!({"query": "harbour", "top_k": 3.0}), 200),
        (json!({"query": "harbour", "top_k": 2.5}), 400),
        (json!({"query": "harbour", "page": 1e0}), 200),
        (json!({"query": "harbour", "page": -1.0}), 400),
    ];
    for (body, status) in cases {
        let answer = app.post("/v1/worlds/0/search", body.clone()).await;
        assert_eq!(answer.status.as_u16(), status, "{body}: {}", answer.json);
    }
}
