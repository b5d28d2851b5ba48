//! `fabula bench search`: loads a search server from keep-alive connections in three phases of
//! one run and reports each apart, so that first-use costs, steady search and the server's own
//! HTTP overhead are never averaged together.
//!
//! | phase     | load                                                                         |
//! |-----------|------------------------------------------------------------------------------|
//! | `cold`    | the first `--cold` seconds of load, with no warm-up: most worlds are searched for the first time here, so opening or building their indexes counts as latency |
//! | `warm`    | `--duration` seconds once every world has been searched at least once; the worlds the cold phase did not reach are searched once each, quickly, in between (the report says how many) |
//! | `ceiling` | `--ceiling` seconds of `GET /health` on the same connections: the most requests per second the server's HTTP layer answers |
//!
//! Each phase reports requests, requests per second, p50/p90/p99/max latency and errors; the
//! report ends with the warm phase's requests per second as a percentage of the ceiling's. Search
//! phases draw a random world and a query of one to three random words per request, seeded by
//! `--seed` and the connection; the words come from a few worlds' own pages (up to eight
//! searches before the load, counted in the report). A phase ends once the requests in flight at
//! its deadline are answered, so a slow cold phase may last longer than `--cold`; its rates are
//! over the time it really took.
//!
//! With `--worlds DIR` the bench starts a fresh `fabula serve` of that dataset (this same binary,
//! on a free 127.0.0.1 port, with any `--server-arg`s), reports how soon `/health` first answered
//! 200 ("ready", from the spawn), starts the cold phase as soon as it can, and stops the server
//! with SIGTERM at the end. With `--addr` it loads a running server and the clock starts with the
//! bench. Latencies go to fixed-size histograms, so a run of any length holds the same memory.
//!
//! Against a server without `/health` (such as `benches/python/bm25_server.py`), pass
//! `--ceiling 0`: a ceiling of 404s measures nothing.
//!
//! `fabula bench browse`, the latency of every world-browser page, lives in `browse`.

mod phase;
mod report;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use self::phase::{PhaseOutcome, Route, Slot, Workload, run_phase};
pub use self::report::{BenchReport, PhaseReport};
use crate::loadgen::{self, Connection, LoadConfig};
use crate::server::{Launch, Server};
use crate::{Error, Result, bail, ensure};

/// How long a started server may take to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(30);
/// How long a started server may take to answer `/health` once it printed its address.
const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// The pause between two `/health` polls while waiting for a started server.
const READY_POLL: Duration = Duration::from_millis(5);

/// The server the bench loads.
#[derive(Debug, Clone)]
pub enum Target {
    /// A running server at this address.
    Running(SocketAddr),
    /// A fresh `fabula serve` of a dataset, with extra arguments, that the bench starts and
    /// stops.
    Start(Launch),
}

/// Runs the bench on `runtime`: starts the server when asked, runs the phases, stops the server.
/// `config.addr` is replaced by the target's address.
pub fn run(
    target: &Target,
    mut config: LoadConfig,
    runtime: &tokio::runtime::Runtime,
) -> Result<BenchReport> {
    let origin = Instant::now();
    let mut server = match target {
        Target::Running(addr) => {
            config.addr = *addr;
            None
        }
        Target::Start(launch) => {
            let server = Server::start(launch)?;
            config.addr = server.addr;
            Some(server)
        }
    };
    let measured = runtime.block_on(measure(&config, origin, server.is_some()));
    let Some(server) = server.as_mut() else {
        return measured;
    };
    let exit = server.stop(STOP_GRACE)?;
    match measured {
        Ok(report) => Ok(BenchReport {
            server_exit: exit,
            ..report
        }),
        Err(error) => {
            let tail = server.log().tail.into_iter().collect::<Vec<_>>().join("\n");
            Err(Error::Failed(format!(
                "{}\nthe server's stderr ends:\n{tail}",
                error.chain()
            )))
        }
    }
}

/// What the load needs before it starts.
struct Setup {
    workload: Arc<Workload>,
    /// Distinct worlds searched to collect the query words.
    vocabulary_worlds: usize,
    ready_s: Option<f64>,
}

/// Runs every phase; `origin` is the server's spawn, or the bench's start when `started` is
/// false.
async fn measure(config: &LoadConfig, origin: Instant, started: bool) -> Result<BenchReport> {
    ensure!(config.connections > 0, "connections must be at least 1");
    ensure!(
        !config.duration.is_zero(),
        "the warm phase needs a duration"
    );
    let setup = prepare(config, origin, started).await?;
    let workload = &setup.workload;
    let mut slots = Slot::open_all(workload, config.connections).await?;
    let setup_s = origin.elapsed().as_secs_f64();
    let cold = run_optional(workload, Route::Search, 0, config.cold, &mut slots).await?;
    let untouched: Vec<u32> = match &cold {
        Some(cold) => (workload.worlds.iter().zip(&cold.touched))
            .filter(|(_, touched)| !**touched)
            .map(|(world, _)| *world)
            .collect(),
        None => workload.worlds.clone(),
    };
    let sweep_started = Instant::now();
    loadgen::warm_up(config, &untouched, &workload.vocabulary[0]).await?;
    let sweep_s = sweep_started.elapsed().as_secs_f64();
    let warm = run_phase(workload, Route::Search, 1, config.duration, &mut slots).await?;
    let ceiling = run_optional(workload, Route::Health, 2, config.ceiling, &mut slots).await?;
    let warm = PhaseReport::new(&warm, Route::Search);
    let ceiling = ceiling.map(|ceiling| PhaseReport::new(&ceiling, Route::Health));
    Ok(BenchReport {
        addr: config.addr.to_string(),
        started_server: started,
        connections: config.connections,
        worlds: workload.worlds.len(),
        seed: config.seed,
        top_k: config.top_k,
        hiding: config.hiding.clone(),
        ready_s: setup.ready_s,
        setup_s,
        vocabulary_worlds: setup.vocabulary_worlds,
        cold: cold.map(|cold| PhaseReport::new(&cold, Route::Search)),
        sweep_worlds: untouched.len(),
        sweep_s,
        warm_share_of_ceiling_pct: report::share_of_ceiling(&warm, ceiling.as_ref()),
        warm,
        ceiling,
        server_exit: None,
    })
}

/// Waits for a started server, lists the worlds and collects the query words.
async fn prepare(config: &LoadConfig, origin: Instant, started: bool) -> Result<Setup> {
    let ready_s = if started {
        Some(wait_ready(config.addr, origin).await?.as_secs_f64())
    } else {
        None
    };
    let mut control = Connection::open(config.addr, config.api_key.clone()).await?;
    let worlds = loadgen::pick_worlds(&mut control, config).await?;
    let (vocabulary, vocabulary_worlds) = if config.vocabulary.is_empty() {
        let words = loadgen::fetch_vocabulary(&mut control, &worlds, config.seed).await?;
        let mut searched = loadgen::vocabulary_worlds(&worlds, config.seed);
        searched.sort_unstable();
        searched.dedup();
        (words, searched.len())
    } else {
        (config.vocabulary.clone(), 0)
    };
    ensure!(!vocabulary.is_empty(), "no words to build queries from");
    let workload = Arc::new(Workload {
        addr: config.addr,
        api_key: config.api_key.clone(),
        worlds,
        vocabulary,
        seed: config.seed,
        top_k: config.top_k,
        hiding: config.hiding.clone(),
    });
    Ok(Setup {
        workload,
        vocabulary_worlds,
        ready_s,
    })
}

/// Runs a phase unless its length is zero.
async fn run_optional(
    workload: &Arc<Workload>,
    route: Route,
    phase_idx: u64,
    length: Duration,
    slots: &mut Vec<Slot>,
) -> Result<Option<PhaseOutcome>> {
    if length.is_zero() {
        return Ok(None);
    }
    run_phase(workload, route, phase_idx, length, slots)
        .await
        .map(Some)
}

/// Polls `GET /health` until it answers 200; returns the time since `origin`.
async fn wait_ready(addr: SocketAddr, origin: Instant) -> Result<Duration> {
    let polling = Instant::now();
    loop {
        if let Ok(mut connection) = Connection::open(addr, None).await
            && let Ok((status, _)) = connection.get("/health").await
            && status.is_success()
        {
            return Ok(origin.elapsed());
        }
        if polling.elapsed() > READY_TIMEOUT {
            bail!(
                "the started server at {addr} did not answer /health within {} s",
                READY_TIMEOUT.as_secs()
            );
        }
        tokio::time::sleep(READY_POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use axum::extract::Path;
    use axum::http::StatusCode;
    use axum::routing::{get, post};
    use axum::{Json, Router};
    use serde_json::{Value, json};

    use super::*;

    /// A stand-in for the search server: `/health`, worlds 0 and 3, each search answering one hit
    /// that echoes the query; world 9 answers 500.
    async fn stub_server() -> SocketAddr {
        let worlds = json!({"worlds": [
            {"id": 0, "name": "Veloria Isles", "theme": "island-nation", "pages": 2},
            {"id": 3, "name": "Dravosk Reach", "theme": "river-city-state", "pages": 2},
        ]});
        let app = Router::new()
            .route("/health", get(|| async { Json(json!({"status": "ok"})) }))
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

    /// Short phases against the stub with `connections` connections.
    fn short(addr: SocketAddr, connections: usize) -> LoadConfig {
        LoadConfig {
            addr,
            connections,
            cold: Duration::from_millis(200),
            duration: Duration::from_millis(200),
            ceiling: Duration::from_millis(200),
            seed: 1,
            ..LoadConfig::default()
        }
    }

    fn check_phase(name: &str, phase: &PhaseReport) {
        assert!(phase.requests > 0, "{name}: {phase:?}");
        assert_eq!(phase.errors, 0, "{name}: {phase:?}");
        assert!(phase.requests_per_s > 0.0, "{name}: {phase:?}");
        assert!(
            phase.p50_ms <= phase.p90_ms
                && phase.p90_ms <= phase.p99_ms
                && phase.p99_ms <= phase.max_ms,
            "{name}: {phase:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_phase_is_measured_apart_over_every_listed_world() {
        let addr = stub_server().await;
        let report = measure(&short(addr, 4), Instant::now(), false)
            .await
            .unwrap();
        let cold = report.cold.as_ref().unwrap();
        let ceiling = report.ceiling.as_ref().unwrap();
        check_phase("cold", cold);
        check_phase("warm", &report.warm);
        check_phase("ceiling", ceiling);
        assert_eq!((report.worlds, report.connections), (2, 4));
        assert_eq!(cold.worlds_touched, Some(2));
        assert_eq!(
            (report.warm.worlds_touched, ceiling.worlds_touched),
            (Some(2), None)
        );
        assert_eq!((report.sweep_worlds, report.ready_s), (0, None));
        assert!((1..=2).contains(&report.vocabulary_worlds), "{report:?}");
        let share = report.warm_share_of_ceiling_pct.unwrap();
        let expect = 100.0 * report.warm.requests_per_s / ceiling.requests_per_s;
        assert!((share - expect).abs() < 1e-9, "{share} {expect}");
        let shown = report.to_string();
        for needle in [
            "cold ",
            "warm ",
            "ceiling ",
            "p99 ms",
            "of the server's own HTTP ceiling",
            "the cold phase touched 2 of 2 worlds; the other 0 were searched once",
        ] {
            assert!(shown.contains(needle), "{needle}: {shown}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn skipped_phases_leave_every_world_to_the_sweep() {
        let addr = stub_server().await;
        let config = LoadConfig {
            cold: Duration::ZERO,
            ceiling: Duration::ZERO,
            worlds: vec![3],
            vocabulary: vec!["ferry".to_owned(), "guild".to_owned()],
            ..short(addr, 2)
        };
        let report = measure(&config, Instant::now(), false).await.unwrap();
        assert!(
            report.cold.is_none() && report.ceiling.is_none(),
            "{report:?}"
        );
        assert_eq!(report.warm_share_of_ceiling_pct, None);
        check_phase("warm", &report.warm);
        assert_eq!(
            (report.worlds, report.sweep_worlds, report.vocabulary_worlds),
            (1, 1, 0)
        );
        let shown = report.to_string();
        assert!(shown.contains("cold     skipped"), "{shown}");
        assert!(shown.contains("no HTTP ceiling measured"), "{shown}");
        assert!(
            shown.contains("no cold phase; all 1 worlds were searched once"),
            "{shown}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_world_failing_in_the_cold_phase_fails_the_sweep() {
        let addr = stub_server().await;
        let config = LoadConfig {
            worlds: vec![9],
            vocabulary: vec!["ferry".to_owned()],
            ..short(addr, 1)
        };
        let error = measure(&config, Instant::now(), false).await.unwrap_err();
        assert_eq!(error.chain(), "warm-up search of world 9 answered 500");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn answers_other_than_2xx_are_errors_and_touch_no_world() {
        let addr = stub_server().await;
        let workload = Arc::new(Workload {
            addr,
            api_key: None,
            worlds: vec![9, 3],
            vocabulary: vec!["ferry".to_owned()],
            seed: 2,
            top_k: 10,
            hiding: "partial".to_owned(),
        });
        let mut slots = Slot::open_all(&workload, 2).await.unwrap();
        let length = Duration::from_millis(200);
        let outcome = run_phase(&workload, Route::Search, 0, length, &mut slots)
            .await
            .unwrap();
        assert_eq!(slots.len(), 2, "every connection is handed back");
        assert_eq!(outcome.touched, [false, true]);
        let report = PhaseReport::new(&outcome, Route::Search);
        assert!(
            report.errors > 0 && report.errors < report.requests,
            "{report:?}"
        );
        assert_eq!(report.worlds_touched, Some(1));
    }

    #[tokio::test]
    async fn a_server_that_is_not_there_is_an_error_not_a_report() {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let error = measure(&short(addr, 1), Instant::now(), false)
            .await
            .unwrap_err();
        assert!(error.chain().contains("cannot connect"), "{error:?}");
    }
}
