//! `GET /openapi.json` in process: the document parses, and every route it documents is routed
//! (the unit test in `openapi.rs` checks the other direction, from the router's source).

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use crate::support::TestApp;

#[tokio::test]
async fn the_served_document_parses_and_every_documented_route_answers() {
    let app = TestApp::new();
    let answer = app.get("/openapi.json").await;
    assert_eq!(answer.status.as_u16(), 200);
    let document = answer.json;
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document, fabula_server::openapi::document());
    let paths = document["paths"].as_object().unwrap();
    let mut n_checked = 0;
    for (path, item) in paths {
        let uri = path
            .replace("{id}", "0")
            .replace("{world}", "0")
            .replace("{sid}", "no-such-session");
        for method in ["get", "post", "delete"] {
            if item.get(method).is_none() {
                continue;
            }
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
    }
    assert!(n_checked >= 15, "only {n_checked} operations checked");
}
