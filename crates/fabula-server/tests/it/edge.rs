//! The HTTP edge over raw sockets: header, idle, body and request timeouts, JSON bodies on
//! hyper's own rejections, and the graceful drain on shutdown.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use fabula_server::{ServeConfig, bind};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::support::{fixture_worlds, write_corpus};

/// A server on a free port with short timeouts, and the means to stop it.
struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    serving: JoinHandle<fabula_server::Result<()>>,
    _dir: tempfile::TempDir,
}

async fn start(adjust: impl FnOnce(&mut ServeConfig)) -> Running {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &fixture_worlds());
    let mut config = ServeConfig {
        worlds: dir.path().to_owned(),
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        header_timeout: Duration::from_millis(400),
        body_timeout: Duration::from_millis(400),
        ..ServeConfig::default()
    };
    adjust(&mut config);
    let server = bind(config).await.unwrap();
    let addr = server.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(server.run_until(async move {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop,
        serving,
        _dir: dir,
    }
}

/// Writes `bytes` and reads until the server closes the connection (or 5 s pass).
async fn exchange(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    read_to_close(&mut stream).await
}

async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut out)).await;
    assert!(read.is_ok(), "the server did not close the connection");
    String::from_utf8_lossy(&out).into_owned()
}

/// The status and the JSON error code of a raw answer.
fn status_and_code(answer: &str) -> (u16, String) {
    let status = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let json: Value = serde_json::from_str(body)
        .unwrap_or_else(|error| panic!("body is not JSON ({error}): {answer:?}"));
    (
        status,
        json["error"]["code"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hyper_rejections_have_json_bodies() {
    let server = start(|_| {}).await;
    let long_header = format!(
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(600_000)
    );
    let long_url = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    let cases: [(&[u8], u16, &str); 5] = [
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "bad_request"),
        (
            b"POST /v1/worlds/0/search HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
            400,
            "bad_request",
        ),
        (
            b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n",
            400,
            "bad_request",
        ),
        (long_header.as_bytes(), 431, "headers_too_large"),
        (long_url.as_bytes(), 414, "uri_too_long"),
    ];
    for (request, status, code) in cases {
        let answer = exchange(server.addr, request).await;
        assert_eq!(
            status_and_code(&answer),
            (status, code.to_owned()),
            "{answer}"
        );
    }
    server.stop.send(()).unwrap();
    server.serving.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_clients_are_cut_off() {
    let server = start(|_| {}).await;
    // Half a header: closed within the header timeout, without an answer.
    let started = Instant::now();
    let answer = exchange(server.addr, b"GET /health HTTP/1.1\r\nHost: x\r\n").await;
    assert_eq!(answer, "");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // An idle keep-alive connection: answered once, then closed.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = read_to_close(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // A body that stops arriving: 408 with a JSON body.
    let answer = exchange(
        server.addr,
        b"POST /v1/worlds/0/search HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"query\"",
    )
    .await;
    assert_eq!(
        status_and_code(&answer),
        (408, "request_timeout".to_owned()),
        "{answer}"
    );
    server.stop.send(()).unwrap();
    server.serving.await.unwrap().unwrap();
}

/// A session whose every call waits `ms` milliseconds first.
async fn slow_session(addr: SocketAddr, ms: u64) -> String {
    let body = format!(r#"{{"world": 0, "seed": 1, "controls": {{"latency_ms": [{ms}, {ms}]}}}}"#);
    let request = format!(
        "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer = exchange(addr, request.as_bytes()).await;
    let (_, json) = answer.split_once("\r\n\r\n").unwrap();
    let json: Value = serde_json::from_str(json).unwrap();
    json["session"].as_str().unwrap().to_owned()
}

fn session_search(session: &str) -> String {
    let body = r#"{"query": "harbour ferry guild"}"#;
    format!(
        "POST /v1/sessions/{session}/search HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_deadline_get_503() {
    let server = start(|config| config.request_timeout = Duration::from_millis(300)).await;
    let session = slow_session(server.addr, 2_000).await;
    let started = Instant::now();
    let answer = exchange(server.addr, session_search(&session).as_bytes()).await;
    assert_eq!(
        status_and_code(&answer),
        (503, "deadline_exceeded".to_owned()),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_millis(1_500));
    server.stop.send(()).unwrap();
    server.serving.await.unwrap().unwrap();
}

const HELD_BODY: &str = r#"{"query": "harbour ferry guild"}"#;

/// Starts a search whose body is held back, and returns once the request is provably in flight:
/// with `Expect: 100-continue`, hyper answers `100 Continue` only when the handler starts reading
/// the body, so the request is inside the router and stays there until [`finish_held`].
async fn held_search(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/worlds/0/search HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Expect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        HELD_BODY.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut interim = Vec::new();
    while !interim.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut byte)).await;
        assert!(
            read.is_ok_and(|read| read.is_ok()),
            "no interim answer: {interim:?}"
        );
        interim.push(byte[0]);
    }
    let interim = String::from_utf8_lossy(&interim);
    assert!(interim.starts_with("HTTP/1.1 100 Continue"), "{interim}");
    stream
}

/// Sends the held body and reads the answer to the end.
async fn finish_held(mut stream: TcpStream) -> String {
    stream.write_all(HELD_BODY.as_bytes()).await.unwrap();
    read_to_close(&mut stream).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_requests_in_flight_and_refuses_new_ones() {
    let server = start(|config| config.drain_timeout = Duration::from_secs(10)).await;
    let addr = server.addr;
    let held = held_search(addr).await;
    server.stop.send(()).unwrap();
    // The drain waits for the request in flight, whose body has not been sent yet.
    let mut serving = server.serving;
    let drained = tokio::time::timeout(Duration::from_millis(100), &mut serving).await;
    assert!(
        drained.is_err(),
        "the server stopped with a request in flight"
    );
    let answer = finish_held(held).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    serving.await.unwrap().unwrap();
    assert!(TcpStream::connect(addr).await.is_err(), "still accepting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drain_has_a_deadline() {
    // The held request would wait a minute for its body: only the drain deadline ends it.
    let server = start(|config| {
        config.drain_timeout = Duration::from_millis(300);
        config.body_timeout = Duration::from_secs(60);
    })
    .await;
    let _held = held_search(server.addr).await;
    let started = Instant::now();
    server.stop.send(()).unwrap();
    let drained = tokio::time::timeout(Duration::from_secs(5), server.serving).await;
    drained.expect("the drain did not end").unwrap().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
