//! Render counters (attempts, acceptances, fallbacks by reason, tokens and time, a histogram of
//! each model call's latency, failed ones included) and their
//! Prometheus text exposition, through `prometheus-client`: [`Counters`] is a collector a
//! server registers in its own registry (under the prefix `fabula_lwm`), and
//! [`prometheus_text`] writes one snapshot alone.

use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

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
    /// Model calls by latency: the count at or under each of [`RENDER_SECONDS_BOUNDS`] (and
    /// above the one before), the last slot for the rest.
    render_buckets: [AtomicU64; RENDER_SECONDS_BOUNDS.len() + 1],
    render_micros: AtomicU64,
}

/// The upper bounds, in seconds, of the render latency histogram's buckets (`+Inf` after).
pub const RENDER_SECONDS_BOUNDS: [f64; 9] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

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
    /// Model calls (accepted, rejected or failed) by latency: one count per bucket of
    /// [`RENDER_SECONDS_BOUNDS`] and a last one above them, not cumulative.
    pub render_buckets: Vec<u64>,
    /// The seconds of every model call together.
    pub render_seconds: f64,
}

impl CountersSnapshot {
    /// Model calls timed (the histogram's count).
    pub fn renders_timed(&self) -> u64 {
        self.render_buckets.iter().sum()
    }

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

    /// One model call's latency, whatever came of it.
    pub(crate) fn record_render_time(&self, seconds: f64) {
        let bucket = RENDER_SECONDS_BOUNDS
            .iter()
            .position(|&bound| seconds <= bound)
            .unwrap_or(RENDER_SECONDS_BOUNDS.len());
        self.render_buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.render_micros
            .fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
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
            render_buckets: self
                .render_buckets
                .iter()
                .map(|n| n.load(Ordering::Relaxed))
                .collect(),
            render_seconds: self.render_micros.load(Ordering::Relaxed) as f64 / 1e6,
        }
    }
}

/// The prefix of every metric name of the world model.
pub const METRIC_PREFIX: &str = "fabula_lwm";

/// Writes the counters in the Prometheus text exposition format (version 0.0.4), with every
/// metric name prefixed `fabula_lwm_`.
pub fn prometheus_text(snapshot: &CountersSnapshot) -> String {
    let mut registry = Registry::with_prefix(METRIC_PREFIX);
    registry.register_collector(Box::new(snapshot.clone()));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
    out
}

/// The counters as read at each scrape (the gauges are derived from them).
impl Collector for Counters {
    fn encode(&self, encoder: DescriptorEncoder) -> std::fmt::Result {
        self.snapshot().encode(encoder)
    }
}

/// One snapshot's values; the names get the registry's prefix (`fabula_lwm`) and counters the
/// suffix `_total`.
impl Collector for CountersSnapshot {
    fn encode(&self, mut encoder: DescriptorEncoder) -> std::fmt::Result {
        let attempted = "Observations the world model was asked to render.";
        counter(&mut encoder, "renders_attempted", attempted, self.attempted)?;
        let accepted = "Rendered observations that passed verification.";
        counter(&mut encoder, "renders_accepted", accepted, self.accepted)?;
        let help = "Rendered observations rejected in favour of the template text, by reason.";
        let mut family = encoder.encode_descriptor("fallbacks", help, None, MetricType::Counter)?;
        for (reason, n) in &self.fallbacks {
            let labels = [("reason", reason.as_str())];
            ConstCounter::new(*n).encode(family.encode_family(&labels)?)?;
        }
        let hits = "Renders answered from the render cache.";
        counter(&mut encoder, "cache_hits", hits, self.cache_hits)?;
        let tokens = "Tokens generated by the world model.";
        counter(
            &mut encoder,
            "tokens_generated",
            tokens,
            self.tokens_generated,
        )?;
        let help = "Wall-clock seconds spent generating.";
        ConstCounter::new(self.generation_seconds).encode(encoder.encode_descriptor(
            "generation_seconds",
            help,
            None,
            MetricType::Counter,
        )?)?;
        let help =
            "Seconds of each call of the model (a local one or an engine), whatever came of it.";
        let buckets: Vec<(f64, u64)> = RENDER_SECONDS_BOUNDS
            .iter()
            .copied()
            .chain([f64::INFINITY])
            .zip(
                self.render_buckets
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(0)),
            )
            .collect();
        encoder
            .encode_descriptor("render_seconds", help, None, MetricType::Histogram)?
            .encode_histogram::<NoLabelSet>(
                self.render_seconds,
                self.renders_timed(),
                &buckets,
                None,
            )?;
        let gauges = [
            (
                "tokens_per_second",
                "Generated tokens per second of generation time.",
                self.tokens_per_second(),
            ),
            (
                "fidelity_ratio",
                "Share of attempted renders that passed verification.",
                self.fidelity(),
            ),
        ];
        for (name, help, value) in gauges {
            ConstGauge::new(value).encode(encoder.encode_descriptor(
                name,
                help,
                None,
                MetricType::Gauge,
            )?)?;
        }
        Ok(())
    }
}

/// One counter without labels: its `# HELP`, `# TYPE` and value lines.
fn counter(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: u64,
) -> std::fmt::Result {
    let metric = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
    ConstCounter::new(value).encode(metric)
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
        assert!(
            text.contains("fabula_lwm_tokens_per_second 100.0\n"),
            "{text}"
        );
        assert!(text.contains("fabula_lwm_fidelity_ratio 0.5\n"), "{text}");
        assert!(
            text.contains("fabula_lwm_generation_seconds_total 0.5\n"),
            "{text}"
        );
        assert!(text.contains("# TYPE fabula_lwm_fallbacks_total counter\n"));
        assert!(text.contains("# TYPE fabula_lwm_fidelity_ratio gauge\n"));
        assert!(text.contains(
            "# HELP fabula_lwm_cache_hits_total Renders answered from the render cache.\n"
        ));
    }
}
