//! The agent front ends over real processes: MCP over stdio (`fabula mcp`) and Streamable HTTP
//! (`/mcp/{world}` in `fabula serve`), spoken as raw JSON-RPC, the OpenAPI document, and a full
//! OpenEnv-style episode on the admin listener.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use super::{generate, http};

/// A child process that is killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first world of a generated dataset: its id and name.
fn first_world(dir: &std::path::Path) -> (u32, String) {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let world = &manifest["worlds"][0];
    (
        world["id"].as_u64().unwrap() as u32,
        world["name"].as_str().unwrap().to_owned(),
    )
}

/// An MCP client over a child's stdio, one JSON-RPC message per line.
struct StdioClient {
    _process: Process,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioClient {
    fn start(args: &[&str]) -> StdioClient {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fabula"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fabula mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        StdioClient {
            _process: Process(child),
            stdin,
            stdout,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and reads lines until its response.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let answer = self.request(1, "initialize", initialize_params());
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "fabula-e2e", "version": "0"}
    })
}

pub(crate) fn tool_text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

/// Checks a `tools/list` answer names the three tools with object schemas.
fn check_tool_list(answer: &Value) {
    let tools = answer["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["web_search", "web_extractor", "dict_memory"]);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }
}

/// Checks a `web_search` answer is in the block format and returns its first URL.
fn check_search(answer: &Value) -> String {
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    let text = tool_text(answer);
    assert!(text.contains("[1] "), "{text}");
    assert!(
        text.contains("\nTitle: ") && text.contains("\nSnippet: ") && text.contains("\nDate: ")
    );
    let url = &answer["result"]["structuredContent"]["responses"][0]["results"][0]["url"];
    url.as_str().unwrap().to_owned()
}

/// `fabula mcp` renders with the world model as `fabula serve` does: a tiny Qwen3.5 checkpoint's
/// text fails verification, so the tools answer with the template's, and nothing else changes.
#[test]
fn mcp_over_stdio_renders_with_a_world_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 1, 5);
    let (world, name) = first_world(&dir);
    let model = tmp.path().join("tiny");
    let (dir_arg, model_arg) = (dir.to_str().unwrap(), model.to_str().unwrap());
    let out = super::fabula(&[
        "wm",
        "tiny",
        "--out",
        model_arg,
        "--worlds",
        dir_arg,
        "--count",
        "1",
        "--architecture",
        "qwen3.5",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let world_arg = world.to_string();
    let mut client = StdioClient::start(&[
        "mcp",
        "--worlds",
        dir_arg,
        "--world",
        &world_arg,
        "--renderer",
        "lwm",
        "--model",
        model_arg,
        "--max-new-tokens",
        "8",
    ]);
    client.initialize();
    let search = client.request(
        2,
        "tools/call",
        json!({"name": "web_search", "arguments": {"queries": [name]}}),
    );
    check_search(&search);
    // The same search with the template renderer reads the same.
    let mut plain = StdioClient::start(&["mcp", "--worlds", dir_arg, "--world", &world_arg]);
    plain.initialize();
    let template = plain.request(
        2,
        "tools/call",
        json!({"name": "web_search", "arguments": {"queries": [name]}}),
    );
    assert_eq!(tool_text(&search), tool_text(&template));
}

#[test]
fn mcp_over_stdio_searches_extracts_and_reports_injected_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 2, 5);
    let (world, name) = first_world(&dir);
    let (dir_arg, world_arg) = (dir.to_str().unwrap(), world.to_string());

    let mut client = StdioClient::start(&["mcp", "--worlds", dir_arg, "--world", &world_arg]);
    let init = client.initialize();
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    check_tool_list(&client.request(2, "tools/list", json!({})));
    let search = client.request(
        3,
        "tools/call",
        json!({"name": "web_search", "arguments": {"queries": [name]}}),
    );
    let url = check_search(&search);
    let extract = client.request(
        4,
        "tools/call",
        json!({"name": "web_extractor", "arguments": {"url": url, "start_index": 0}}),
    );
    assert_eq!(extract["result"]["isError"], json!(false), "{extract}");
    assert!(tool_text(&extract).starts_with(&format!("Contents of {url}:")));
    let cut = client.request(
        5,
        "tools/call",
        json!({"name": "web_extractor", "arguments": {"url": url, "max_length": 20}}),
    );
    assert!(tool_text(&cut).contains("start_index of 20"), "{cut}");
    let bad = client.request(
        6,
        "tools/call",
        json!({"name": "web_extractor", "arguments": {"link": url}}),
    );
    assert_eq!(bad["result"]["isError"], json!(true));
    assert!(
        tool_text(&bad).starts_with("Error bad_request (400)"),
        "{bad}"
    );
    // The notebook lives as long as the stdio session.
    let noted = client.request(
        7,
        "tools/call",
        json!({"name": "dict_memory", "arguments": {"operation": "add", "dict": {"url": url}}}),
    );
    assert_eq!(
        tool_text(&noted),
        "Successfully added items of ['url'] to memory."
    );
    let read = client.request(
        8,
        "tools/call",
        json!({"name": "dict_memory", "arguments": {"operation": "retrieve", "key_list": ["url"]}}),
    );
    assert_eq!(tool_text(&read), json!({ "url": url }).to_string());

    let mut failing = StdioClient::start(&[
        "mcp",
        "--worlds",
        dir_arg,
        "--world",
        &world_arg,
        "--controls",
        r#"{"error_rate": 1, "error_kinds": ["rate_limit"]}"#,
    ]);
    failing.initialize();
    let limited = failing.request(
        2,
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": name}}),
    );
    assert_eq!(limited["result"]["isError"], json!(true), "{limited}");
    assert_eq!(
        limited["result"]["structuredContent"]["error"]["code"],
        "rate_limited"
    );
    assert!(tool_text(&limited).starts_with("Error rate_limited (429)"));

    let refused = super::fabula(&["mcp", "--worlds", dir_arg, "--world", "999999"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("world_not_found"));
}

/// A `fabula serve` process with the admin listener; both addresses parsed from its stderr.
struct Server {
    _process: Process,
    addr: String,
    admin_addr: String,
}

const ADMIN_TOKEN: &str = "e2e-admin-token-0123";

fn start_server(dir: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fabula"))
        .args(["serve", "--worlds", dir.to_str().unwrap()])
        .args(["--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"])
        .args(["--admin-token", ADMIN_TOKEN])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("fabula serve starts");
    let stderr = child.stderr.take().unwrap();
    let process = Process(child);
    let mut lines = BufReader::new(stderr).lines();
    let mut addrs = Vec::new();
    while addrs.len() < 2 {
        let line = lines
            .next()
            .expect("the server reports its addresses")
            .unwrap();
        if let Some(rest) = line.split("on http://").nth(1) {
            addrs.push(rest.split_whitespace().next().unwrap().to_string());
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Server {
        _process: process,
        admin_addr: addrs.pop().unwrap(),
        addr: addrs.pop().unwrap(),
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// The JSON-RPC message of an MCP HTTP answer, sent as JSON or as SSE `data:` lines.
fn rpc_message(body: &str, id: u64) -> Value {
    if let Ok(message) = serde_json::from_str::<Value>(body) {
        return message;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == json!(id))
        .unwrap_or_else(|| panic!("no answer {id} in {body}"))
}

/// An MCP client over Streamable HTTP.
pub(crate) struct HttpClient<'a> {
    pub(crate) addr: &'a str,
    pub(crate) path: String,
    pub(crate) session: Option<String>,
}

impl HttpClient<'_> {
    fn post(&self, message: &Value) -> (u16, Vec<(String, String)>, String) {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id", session));
        }
        http(
            self.addr,
            "POST",
            &self.path,
            &headers,
            &message.to_string(),
        )
    }

    pub(crate) fn request(&self, id: u64, method: &str, params: Value) -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (status, _, body) = self.post(&message);
        assert_eq!(status, 200, "{body}");
        rpc_message(&body, id)
    }

    pub(crate) fn initialize(&mut self) {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()});
        let (status, headers, body) = self.post(&message);
        assert_eq!(status, 200, "{body}");
        let answer = rpc_message(&body, 1);
        assert!(
            answer["result"]["capabilities"]["tools"].is_object(),
            "{answer}"
        );
        self.session = header(&headers, "mcp-session-id").map(str::to_owned);
        let (status, _, body) =
            self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(status == 202 || status == 200, "{status} {body}");
    }
}

#[test]
fn mcp_over_http_openapi_and_an_env_episode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 2, 6);
    let (world, name) = first_world(&dir);
    let server = start_server(&dir);

    // MCP over Streamable HTTP.
    let mut client = HttpClient {
        addr: &server.addr,
        path: format!("/mcp/{world}?seed=3"),
        session: None,
    };
    client.initialize();
    assert!(
        client.session.is_some(),
        "the server gives an MCP session id"
    );
    check_tool_list(&client.request(2, "tools/list", json!({})));
    let search = client.request(
        3,
        "tools/call",
        json!({"name": "web_search", "arguments": {"queries": [name.clone()], "top_k": 3}}),
    );
    let url = check_search(&search);
    let extract = client.request(
        4,
        "tools/call",
        json!({"name": "web_extractor", "arguments": {"url": url}}),
    );
    assert!(tool_text(&extract).starts_with(&format!("Contents of {url}:")));

    // Controls as query parameters give MCP tool errors with the REST codes.
    let mut failing = HttpClient {
        addr: &server.addr,
        path: format!("/mcp/{world}?error_rate=1&error_kinds=timeout&timeout_ms=10"),
        session: None,
    };
    failing.initialize();
    let timed_out = failing.request(
        2,
        "tools/call",
        json!({"name": "web_search", "arguments": {"query": name}}),
    );
    assert_eq!(timed_out["result"]["isError"], json!(true));
    assert_eq!(
        timed_out["result"]["structuredContent"]["error"]["code"],
        "timeout"
    );

    // Bad input is refused before MCP with the REST API's JSON errors; foreign hosts are refused.
    let (status, _, body) = http(&server.addr, "POST", "/mcp/999999", &[], "{}");
    assert_eq!(status, 404, "{body}");
    let (status, _, body) = http(
        &server.addr,
        "POST",
        &format!("/mcp/{world}?error_rate=3"),
        &[],
        "{}",
    );
    assert_eq!(status, 400, "{body}");
    let init =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()});
    let (status, _, _) = http(
        &server.addr,
        "POST",
        &format!("/mcp/{world}"),
        &[
            ("Host", "evil.example"),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        &init.to_string(),
    );
    assert!((400..500).contains(&status), "a foreign Host got {status}");

    // The OpenAPI document is served; it holds the REST routes and leaves MCP (JSON-RPC) out.
    let (status, _, body) = http(&server.addr, "GET", "/openapi.json", &[], "");
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["openapi"], "3.1.0");
    assert!(document["paths"]["/v1/worlds/{id}/search"].is_object());
    assert!(document["paths"]["/mcp/{world}"].is_null());

    // A full episode on the admin listener, answered with the gold answer.
    let auth = format!("Bearer {ADMIN_TOKEN}");
    let admin = |method: &str, path: &str, body: Value| {
        let headers = [
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ];
        let (status, _, text) = http(
            &server.admin_addr,
            method,
            path,
            &headers,
            &body.to_string(),
        );
        (
            status,
            serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
        )
    };
    let (status, tasks) = admin("GET", &format!("/admin/worlds/{world}/tasks"), Value::Null);
    assert_eq!(status, 200, "{tasks}");
    let task = &tasks["tasks"][0];
    let (status, reset) = admin(
        "POST",
        "/v1/env/reset",
        json!({"task_id": task["id"], "seed": 1}),
    );
    assert_eq!(status, 200, "{reset}");
    assert_eq!(reset["observation"], task["question"]);
    let episode_id = reset["episode_id"].as_str().unwrap().to_owned();
    let (status, step) = admin(
        "POST",
        "/v1/env/step",
        json!({"episode_id": episode_id, "action": {"tool": "web_search", "queries": [task["question"]]}}),
    );
    assert_eq!(status, 200, "{step}");
    assert_eq!(step["done"], json!(false));
    assert!(
        step["observation"]
            .as_str()
            .unwrap()
            .contains("Results for")
    );
    let (status, step) = admin(
        "POST",
        "/v1/env/step",
        json!({"episode_id": episode_id, "action": {"tool": "answer", "answer": task["answer"]}}),
    );
    assert_eq!(status, 200, "{step}");
    assert_eq!(step["done"], json!(true));
    assert!(step["reward"].as_f64().unwrap() > 0.99, "{step}");
    let (status, state) = admin(
        "GET",
        &format!("/v1/env/state?episode_id={episode_id}"),
        Value::Null,
    );
    assert_eq!(status, 200);
    assert_eq!(state["step_count"], 2);
    assert_eq!(state["done"], json!(true));
    let (status, again) = admin(
        "POST",
        "/v1/env/step",
        json!({"episode_id": episode_id, "action": {"tool": "answer", "answer": "x"}}),
    );
    assert_eq!(status, 409, "{again}");
    let (status, _) = admin(
        "POST",
        "/v1/env/step",
        json!({"episode_id": "nope", "action": {"tool": "answer", "answer": 1}}),
    );
    assert_eq!(status, 404);
}
