//! `GET /openapi.json` on the admin listener, in process: the served document is the generated
//! one and is stable (a snapshot), it lists exactly the routes the admin router declares, every
//! documented route is routed, and the answers the listener gives are documented for their
//! operation (status, error code).

use std::path::Path;

use serde_json::{Value, json};

use super::openenv::Env;
use super::{TOKEN, call, fixture};

/// The `(method, path)` pairs the admin router declares, read from the crate's source files
/// (`.route("PATH", METHOD(..))`, unit tests left out), so the test follows the router whatever
/// routes are added.
fn declared_routes() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut routes = Vec::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        for part in source.split(".route(\"").skip(1) {
            let Some((path, rest)) = part.split_once('"') else {
                continue;
            };
            let method = rest.trim_start_matches(',').trim();
            let method = method.split('(').next().unwrap_or_default().trim();
            routes.push((method.to_owned(), path.to_owned()));
        }
    }
    routes.sort();
    routes.dedup();
    routes
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
    let dir = fixture();
    let (status, document) = call(dir.path(), "GET", "/openapi.json", Some(TOKEN), None).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document, fabula_admin::openapi::document());
    insta::assert_json_snapshot!(document);
    let (status, body) = call(dir.path(), "GET", "/openapi.json", None, None).await;
    assert_eq!(status.as_u16(), 401);
    assert_eq!(body["error"]["code"], "unauthorized");
}

#[test]
fn the_document_lists_every_route_of_the_router_and_no_other() {
    let declared = declared_routes();
    assert!(declared.len() >= 13, "too few routes read: {declared:?}");
    let undocumented = fabula_admin::openapi::UNDOCUMENTED_ROUTES;
    let expect: Vec<(String, String)> = declared
        .into_iter()
        .filter(|(method, path)| !undocumented.contains(&(method.as_str(), path.as_str())))
        .collect();
    let documented = documented_routes(&fabula_admin::openapi::document());
    assert_eq!(documented, expect);
}

#[tokio::test]
async fn every_documented_route_is_routed() {
    let dir = fixture();
    let document = fabula_admin::openapi::document();
    let mut n_checked = 0;
    for (method, path) in documented_routes(&document) {
        let uri = path.replace("{id}", "42");
        let body = (method == "post").then(|| json!({}));
        let (status, body) =
            call(dir.path(), &method.to_uppercase(), &uri, Some(TOKEN), body).await;
        assert_ne!(
            status.as_u16(),
            405,
            "{method} {uri} is documented but not routed"
        );
        assert_ne!(
            body["error"]["code"], "not_found",
            "{method} {uri} is documented but not routed"
        );
        n_checked += 1;
    }
    assert!(n_checked >= 12, "only {n_checked} operations checked");
}

/// Checks that `answer`'s status is documented for the operation at `method path` and that an
/// error's code is one of the codes documented for that status.
fn check_documented(method: &str, path: &str, status: u16, answer: &Value) {
    let document = fabula_admin::openapi::document();
    let operation = &document["paths"][path][method.to_lowercase()];
    assert!(operation.is_object(), "{method} {path} is not documented");
    let response = &operation["responses"][status.to_string()];
    assert!(
        response.is_object(),
        "{method} {path} answered {status}, not documented: {answer}"
    );
    if let Some(code) = answer["error"]["code"].as_str() {
        let codes = &response["content"]["application/json"]["schema"]["properties"]["error"]["properties"]
            ["code"]["enum"];
        let codes = codes.as_array().unwrap();
        assert!(
            codes.contains(&json!(code)),
            "{method} {path}: code {code} is not documented for {status} ({codes:?})"
        );
    }
}

#[tokio::test]
async fn the_answers_the_listener_gives_are_documented() {
    let env = Env::new();
    let cases: Vec<(&str, &str, String, Option<Value>)> = vec![
        ("GET", "/health", "/health".into(), None),
        ("GET", "/metadata", "/metadata".into(), None),
        ("GET", "/schema", "/schema".into(), None),
        (
            "GET",
            "/admin/worlds/{id}/tasks",
            "/admin/worlds/42/tasks".into(),
            None,
        ),
        (
            "GET",
            "/admin/worlds/{id}/tasks",
            "/admin/worlds/7/tasks".into(),
            None,
        ),
        (
            "GET",
            "/admin/worlds/{id}/tasks",
            "/admin/worlds/x/tasks".into(),
            None,
        ),
        (
            "POST",
            "/admin/score",
            "/admin/score".into(),
            Some(json!({"task_id": "w00042-t000", "answer": "1841"})),
        ),
        (
            "POST",
            "/admin/score",
            "/admin/score".into(),
            Some(json!({"task_id": "w00042-t999", "answer": "1841"})),
        ),
        (
            "POST",
            "/admin/score",
            "/admin/score".into(),
            Some(json!([])),
        ),
        (
            "POST",
            "/v1/env/reset",
            "/v1/env/reset".into(),
            Some(json!({})),
        ),
        (
            "POST",
            "/v1/env/reset",
            "/v1/env/reset".into(),
            Some(json!({"world": 9})),
        ),
        (
            "POST",
            "/v1/env/step",
            "/v1/env/step".into(),
            Some(json!({"episode_id": "e9", "action": {"tool": "answer", "answer": "x"}})),
        ),
        ("GET", "/v1/env/state", "/v1/env/state".into(), None),
        (
            "GET",
            "/v1/env/state",
            "/v1/env/state?episode_id=e9".into(),
            None,
        ),
        ("GET", "/state", "/state".into(), None),
        ("GET", "/state", "/state?episode_id=e9".into(), None),
        ("POST", "/step", "/step".into(), Some(json!({"action": {}}))),
        (
            "POST",
            "/step",
            "/step".into(),
            Some(json!({"action": {"tool": "web_search", "query": "x"}})),
        ),
        ("POST", "/reset", "/reset".into(), Some(json!({"world": 9}))),
    ];
    for (method, path, uri, body) in cases {
        let (status, answer) = env.call(method, &uri, body).await;
        check_documented(method, path, status.as_u16(), &answer);
    }
    // An episode from reset to the end, and a step after it.
    let (status, reset) = env
        .call("POST", "/reset", Some(json!({"task_id": "w00042-t000"})))
        .await;
    check_documented("POST", "/reset", status.as_u16(), &reset);
    let episode = reset["observation"]["info"]["episode_id"].as_str().unwrap();
    let action = json!({"episode_id": episode, "action": {"tool": "answer", "answer": "1841"}});
    for expected in [200, 409] {
        let (status, answer) = env.call("POST", "/v1/env/step", Some(action.clone())).await;
        assert_eq!(status.as_u16(), expected, "{answer}");
        check_documented("POST", "/v1/env/step", expected, &answer);
    }
    let uri = format!("/state?episode_id={episode}");
    let (status, state) = env.call("GET", &uri, None).await;
    check_documented("GET", "/state", status.as_u16(), &state);
}

#[tokio::test]
async fn wrong_methods_and_paths_answer_json_errors() {
    let dir = fixture();
    let (status, body) = call(dir.path(), "DELETE", "/admin/score", Some(TOKEN), None).await;
    assert_eq!(status.as_u16(), 405);
    assert_eq!(body["error"]["code"], "method_not_allowed");
    let (status, body) = call(dir.path(), "GET", "/nope", Some(TOKEN), None).await;
    assert_eq!(status.as_u16(), 404);
    assert_eq!(body["error"]["code"], "not_found");
    let (status, body) = call(dir.path(), "GET", "/ws", Some(TOKEN), None).await;
    assert_eq!(status.as_u16(), 400);
    assert_eq!(body["error"]["code"], "bad_request");
}
