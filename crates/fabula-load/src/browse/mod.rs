//! `fabula bench browse`: the latency of every page of the world browser, against the target
//! that each answers in under 50 ms on a 1,000-world dataset.
//!
//! The CLI serves `--worlds DIR` in its own process as `fabula serve` does, on free 127.0.0.1
//! ports: the agent listener with the browser mounted, and the admin listener with a random
//! token. It opens a few sessions with calls (so the session views have content), then asks the
//! admin listener for its dataset view once and reports that first request apart: it waits for
//! the tier summary over every task, which the listener computes in the background from the
//! start. Then it requests each view `--requests` times, one request at a time over one
//! keep-alive connection per listener, and reports the median, p95, p99 and max latency of
//! each, from sending the request to reading the whole body. Which worlds, pages, rows, tasks
//! and sessions are asked for is drawn up front by `plan`. Every answer must be 200 with
//! `text/html`; any other is a failure, listed in the report, and fails the command.

mod plan;
mod report;

use std::net::SocketAddr;
use std::time::Instant;

use hyper::{Method, StatusCode, header};
use serde_json::json;

use self::plan::{Listener, SessionPlan, Target, View};
pub use self::plan::{Plan, plan};
pub use self::report::{BrowseReport, Failure, ViewReport};
use crate::loadgen::{Answer, Connection};
use crate::{Error, Result, bail, ensure};

/// The two listeners of a served dataset: the agent listener with the browser mounted, and the
/// admin listener with its token. The caller serves them (the CLI does, in its own process).
#[derive(Debug, Clone)]
pub struct Listeners {
    pub agent: SocketAddr,
    pub admin: SocketAddr,
    pub token: String,
}

impl Listeners {
    async fn connect(&self, listener: Listener) -> Result<Connection> {
        match listener {
            Listener::Agent => Connection::open(self.agent, None).await,
            Listener::Admin => Connection::open(self.admin, Some(self.token.clone())).await,
        }
    }
}

/// Opens the sessions, then measures the first admin request and each view of the plan.
pub async fn measure(servers: &Listeners, plan: &Plan) -> Result<BrowseReport> {
    let mut agent = servers.connect(Listener::Agent).await?;
    let mut admin = servers.connect(Listener::Admin).await?;
    let mut session_ids = Vec::with_capacity(plan.sessions.len());
    for session in &plan.sessions {
        session_ids.push(open_session(&mut agent, session).await?);
    }
    let mut failures = Vec::new();
    let first = [Target::Path("/".to_owned())];
    let (first_admin_dataset, failed) =
        measure_view(servers, &mut admin, View::AdminDataset, &first, &[]).await?;
    failures.extend(failed);
    let mut views = Vec::with_capacity(plan.views.len());
    for (view, targets) in &plan.views {
        let connection = match view.listener() {
            Listener::Agent => &mut agent,
            Listener::Admin => &mut admin,
        };
        let (measured, failed) =
            measure_view(servers, connection, *view, targets, &session_ids).await?;
        views.push(measured);
        failures.extend(failed);
    }
    Ok(BrowseReport {
        worlds: plan.n_worlds,
        seed: plan.seed,
        requests_per_view: plan.n_requests,
        sessions: plan.sessions.len(),
        // Each planned call is a search and an extract.
        session_calls: plan.sessions.iter().map(|s| 2 * s.calls.len()).sum(),
        first_admin_dataset,
        views,
        failed_requests: failures.len(),
        failures: report::first_failures(failures),
    })
}

/// Requests every target of one view, one at a time, and returns its figures and its failed
/// requests; a connection that failed is opened again.
async fn measure_view(
    servers: &Listeners,
    connection: &mut Connection,
    view: View,
    targets: &[Target],
    session_ids: &[String],
) -> Result<(ViewReport, Vec<Failure>)> {
    let mut latencies = Vec::with_capacity(targets.len());
    let mut failures = Vec::new();
    for target in targets {
        let path = target.path(session_ids);
        let started = Instant::now();
        let answer = connection.request(Method::GET, &path, &[], None).await;
        let latency = started.elapsed();
        let failure = match answer {
            Ok(answer) => {
                latencies.push(latency);
                html_failure(&answer)
            }
            Err(error) => {
                *connection = servers.connect(view.listener()).await?;
                Some((None, error.chain()))
            }
        };
        if let Some((status, detail)) = failure {
            failures.push(Failure {
                view,
                path,
                status,
                detail,
            });
        }
    }
    let example = targets
        .first()
        .map(|target| target.path(session_ids))
        .unwrap_or_default();
    let figures = ViewReport::new(view, example, targets.len(), latencies, failures.len());
    Ok((figures, failures))
}

/// Why an answer is not a page: its status and content type, or `None` for 200 with HTML.
fn html_failure(answer: &Answer) -> Option<(Option<u16>, String)> {
    let content_type = answer
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if answer.status == StatusCode::OK && content_type.starts_with("text/html") {
        return None;
    }
    let detail = if content_type.is_empty() {
        "no content type".to_owned()
    } else {
        content_type.to_owned()
    };
    Some((Some(answer.status.as_u16()), detail))
}

/// Opens one session and makes its calls; returns its id.
async fn open_session(agent: &mut Connection, session: &SessionPlan) -> Result<String> {
    let body = json!({"world": session.world, "seed": session.seed});
    let created = post_json(agent, "/v1/sessions", &body).await?;
    let Some(id) = created["session"].as_str().map(str::to_owned) else {
        bail!("POST /v1/sessions answered no session id: {created}");
    };
    for (query, url) in &session.calls {
        let search = json!({"query": query, "top_k": 10});
        post_json(agent, &format!("/v1/sessions/{id}/search"), &search).await?;
        let extract = json!({"url": url, "max_chars": 2000});
        post_json(agent, &format!("/v1/sessions/{id}/extract"), &extract).await?;
    }
    Ok(id)
}

/// POSTs a JSON body; the answer must be 200 with a JSON body, which is returned.
async fn post_json(
    connection: &mut Connection,
    path: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value> {
    let (status, answer) = connection.post(path, body.to_string().into()).await?;
    ensure!(
        status == StatusCode::OK,
        "POST {path} answered {}: {}",
        status.as_u16(),
        String::from_utf8_lossy(&answer)
    );
    serde_json::from_slice(&answer).map_err(|source| Error::Json {
        what: format!("POST {path}"),
        source,
    })
}
