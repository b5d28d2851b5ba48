//! The flood scenarios, as fast as the connections allow: `mcp-flood` sends MCP `initialize`
//! calls and never closes the sessions (the server must cap or expire them), and `log-flood`
//! sends one REST session searches of the largest batch the server accepts (100 queries of 200
//! characters), which its log must hold within a byte budget. Both leave their sessions to the
//! server's time-to-live, so the RSS sampled afterwards shows whether memory comes back.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hyper::Method;
use hyper::body::Bytes;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::json;

use super::client::Client;
use super::mcp_client;
use super::tally::{Op, classify, error_code};
use crate::loadgen::Connection;
use crate::{Error, Result, bail};

/// Queries per log-flood call: the most a batch may hold.
pub const FLOOD_QUERIES: usize = 100;
/// Characters per log-flood query (the server logs at most 200 of each).
pub const FLOOD_QUERY_CHARS: usize = 200;

/// Hands out call numbers to the flood's tasks until `calls` have been taken.
pub struct Counter {
    next: AtomicU64,
    calls: u64,
}

impl Counter {
    pub fn new(calls: u64) -> Counter {
        Counter {
            next: AtomicU64::new(0),
            calls,
        }
    }

    /// The next call's number, or `None` when all are taken.
    pub fn take(&self) -> Option<u64> {
        let call = self.next.fetch_add(1, Ordering::Relaxed);
        (call < self.calls).then_some(call)
    }
}

/// One task of `mcp-flood`: `initialize` calls on `/mcp/{world}` until the counter runs out.
pub async fn mcp_task(mut client: Client, counter: Arc<Counter>, world: u32) {
    let path = format!("/mcp/{world}");
    while counter.take().is_some() {
        mcp_client::initialize(&mut client, &path).await;
    }
}

/// Creates the one session the log flood writes to.
pub async fn create_session(client: &mut Client, world: u32) -> Result<String> {
    #[derive(Deserialize)]
    struct Created {
        session: String,
    }
    let body = Bytes::from(json!({"world": world, "seed": 0}).to_string());
    let Some((answer, latency)) = client
        .send(
            Op::SessionCreate,
            Method::POST,
            "/v1/sessions",
            &[],
            Some(body),
        )
        .await
    else {
        bail!("creating the log-flood session got no answer");
    };
    client.record(
        Op::SessionCreate,
        latency,
        classify(answer.status, &answer.body, false),
    );
    let created: Created = serde_json::from_slice(&answer.body).map_err(|_| {
        let text = String::from_utf8_lossy(&answer.body);
        Error::Failed(format!(
            "creating the log-flood session answered {}: {text}",
            answer.status
        ))
    })?;
    Ok(created.session)
}

/// A query of exactly `FLOOD_QUERY_CHARS` characters made of vocabulary words.
fn long_query(rng: &mut ChaCha8Rng, vocabulary: &[String]) -> String {
    let mut words = Vec::new();
    let mut n_chars = 0;
    // Words and the spaces between them until the text reaches the length.
    while n_chars <= FLOOD_QUERY_CHARS {
        let word = vocabulary[rng.random_range(0..vocabulary.len())].as_str();
        n_chars += word.chars().count() + 1;
        words.push(word);
    }
    let mut query: String = words.join(" ").chars().take(FLOOD_QUERY_CHARS).collect();
    // The server trims queries, so a cut that ends on a space ends on a letter instead.
    if query.ends_with(' ') {
        query.pop();
        query.push('x');
    }
    query
}

/// One task of `log-flood`: batch searches of the session until the counter runs out.
pub async fn log_task(
    mut client: Client,
    counter: Arc<Counter>,
    session: Arc<str>,
    vocabulary: Arc<[String]>,
    seed: u64,
    task_idx: u64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(task_idx);
    let path = format!("/v1/sessions/{session}/search");
    while counter.take().is_some() {
        let queries: Vec<String> = (0..FLOOD_QUERIES)
            .map(|_| long_query(&mut rng, &vocabulary))
            .collect();
        let body = Bytes::from(json!({"queries": queries, "top_k": 1}).to_string());
        let Some((answer, latency)) = client
            .send(Op::SessionSearch, Method::POST, &path, &[], Some(body))
            .await
        else {
            continue;
        };
        client.record(
            Op::SessionSearch,
            latency,
            classify(answer.status, &answer.body, false),
        );
    }
}

/// Reads the flood session's log once and describes it: entries kept, forgotten, and bytes.
pub async fn describe_log(client: &mut Client, session: &str) -> String {
    #[derive(Deserialize)]
    struct Log {
        calls: u64,
        forgotten: u64,
        entries: Vec<serde_json::Value>,
    }
    let path = format!("/v1/sessions/{session}/log");
    let Some((answer, latency)) = client
        .send(Op::SessionLog, Method::GET, &path, &[], None)
        .await
    else {
        return "the session log could not be read".to_owned();
    };
    let outcome = classify(answer.status, &answer.body, false);
    let described = match serde_json::from_slice::<Log>(&answer.body) {
        Ok(log) => format!(
            "session log after the flood: {} calls, {} entries kept, {} forgotten, {} bytes of JSON",
            log.calls,
            log.entries.len(),
            log.forgotten,
            answer.body.len()
        ),
        Err(_) => format!("the session log answered {}", answer.status.as_u16()),
    };
    client.record(Op::SessionLog, latency, outcome);
    described
}

/// What to ask the server once the wait after a flood is over, to show whether what the flood
/// held was let go: a new MCP session (accepted once expired ones freed the cap), or the flood
/// session's log (gone once the session expired). Not counted in the tally.
pub enum Probe {
    Nothing,
    McpInitialize { world: u32 },
    SessionLog { session: Arc<str> },
}

impl Probe {
    /// Asks, and describes the answer for the report.
    pub async fn run(&self, addr: SocketAddr, api_key: Option<String>) -> Option<String> {
        let (what, method, path, headers, body) = match self {
            Probe::Nothing => return None,
            Probe::McpInitialize { world } => (
                "a new MCP initialize",
                Method::POST,
                format!("/mcp/{world}"),
                mcp_client::headers(None),
                Some(mcp_client::initialize_body()),
            ),
            Probe::SessionLog { session } => (
                "the flood session's log",
                Method::GET,
                format!("/v1/sessions/{session}/log"),
                Vec::new(),
                None,
            ),
        };
        let answered = match Connection::open(addr, api_key).await {
            Ok(mut connection) => connection.request(method, &path, &headers, body).await,
            Err(error) => Err(error),
        };
        let answer = match answered {
            Ok(answer) => {
                let code = error_code(&answer.body).unwrap_or_default();
                format!("{} {code}", answer.status.as_u16())
            }
            Err(error) => format!("no answer ({error:#})"),
        };
        Some(format!(
            "after the wait, {what} answered {}",
            answer.trim_end()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_hands_out_exactly_the_calls() {
        let counter = Counter::new(3);
        let taken: Vec<Option<u64>> = (0..5).map(|_| counter.take()).collect();
        assert_eq!(taken, [Some(0), Some(1), Some(2), None, None]);
    }

    #[test]
    fn long_queries_have_the_exact_length() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for vocabulary in [
            vec!["harbour".to_owned()],
            vec!["ä".to_owned(), "guild".to_owned()],
        ] {
            for _ in 0..20 {
                let query = long_query(&mut rng, &vocabulary);
                assert_eq!(query.chars().count(), FLOOD_QUERY_CHARS, "{query}");
                assert!(!query.ends_with(' '), "{query}");
            }
        }
    }
}
