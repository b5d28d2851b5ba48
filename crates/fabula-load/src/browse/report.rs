//! The report of `fabula bench browse`: one line per view (requests, median, p95, p99 and max
//! latency, and whether the p99 is under the 50 ms the world browser must meet), the first admin
//! dataset request apart, and the requests that failed, as plain text or JSON.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::plan::{Listener, View};
use crate::histogram::Histogram;

/// The latency every page of the browser must stay under, at the p99.
pub const TARGET_MS: f64 = 50.0;
/// The most failed requests listed one by one; the rest are only counted.
const LISTED_FAILURES: usize = 20;

/// What one view measured.
#[derive(Debug, Clone, Serialize)]
pub struct ViewReport {
    pub view: View,
    pub label: &'static str,
    pub listener: Listener,
    /// The first request's path, as an example.
    pub example: String,
    pub requests: usize,
    /// Answers other than 200 with `text/html`, and requests lost to a connection error.
    pub failures: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Whether the p99 is under `TARGET_MS`.
    pub under_50_ms: bool,
}

impl ViewReport {
    /// Figures of `requests` requests from the latencies of those answered (failed answers
    /// included), with `failures` of them failed.
    pub fn new(
        view: View,
        example: String,
        requests: usize,
        latencies: Vec<Duration>,
        failures: usize,
    ) -> ViewReport {
        let histogram = Histogram::of(&latencies);
        let ms = |q: f64| histogram.percentile(q).as_secs_f64() * 1000.0;
        let p99_ms = ms(0.99);
        ViewReport {
            view,
            label: view.label(),
            listener: view.listener(),
            example,
            requests,
            failures,
            median_ms: ms(0.50),
            p95_ms: ms(0.95),
            p99_ms,
            max_ms: histogram.max().as_secs_f64() * 1000.0,
            under_50_ms: p99_ms < TARGET_MS,
        }
    }
}

/// One request that did not answer 200 with HTML.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub view: View,
    pub path: String,
    /// The status, or `None` when the connection failed.
    pub status: Option<u16>,
    /// The answer's content type, or the connection error.
    pub detail: String,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct BrowseReport {
    pub worlds: usize,
    pub seed: u64,
    pub requests_per_view: usize,
    /// Sessions opened before the measurement, and the calls they made.
    pub sessions: usize,
    pub session_calls: usize,
    /// The admin listener's first `GET /`: it waits for the dataset's tier summary, which the
    /// listener starts computing in the background when it opens.
    pub first_admin_dataset: ViewReport,
    pub views: Vec<ViewReport>,
    /// Failed requests over every view, the first one included.
    pub failed_requests: usize,
    /// The first failures, in order (at most 20).
    pub failures: Vec<Failure>,
}

/// The failures the report lists: the first [`LISTED_FAILURES`], in order.
pub fn first_failures(mut failures: Vec<Failure>) -> Vec<Failure> {
    failures.truncate(LISTED_FAILURES);
    failures
}

const HEADER: [&str; 7] = [
    "view",
    "requests",
    "median ms",
    "p95 ms",
    "p99 ms",
    "max ms",
    "under 50 ms",
];

fn write_row(f: &mut fmt::Formatter<'_>, label: &str, view: &ViewReport) -> fmt::Result {
    let under = if view.under_50_ms { "yes" } else { "no" };
    write!(
        f,
        "{label:<44} {:>8} {:>9.2} {:>8.2} {:>8.2} {:>8.2} {under:>11}",
        view.requests, view.median_ms, view.p95_ms, view.p99_ms, view.max_ms
    )?;
    if view.failures > 0 {
        write!(f, "  ({} failed)", view.failures)?;
    }
    writeln!(f)
}

impl fmt::Display for BrowseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fabula bench browse: {} worlds, {} requests per view, one at a time over a keep-alive connection, seed {}",
            self.worlds, self.requests_per_view, self.seed
        )?;
        writeln!(
            f,
            "{} sessions with {} calls opened first; \"under 50 ms\" is for the p99",
            self.sessions, self.session_calls
        )?;
        let [view, requests, median, p95, p99, max, under] = HEADER;
        writeln!(
            f,
            "{view:<44} {requests:>8} {median:>9} {p95:>8} {p99:>8} {max:>8} {under:>11}"
        )?;
        write_row(
            f,
            "admin dataset, first request (tier summary)",
            &self.first_admin_dataset,
        )?;
        for view in &self.views {
            write_row(f, view.label, view)?;
        }
        if self.failed_requests == 0 {
            return writeln!(f, "every answer was 200 with text/html");
        }
        writeln!(f, "{} requests failed:", self.failed_requests)?;
        for failure in &self.failures {
            let status = failure
                .status
                .map_or_else(|| "no answer".to_owned(), |status| status.to_string());
            writeln!(f, "  {status} {} ({})", failure.path, failure.detail)?;
        }
        if self.failed_requests > self.failures.len() {
            writeln!(
                f,
                "  ... and {} more",
                self.failed_requests - self.failures.len()
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_figure_is_its_percentile_within_a_thousandth() {
        fn check(latencies_ms: &[u64], expect_ms: [f64; 4]) {
            let latencies = latencies_ms.iter().map(|&ms| Duration::from_millis(ms));
            let report = ViewReport::new(View::World, String::new(), 0, latencies.collect(), 0);
            let got = [
                report.median_ms,
                report.p95_ms,
                report.p99_ms,
                report.max_ms,
            ];
            for (got, expect) in got.iter().zip(expect_ms) {
                assert!(
                    (got - expect).abs() <= expect * 0.001,
                    "{latencies_ms:?}: {got:?}, expected {expect_ms:?}"
                );
            }
        }
        check(&[], [0.0; 4]);
        check(&[7], [7.0; 4]);
        check(&[1, 2, 3, 4], [2.0, 4.0, 4.0, 4.0]);
        let hundred: Vec<u64> = (1..=100).collect();
        check(&hundred, [50.0, 95.0, 99.0, 100.0]);
    }

    #[test]
    fn the_target_applies_to_the_p99() {
        let fast: Vec<Duration> = (0..100).map(|_| Duration::from_millis(3)).collect();
        let mut slow = fast.clone();
        slow[0] = Duration::from_millis(80);
        let report = ViewReport::new(View::World, "/ui/worlds/0".into(), 100, slow, 0);
        assert!(
            report.under_50_ms,
            "one slow request in 100 is the max, not the p99"
        );
        assert_eq!(report.max_ms, 80.0);
        let mut slower = fast;
        slower[0] = Duration::from_millis(80);
        slower[1] = Duration::from_millis(80);
        let report = ViewReport::new(View::World, "/ui/worlds/0".into(), 100, slower, 0);
        assert!(!report.under_50_ms, "{report:?}");
    }
}
