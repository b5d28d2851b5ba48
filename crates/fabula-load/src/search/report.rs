//! The report of `fabula bench search`: the setup (how soon a started server was ready, how long
//! before the first request), one line per phase (requests, requests per second, latency
//! percentiles, errors) and warm search throughput as a share of the server's HTTP ceiling, as
//! plain text or JSON.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::phase::{PhaseOutcome, Route};
use crate::server::ServerExit;

/// What one phase measured.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseReport {
    /// From the first request to the end of the last one.
    pub seconds: f64,
    /// Requests answered (errors included).
    pub requests: u64,
    /// Answers other than 2xx plus requests lost to a connection error.
    pub errors: u64,
    pub requests_per_s: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Distinct worlds answered with a 2xx; `None` for the ceiling, which searches nothing.
    pub worlds_touched: Option<usize>,
}

impl PhaseReport {
    pub(super) fn new(outcome: &PhaseOutcome, route: Route) -> PhaseReport {
        let latencies = &outcome.latencies;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let seconds = outcome.elapsed.as_secs_f64();
        PhaseReport {
            seconds,
            requests: latencies.count(),
            errors: outcome.errors,
            requests_per_s: latencies.count() as f64 / seconds.max(1e-9),
            p50_ms: ms(latencies.percentile(0.50)),
            p90_ms: ms(latencies.percentile(0.90)),
            p99_ms: ms(latencies.percentile(0.99)),
            max_ms: ms(latencies.max()),
            worlds_touched: (route == Route::Search)
                .then(|| outcome.touched.iter().filter(|touched| **touched).count()),
        }
    }
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// The server's address.
    pub addr: String,
    /// Whether the bench started the server itself (`--worlds`) rather than attaching (`--addr`).
    pub started_server: bool,
    pub connections: usize,
    /// The worlds the searches were spread over.
    pub worlds: usize,
    pub seed: u64,
    pub top_k: usize,
    pub hiding: String,
    /// Seconds from spawning the server to its first 200 from `GET /health`; `None` when
    /// attached to a running server.
    pub ready_s: Option<f64>,
    /// Seconds from the start (the server's spawn, or the bench's start when attached) to the
    /// first request of the load: readiness, listing the worlds, collecting query words.
    pub setup_s: f64,
    /// Distinct worlds searched before the load to collect query words (their indexes were
    /// built then); 0 when the words were given.
    pub vocabulary_worlds: usize,
    /// The first seconds of load, with no warm-up; `None` when skipped (`--cold 0`).
    pub cold: Option<PhaseReport>,
    /// Worlds searched once each between the cold and the warm phase: those the cold phase did
    /// not answer.
    pub sweep_worlds: usize,
    pub sweep_s: f64,
    /// Load after every world has been searched at least once.
    pub warm: PhaseReport,
    /// The same connections on `GET /health`; `None` when skipped (`--ceiling 0`).
    pub ceiling: Option<PhaseReport>,
    /// Warm requests per second as a percentage of the ceiling's.
    pub warm_share_of_ceiling_pct: Option<f64>,
    /// How a started server ended after SIGTERM.
    pub server_exit: Option<ServerExit>,
}

/// Warm requests per second as a percentage of the ceiling's; `None` without a ceiling.
pub(super) fn share_of_ceiling(warm: &PhaseReport, ceiling: Option<&PhaseReport>) -> Option<f64> {
    ceiling
        .filter(|ceiling| ceiling.requests_per_s > 0.0)
        .map(|ceiling| 100.0 * warm.requests_per_s / ceiling.requests_per_s)
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fabula bench search: {} connections, {} worlds, top {}, hiding {}, seed {}",
            self.connections, self.worlds, self.top_k, self.hiding, self.seed
        )?;
        self.fmt_setup(f)?;
        writeln!(
            f,
            "{:<8} {:>7} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7}",
            "phase",
            "seconds",
            "requests",
            "req/s",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "max ms",
            "errors"
        )?;
        for (name, phase) in [
            ("cold", self.cold.as_ref()),
            ("warm", Some(&self.warm)),
            ("ceiling", self.ceiling.as_ref()),
        ] {
            match phase {
                Some(phase) => fmt_phase(f, name, phase)?,
                None => writeln!(f, "{name:<8} skipped")?,
            }
        }
        self.fmt_coverage(f)?;
        match self.warm_share_of_ceiling_pct {
            Some(pct) => writeln!(
                f,
                "warm search runs at {pct:.0}% of the server's own HTTP ceiling (GET /health)"
            )?,
            None => writeln!(f, "no HTTP ceiling measured")?,
        }
        if let Some(exit) = &self.server_exit {
            let code = exit
                .code
                .map_or("none (a signal)".to_owned(), |c| c.to_string());
            let killed = if exit.killed { ", killed" } else { "" };
            writeln!(
                f,
                "server exit: code {code}, {:.2} s after SIGTERM{killed}",
                exit.after_sigterm_s
            )?;
        }
        Ok(())
    }
}

impl BenchReport {
    fn fmt_setup(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ready_s {
            Some(ready) => writeln!(
                f,
                "server: started by the bench on {}, ready in {ready:.3} s (spawn to first 200 \
                 from /health); load began {:.3} s after the spawn",
                self.addr, self.setup_s
            )?,
            None => writeln!(
                f,
                "server: running at {}; load began {:.3} s after the bench started",
                self.addr, self.setup_s
            )?,
        }
        if self.vocabulary_worlds > 0 {
            writeln!(
                f,
                "query words: from searching {} worlds before the load",
                self.vocabulary_worlds
            )?;
        }
        Ok(())
    }

    fn fmt_coverage(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sweep = format!(
            "searched once in {:.2} s before the warm phase",
            self.sweep_s
        );
        match self.cold.as_ref().and_then(|cold| cold.worlds_touched) {
            Some(touched) => writeln!(
                f,
                "the cold phase touched {touched} of {} worlds; the other {} were {sweep}",
                self.worlds, self.sweep_worlds
            ),
            None => writeln!(f, "no cold phase; all {} worlds were {sweep}", self.worlds),
        }
    }
}

fn fmt_phase(f: &mut fmt::Formatter<'_>, name: &str, phase: &PhaseReport) -> fmt::Result {
    writeln!(
        f,
        "{name:<8} {:>7.2} {:>9} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7}",
        phase.seconds,
        phase.requests,
        phase.requests_per_s,
        phase.p50_ms,
        phase.p90_ms,
        phase.p99_ms,
        phase.max_ms,
        phase.errors
    )
}
