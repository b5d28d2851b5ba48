//! The load generator behind `fabula bench search`: keep-alive HTTP/1.1 connections through
//! hyper's client, seeded random queries, and a latency report. It runs as a client of a server in
//! another process, or of one in the same process in tests.
//!
//! Each load task owns exactly one connection (hyper's connection-level client rather than its
//! pooled one), so `--connections` is the number of connections the server sees; a connection
//! that fails is counted as an error and opened again.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, ensure};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{HeaderMap, Method, Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;

/// How to load the server.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server's address.
    pub addr: SocketAddr,
    /// Concurrent keep-alive connections, each sending one request at a time; default 32.
    pub connections: usize,
    /// How long to send requests after the warm-up; default 10 s.
    pub duration: Duration,
    /// The worlds to pick from; empty means every world the server lists.
    pub worlds: Vec<u32>,
    /// Words to build queries from; empty means words taken from the server's own pages.
    pub vocabulary: Vec<String>,
    /// Seeds the choice of worlds and queries.
    pub seed: u64,
    /// Results per query; default 10.
    pub top_k: usize,
    /// The hiding level asked for; default `"partial"`.
    pub hiding: String,
    /// Sent as `Authorization: Bearer KEY` when set.
    pub api_key: Option<String>,
}

impl Default for LoadConfig {
    fn default() -> LoadConfig {
        LoadConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            connections: 32,
            duration: Duration::from_secs(10),
            worlds: Vec::new(),
            vocabulary: Vec::new(),
            seed: 0,
            top_k: 10,
            hiding: "partial".to_owned(),
            api_key: None,
        }
    }
}

/// What a load run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Requests answered in the timed window (errors included).
    pub requests: u64,
    /// Requests answered with a non-2xx status or lost to a connection error.
    pub errors: u64,
    /// The timed window's length.
    pub elapsed: Duration,
    pub connections: usize,
    /// The worlds the queries were spread over.
    pub worlds: usize,
    /// Time spent warming up (one search per world, which builds each index on first use).
    pub warmup: Duration,
    pub p50: Duration,
    pub p90: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl LoadReport {
    /// Requests per second over the timed window.
    pub fn requests_per_s(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        writeln!(
            f,
            "{} requests in {:.2} s over {} connections and {} worlds: {:.0} req/s, {} errors",
            self.requests,
            self.elapsed.as_secs_f64(),
            self.connections,
            self.worlds,
            self.requests_per_s(),
            self.errors,
        )?;
        writeln!(
            f,
            "latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(self.p50),
            ms(self.p90),
            ms(self.p99),
            ms(self.max),
        )?;
        write!(f, "warm-up: {:.2} s", self.warmup.as_secs_f64())
    }
}

/// Parses `host:port` or `http://host:port[/]` into a socket address.
pub fn parse_addr(text: &str) -> anyhow::Result<SocketAddr> {
    let host_port = text
        .strip_prefix("http://")
        .unwrap_or(text)
        .trim_end_matches('/');
    host_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| anyhow!("bad address `{text}`: expected host:port or http://host:port"))
}

/// Loads the server with searches and reports throughput and latency.
pub async fn run(config: LoadConfig) -> anyhow::Result<LoadReport> {
    ensure!(config.connections > 0, "connections must be at least 1");
    let mut control = Connection::open(config.addr, config.api_key.clone()).await?;
    let worlds = pick_worlds(&mut control, &config).await?;
    let vocabulary = if config.vocabulary.is_empty() {
        fetch_vocabulary(&mut control, &worlds, config.seed).await?
    } else {
        config.vocabulary.clone()
    };
    ensure!(!vocabulary.is_empty(), "no words to build queries from");
    let warmup_started = Instant::now();
    warm_up(&config, &worlds, &vocabulary[0]).await?;
    let warmup = warmup_started.elapsed();

    let started = Instant::now();
    let deadline = started + config.duration;
    let mut tasks = Vec::with_capacity(config.connections);
    for connection_idx in 0..config.connections {
        let plan = ClientPlan {
            addr: config.addr,
            api_key: config.api_key.clone(),
            worlds: worlds.clone(),
            vocabulary: vocabulary.clone(),
            seed: config.seed,
            connection_idx: connection_idx as u64,
            top_k: config.top_k,
            hiding: config.hiding.clone(),
            deadline,
        };
        tasks.push(tokio::spawn(run_client(plan)));
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let outcome = task.await.context("a load task failed")?;
        latencies.extend(outcome.latencies);
        errors += outcome.errors;
    }
    let elapsed = started.elapsed();
    Ok(report(
        latencies,
        errors,
        elapsed,
        &config,
        worlds.len(),
        warmup,
    ))
}

/// Sends one search per world, spread over the connections, so index builds on first use are not
/// counted as latency.
pub(crate) async fn warm_up(config: &LoadConfig, worlds: &[u32], word: &str) -> anyhow::Result<()> {
    let mut warmers = Vec::new();
    for chunk in worlds.chunks(worlds.len().div_ceil(config.connections)) {
        let chunk = chunk.to_vec();
        let body = search_body(word, config.top_k, &config.hiding);
        let (addr, api_key) = (config.addr, config.api_key.clone());
        warmers.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr, api_key).await?;
            for world in chunk {
                let path = format!("/v1/worlds/{world}/search");
                let (status, _) = connection.post(&path, body.clone()).await?;
                ensure!(
                    status == StatusCode::OK,
                    "warm-up search of world {world} answered {}",
                    status.as_u16()
                );
            }
            Ok(())
        }));
    }
    for warmer in warmers {
        warmer.await.context("a warm-up task failed")??;
    }
    Ok(())
}

/// Sorts the latencies and reads the percentiles off them.
fn report(
    mut latencies: Vec<Duration>,
    errors: u64,
    elapsed: Duration,
    config: &LoadConfig,
    n_worlds: usize,
    warmup: Duration,
) -> LoadReport {
    latencies.sort_unstable();
    let percentile = |p: f64| -> Duration {
        if latencies.is_empty() {
            return Duration::ZERO;
        }
        let idx = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        latencies[idx]
    };
    LoadReport {
        requests: latencies.len() as u64,
        errors,
        elapsed,
        connections: config.connections,
        worlds: n_worlds,
        warmup,
        p50: percentile(0.50),
        p90: percentile(0.90),
        p99: percentile(0.99),
        max: latencies.last().copied().unwrap_or_default(),
    }
}

#[derive(Deserialize)]
struct WorldList {
    worlds: Vec<WorldEntry>,
}

#[derive(Deserialize)]
struct WorldEntry {
    id: u32,
    name: String,
}

#[derive(Deserialize)]
struct QueryAnswer {
    results: Vec<HitAnswer>,
}

#[derive(Deserialize)]
struct HitAnswer {
    title: String,
    snippet: String,
}

#[derive(Serialize)]
struct SearchBody<'a> {
    query: &'a str,
    top_k: usize,
    hiding: &'a str,
}

fn search_body(query: &str, top_k: usize, hiding: &str) -> Bytes {
    let body = SearchBody {
        query,
        top_k,
        hiding,
    };
    Bytes::from(serde_json::to_vec(&body).unwrap_or_default())
}

async fn list_worlds(control: &mut Connection) -> anyhow::Result<Vec<WorldEntry>> {
    let (status, body) = control.get("/v1/worlds").await?;
    ensure!(
        status == StatusCode::OK,
        "GET /v1/worlds answered {}",
        status.as_u16()
    );
    let list: WorldList = serde_json::from_slice(&body).context("GET /v1/worlds")?;
    Ok(list.worlds)
}

pub(crate) async fn pick_worlds(
    control: &mut Connection,
    config: &LoadConfig,
) -> anyhow::Result<Vec<u32>> {
    if !config.worlds.is_empty() {
        return Ok(config.worlds.clone());
    }
    let worlds: Vec<u32> = list_worlds(control)
        .await?
        .iter()
        .map(|world| world.id)
        .collect();
    ensure!(!worlds.is_empty(), "the server lists no worlds");
    Ok(worlds)
}

/// Collects words from the titles and unhidden snippets of a few worlds, found by searching for
/// each world's name.
pub(crate) async fn fetch_vocabulary(
    control: &mut Connection,
    worlds: &[u32],
    seed: u64,
) -> anyhow::Result<Vec<String>> {
    let listed = list_worlds(control).await?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut words = Vec::new();
    for _ in 0..worlds.len().min(8) {
        let world = worlds[rng.random_range(0..worlds.len())];
        let name = listed
            .iter()
            .find(|entry| entry.id == world)
            .map_or("", |entry| &entry.name);
        let query = if name.trim().is_empty() { "the" } else { name };
        let path = format!("/v1/worlds/{world}/search");
        let (status, answer) = control.post(&path, search_body(query, 50, "none")).await?;
        if status != StatusCode::OK {
            continue;
        }
        let Ok(answer) = serde_json::from_slice::<QueryAnswer>(&answer) else {
            continue;
        };
        for hit in answer.results {
            for text in [hit.title, hit.snippet] {
                words.extend(
                    text.split(|c: char| !c.is_alphabetic())
                        .filter(|word| word.chars().count() >= 3)
                        .map(str::to_lowercase),
                );
            }
        }
    }
    words.sort();
    words.dedup();
    Ok(words)
}

struct ClientPlan {
    addr: SocketAddr,
    api_key: Option<String>,
    worlds: Vec<u32>,
    vocabulary: Vec<String>,
    seed: u64,
    connection_idx: u64,
    top_k: usize,
    hiding: String,
    deadline: Instant,
}

#[derive(Default)]
struct ClientOutcome {
    latencies: Vec<Duration>,
    errors: u64,
}

/// One connection's loop: send, wait, record, until the deadline; reconnect after an error.
async fn run_client(plan: ClientPlan) -> ClientOutcome {
    let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
    rng.set_stream(plan.connection_idx);
    let mut outcome = ClientOutcome::default();
    let mut connection: Option<Connection> = None;
    while Instant::now() < plan.deadline {
        let world = plan.worlds[rng.random_range(0..plan.worlds.len())];
        let n_words = rng.random_range(1..=3);
        let query = (0..n_words)
            .map(|_| plan.vocabulary[rng.random_range(0..plan.vocabulary.len())].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let body = search_body(&query, plan.top_k, &plan.hiding);
        let path = format!("/v1/worlds/{world}/search");
        let open = match &mut connection {
            Some(open) => open,
            None => match Connection::open(plan.addr, plan.api_key.clone()).await {
                Ok(opened) => connection.insert(opened),
                Err(_) => {
                    outcome.errors += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let sent = Instant::now();
        match open.post(&path, body).await {
            Ok((status, _)) => {
                outcome.latencies.push(sent.elapsed());
                if !status.is_success() {
                    outcome.errors += 1;
                }
            }
            Err(_) => {
                outcome.errors += 1;
                connection = None;
            }
        }
    }
    outcome
}

/// One answer read whole: the status, the headers and the body.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// One keep-alive HTTP/1.1 connection driven by hyper, one request at a time; shared with the
/// soak benchmark.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    api_key: Option<String>,
}

impl Connection {
    pub(crate) async fn open(
        addr: SocketAddr,
        api_key: Option<String>,
    ) -> anyhow::Result<Connection> {
        let stream = TcpStream::connect(addr)
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
        // The connection task ends when the sender is dropped or the server closes the socket.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Connection {
            sender,
            host: addr.to_string(),
            api_key,
        })
    }

    pub(crate) async fn get(&mut self, path: &str) -> anyhow::Result<(StatusCode, Bytes)> {
        let answer = self.request(Method::GET, path, &[], None).await?;
        Ok((answer.status, answer.body))
    }

    pub(crate) async fn post(
        &mut self,
        path: &str,
        body: Bytes,
    ) -> anyhow::Result<(StatusCode, Bytes)> {
        let answer = self.request(Method::POST, path, &[], Some(body)).await?;
        Ok((answer.status, answer.body))
    }

    /// Sends one request with extra headers and reads the whole answer. A JSON body gets
    /// `Content-Type: application/json` unless `headers` names one.
    pub(crate) async fn request(
        &mut self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Bytes>,
    ) -> anyhow::Result<Answer> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, &self.host);
        if let Some(key) = &self.api_key {
            request = request.header(header::AUTHORIZATION, format!("Bearer {key}"));
        }
        let typed = headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("content-type"));
        if body.is_some() && !typed {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body.unwrap_or_default()))?;
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use axum::extract::Path;
    use axum::routing::{get, post};
    use axum::{Json, Router};
    use serde_json::{Value, json};

    use super::*;

    /// A stand-in for the search server: worlds 0 and 3, each search answering one hit that
    /// echoes the query; world 9 answers 500.
    async fn stub_server() -> SocketAddr {
        let worlds = json!({"worlds": [
            {"id": 0, "name": "Veloria Isles", "theme": "island-nation", "pages": 2},
            {"id": 3, "name": "Dravosk Reach", "theme": "river-city-state", "pages": 2},
        ]});
        let app = Router::new()
            .route("/v1/worlds", get(move || async move { Json(worlds) }))
            .route("/v1/worlds/{id}/search", post(stub_search));
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        addr
    }

    async fn stub_search(
        Path(world): Path<u32>,
        Json(body): Json<Value>,
    ) -> (StatusCode, Json<Value>) {
        if world == 9 {
            return (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({})));
        }
        let hit = json!({"rank": 1, "url": "https://a.example/wiki/Port_Amsel",
            "title": "Port Amsel", "snippet": format!("harbour of {}", body["query"]), "date": null});
        let answer =
            json!({"query": body["query"], "results": [hit], "page": 1, "has_more": false});
        (StatusCode::OK, Json(answer))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn load_is_measured_over_every_listed_world() {
        let addr = stub_server().await;
        let report = run(LoadConfig {
            addr,
            connections: 4,
            duration: Duration::from_millis(300),
            seed: 1,
            ..LoadConfig::default()
        })
        .await
        .unwrap();
        assert!(report.requests > 0, "{report}");
        assert_eq!(report.errors, 0, "{report}");
        assert_eq!((report.worlds, report.connections), (2, 4));
        assert!(
            report.p50 <= report.p99 && report.p99 <= report.max,
            "{report}"
        );
        let shown = report.to_string();
        assert!(shown.contains("req/s") && shown.contains("p99"), "{shown}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn given_worlds_and_words_are_used_as_they_are() {
        let addr = stub_server().await;
        let report = run(LoadConfig {
            addr,
            connections: 2,
            duration: Duration::from_millis(100),
            worlds: vec![3],
            vocabulary: vec!["ferry".to_owned(), "guild".to_owned()],
            ..LoadConfig::default()
        })
        .await
        .unwrap();
        assert!(report.requests > 0 && report.errors == 0, "{report}");
        assert_eq!(report.worlds, 1);
    }

    #[tokio::test]
    async fn a_failing_warm_up_stops_the_run() {
        let addr = stub_server().await;
        let error = run(LoadConfig {
            addr,
            connections: 1,
            duration: Duration::from_millis(100),
            worlds: vec![9],
            vocabulary: vec!["ferry".to_owned()],
            ..LoadConfig::default()
        })
        .await
        .unwrap_err();
        assert_eq!(
            format!("{error:#}"),
            "warm-up search of world 9 answered 500"
        );
    }

    #[test]
    fn addresses_parse_with_or_without_scheme() {
        fn check(text: &str, expect: Option<&str>) {
            let parsed = parse_addr(text).ok().map(|addr| addr.to_string());
            assert_eq!(parsed.as_deref(), expect, "{text}");
        }
        check("127.0.0.1:8080", Some("127.0.0.1:8080"));
        check("http://127.0.0.1:8080/", Some("127.0.0.1:8080"));
        check("http://127.0.0.1:9", Some("127.0.0.1:9"));
        check("nonsense", None);
        check("", None);
    }
}
