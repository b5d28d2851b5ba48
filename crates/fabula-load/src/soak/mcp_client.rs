//! MCP over Streamable HTTP as a client speaks it, for the soak's MCP episodes and the
//! `initialize` flood: `initialize` (taking the `Mcp-Session-Id` answer header), the
//! `notifications/initialized` notification, `tools/call` of `web_search`, and `DELETE` to end the
//! session. Answers come as JSON or as SSE `data:` lines; both are read.
//!
//! Written by hand rather than with rmcp's client because the soak measures the protocol itself:
//! each exchange is timed and classified on its own (an injected fault, a 429 at the session cap,
//! a real error), over the soak's own keep-alive connections (so `--connections` is what the
//! server sees), and the flood sends `initialize` without ever finishing the handshake. rmcp's
//! client runs the handshake inside `serve` and hides those steps, and its Streamable HTTP client
//! needs the `transport-streamable-http-client-reqwest` feature (reqwest and a TLS stack) or a
//! transport of our own, for four JSON-RPC messages.

use std::time::Duration;

use hyper::Method;
use hyper::StatusCode;
use hyper::body::Bytes;
use serde_json::{Value, json};

use super::client::Client;
use super::tally::{Op, Outcome, classify, is_injected_code};
use crate::loadgen::Answer;

/// The protocol version the benchmark asks for.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// The headers of every MCP request, with the session's id once there is one.
pub fn headers(session: Option<&str>) -> Vec<(&'static str, &str)> {
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", PROTOCOL_VERSION),
    ];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    headers
}

/// The JSON-RPC message answering request `id`, from a JSON body or SSE `data:` lines.
pub fn rpc_message(body: &[u8], id: u64) -> Option<Value> {
    if let Ok(message) = serde_json::from_slice::<Value>(body) {
        return Some(message);
    }
    let text = std::str::from_utf8(body).ok()?;
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == json!(id))
}

/// Sends one request of an MCP session (`session` None for `initialize`) with the MCP headers.
async fn send(
    client: &mut Client,
    op: Op,
    method: Method,
    path: &str,
    session: Option<&str>,
    body: Option<Bytes>,
) -> Option<(Answer, Duration)> {
    client.send(op, method, path, &headers(session), body).await
}

/// The body of an `initialize` request (id 1).
pub fn initialize_body() -> Bytes {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "fabula-bench-soak", "version": env!("CARGO_PKG_VERSION")},
    }});
    Bytes::from(body.to_string())
}

/// Sends `initialize` to `path` (`/mcp/{world}?..`) and returns the session id on success.
pub async fn initialize(client: &mut Client, path: &str) -> Option<String> {
    let (answer, latency) = send(
        client,
        Op::McpInitialize,
        Method::POST,
        path,
        None,
        Some(initialize_body()),
    )
    .await?;
    if answer.status != StatusCode::OK {
        let outcome = classify(answer.status, &answer.body, false);
        client.record(Op::McpInitialize, latency, outcome);
        return None;
    }
    let session = answer
        .headers
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let message = rpc_message(&answer.body, 1);
    let outcome = match (&session, &message) {
        (None, _) => Outcome::Real("no Mcp-Session-Id header".to_owned()),
        (_, Some(message)) if message["result"]["capabilities"].is_object() => Outcome::Ok,
        (_, message) => Outcome::Real(format!("not an initialize result: {message:?}")),
    };
    let ok = outcome == Outcome::Ok;
    client.record(Op::McpInitialize, latency, outcome);
    session.filter(|_| ok)
}

/// Sends `notifications/initialized`; 202 or 200 is success.
pub async fn initialized(client: &mut Client, path: &str, session: &str) -> bool {
    let body = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let body = Some(Bytes::from(body.to_string()));
    send_and_record(
        client,
        Op::McpInitialized,
        Method::POST,
        path,
        session,
        body,
    )
    .await
}

/// Calls the `web_search` tool; a tool error with an injected code counts as injected when the
/// session was made with injecting controls.
pub async fn web_search(
    client: &mut Client,
    path: &str,
    session: &str,
    query: &str,
    injecting: bool,
) {
    let id = 2;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "web_search", "arguments": {"query": query, "top_k": 5},
    }});
    let Some((answer, latency)) = send(
        client,
        Op::McpToolCall,
        Method::POST,
        path,
        Some(session),
        Some(Bytes::from(body.to_string())),
    )
    .await
    else {
        return;
    };
    let outcome = if answer.status == StatusCode::OK {
        tool_outcome(rpc_message(&answer.body, id).as_ref(), injecting)
    } else {
        classify(answer.status, &answer.body, injecting)
    };
    client.record(Op::McpToolCall, latency, outcome);
}

/// The outcome of a `tools/call` answer.
fn tool_outcome(message: Option<&Value>, injecting: bool) -> Outcome {
    let Some(message) = message else {
        return Outcome::Real("no JSON-RPC answer".to_owned());
    };
    if let Some(code) = message["error"]["code"].as_i64() {
        return Outcome::Real(format!("JSON-RPC error {code}"));
    }
    let result = &message["result"];
    if result["isError"] != json!(true) {
        return if result["content"].is_array() {
            Outcome::Ok
        } else {
            Outcome::Real("a tool result without content".to_owned())
        };
    }
    let code = result["structuredContent"]["error"]["code"]
        .as_str()
        .unwrap_or("unknown");
    match code {
        _ if injecting && is_injected_code(code) => Outcome::Injected,
        // A session cap reached inside a tool call is a refusal, as its HTTP 429 would be.
        "too_many_sessions" => Outcome::Refused,
        _ => Outcome::Real(format!("tool error {code}")),
    }
}

/// Ends the MCP session with `DELETE`.
pub async fn delete(client: &mut Client, path: &str, session: &str) {
    send_and_record(client, Op::McpDelete, Method::DELETE, path, session, None).await;
}

/// Sends one request of a session whose answer carries nothing to read but its status, and
/// records its outcome; true when it succeeded.
async fn send_and_record(
    client: &mut Client,
    op: Op,
    method: Method,
    path: &str,
    session: &str,
    body: Option<Bytes>,
) -> bool {
    let Some((answer, latency)) = send(client, op, method, path, Some(session), body).await else {
        return false;
    };
    let outcome = classify(answer.status, &answer.body, false);
    let ok = outcome == Outcome::Ok;
    client.record(op, latency, outcome);
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_from_json_or_sse() {
        let json_body = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert_eq!(rpc_message(json_body, 1).unwrap()["id"], 1);
        let sse = b"id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":1}}\n\n";
        assert_eq!(rpc_message(sse, 2).unwrap()["result"]["ok"], 1);
        assert_eq!(rpc_message(sse, 3), None);
        assert_eq!(rpc_message(b"\xff\xfe", 1), None);
    }

    #[test]
    fn tool_answers_are_classified() {
        fn check(message: Value, injecting: bool, expect: Outcome) {
            assert_eq!(tool_outcome(Some(&message), injecting), expect, "{message}");
        }
        let error = |code: &str| {
            json!({"result": {"isError": true, "content": [],
                "structuredContent": {"error": {"code": code}}}})
        };
        check(
            json!({"result": {"content": [{"type": "text"}]}}),
            true,
            Outcome::Ok,
        );
        check(error("rate_limited"), true, Outcome::Injected);
        check(error("injected_server_error"), true, Outcome::Injected);
        check(error("too_many_sessions"), false, Outcome::Refused);
        check(
            error("rate_limited"),
            false,
            Outcome::Real("tool error rate_limited".to_owned()),
        );
        check(
            error("world_unavailable"),
            true,
            Outcome::Real("tool error world_unavailable".to_owned()),
        );
        check(
            json!({"error": {"code": -32602, "message": "bad"}}),
            true,
            Outcome::Real("JSON-RPC error -32602".to_owned()),
        );
        check(
            json!({"result": {}}),
            false,
            Outcome::Real("a tool result without content".to_owned()),
        );
        assert_eq!(
            tool_outcome(None, true),
            Outcome::Real("no JSON-RPC answer".to_owned())
        );
    }
}
