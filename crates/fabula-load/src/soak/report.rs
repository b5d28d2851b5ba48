//! The soak report: requests and errors by kind, latency percentiles per operation, throughput,
//! the server's RSS (at the start, at the end of the settling time, its maximum, at the end, and
//! over time) and the "flat within 10%" verdict, as plain text or JSON.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::Ordering;

use serde::Serialize;

use super::tally::{Op, Tally};
use crate::rss::Sample;
use crate::server::{ServerExit, ServerLog};

/// How much RSS may grow after the settling time and still count as flat.
pub const FLAT_TOLERANCE: f64 = 0.10;
/// Seconds between the lines of the RSS-over-time listing in the text report.
const TEXT_EVERY_S: f64 = 10.0;

/// One operation's line.
#[derive(Debug, Clone, Serialize)]
pub struct OpReport {
    pub op: &'static str,
    pub requests: u64,
    pub ok: u64,
    pub injected: u64,
    pub refused: u64,
    pub real_errors: u64,
    pub per_s: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// The RSS figures, in kibibytes; `None` when the server's memory could not be read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RssReport {
    /// Before the warm-up, right after the server answered.
    pub ready_kib: Option<u64>,
    /// When the load started (after the warm-up).
    pub start_kib: Option<u64>,
    /// At the end of the settling time (default the first minute of load), or at the end of a
    /// shorter load; `settled_at_s` says which.
    pub settled_kib: Option<u64>,
    pub settled_at_s: f64,
    pub max_kib: Option<u64>,
    /// The most after the settling time, up to the end of the load.
    pub max_after_settle_kib: Option<u64>,
    /// When the load ended.
    pub end_of_load_kib: Option<u64>,
    /// The last sample (after `--after`, when given).
    pub end_kib: Option<u64>,
    /// Whether the most after settling stays within 10% of the settled figure; `None` when the
    /// load was not longer than the settling time.
    pub flat_within_10pct: Option<bool>,
    pub samples: Vec<Sample>,
}

/// Everything a soak run reports.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    pub scenario: String,
    pub connections: usize,
    pub load_s: f64,
    pub after_s: f64,
    pub settle_s: f64,
    pub requests: u64,
    pub ok: u64,
    pub injected_errors: u64,
    pub refusals_429: u64,
    pub real_errors: u64,
    pub requests_per_s: f64,
    /// The `error_rate` asked of session controls, and the share of injected answers among the
    /// calls made under them.
    pub injected_rate_asked: f64,
    pub injected_rate_seen: f64,
    pub real_error_kinds: BTreeMap<String, u64>,
    pub real_error_examples: Vec<String>,
    pub ops: Vec<OpReport>,
    pub rss: RssReport,
    pub server_log: ServerLog,
    pub server_exit: Option<ServerExit>,
    pub notes: Vec<String>,
}

/// The run's settings that the report repeats.
pub struct RunFacts {
    pub scenario: String,
    pub connections: usize,
    pub load_s: f64,
    pub after_s: f64,
    pub settle_s: f64,
    pub error_rate: f64,
}

fn ms(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// One line per operation that was sent at all.
pub fn op_reports(tally: &Tally, load_s: f64) -> Vec<OpReport> {
    let load_s = load_s.max(1e-9);
    Op::ALL
        .iter()
        .map(|&op| (op, tally.op(op)))
        .filter(|(_, counts)| counts.requests() > 0)
        .map(|(op, counts)| OpReport {
            op: op.name(),
            requests: counts.requests(),
            ok: counts.ok.load(Ordering::Relaxed),
            injected: counts.injected.load(Ordering::Relaxed),
            refused: counts.refused.load(Ordering::Relaxed),
            real_errors: counts.real.load(Ordering::Relaxed),
            per_s: counts.requests() as f64 / load_s,
            mean_ms: ms(counts.latency.mean()),
            p50_ms: ms(counts.latency.percentile(0.50)),
            p90_ms: ms(counts.latency.percentile(0.90)),
            p99_ms: ms(counts.latency.percentile(0.99)),
            max_ms: ms(counts.latency.max()),
        })
        .collect()
}

/// The share of injected answers among the operations that run under injecting controls.
fn injected_rate_seen(ops: &[OpReport]) -> f64 {
    let injecting = ["session_search", "session_extract", "mcp_tool_call"];
    let (injected, answered) = ops
        .iter()
        .filter(|op| injecting.contains(&op.op))
        .fold((0, 0), |(i, n), op| (i + op.injected, n + op.requests));
    if answered == 0 {
        return 0.0;
    }
    injected as f64 / answered as f64
}

/// The first sample at or after `t_s`, else the last one.
fn rss_at(samples: &[Sample], t_s: f64) -> Option<u64> {
    samples
        .iter()
        .find(|sample| sample.t_s >= t_s)
        .or(samples.last())
        .map(|sample| sample.rss_kib)
}

/// The RSS figures and the flatness verdict from the samples, and the readings taken when the
/// server was ready and when the load started.
pub fn rss_report(
    samples: Vec<Sample>,
    (ready_kib, start_kib): (Option<u64>, Option<u64>),
    facts: &RunFacts,
) -> RssReport {
    let in_load = |sample: &&Sample| sample.t_s <= facts.load_s + 0.5;
    let settled_at_s = facts.settle_s.min(facts.load_s);
    let settled_kib = rss_at(&samples, settled_at_s);
    let max_after_settle_kib = samples
        .iter()
        .filter(in_load)
        .filter(|sample| sample.t_s >= facts.settle_s)
        .map(|sample| sample.rss_kib)
        .max();
    let flat_within_10pct = match (settled_kib, max_after_settle_kib) {
        (Some(settled), Some(max)) if facts.load_s > facts.settle_s => {
            Some(max as f64 <= settled as f64 * (1.0 + FLAT_TOLERANCE))
        }
        _ => None,
    };
    RssReport {
        ready_kib,
        start_kib,
        settled_kib,
        settled_at_s,
        max_kib: samples.iter().map(|sample| sample.rss_kib).max(),
        max_after_settle_kib,
        end_of_load_kib: samples.iter().rfind(in_load).map(|s| s.rss_kib),
        end_kib: samples.last().map(|sample| sample.rss_kib),
        flat_within_10pct,
        samples,
    }
}

impl SoakReport {
    /// Puts the counts, the RSS figures and the server's side together.
    pub fn new(
        facts: &RunFacts,
        tally: &Tally,
        rss: RssReport,
        server: (ServerLog, Option<ServerExit>),
        notes: Vec<String>,
    ) -> SoakReport {
        let [requests, ok, injected, refused, real] = tally.totals();
        let ops = op_reports(tally, facts.load_s);
        SoakReport {
            scenario: facts.scenario.clone(),
            connections: facts.connections,
            load_s: facts.load_s,
            after_s: facts.after_s,
            settle_s: facts.settle_s,
            requests,
            ok,
            injected_errors: injected,
            refusals_429: refused,
            real_errors: real,
            requests_per_s: requests as f64 / facts.load_s.max(1e-9),
            injected_rate_asked: facts.error_rate,
            injected_rate_seen: injected_rate_seen(&ops),
            real_error_kinds: tally.real_kinds(),
            real_error_examples: tally.examples(),
            ops,
            rss,
            server_log: server.0,
            server_exit: server.1,
            notes,
        }
    }
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("-".to_owned(), |kib| {
        format!("{:.1} MiB", kib as f64 / 1024.0)
    })
}

impl fmt::Display for SoakReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_summary(f)?;
        self.fmt_ops(f)?;
        self.fmt_rss(f)?;
        self.fmt_server(f)
    }
}

impl SoakReport {
    fn fmt_summary(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "soak {}: {} connections, {:.1} s of load, then {:.1} s of sampling",
            self.scenario, self.connections, self.load_s, self.after_s
        )?;
        writeln!(
            f,
            "requests {} ({:.0}/s): ok {}, injected {}, refused (429) {}, real errors {}",
            self.requests,
            self.requests_per_s,
            self.ok,
            self.injected_errors,
            self.refusals_429,
            self.real_errors
        )?;
        writeln!(
            f,
            "errors other than injected ones: {}",
            self.refusals_429 + self.real_errors
        )?;
        if self.injected_rate_asked > 0.0 {
            writeln!(
                f,
                "injected error rate: asked {:.3}, seen {:.3}",
                self.injected_rate_asked, self.injected_rate_seen
            )?;
        }
        for (kind, n) in &self.real_error_kinds {
            writeln!(f, "  real error {kind}: {n}")?;
        }
        for example in &self.real_error_examples {
            writeln!(f, "  e.g. {example}")?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }

    fn fmt_ops(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\n{:<16} {:>9} {:>8} {:>8} {:>8} {:>6} {:>9} {:>9} {:>9} {:>9}",
            "op",
            "requests",
            "per s",
            "injected",
            "refused",
            "real",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "max ms"
        )?;
        for op in &self.ops {
            writeln!(
                f,
                "{:<16} {:>9} {:>8.1} {:>8} {:>8} {:>6} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
                op.op,
                op.requests,
                op.per_s,
                op.injected,
                op.refused,
                op.real_errors,
                op.p50_ms,
                op.p90_ms,
                op.p99_ms,
                op.max_ms
            )?;
        }
        Ok(())
    }

    fn fmt_rss(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rss = &self.rss;
        writeln!(
            f,
            "\nRSS: ready {}, start {}, after {:.0} s {}, max {}, max after settling {}, \
             end of load {}, end {}",
            mib(rss.ready_kib),
            mib(rss.start_kib),
            rss.settled_at_s,
            mib(rss.settled_kib),
            mib(rss.max_kib),
            mib(rss.max_after_settle_kib),
            mib(rss.end_of_load_kib),
            mib(rss.end_kib)
        )?;
        let verdict = match rss.flat_within_10pct {
            Some(true) => "yes".to_owned(),
            Some(false) => "NO".to_owned(),
            None => format!(
                "n/a (load not longer than the {:.0} s settling time)",
                self.settle_s
            ),
        };
        writeln!(f, "RSS flat within 10% after settling: {verdict}")?;
        let mut next_t = f64::NEG_INFINITY;
        let last_t = rss.samples.last().map_or(0.0, |sample| sample.t_s);
        for sample in &rss.samples {
            // One line per ten seconds, and the last sample.
            if sample.t_s >= next_t || sample.t_s == last_t {
                writeln!(
                    f,
                    "  t {:>7.1} s  rss {}",
                    sample.t_s,
                    mib(Some(sample.rss_kib))
                )?;
                next_t = sample.t_s + TEXT_EVERY_S - 0.5;
            }
        }
        Ok(())
    }

    fn fmt_server(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let log = &self.server_log;
        if self.server_exit.is_none() && log.lines == 0 {
            // An attached server's log is not ours to read.
            return Ok(());
        }
        writeln!(
            f,
            "\nserver log: {} lines, {} ERROR, {} WARN",
            log.lines, log.error_lines, log.warn_lines
        )?;
        if let Some(exit) = &self.server_exit {
            let code = exit
                .code
                .map_or("a signal".to_owned(), |code| format!("code {code}"));
            let killed = if exit.killed {
                " (killed after the grace period)"
            } else {
                ""
            };
            writeln!(
                f,
                "server exit after SIGTERM: {code} in {:.2} s{killed}",
                exit.after_sigterm_s
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(rss: &[(f64, u64)]) -> Vec<Sample> {
        rss.iter()
            .map(|&(t_s, rss_kib)| Sample { t_s, rss_kib })
            .collect()
    }

    fn facts(load_s: f64, settle_s: f64) -> RunFacts {
        RunFacts {
            scenario: "mix".to_owned(),
            connections: 8,
            load_s,
            after_s: 0.0,
            settle_s,
            error_rate: 0.05,
        }
    }

    #[test]
    fn the_verdict_compares_the_most_after_settling_with_the_settled_figure() {
        fn check(rss: &[(f64, u64)], load_s: f64, expect: Option<bool>) {
            let report = rss_report(samples(rss), (None, None), &facts(load_s, 60.0));
            assert_eq!(report.flat_within_10pct, expect, "{rss:?}");
        }
        let growing = [(0.0, 50), (60.0, 100), (120.0, 105), (180.0, 111)];
        check(&growing, 180.0, Some(false));
        check(&growing[..3], 120.0, Some(true));
        check(&growing[..2], 30.0, None);
        // Warm-up growth before settling does not count; samples after the load do not either.
        check(
            &[(0.0, 10), (60.0, 100), (90.0, 109), (200.0, 500)],
            100.0,
            Some(true),
        );
    }

    #[test]
    fn rss_figures_come_from_the_right_samples() {
        let rss = [
            (-1.0, 40),
            (0.0, 50),
            (30.0, 80),
            (61.0, 90),
            (100.0, 95),
            (130.0, 60),
        ];
        let report = rss_report(samples(&rss), (Some(30), Some(45)), &facts(100.0, 60.0));
        let figures = [
            report.ready_kib,
            report.start_kib,
            report.settled_kib,
            report.max_kib,
            report.max_after_settle_kib,
            report.end_of_load_kib,
            report.end_kib,
        ];
        assert_eq!(
            figures,
            [
                Some(30),
                Some(45),
                Some(90),
                Some(95),
                Some(95),
                Some(95),
                Some(60)
            ]
        );
    }

    #[test]
    fn the_text_report_lists_ops_errors_and_rss_every_ten_seconds() {
        let tally = Tally::default();
        let latency = Some(std::time::Duration::from_millis(3));
        tally.record(Op::Search, latency, super::super::tally::Outcome::Ok);
        tally.record(
            Op::SessionSearch,
            latency,
            super::super::tally::Outcome::Injected,
        );
        let rss: Vec<(f64, u64)> = (0..=25).map(|t| (f64::from(t), 2048)).collect();
        let facts = facts(25.0, 60.0);
        let rss = rss_report(samples(&rss), (None, None), &facts);
        let report = SoakReport::new(&facts, &tally, rss, (ServerLog::default(), None), vec![]);
        let text = report.to_string();
        assert!(text.contains("real errors 0"), "{text}");
        assert!(text.contains("injected 1"), "{text}");
        assert!(text.contains("\nsearch "), "{text}");
        assert!(!text.contains("\nextract "), "{text}");
        let rss_lines = text
            .lines()
            .filter(|line| line.contains("rss 2.0 MiB"))
            .count();
        // t = 0, 10, 20, and the last sample at 25.
        assert_eq!(rss_lines, 4, "{text}");
        assert!(
            text.contains("flat within 10% after settling: n/a"),
            "{text}"
        );
        assert_eq!(report.injected_rate_seen, 1.0);
    }
}
