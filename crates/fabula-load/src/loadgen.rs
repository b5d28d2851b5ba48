//! The HTTP client side of fabula's benchmarks (`fabula bench search` in `search`, `fabula bench
//! soak` in `soak`): keep-alive HTTP/1.1 connections through hyper's client, the load's settings,
//! listing a server's worlds, collecting query words from its own pages, and warming worlds up by
//! searching each once. It runs as a client of a server in another process, or of one in the
//! same process in tests.
//!
//! A `Connection` is hyper's connection-level client rather than its pooled one, and each load
//! task owns exactly one, so `--connections` is the number of connections the server sees.
//!
//! `fabula bench search` runs three phases over the same connections, each reported with
//! requests/s, p50/p90/p99/max latency and errors: **cold**, the first `--cold` seconds of load
//! with no warm-up (from the server's spawn with `--worlds DIR`, which starts a fresh `fabula
//! serve` and reports how soon `/health` answered; from the bench's start with `--addr`);
//! **warm**, `--duration` seconds once every world has been searched at least once; and
//! **ceiling**, `--ceiling` seconds of `GET /health`, the server's own HTTP ceiling. The report
//! ends with warm search throughput as a share of that ceiling, so figures are ratios that carry
//! across machines. `search` documents the details.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{HeaderMap, Method, Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;

use crate::{Error, Result, ensure};

/// How to load the server.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server's address.
    pub addr: SocketAddr,
    /// Concurrent keep-alive connections, each sending one request at a time; default 32.
    pub connections: usize,
    /// How long the cold phase loads the server before any warm-up; zero skips it; default
    /// 10 s.
    pub cold: Duration,
    /// How long the warm phase loads the server once every world has been searched; default
    /// 10 s.
    pub duration: Duration,
    /// How long the ceiling phase loads `GET /health`; zero skips it; default 5 s.
    pub ceiling: Duration,
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
            cold: Duration::from_secs(10),
            duration: Duration::from_secs(10),
            ceiling: Duration::from_secs(5),
            worlds: Vec::new(),
            vocabulary: Vec::new(),
            seed: 0,
            top_k: 10,
            hiding: "partial".to_owned(),
            api_key: None,
        }
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
        .ok_or_else(|| {
            Error::Failed(format!(
                "bad address `{text}`: expected host:port or http://host:port"
            ))
        })
}

/// Sends one search per world, spread over the connections, so index builds on first use are not
/// counted as latency. Each must answer 200.
pub(crate) async fn warm_up(config: &LoadConfig, worlds: &[u32], word: &str) -> Result<()> {
    if worlds.is_empty() {
        return Ok(());
    }
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
            Ok::<(), Error>(())
        }));
    }
    for warmer in warmers {
        warmer.await??;
    }
    Ok(())
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

/// The JSON body of one search.
pub(crate) fn search_body(query: &str, top_k: usize, hiding: &str) -> Bytes {
    let body = SearchBody {
        query,
        top_k,
        hiding,
    };
    Bytes::from(serde_json::to_vec(&body).unwrap_or_default())
}

async fn list_worlds(control: &mut Connection) -> Result<Vec<WorldEntry>> {
    let (status, body) = control.get("/v1/worlds").await?;
    ensure!(
        status == StatusCode::OK,
        "GET /v1/worlds answered {}",
        status.as_u16()
    );
    let list: WorldList = serde_json::from_slice(&body).map_err(|source| Error::Json {
        what: "GET /v1/worlds".to_owned(),
        source,
    })?;
    Ok(list.worlds)
}

pub(crate) async fn pick_worlds(control: &mut Connection, config: &LoadConfig) -> Result<Vec<u32>> {
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

/// The most worlds searched to collect query words.
const VOCABULARY_SEARCHES: usize = 8;

/// The worlds `fetch_vocabulary` searches, in order: up to eight draws from `worlds` seeded by
/// `seed`, repeats allowed.
pub(crate) fn vocabulary_worlds(worlds: &[u32], seed: u64) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..worlds.len().min(VOCABULARY_SEARCHES))
        .map(|_| worlds[rng.random_range(0..worlds.len())])
        .collect()
}

/// Collects words from the titles and unhidden snippets of a few worlds (`vocabulary_worlds`),
/// found by searching for each world's name.
pub(crate) async fn fetch_vocabulary(
    control: &mut Connection,
    worlds: &[u32],
    seed: u64,
) -> Result<Vec<String>> {
    let listed = list_worlds(control).await?;
    let mut words = Vec::new();
    for world in vocabulary_worlds(worlds, seed) {
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
    pub(crate) async fn open(addr: SocketAddr, api_key: Option<String>) -> Result<Connection> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|source| Error::Connect { addr, source })?;
        stream
            .set_nodelay(true)
            .map_err(Error::io("setting TCP_NODELAY"))?;
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

    pub(crate) async fn get(&mut self, path: &str) -> Result<(StatusCode, Bytes)> {
        let answer = self.request(Method::GET, path, &[], None).await?;
        Ok((answer.status, answer.body))
    }

    pub(crate) async fn post(&mut self, path: &str, body: Bytes) -> Result<(StatusCode, Bytes)> {
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
    ) -> Result<Answer> {
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
    use super::*;

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

    #[test]
    fn query_words_come_from_at_most_eight_listed_worlds() {
        fn check(worlds: &[u32], expect_picks: usize) {
            let picked = vocabulary_worlds(worlds, 7);
            assert_eq!(picked.len(), expect_picks, "{worlds:?}");
            assert!(
                picked.iter().all(|world| worlds.contains(world)),
                "{picked:?}"
            );
            assert_eq!(
                picked,
                vocabulary_worlds(worlds, 7),
                "the same seed picks the same"
            );
        }
        check(&[4], 1);
        check(&[0, 3, 9], 3);
        check(&(0..100).collect::<Vec<u32>>(), 8);
        check(&[], 0);
    }
}
