//! The `mix` scenario: every connection loops until the deadline over a weighted mix of native
//! search (single and batch), extract of a URL seen in earlier results, a REST session episode
//! (create, search, extract, log, delete, under controls that inject errors at a known rate) and
//! an MCP episode (initialize, initialized, `web_search`, DELETE). Episodes always run to their
//! end, so no session is left behind.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use hyper::Method;
use hyper::body::Bytes;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::json;

use super::client::Client;
use super::mcp_client;
use super::tally::{Op, Outcome, classify};

/// URLs each task remembers for extracts.
const KEPT_URLS: usize = 16;
/// The error kinds the sessions inject: both answer at once, unlike `timeout`.
const INJECTED_KINDS: [&str; 2] = ["rate_limit", "server_error"];

/// What every task of the mix shares.
pub struct MixPlan {
    pub worlds: Vec<u32>,
    pub vocabulary: Vec<String>,
    pub seed: u64,
    /// The `error_rate` of every session's controls.
    pub error_rate: f64,
    pub deadline: Instant,
}

/// One task's own state: its random stream and the URLs it saw.
struct TaskState {
    rng: ChaCha8Rng,
    urls: VecDeque<(u32, String)>,
}

impl TaskState {
    fn world(&mut self, plan: &MixPlan) -> u32 {
        plan.worlds[self.rng.random_range(0..plan.worlds.len())]
    }

    fn query(&mut self, plan: &MixPlan) -> String {
        let n_words = self.rng.random_range(1..=3);
        (0..n_words)
            .map(|_| plan.vocabulary[self.rng.random_range(0..plan.vocabulary.len())].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn remember(&mut self, world: u32, url: String) {
        if self.urls.len() == KEPT_URLS {
            self.urls.pop_front();
        }
        self.urls.push_back((world, url));
    }
}

#[derive(Deserialize)]
struct Hits {
    #[serde(default)]
    results: Vec<Hit>,
    #[serde(default)]
    responses: Vec<Hits>,
}

#[derive(Deserialize)]
struct Hit {
    url: String,
}

/// The first URL of a search answer, single or batch.
fn first_url(body: &[u8]) -> Option<String> {
    let hits: Hits = serde_json::from_slice(body).ok()?;
    let first = hits.results.into_iter().next();
    first
        .or_else(|| hits.responses.into_iter().flat_map(|r| r.results).next())
        .map(|hit| hit.url)
}

/// Runs one connection's loop until the deadline.
pub async fn run_task(plan: Arc<MixPlan>, mut client: Client, task_idx: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
    rng.set_stream(task_idx);
    let mut state = TaskState {
        rng,
        urls: VecDeque::with_capacity(KEPT_URLS),
    };
    while Instant::now() < plan.deadline {
        match state.rng.random_range(0..100) {
            0..35 => native_search(&plan, &mut client, &mut state, false).await,
            35..45 => native_search(&plan, &mut client, &mut state, true).await,
            45..60 => native_extract(&mut client, &mut state).await,
            60..80 => session_episode(&plan, &mut client, &mut state).await,
            _ => mcp_episode(&plan, &mut client, &mut state).await,
        }
    }
}

/// The body of a search: one query, or a batch of two to five.
fn search_body(plan: &MixPlan, state: &mut TaskState, batch: bool) -> Bytes {
    let body = if batch {
        let n = state.rng.random_range(2..=5);
        let queries: Vec<String> = (0..n).map(|_| state.query(plan)).collect();
        json!({"queries": queries, "top_k": 10})
    } else {
        json!({"query": state.query(plan), "top_k": 10})
    };
    Bytes::from(body.to_string())
}

async fn native_search(plan: &MixPlan, client: &mut Client, state: &mut TaskState, batch: bool) {
    let op = if batch { Op::SearchBatch } else { Op::Search };
    let world = state.world(plan);
    let body = search_body(plan, state, batch);
    let path = format!("/v1/worlds/{world}/search");
    let Some((answer, latency)) = client.send(op, Method::POST, &path, &[], Some(body)).await
    else {
        return;
    };
    let outcome = classify(answer.status, &answer.body, false);
    // Reading URLs out of one answer in four is enough to keep extracts supplied.
    if outcome == Outcome::Ok
        && (state.urls.is_empty() || state.rng.random_range(0..4) == 0)
        && let Some(url) = first_url(&answer.body)
    {
        state.remember(world, url);
    }
    client.record(op, latency, outcome);
}

async fn native_extract(client: &mut Client, state: &mut TaskState) {
    if state.urls.is_empty() {
        return;
    }
    let (world, url) = state.urls[state.rng.random_range(0..state.urls.len())].clone();
    let body = json!({"url": url, "start": 0, "max_chars": 4000}).to_string();
    let path = format!("/v1/worlds/{world}/extract");
    let Some((answer, latency)) = client
        .send(
            Op::Extract,
            Method::POST,
            &path,
            &[],
            Some(Bytes::from(body)),
        )
        .await
    else {
        return;
    };
    client.record(
        Op::Extract,
        latency,
        classify(answer.status, &answer.body, false),
    );
}

#[derive(Deserialize)]
struct Created {
    session: String,
}

#[derive(Deserialize)]
struct LogCounts {
    calls: u64,
}

/// Creates a session under injecting controls; returns its id.
async fn create_session(
    plan: &MixPlan,
    client: &mut Client,
    world: u32,
    seed: u64,
) -> Option<String> {
    let controls = json!({"error_rate": plan.error_rate, "error_kinds": INJECTED_KINDS});
    let body = json!({"world": world, "seed": seed, "controls": controls}).to_string();
    let (answer, latency) = client
        .send(
            Op::SessionCreate,
            Method::POST,
            "/v1/sessions",
            &[],
            Some(Bytes::from(body)),
        )
        .await?;
    let mut outcome = classify(answer.status, &answer.body, false);
    let created = serde_json::from_slice::<Created>(&answer.body).ok();
    if outcome == Outcome::Ok && created.is_none() {
        outcome = Outcome::Real("a session answer without `session`".to_owned());
    }
    client.record(Op::SessionCreate, latency, outcome);
    created.map(|created| created.session)
}

/// Sends one session call (search or extract); returns whether it was answered at all, and the
/// first URL of a successful search.
async fn session_call(
    plan: &MixPlan,
    client: &mut Client,
    op: Op,
    path: &str,
    body: Bytes,
) -> (bool, Option<String>) {
    let Some((answer, latency)) = client.send(op, Method::POST, path, &[], Some(body)).await else {
        return (false, None);
    };
    let outcome = classify(answer.status, &answer.body, plan.error_rate > 0.0);
    let url = (outcome == Outcome::Ok && op == Op::SessionSearch)
        .then(|| first_url(&answer.body))
        .flatten();
    client.record(op, latency, outcome);
    (true, url)
}

/// A REST session from creation to deletion; checks the log counts every answered call.
async fn session_episode(plan: &MixPlan, client: &mut Client, state: &mut TaskState) {
    let world = state.world(plan);
    let seed = state.rng.random::<u32>().into();
    let Some(session) = create_session(plan, client, world, seed).await else {
        return;
    };
    let (mut answered, mut sent) = (0u64, 0u64);
    let mut url = None;
    for batch in [false, true] {
        let path = format!("/v1/sessions/{session}/search");
        let body = search_body(plan, state, batch);
        let (got, found) = session_call(plan, client, Op::SessionSearch, &path, body).await;
        (sent, answered) = (sent + 1, answered + u64::from(got));
        url = url.or(found);
    }
    if let Some(url) = url {
        let path = format!("/v1/sessions/{session}/extract");
        let body = Bytes::from(json!({"url": url, "max_chars": 4000}).to_string());
        let (got, _) = session_call(plan, client, Op::SessionExtract, &path, body).await;
        (sent, answered) = (sent + 1, answered + u64::from(got));
    }
    check_log(client, &session, (sent == answered).then_some(sent)).await;
    let path = format!("/v1/sessions/{session}");
    if let Some((answer, latency)) = client
        .send(Op::SessionDelete, Method::DELETE, &path, &[], None)
        .await
    {
        client.record(
            Op::SessionDelete,
            latency,
            classify(answer.status, &answer.body, false),
        );
    }
}

/// Reads a session's log; when every call was answered, its call count must match.
async fn check_log(client: &mut Client, session: &str, expect_calls: Option<u64>) {
    let path = format!("/v1/sessions/{session}/log");
    let Some((answer, latency)) = client
        .send(Op::SessionLog, Method::GET, &path, &[], None)
        .await
    else {
        return;
    };
    let mut outcome = classify(answer.status, &answer.body, false);
    if outcome == Outcome::Ok {
        let calls = serde_json::from_slice::<LogCounts>(&answer.body).map(|log| log.calls);
        outcome = match (calls, expect_calls) {
            (Err(_), _) => Outcome::Real("a log without `calls`".to_owned()),
            (Ok(calls), Some(expect)) if calls != expect => {
                Outcome::Real(format!("log counts {calls} calls: {expect} were answered"))
            }
            _ => Outcome::Ok,
        };
    }
    client.record(Op::SessionLog, latency, outcome);
}

/// An MCP session from `initialize` to DELETE, with one or two searches under injecting
/// controls given as query parameters.
async fn mcp_episode(plan: &MixPlan, client: &mut Client, state: &mut TaskState) {
    let world = state.world(plan);
    let seed: u32 = state.rng.random();
    let path = format!(
        "/mcp/{world}?seed={seed}&error_rate={}&error_kinds={}",
        plan.error_rate,
        INJECTED_KINDS.join(",")
    );
    let Some(session) = mcp_client::initialize(client, &path).await else {
        return;
    };
    if mcp_client::initialized(client, &path, &session).await {
        for _ in 0..state.rng.random_range(1..=2) {
            let query = state.query(plan);
            let injecting = plan.error_rate > 0.0;
            mcp_client::web_search(client, &path, &session, &query, injecting).await;
        }
    }
    mcp_client::delete(client, &path, &session).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_url_is_found_in_single_and_batch_answers() {
        fn check(body: &str, expect: Option<&str>) {
            assert_eq!(first_url(body.as_bytes()).as_deref(), expect, "{body}");
        }
        check(
            r#"{"query":"a","results":[{"url":"u1","title":"t"}]}"#,
            Some("u1"),
        );
        check(
            r#"{"responses":[{"query":"a","results":[]},{"query":"b","results":[{"url":"u2"}]}]}"#,
            Some("u2"),
        );
        check(
            r#"{"responses":[{"query":"a","error":{"code":"x"}}]}"#,
            None,
        );
        check(r#"{"results":[]}"#, None);
        check("not json", None);
    }
}
