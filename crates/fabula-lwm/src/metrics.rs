//! Render counters (attempts, acceptances, fallbacks by reason, tokens and time) and their
//! Prometheus text exposition.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::verify::FallbackReason;

/// Counters of one renderer, safe to read from another thread while it renders.
#[derive(Debug, Default)]
pub struct Counters {
    attempted: AtomicU64,
    accepted: AtomicU64,
    fallbacks: [AtomicU64; FallbackReason::ALL.len()],
    cache_hits: AtomicU64,
    tokens_generated: AtomicU64,
    generation_micros: AtomicU64,
}

/// A consistent-enough copy of the counters, for reports and tests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CountersSnapshot {
    /// Observations the world model was asked for (cache hits included).
    pub attempted: u64,
    /// Of those, observations that passed verification.
    pub accepted: u64,
    /// Rejected observations by reason, in [`FallbackReason::ALL`] order.
    pub fallbacks: Vec<(FallbackReason, u64)>,
    /// Attempts answered from the render cache without generating.
    pub cache_hits: u64,
    pub tokens_generated: u64,
    pub generation_seconds: f64,
}

impl CountersSnapshot {
    /// Generated tokens per second of generation time; 0 before any generation.
    pub fn tokens_per_second(&self) -> f64 {
        if self.generation_seconds > 0.0 {
            self.tokens_generated as f64 / self.generation_seconds
        } else {
            0.0
        }
    }

    /// The share of attempts that passed verification; 0 before any attempt.
    pub fn fidelity(&self) -> f64 {
        if self.attempted > 0 {
            self.accepted as f64 / self.attempted as f64
        } else {
            0.0
        }
    }

    /// The number of fallbacks for one reason.
    pub fn fallbacks_for(&self, reason: FallbackReason) -> u64 {
        self.fallbacks
            .iter()
            .find(|(r, _)| *r == reason)
            .map_or(0, |(_, n)| *n)
    }
}

impl Counters {
    pub(crate) fn record_attempt(&self) {
        self.attempted.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_outcome(&self, fallback: Option<FallbackReason>) {
        match fallback {
            None => self.accepted.fetch_add(1, Ordering::Relaxed),
            Some(reason) => {
                let idx = FallbackReason::ALL
                    .iter()
                    .position(|r| *r == reason)
                    .expect("every reason is listed in ALL");
                self.fallbacks[idx].fetch_add(1, Ordering::Relaxed)
            }
        };
    }

    pub(crate) fn record_cache_hit(&self) {
        self.cache_hits.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_generation(&self, tokens: usize, seconds: f64) {
        self.tokens_generated
            .fetch_add(tokens as u64, Ordering::Relaxed);
        self.generation_micros
            .fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }

    /// Copies the current values.
    pub fn snapshot(&self) -> CountersSnapshot {
        CountersSnapshot {
            attempted: self.attempted.load(Ordering::Relaxed),
            accepted: self.accepted.load(Ordering::Relaxed),
            fallbacks: FallbackReason::ALL
                .iter()
                .zip(&self.fallbacks)
                .map(|(reason, n)| (*reason, n.load(Ordering::Relaxed)))
                .collect(),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
            tokens_generated: self.tokens_generated.load(Ordering::Relaxed),
            generation_seconds: self.generation_micros.load(Ordering::Relaxed) as f64 / 1e6,
        }
    }
}

/// Writes the counters in the Prometheus text exposition format (version 0.0.4), with every
/// metric name prefixed `fabula_lwm_`.
pub fn prometheus_text(snapshot: &CountersSnapshot) -> String {
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, String)]| {
        let _ = writeln!(out, "# HELP fabula_lwm_{name} {help}");
        let _ = writeln!(out, "# TYPE fabula_lwm_{name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(out, "fabula_lwm_{name}{labels} {value}");
        }
    };
    let plain = |value: String| vec![(String::new(), value)];
    metric(
        "renders_attempted_total",
        "counter",
        "Observations the world model was asked to render.",
        &plain(snapshot.attempted.to_string()),
    );
    metric(
        "renders_accepted_total",
        "counter",
        "Rendered observations that passed verification.",
        &plain(snapshot.accepted.to_string()),
    );
    let fallbacks: Vec<(String, String)> = snapshot
        .fallbacks
        .iter()
        .map(|(reason, n)| (format!("{{reason=\"{}\"}}", reason.as_str()), n.to_string()))
        .collect();
    metric(
        "fallbacks_total",
        "counter",
        "Rendered observations rejected in favour of the template text, by reason.",
        &fallbacks,
    );
    metric(
        "cache_hits_total",
        "counter",
        "Renders answered from the render cache.",
        &plain(snapshot.cache_hits.to_string()),
    );
    metric(
        "tokens_generated_total",
        "counter",
        "Tokens generated by the world model.",
        &plain(snapshot.tokens_generated.to_string()),
    );
    metric(
        "generation_seconds_total",
        "counter",
        "Wall-clock seconds spent generating.",
        &plain(format!("{:.6}", snapshot.generation_seconds)),
    );
    metric(
        "tokens_per_second",
        "gauge",
        "Generated tokens per second of generation time.",
        &plain(format!("{:.3}", snapshot.tokens_per_second())),
    );
    metric(
        "fidelity_ratio",
        "gauge",
        "Share of attempted renders that passed verification.",
        &plain(format!("{:.6}", snapshot.fidelity())),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_lists_every_reason() {
        let counters = Counters::default();
        counters.record_attempt();
        counters.record_outcome(Some(FallbackReason::Unparsable));
        counters.record_attempt();
        counters.record_outcome(None);
        counters.record_generation(50, 0.5);
        let text = prometheus_text(&counters.snapshot());
        assert!(
            text.contains("fabula_lwm_renders_attempted_total 2\n"),
            "{text}"
        );
        assert!(text.contains("fabula_lwm_fallbacks_total{reason=\"unparsable\"} 1\n"));
        assert!(text.contains("fabula_lwm_fallbacks_total{reason=\"unknown_url\"} 0\n"));
        assert!(text.contains("fabula_lwm_tokens_per_second 100.000\n"));
        assert!(text.contains("fabula_lwm_fidelity_ratio 0.500000\n"));
        assert!(text.contains("# TYPE fabula_lwm_fallbacks_total counter\n"));
    }
}
