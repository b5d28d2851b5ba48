//! `fabula bench browse`: the latency of every page of the world browser, against the target
//! that each answers in under 50 ms on a 1,000-world dataset.
//!
//! The bench serves `--worlds DIR` in this process as `fabula serve` does, on free 127.0.0.1
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

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use clap::Args;
use hyper::{Method, StatusCode, header};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use self::plan::{Listener, Plan, SessionPlan, Target, View};
pub use self::report::{BrowseReport, Failure, ViewReport};
use crate::loadgen::{Answer, Connection};

/// Arguments of `fabula bench browse`.
#[derive(Debug, Args)]
pub struct BenchBrowseArgs {
    /// The dataset directory, with its indexes (`fabula index DIR` writes them).
    #[arg(long)]
    pub worlds: PathBuf,
    /// Requests per view.
    #[arg(long, default_value_t = 50)]
    pub requests: usize,
    /// Seed of the worlds, pages, rows, tasks and sessions asked for.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `fabula bench browse`: prints the report, and fails when any request failed.
pub fn run_bench_browse(args: &BenchBrowseArgs) -> anyhow::Result<()> {
    ensure!(args.requests > 0, "--requests must be at least 1");
    let plan = plan::plan(&args.worlds, args.requests, args.seed)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(measure(&args.worlds, &plan))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{report}");
    }
    ensure!(
        report.failed_requests == 0,
        "{} requests did not answer 200 with text/html",
        report.failed_requests
    );
    Ok(())
}

/// The two listeners served in this process.
struct Servers {
    agent: SocketAddr,
    admin: SocketAddr,
    token: String,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<anyhow::Result<()>>>,
}

impl Servers {
    /// Serves `worlds` as `fabula serve` does with an admin listener, both on free ports.
    async fn start(worlds: &Path) -> anyhow::Result<Servers> {
        let config = fabula_server::ServeConfig {
            worlds: worlds.to_path_buf(),
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            ..Default::default()
        };
        let server = fabula_server::bind(config)
            .await
            .with_context(|| format!("serving {}", worlds.display()))?;
        let state = server.state().clone();
        let browse = fabula_browse::Browse::agent(state.clone());
        let server = server.with_routes(browse.mount(axum::Router::new()));
        let token = random_token();
        let admin_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let admin = fabula_admin::bind(state, admin_addr, &token)
            .await
            .context("opening the admin listener")?;
        let (stop, stopped) = watch::channel(false);
        let agent = server.local_addr();
        let admin_addr = admin.local_addr()?;
        let agent_task = tokio::spawn(server.run_until(until(stopped.clone())));
        let admin_task = tokio::spawn(admin.run_until(until(stopped)));
        let tasks = vec![
            tokio::spawn(async move { Ok(agent_task.await??) }),
            tokio::spawn(async move { Ok(admin_task.await??) }),
        ];
        Ok(Servers {
            agent,
            admin: admin_addr,
            token,
            stop,
            tasks,
        })
    }

    async fn connect(&self, listener: Listener) -> anyhow::Result<Connection> {
        match listener {
            Listener::Agent => Connection::open(self.agent, None).await,
            Listener::Admin => Connection::open(self.admin, Some(self.token.clone())).await,
        }
    }

    /// Stops both listeners and waits for them to drain.
    async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(true);
        for task in self.tasks {
            task.await.context("a listener's task failed")??;
        }
        Ok(())
    }
}

/// Completes once `stopped` turns true (or its sender is gone).
async fn until(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// 32 hex digits from the system's randomness: the admin token of this run.
fn random_token() -> String {
    let mut rng: ChaCha8Rng = rand::make_rng();
    format!("{:032x}", rng.random::<u128>())
}

/// Serves the dataset, opens the sessions, then measures the first admin request and each view.
async fn measure(worlds: &Path, plan: &Plan) -> anyhow::Result<BrowseReport> {
    let servers = Servers::start(worlds).await?;
    let measured = measure_with(&servers, plan).await;
    let stopped = servers.stop().await;
    let report = measured?;
    stopped?;
    Ok(report)
}

async fn measure_with(servers: &Servers, plan: &Plan) -> anyhow::Result<BrowseReport> {
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
    servers: &Servers,
    connection: &mut Connection,
    view: View,
    targets: &[Target],
    session_ids: &[String],
) -> anyhow::Result<(ViewReport, Vec<Failure>)> {
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
                Some((None, format!("{error:#}")))
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
async fn open_session(agent: &mut Connection, session: &SessionPlan) -> anyhow::Result<String> {
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
) -> anyhow::Result<serde_json::Value> {
    let (status, answer) = connection
        .post(path, serde_json::to_vec(body)?.into())
        .await?;
    ensure!(
        status == StatusCode::OK,
        "POST {path} answered {}: {}",
        status.as_u16(),
        String::from_utf8_lossy(&answer)
    );
    serde_json::from_slice(&answer).with_context(|| format!("POST {path}"))
}
