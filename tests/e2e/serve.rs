//! `fabula serve` and `fabula up` over a real socket: search, then extract, then find the fact.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::generate;

/// A server process that is killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `fabula ARGS --addr 127.0.0.1:0` and waits for its "serving ... on http://ADDR" line.
fn start(args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fabula"))
        .args(args)
        .args(["--addr", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("fabula starts");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server reports its address")
            .unwrap();
        if let Some(rest) = line.split("on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server { child, addr }
}

/// One request; returns the status and the body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let (status, _, body) = super::http(addr, method, path, &[], body);
    (status, body)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn search_then_extract_finds_the_fact_on_the_page() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 3, 21);
    let server = start(&["serve", "--worlds", dir.to_str().unwrap()]);

    let (status, body) = http(&server.addr, "GET", "/v1/worlds", "");
    assert_eq!(status, 200);
    assert_eq!(json(&body)["worlds"].as_array().unwrap().len(), 3);

    // Take a person and their birth year from the database, as a task would.
    let file = fabula_file::WorldFile::open(&dir.join("world-00001.sqlite")).unwrap();
    let tables = file.tables().unwrap();
    let people = tables
        .iter()
        .find(|t| t.role == fabula_file::TableRole::Person)
        .unwrap();
    let born_column = &people.column(fabula_file::ColumnRole::BirthYear).name;
    let (name, born): (String, i64) = file
        .connection()
        .query_row(
            &format!(
                "SELECT name, {born_column} FROM {} WHERE id = 3",
                people.name
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();

    let query = serde_json::json!({"query": format!("{name} born"), "top_k": 10}).to_string();
    let (status, body) = http(&server.addr, "POST", "/v1/worlds/1/search", &query);
    assert_eq!(status, 200, "{body}");
    let results = json(&body)["results"].as_array().unwrap().clone();
    assert!(!results.is_empty());
    // Snippets hide the year by default: the agent has to open the page.
    for r in &results {
        assert!(
            !r["snippet"].as_str().unwrap().contains(&born.to_string()),
            "{r}"
        );
    }
    let article = results
        .iter()
        .find(|r| r["title"] == name.as_str())
        .expect("the person's article is found");
    let extract =
        serde_json::json!({"url": article["url"], "start": 0, "max_chars": 100000}).to_string();
    let (status, body) = http(&server.addr, "POST", "/v1/worlds/1/extract", &extract);
    assert_eq!(status, 200, "{body}");
    let page = json(&body);
    assert!(
        page["content"]
            .as_str()
            .unwrap()
            .contains(&born.to_string()),
        "{page}"
    );
    assert!(page["next_start"].is_null());

    let (status, body) = http(&server.addr, "POST", "/v1/worlds/77/search", &query);
    assert_eq!(status, 404, "{body}");
    assert_eq!(json(&body)["error"]["code"], "world_not_found");
}

#[test]
fn up_generates_when_absent_then_serves() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("default");
    let server = start(&["up", "--worlds", dir.to_str().unwrap(), "--count", "2"]);
    let (status, body) = http(&server.addr, "GET", "/health", "");
    assert_eq!(status, 200, "{body}");
    assert!(dir.join("world-00001.sqlite").exists());
    assert!(
        dir.join("index/world-00001.fidx").exists(),
        "`up` writes the persisted indexes"
    );
    drop(server);
    // A second `up` finds valid worlds and serves them without regenerating.
    let before = std::fs::metadata(dir.join("world-00000.sqlite"))
        .unwrap()
        .modified()
        .unwrap();
    let server = start(&["up", "--worlds", dir.to_str().unwrap(), "--count", "2"]);
    let (status, _) = http(&server.addr, "GET", "/v1/worlds", "");
    assert_eq!(status, 200);
    assert_eq!(
        std::fs::metadata(dir.join("world-00000.sqlite"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
}

#[test]
fn answerability_and_the_baseline_agent_over_a_real_server() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 4, 5);
    let server = start(&["serve", "--worlds", dir.to_str().unwrap()]);

    let out = super::fabula(&[
        "check",
        dir.to_str().unwrap(),
        "--answerability",
        "--addr",
        &server.addr,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("(100.00%)"), "{stdout}");

    let tasks = tmp.path().join("tasks.jsonl");
    let out = super::fabula(&[
        "tasks",
        "export",
        "--worlds",
        dir.to_str().unwrap(),
        "--out",
        tasks.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = super::fabula(&[
        "baseline",
        "--addr",
        &server.addr,
        "--tasks",
        tasks.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    for kind in ["lookup", "multi_hop", "temporal"] {
        let em = report["by_kind"][kind]["em"].as_f64().unwrap();
        assert!(em >= 0.9, "{kind}: {em}");
    }
    assert!(
        report["by_kind"]["table"]["item_f1"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    let out = super::fabula(&[
        "baseline",
        "--addr",
        &server.addr,
        "--tasks",
        tasks.to_str().unwrap(),
        "--agent",
        "keyword",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert!(
        report["by_kind"]["lookup"]["em"].as_f64().unwrap() > 0.2,
        "{report}"
    );
    let out = super::fabula(&["baseline", "--tasks", "x.jsonl", "--agent", "oracle"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[possible values: rules, keyword]"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sigterm_lets_requests_in_flight_finish_and_exits_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 2, 5);
    let mut server = start(&["serve", "--worlds", dir.to_str().unwrap()]);
    // Every call of this session waits 800 ms once its body has arrived, so the calls are still
    // running when the server handles SIGTERM, whenever that is.
    let (status, body) = http(
        &server.addr,
        "POST",
        "/v1/sessions",
        r#"{"world": 0, "seed": 3, "controls": {"latency_ms": [800, 800]}}"#,
    );
    assert_eq!(status, 200, "{body}");
    let session = json(&body)["session"].as_str().unwrap().to_owned();
    let path = format!("/v1/sessions/{session}/search");
    let mut held: Vec<TcpStream> = (0..6).map(|_| held_search(&server.addr, &path)).collect();
    let killed = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    for stream in &mut held {
        stream.write_all(HELD_BODY.as_bytes()).unwrap();
    }
    for mut stream in held {
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "an in-flight request was dropped: {answer}"
        );
    }
    let exit = server.child.wait().unwrap();
    assert_eq!(exit.code(), Some(0), "{exit:?}");
}

const HELD_BODY: &str = r#"{"query": "the"}"#;

/// Starts a search whose body is held back and returns once it is provably in flight: with
/// `Expect: 100-continue` the server answers `100 Continue` only when the handler starts reading
/// the body, so the request is inside the server until its body is sent.
fn held_search(addr: &str, path: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nExpect: 100-continue\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        HELD_BODY.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut interim = Vec::new();
    while !interim.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        stream
            .read_exact(&mut byte)
            .unwrap_or_else(|e| panic!("no interim answer ({e}): {interim:?}"));
        interim.push(byte[0]);
    }
    let interim = String::from_utf8_lossy(&interim);
    assert!(interim.starts_with("HTTP/1.1 100 Continue"), "{interim}");
    stream
}

/// The summary line `fabula index` prints, from "indexed" on.
fn index_summary(dir: &std::path::Path) -> String {
    let out = super::fabula(&["index", dir.to_str().unwrap(), "--jobs", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with("indexed"))
        .unwrap();
    line.split(" in ").next().unwrap().to_owned()
}

/// Every world's first result page for one query, searched world by world, twice over.
fn search_every_world_twice(addr: &str, worlds: u32) -> Vec<String> {
    let mut answers = Vec::new();
    for world in (0..worlds).chain(0..worlds) {
        let path = format!("/v1/worlds/{world}/search");
        let (status, body) = http(addr, "POST", &path, r#"{"query": "founded the"}"#);
        assert_eq!(status, 200, "{body}");
        answers.push(body);
    }
    answers
}

#[test]
fn indexes_are_written_once_kept_when_fresh_and_rebuilt_when_damaged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w");
    generate(&dir, 3, 3);
    assert_eq!(
        index_summary(&dir),
        "indexed 3 worlds (0 built, 0 rebuilt, 3 already fresh)",
        "`generate` writes the indexes"
    );
    std::fs::remove_dir_all(dir.join("index")).unwrap();
    assert_eq!(
        index_summary(&dir),
        "indexed 3 worlds (3 built, 0 rebuilt, 0 already fresh)"
    );
    assert_eq!(
        index_summary(&dir),
        "indexed 3 worlds (0 built, 0 rebuilt, 3 already fresh)"
    );
    let damaged = dir.join("index/world-00001.fidx");
    let mut bytes = std::fs::read(&damaged).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&damaged, bytes).unwrap();
    assert_eq!(
        index_summary(&dir),
        "indexed 3 worlds (0 built, 1 rebuilt, 2 already fresh)"
    );

    // One world open at a time: every search closes the world before it, and a reopened world
    // answers as it did the first time.
    let dir_arg = dir.to_str().unwrap();
    let persisted = std::fs::read(&damaged).unwrap();
    let server = start(&["serve", "--worlds", dir_arg, "--max-open-worlds", "1"]);
    let answers = search_every_world_twice(&server.addr, 3);
    drop(server);
    assert_eq!(answers[..3], answers[3..]);
    assert_eq!(std::fs::read(&damaged).unwrap(), persisted);

    // The indexes are a cache: without them the server answers the same, and with
    // --no-index-writes it leaves the directory as it found it.
    std::fs::remove_dir_all(dir.join("index")).unwrap();
    let server = start(&["serve", "--worlds", dir_arg, "--no-index-writes"]);
    assert_eq!(search_every_world_twice(&server.addr, 3), answers);
    drop(server);
    assert!(!dir.join("index").exists());
}
