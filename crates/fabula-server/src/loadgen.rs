//! A load generator for the search endpoint: keep-alive HTTP/1.1 connections over plain tokio
//! sockets, seeded random queries, and a latency report. It runs as a client of a server in another
//! process (`fabula bench search --addr URL`), or of one in the same process in tests.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::error::{Error, Result};

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
pub fn parse_addr(text: &str) -> Result<SocketAddr> {
    let host_port = text
        .strip_prefix("http://")
        .unwrap_or(text)
        .trim_end_matches('/');
    host_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| Error::BadAddress(text.to_owned()))
}

/// Loads the server with searches and reports throughput and latency.
pub async fn run(config: LoadConfig) -> Result<LoadReport> {
    if config.connections == 0 {
        return Err(Error::Load("connections must be at least 1".to_owned()));
    }
    let mut control = Connection::open(config.addr, config.api_key.clone()).await?;
    let worlds = pick_worlds(&mut control, &config).await?;
    let vocabulary = if config.vocabulary.is_empty() {
        fetch_vocabulary(&mut control, &worlds, config.seed).await?
    } else {
        config.vocabulary.clone()
    };
    if vocabulary.is_empty() {
        return Err(Error::Load("no words to build queries from".to_owned()));
    }

    // One search per world first, spread over the connections, so index builds on first use
    // are not counted as latency.
    let warmup_started = Instant::now();
    let mut warmers = Vec::new();
    for chunk in worlds.chunks(worlds.len().div_ceil(config.connections)) {
        let chunk = chunk.to_vec();
        let body = search_body(&vocabulary[0], config.top_k, &config.hiding);
        let (addr, api_key) = (config.addr, config.api_key.clone());
        warmers.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr, api_key).await?;
            for world in chunk {
                let (status, _) = connection
                    .post(&format!("/v1/worlds/{world}/search"), &body)
                    .await?;
                if status != 200 {
                    return Err(Error::Load(format!(
                        "warm-up search of world {world} answered {status}"
                    )));
                }
            }
            Ok(())
        }));
    }
    for warmer in warmers {
        warmer
            .await
            .map_err(|error| Error::Load(format!("warm-up task: {error}")))??;
    }
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
        let outcome = task
            .await
            .map_err(|error| Error::Load(format!("client task: {error}")))?;
        latencies.extend(outcome.latencies);
        errors += outcome.errors;
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    let percentile = |p: f64| -> Duration {
        if latencies.is_empty() {
            return Duration::ZERO;
        }
        let idx = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        latencies[idx]
    };
    Ok(LoadReport {
        requests: latencies.len() as u64,
        errors,
        elapsed,
        connections: config.connections,
        worlds: worlds.len(),
        warmup,
        p50: percentile(0.50),
        p90: percentile(0.90),
        p99: percentile(0.99),
        max: latencies.last().copied().unwrap_or_default(),
    })
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

fn search_body(query: &str, top_k: usize, hiding: &str) -> Vec<u8> {
    serde_json::to_vec(&SearchBody {
        query,
        top_k,
        hiding,
    })
    .unwrap_or_default()
}

async fn list_worlds(control: &mut Connection) -> Result<Vec<WorldEntry>> {
    let (status, body) = control.get("/v1/worlds").await?;
    if status != 200 {
        return Err(Error::Load(format!("GET /v1/worlds answered {status}")));
    }
    let list: WorldList = serde_json::from_slice(&body)
        .map_err(|error| Error::Load(format!("GET /v1/worlds: {error}")))?;
    Ok(list.worlds)
}

async fn pick_worlds(control: &mut Connection, config: &LoadConfig) -> Result<Vec<u32>> {
    if !config.worlds.is_empty() {
        return Ok(config.worlds.clone());
    }
    let worlds: Vec<u32> = list_worlds(control)
        .await?
        .iter()
        .map(|world| world.id)
        .collect();
    if worlds.is_empty() {
        return Err(Error::Load("the server lists no worlds".to_owned()));
    }
    Ok(worlds)
}

/// Collects words from the titles and unhidden snippets of a few worlds, found by searching for
/// each world's name.
async fn fetch_vocabulary(
    control: &mut Connection,
    worlds: &[u32],
    seed: u64,
) -> Result<Vec<String>> {
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
        let body = search_body(query, 50, "none");
        let (status, answer) = control
            .post(&format!("/v1/worlds/{world}/search"), &body)
            .await?;
        if status != 200 {
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
        if connection.is_none() {
            match Connection::open(plan.addr, plan.api_key.clone()).await {
                Ok(opened) => connection = Some(opened),
                Err(_) => {
                    outcome.errors += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(open) = connection.as_mut() else {
            continue;
        };
        let sent = Instant::now();
        match open.post(&path, &body).await {
            Ok((status, _)) => {
                outcome.latencies.push(sent.elapsed());
                if !(200..300).contains(&status) {
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

/// A minimal keep-alive HTTP/1.1 client connection: one request at a time, `Content-Length` or
/// chunked answers.
struct Connection {
    stream: BufReader<TcpStream>,
    host: String,
    api_key: Option<String>,
    request: Vec<u8>,
}

impl Connection {
    async fn open(addr: SocketAddr, api_key: Option<String>) -> Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream: BufReader::new(stream),
            host: addr.to_string(),
            api_key,
            request: Vec::with_capacity(512),
        })
    }

    async fn get(&mut self, path: &str) -> Result<(u16, Vec<u8>)> {
        self.send("GET", path, None).await
    }

    async fn post(&mut self, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>)> {
        self.send("POST", path, Some(body)).await
    }

    async fn send(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> Result<(u16, Vec<u8>)> {
        use std::io::Write;
        self.request.clear();
        write!(
            self.request,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n",
            self.host
        )?;
        if let Some(key) = &self.api_key {
            write!(self.request, "Authorization: Bearer {key}\r\n")?;
        }
        if let Some(body) = body {
            write!(
                self.request,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            )?;
        }
        self.request.extend_from_slice(b"\r\n");
        if let Some(body) = body {
            self.request.extend_from_slice(body);
        }
        self.stream.get_mut().write_all(&self.request).await?;
        self.read_response().await
    }

    async fn read_response(&mut self) -> Result<(u16, Vec<u8>)> {
        let mut line = String::new();
        self.read_line(&mut line).await?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| Error::Load(format!("bad status line `{}`", line.trim_end())))?;
        let mut content_length = None;
        let mut chunked = false;
        loop {
            line.clear();
            self.read_line(&mut line).await?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let Some((name, value)) = header.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                content_length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.read_line(&mut line).await?;
                let size_text = line.trim_end().split(';').next().unwrap_or_default();
                let size = usize::from_str_radix(size_text, 16)
                    .map_err(|_| Error::Load(format!("bad chunk size `{size_text}`")))?;
                let old_len = body.len();
                body.resize(old_len + size, 0);
                self.stream.read_exact(&mut body[old_len..]).await?;
                line.clear();
                self.read_line(&mut line).await?;
                if size == 0 {
                    break;
                }
            }
        } else if let Some(length) = content_length {
            body.resize(length, 0);
            self.stream.read_exact(&mut body).await?;
        }
        Ok((status, body))
    }

    async fn read_line(&mut self, line: &mut String) -> Result<()> {
        if self.stream.read_line(line).await? == 0 {
            return Err(Error::Load("the server closed the connection".to_owned()));
        }
        Ok(())
    }
}
