//! The MCP endpoint's limits and errors, driven in process: the session cap (429 with
//! `Retry-After`, freed by DELETE and by the idle time to live), JSON bodies for every HTTP error,
//! JSON-RPC errors for bodies that are no message, an unknown tool as a tool error, the
//! server's name, and the tool list a client is served (a snapshot).

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::TestApp;

const PATH: &str = "/mcp/0";
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const JSON_TYPE: (&str, &str) = ("content-type", "application/json");
const ACCEPT_ALL: (&str, &str) = ("accept", ACCEPT_BOTH);

/// An answer of the MCP endpoint: status, headers and the body as text (JSON or SSE).
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Reply {
    /// The body as JSON: the whole body, or the last SSE `data:` line that holds JSON.
    fn json(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.body) {
            return value;
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .next_back()
            .unwrap_or_else(|| panic!("no JSON in {:?}", self.body))
    }

    fn session(&self) -> String {
        self.headers["mcp-session-id"].to_str().unwrap().to_owned()
    }

    #[track_caller]
    fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.body);
        let json: Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|_| panic!("not JSON: {:?}", self.body));
        assert_eq!(json["error"]["code"], code, "{json}");
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
}

/// Sends a request to the MCP endpoint with the given headers, and `Host: localhost` unless they
/// name a host.
async fn call(app: &TestApp, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    call_at(app, PATH, method, headers, body).await
}

/// [`call`] at another path of the MCP endpoints.
async fn call_at(
    app: &TestApp,
    path: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut request = Request::builder().method(method).uri(path);
    if !headers.iter().any(|(name, _)| *name == "host") {
        request = request.header("host", "localhost");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Body::from(body.to_owned())).unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// POSTs a JSON-RPC message the way an MCP client does, in a session when one is given.
async fn post(app: &TestApp, session: Option<&str>, message: &Value) -> Reply {
    post_at(app, PATH, session, message).await
}

/// [`post`] to another of the MCP endpoints.
async fn post_at(app: &TestApp, path: &str, session: Option<&str>, message: &Value) -> Reply {
    let mut headers = vec![JSON_TYPE, ACCEPT_ALL];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    call_at(app, path, "POST", &headers, &message.to_string()).await
}

fn initialize_message(client_name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": client_name, "version": "0"}
    }})
}

async fn initialize(app: &TestApp) -> Reply {
    post(app, None, &initialize_message("fabula-it")).await
}

/// Opens a session (initialize and the initialized notification) and returns its id and the
/// initialize result.
async fn open_session(app: &TestApp) -> (String, Value) {
    open_session_at(app, PATH).await
}

/// [`open_session`] at another of the MCP endpoints.
async fn open_session_at(app: &TestApp, path: &str) -> (String, Value) {
    let reply = post_at(app, path, None, &initialize_message("fabula-it")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let session = reply.session();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let notified = post_at(app, path, Some(&session), &initialized).await;
    assert!(notified.status.is_success(), "{}", notified.body);
    (session, reply.json()["result"].clone())
}

/// The `result` of calling `tool` with `arguments` in an MCP session at `path`.
async fn call_tool_at(
    app: &TestApp,
    path: &str,
    session: &str,
    tool: &str,
    arguments: Value,
) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                         "params": {"name": tool, "arguments": arguments}});
    post_at(app, path, Some(session), &message).await.json()["result"].clone()
}

/// The names `tools/list` gives in an MCP session at `path`.
async fn tool_names_at(app: &TestApp, path: &str, session: &str) -> Vec<String> {
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let answer = post_at(app, path, Some(session), &list).await.json();
    answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn delete(app: &TestApp, session: &str) -> Reply {
    call(app, "DELETE", &[("mcp-session-id", session)], "").await
}

#[tokio::test]
async fn the_session_cap_refuses_with_429_until_a_session_is_deleted() {
    let app = TestApp::with_config(|config| config.max_mcp_sessions = 2);
    let (first, _) = open_session(&app).await;
    let (second, _) = open_session(&app).await;
    let refused = initialize(&app).await;
    refused.assert_error(429, "too_many_sessions");
    assert!(refused.headers.contains_key("retry-after"));
    assert!(!refused.headers.contains_key("mcp-session-id"));

    let deleted = delete(&app, &first).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.body);
    delete(&app, &first)
        .await
        .assert_error(404, "session_not_found");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    post(&app, Some(&first), &ping)
        .await
        .assert_error(404, "session_not_found");

    let (third, _) = open_session(&app).await;
    initialize(&app)
        .await
        .assert_error(429, "too_many_sessions");
    // Calls in open sessions still work at the cap.
    let pong = post(&app, Some(&second), &ping).await;
    assert_eq!(pong.status, StatusCode::OK, "{}", pong.body);
    assert_eq!(pong.json()["id"], 2);
    assert_ne!(second, third);
}

// Virtual time: rmcp's keep-alive and the cap run on tokio's clock, which stands still here
// and jumps ahead whenever every task waits on a timer; an hour-long TTL passes at once.
#[tokio::test(start_paused = true)]
async fn idle_sessions_expire_and_free_their_place() {
    const TTL: Duration = Duration::from_secs(3_600);
    let app = TestApp::with_config(|config| {
        config.max_mcp_sessions = 1;
        config.mcp_session_ttl = TTL;
    });
    let (session, _) = open_session(&app).await;
    let started = tokio::time::Instant::now();
    initialize(&app)
        .await
        .assert_error(429, "too_many_sessions");
    tokio::time::sleep(TTL / 2).await;
    initialize(&app)
        .await
        .assert_error(429, "too_many_sessions");
    let reopened = loop {
        tokio::time::sleep(Duration::from_secs(60)).await;
        let reply = initialize(&app).await;
        if reply.status != StatusCode::TOO_MANY_REQUESTS {
            break reply;
        }
        assert!(
            started.elapsed() < TTL * 2,
            "the idle session never expired"
        );
    };
    assert!(
        started.elapsed() >= TTL,
        "expired early: {:?}",
        started.elapsed()
    );
    assert_eq!(reopened.status, StatusCode::OK, "{}", reopened.body);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    post(&app, Some(&session), &ping)
        .await
        .assert_error(404, "session_not_found");
}

/// A request and the JSON error it must get.
struct ErrorCase<'a> {
    method: &'a str,
    headers: &'a [(&'a str, &'a str)],
    body: &'a str,
    status: u16,
    code: &'a str,
}

fn case<'a>(
    method: &'a str,
    headers: &'a [(&'a str, &'a str)],
    body: &'a str,
    status: u16,
    code: &'a str,
) -> ErrorCase<'a> {
    ErrorCase {
        method,
        headers,
        body,
        status,
        code,
    }
}

#[tokio::test]
async fn http_errors_have_json_bodies() {
    let app = TestApp::new();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let huge_client = initialize_message(&"x".repeat(20_000)).to_string();
    let huge_body = json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {
        "_meta": {"pad": "x".repeat(70_000)}
    }})
    .to_string();
    let cases = [
        case(
            "POST",
            &[JSON_TYPE, ("accept", "application/json")],
            &ping,
            406,
            "not_acceptable",
        ),
        case(
            "POST",
            &[("content-type", "text/plain"), ACCEPT_ALL],
            &ping,
            415,
            "unsupported_media_type",
        ),
        case(
            "POST",
            &[JSON_TYPE, ACCEPT_ALL, ("mcp-session-id", "nope")],
            &ping,
            404,
            "session_not_found",
        ),
        case("POST", &[JSON_TYPE, ACCEPT_ALL], &ping, 400, "bad_request"),
        case(
            "POST",
            &[JSON_TYPE, ACCEPT_ALL],
            &huge_client,
            413,
            "payload_too_large",
        ),
        case(
            "POST",
            &[JSON_TYPE, ACCEPT_ALL],
            &huge_body,
            413,
            "payload_too_large",
        ),
        case(
            "POST",
            &[JSON_TYPE, ACCEPT_ALL, ("host", "evil.example")],
            &ping,
            403,
            "forbidden",
        ),
        case(
            "GET",
            &[("accept", "application/json")],
            "",
            406,
            "not_acceptable",
        ),
        case(
            "GET",
            &[("accept", "text/event-stream")],
            "",
            400,
            "bad_request",
        ),
        case(
            "GET",
            &[("accept", "text/event-stream"), ("mcp-session-id", "nope")],
            "",
            404,
            "session_not_found",
        ),
        case(
            "DELETE",
            &[("mcp-session-id", "nope")],
            "",
            404,
            "session_not_found",
        ),
        case("DELETE", &[], "", 400, "bad_request"),
        case("PUT", &[], "", 405, "method_not_allowed"),
    ];
    for ErrorCase {
        method,
        headers,
        body,
        status,
        code,
    } in cases
    {
        let reply = call(&app, method, headers, body).await;
        let case = format!("{method} {headers:?}");
        assert_eq!(reply.status.as_u16(), status, "{case}: {}", reply.body);
        let json: Value = serde_json::from_str(&reply.body)
            .unwrap_or_else(|_| panic!("{case}: not JSON: {:?}", reply.body));
        assert_eq!(json["error"]["code"], code, "{case}: {json}");
        assert_eq!(reply.headers["content-type"], "application/json", "{case}");
    }
    let put = call(&app, "PUT", &[], "").await;
    assert!(put.headers["allow"].to_str().unwrap().contains("POST"));
}

#[tokio::test]
async fn bodies_that_are_no_json_rpc_message_get_json_rpc_errors() {
    let app = TestApp::new();
    let headers = [JSON_TYPE, ACCEPT_ALL];
    let cases = [
        (
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"",
            -32700,
            Value::Null,
        ),
        ("not json at all", -32700, Value::Null),
        (r#"{"jsonrpc": "2.0", "id": 5}"#, -32600, json!(5)),
    ];
    for (body, code, id) in cases {
        let reply = call(&app, "POST", &headers, body).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body}: {}",
            reply.body
        );
        let json = reply.json();
        assert_eq!(json["jsonrpc"], "2.0", "{json}");
        assert_eq!(json["id"], id, "{json}");
        assert_eq!(json["error"]["code"], code, "{json}");
        assert!(json["error"]["message"].is_string(), "{json}");
    }
}

#[tokio::test]
async fn the_server_is_fabula_and_an_unknown_tool_is_a_tool_error() {
    let app = TestApp::new();
    let (session, result) = open_session(&app).await;
    assert_eq!(result["serverInfo"]["name"], "fabula", "{result}");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    let call_tool = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "web_browse", "arguments": {}
    }});
    let reply = post(&app, Some(&session), &call_tool).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("unknown tool `web_browse`"), "{text}");
    assert_eq!(
        answer["result"]["structuredContent"]["error"]["code"],
        "bad_request"
    );
}

#[tokio::test]
async fn the_served_tool_list_is_the_expected_one() {
    let app = TestApp::new();
    let (session, _) = open_session(&app).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let reply = post(&app, Some(&session), &list).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let tools = reply.json()["result"]["tools"].clone();
    for tool in tools.as_array().unwrap() {
        // What LangChain's MCP adapters and other clients read.
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        assert!(schema["properties"].is_object(), "{tool}");
    }
    insta::assert_json_snapshot!(tools);
}

#[tokio::test]
async fn dict_memory_keeps_notes_for_the_mcp_session() {
    let app = TestApp::new();
    let (session, _) = open_session(&app).await;
    let memory = |session: String, arguments: Value| {
        let app = &app;
        async move { call_tool_at(app, PATH, &session, "dict_memory", arguments).await }
    };
    let add = json!({"operation": "add", "dict": {"lead": "Port Amsel"}});
    let result = memory(session.clone(), add).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "Successfully added items of ['lead'] to memory."
    );
    let get = json!({"operation": "retrieve_all"});
    let result = memory(session.clone(), get.clone()).await;
    assert_eq!(result["content"][0]["text"], "{\"lead\":\"Port Amsel\"}");
    assert_eq!(result["structuredContent"]["found"]["lead"], "Port Amsel");
    // Another MCP session starts with an empty memory.
    let (other, _) = open_session(&app).await;
    assert_eq!(memory(other, get).await["content"][0]["text"], "{}");
    let result = memory(session, json!({"operation": "add"})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["error"]["code"], "bad_request");
}

#[tokio::test]
async fn the_deep_research_endpoint_serves_search_and_fetch() {
    const DEEP: &str = "/mcp/0/deep-research";
    let app = TestApp::new();
    let (session, _) = open_session_at(&app, DEEP).await;
    assert_eq!(
        tool_names_at(&app, DEEP, &session).await,
        ["search", "fetch"]
    );
    let found = call_tool_at(&app, DEEP, &session, "search", json!({"query": "harbour"})).await;
    assert_eq!(found["isError"], false, "{found}");
    // One text item holding the JSON object, and the same object as structured content.
    let content = found["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    let results: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(results, found["structuredContent"]);
    let first = &results["results"][0];
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "title", "url"], "{first}");
    assert_eq!(first["id"], first["url"]);
    let id = first["id"].as_str().unwrap().to_owned();
    let page = call_tool_at(&app, DEEP, &session, "fetch", json!({"id": id})).await;
    assert_eq!(page["isError"], false, "{page}");
    let document: Value =
        serde_json::from_str(page["content"][0]["text"].as_str().unwrap()).unwrap();
    let keys: Vec<&String> = document.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["id", "metadata", "text", "title", "url"],
        "{document}"
    );
    assert_eq!(document["id"], id.as_str());
    assert_eq!(document["title"], first["title"]);
    assert_eq!(document["metadata"]["world"], 0);
    assert!(document["text"].as_str().unwrap().len() > 100);
    // An id that is no page, and a tool of the other set, are tool errors.
    let missing = json!({"id": "https://nowhere.example/x"});
    let missing = call_tool_at(&app, DEEP, &session, "fetch", missing).await;
    assert_eq!(missing["isError"], true, "{missing}");
    assert_eq!(
        missing["structuredContent"]["error"]["code"],
        "url_not_found"
    );
    let other = call_tool_at(
        &app,
        DEEP,
        &session,
        "web_search",
        json!({"query": "harbour"}),
    )
    .await;
    assert_eq!(other["isError"], true, "{other}");
    assert_eq!(other["structuredContent"]["error"]["code"], "bad_request");
}

#[tokio::test]
async fn the_browsecomp_plus_endpoint_serves_search_and_get_document() {
    const PLUS: &str = "/mcp/0/browsecomp-plus";
    let app = TestApp::new();
    let (session, _) = open_session_at(&app, PLUS).await;
    assert_eq!(
        tool_names_at(&app, PLUS, &session).await,
        ["search", "get_document"]
    );
    let found = call_tool_at(&app, PLUS, &session, "search", json!({"query": "harbour"})).await;
    let hits = found["structuredContent"]["result"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!hits.is_empty() && hits.len() <= 5, "{found}");
    for hit in &hits {
        let keys: Vec<&String> = hit.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["docid", "score", "snippet"], "{hit}");
        assert!(hit["score"].as_f64().unwrap() > 0.0);
    }
    let docid = json!({"docid": hits[0]["docid"]});
    let document = call_tool_at(&app, PLUS, &session, "get_document", docid).await;
    assert_eq!(document["structuredContent"]["docid"], hits[0]["docid"]);
    let missing = json!({"docid": "nowhere"});
    let missing = call_tool_at(&app, PLUS, &session, "get_document", missing).await;
    assert_eq!(missing["isError"], false, "{missing}");
    assert_eq!(missing["content"][0]["text"], "null");
}

/// The number of REST sessions the store holds, from `/health`.
async fn rest_sessions(app: &TestApp) -> u64 {
    app.get("/health").await.json["sessions"].as_u64().unwrap()
}

#[tokio::test]
async fn an_mcp_session_takes_its_fabula_session_with_it_when_it_ends() {
    let app = TestApp::new();
    let (session, _) = open_session(&app).await;
    let search = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "web_search", "arguments": {"query": ["harbour ferry guild"]}
    }});
    let reply = post(&app, Some(&session), &search).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(rest_sessions(&app).await, 1, "the tool call made a session");
    let deleted = delete(&app, &session).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", deleted.body);
    // rmcp drops the session's server as its worker stops, a moment after the answer.
    let started = Instant::now();
    while rest_sessions(&app).await != 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the session stayed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
