//! One timed phase of `fabula bench search`: every connection sends requests to one route, one at
//! a time, until the phase's deadline, and records each latency in one shared fixed-size
//! histogram. The connections are handed from phase to phase.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::histogram::Histogram;
use crate::loadgen::{Connection, search_body};
use crate::{Result, bail};

/// A connection idle this long is opened again before a phase rather than reused: the server may
/// close idle keep-alive connections, and a request racing that close is not the server's fault.
const MAX_IDLE: Duration = Duration::from_secs(1);
/// How long a task waits after failing to connect before it tries again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(10);

/// What the requests of a phase go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    /// `POST /v1/worlds/{id}/search` with a random world and a query of 1 to 3 random words.
    Search,
    /// `GET /health`, the server's most trivial route.
    Health,
}

/// What every phase shares: the server, the worlds and words to draw from, the search options.
pub(super) struct Workload {
    pub addr: SocketAddr,
    pub api_key: Option<String>,
    pub worlds: Vec<u32>,
    pub vocabulary: Vec<String>,
    pub seed: u64,
    pub top_k: usize,
    pub hiding: String,
}

/// One load task's keep-alive connection, kept between phases.
pub(super) struct Slot {
    connection: Option<Connection>,
    last_used: Instant,
}

impl Slot {
    /// Opens one connection per task.
    pub(super) async fn open_all(workload: &Workload, n: usize) -> Result<Vec<Slot>> {
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            let connection = Connection::open(workload.addr, workload.api_key.clone()).await?;
            slots.push(Slot {
                connection: Some(connection),
                last_used: Instant::now(),
            });
        }
        Ok(slots)
    }
}

/// What one phase measured.
pub(super) struct PhaseOutcome {
    pub latencies: Histogram,
    /// Answers other than 2xx plus requests lost to a connection error.
    pub errors: u64,
    /// From the first request to the end of the last one.
    pub elapsed: Duration,
    /// Which of `Workload::worlds` were answered with a 2xx, by position.
    pub touched: Vec<bool>,
}

/// The shared state of one phase's tasks.
struct PhaseShared {
    workload: Arc<Workload>,
    route: Route,
    phase_idx: u64,
    deadline: Instant,
    latencies: Histogram,
    touched: Vec<AtomicBool>,
}

/// Runs one phase of `length` over `slots` (one task each) and gives the connections back.
pub(super) async fn run_phase(
    workload: &Arc<Workload>,
    route: Route,
    phase_idx: u64,
    length: Duration,
    slots: &mut Vec<Slot>,
) -> Result<PhaseOutcome> {
    let started = Instant::now();
    let shared = Arc::new(PhaseShared {
        workload: workload.clone(),
        route,
        phase_idx,
        deadline: started + length,
        latencies: Histogram::default(),
        touched: workload
            .worlds
            .iter()
            .map(|_| AtomicBool::new(false))
            .collect(),
    });
    let tasks: Vec<_> = slots
        .drain(..)
        .enumerate()
        .map(|(idx, slot)| tokio::spawn(run_task(shared.clone(), slot, idx as u64)))
        .collect();
    let mut errors = 0;
    for task in tasks {
        let (slot, task_errors) = task.await?;
        slots.push(slot);
        errors += task_errors;
    }
    let elapsed = started.elapsed();
    let Some(shared) = Arc::into_inner(shared) else {
        bail!("a load task outlived its phase");
    };
    let touched: Vec<bool> = shared
        .touched
        .into_iter()
        .map(AtomicBool::into_inner)
        .collect();
    Ok(PhaseOutcome {
        latencies: shared.latencies,
        errors,
        elapsed,
        touched,
    })
}

/// One connection's loop: send, wait, record, until the deadline; reconnect after an error.
/// Returns the slot and the errors counted.
async fn run_task(shared: Arc<PhaseShared>, mut slot: Slot, connection_idx: u64) -> (Slot, u64) {
    let workload = &shared.workload;
    let mut rng = ChaCha8Rng::seed_from_u64(workload.seed);
    rng.set_stream((shared.phase_idx << 32) | connection_idx);
    if slot.last_used.elapsed() > MAX_IDLE {
        slot.connection = None;
    }
    let mut errors = 0;
    while Instant::now() < shared.deadline {
        let open = match &mut slot.connection {
            Some(open) => open,
            None => match Connection::open(workload.addr, workload.api_key.clone()).await {
                Ok(opened) => slot.connection.insert(opened),
                Err(_) => {
                    errors += 1;
                    tokio::time::sleep(RECONNECT_PAUSE).await;
                    continue;
                }
            },
        };
        let sent = Instant::now();
        let answered = match shared.route {
            Route::Search => search_once(open, workload, &mut rng, &shared.touched).await,
            Route::Health => open
                .get("/health")
                .await
                .map(|(status, _)| status.is_success()),
        };
        slot.last_used = Instant::now();
        match answered {
            Ok(success) => {
                shared.latencies.record(sent.elapsed());
                errors += u64::from(!success);
            }
            Err(_) => {
                errors += 1;
                slot.connection = None;
            }
        }
    }
    (slot, errors)
}

/// Sends one random search; marks its world touched when it answers 2xx. `Ok(false)` is an
/// answer other than 2xx.
async fn search_once(
    connection: &mut Connection,
    workload: &Workload,
    rng: &mut ChaCha8Rng,
    touched: &[AtomicBool],
) -> Result<bool> {
    let world_idx = rng.random_range(0..workload.worlds.len());
    let n_words = rng.random_range(1..=3);
    let vocabulary = &workload.vocabulary;
    let query = (0..n_words)
        .map(|_| vocabulary[rng.random_range(0..vocabulary.len())].as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let body = search_body(&query, workload.top_k, &workload.hiding);
    let path = format!("/v1/worlds/{}/search", workload.worlds[world_idx]);
    let (status, _) = connection.post(&path, body).await?;
    if status.is_success() {
        touched[world_idx].store(true, Ordering::Relaxed);
    }
    Ok(status.is_success())
}
