//! A latency histogram shared by every load task: `hdrhistogram` at three significant digits (a
//! percentile is read within 0.1%) over microseconds, behind a mutex, plus the exact count, sum
//! and maximum; a run of any length holds the same few tens of kilobytes.

use std::sync::Mutex;
use std::time::Duration;

/// Significant decimal digits the histogram keeps.
const SIGNIFICANT_DIGITS: u8 = 3;
/// The largest latency the histogram tells apart, a day in microseconds; longer ones are counted
/// as a day (the exact maximum is kept apart).
const HIGHEST_US: u64 = 86_400_000_000;

/// Recorded latencies in microseconds, their exact sum and maximum.
struct Counts {
    latencies: hdrhistogram::Histogram<u64>,
    sum_us: u64,
    max_us: u64,
}

/// Latencies recorded from many tasks at once.
pub struct Histogram {
    counts: Mutex<Counts>,
}

impl Default for Histogram {
    fn default() -> Histogram {
        let latencies = hdrhistogram::Histogram::new_with_max(HIGHEST_US, SIGNIFICANT_DIGITS)
            .expect("a day at three significant digits is within hdrhistogram's range");
        Histogram {
            counts: Mutex::new(Counts {
                latencies,
                sum_us: 0,
                max_us: 0,
            }),
        }
    }
}

impl Histogram {
    /// A histogram of these latencies.
    pub fn of(latencies: &[Duration]) -> Histogram {
        let histogram = Histogram::default();
        for latency in latencies {
            histogram.record(*latency);
        }
        histogram
    }

    /// Records one latency.
    pub fn record(&self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.with(|counts| {
            counts.latencies.saturating_record(us);
            counts.sum_us = counts.sum_us.saturating_add(us);
            counts.max_us = counts.max_us.max(us);
        });
    }

    /// How many latencies were recorded.
    pub fn count(&self) -> u64 {
        self.with(|counts| counts.latencies.len())
    }

    /// The largest latency recorded, exactly.
    pub fn max(&self) -> Duration {
        Duration::from_micros(self.with(|counts| counts.max_us))
    }

    /// The mean latency, zero when nothing was recorded.
    pub fn mean(&self) -> Duration {
        let (sum, count) = self.with(|counts| (counts.sum_us, counts.latencies.len()));
        Duration::from_micros(sum.checked_div(count).unwrap_or(0))
    }

    /// The latency below which a fraction `p` (0..=1) of the recorded ones fall, never above the
    /// maximum; zero when nothing was recorded.
    pub fn percentile(&self, p: f64) -> Duration {
        let (value, max) = self.with(|counts| {
            let value = match counts.latencies.is_empty() {
                true => 0,
                false => counts.latencies.value_at_quantile(p),
            };
            (value, counts.max_us)
        });
        Duration::from_micros(value.min(max))
    }

    fn with<T>(&self, read: impl FnOnce(&mut Counts) -> T) -> T {
        // A task that panicked while recording leaves whole counts behind.
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        read(&mut counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_read_within_a_thousandth() {
        fn check(latencies_ms: &[u64], p: f64, expect_ms: f64) {
            let latencies: Vec<Duration> = latencies_ms
                .iter()
                .map(|ms| Duration::from_millis(*ms))
                .collect();
            let got = Histogram::of(&latencies).percentile(p).as_secs_f64() * 1000.0;
            assert!(
                (got - expect_ms).abs() <= expect_ms * 0.001,
                "p{p} of {latencies_ms:?}: {got} ms, expected {expect_ms}"
            );
        }
        let one_to_hundred: Vec<u64> = (1..=100).collect();
        check(&one_to_hundred, 0.5, 50.0);
        check(&one_to_hundred, 0.9, 90.0);
        check(&one_to_hundred, 0.99, 99.0);
        check(&one_to_hundred, 1.0, 100.0);
        check(&[7], 0.5, 7.0);
        check(&[1, 1, 1, 1000], 0.75, 1.0);
        check(&[1, 1, 1, 1000], 1.0, 1000.0);
    }

    #[test]
    fn an_empty_histogram_reads_zero_and_max_is_exact() {
        let histogram = Histogram::default();
        assert_eq!(histogram.percentile(0.99), Duration::ZERO);
        assert_eq!(histogram.mean(), Duration::ZERO);
        histogram.record(Duration::from_micros(123_457));
        histogram.record(Duration::from_micros(3));
        assert_eq!(histogram.max(), Duration::from_micros(123_457));
        assert_eq!(histogram.percentile(1.0), Duration::from_micros(123_457));
        assert_eq!(histogram.count(), 2);
        assert_eq!(histogram.mean(), Duration::from_micros(61_730));
    }

    #[test]
    fn a_latency_past_a_day_is_still_counted() {
        let histogram = Histogram::default();
        histogram.record(Duration::from_secs(1 << 40));
        assert_eq!(histogram.count(), 1);
        assert_eq!(histogram.max(), Duration::from_secs(1 << 40));
        let day = Duration::from_micros(HIGHEST_US).as_secs_f64();
        let p50 = histogram.percentile(0.5).as_secs_f64();
        assert!((p50 - day).abs() <= day * 0.001, "{p50}");
    }
}
