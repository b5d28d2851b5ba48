//! A fixed-size latency histogram shared by every load task: log-linear buckets of microseconds
//! (32 per power of two, so a percentile is read within about 3%), updated with atomics, so a run
//! of any length holds the same few kilobytes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Enough buckets for every `u64` microsecond count.
const N_BUCKETS: usize = (SUB + (64 - SUB_BITS as u64) * SUB) as usize;

/// Counts of latencies by bucket, plus their exact count, sum and maximum.
pub struct Histogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    sum_us: AtomicU64,
    max_us: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            buckets: (0..N_BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_us: AtomicU64::new(0),
            max_us: AtomicU64::new(0),
        }
    }
}

/// The bucket of a value: exact below `SUB`, then `SUB` buckets per power of two.
fn bucket_of(value: u64) -> usize {
    if value < SUB {
        return value as usize;
    }
    let shift = 63 - value.leading_zeros() - SUB_BITS;
    let mantissa = value >> shift;
    (SUB + u64::from(shift) * SUB + (mantissa - SUB)) as usize
}

/// The smallest and largest value of a bucket.
fn bucket_range(bucket: usize) -> (u64, u64) {
    let bucket = bucket as u64;
    if bucket < SUB {
        return (bucket, bucket);
    }
    let shift = (bucket - SUB) / SUB;
    let mantissa = (bucket - SUB) % SUB + SUB;
    let low = mantissa << shift;
    (low, low + ((1u64 << shift) - 1))
}

impl Histogram {
    /// Records one latency.
    pub fn record(&self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.buckets[bucket_of(us)].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
        self.max_us.fetch_max(us, Ordering::Relaxed);
    }

    /// How many latencies were recorded.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The largest latency recorded, exactly.
    pub fn max(&self) -> Duration {
        Duration::from_micros(self.max_us.load(Ordering::Relaxed))
    }

    /// The mean latency, zero when nothing was recorded.
    pub fn mean(&self) -> Duration {
        let count = self.count();
        if count == 0 {
            return Duration::ZERO;
        }
        Duration::from_micros(self.sum_us.load(Ordering::Relaxed) / count)
    }

    /// The latency below which a fraction `p` (0..=1) of the recorded ones fall: the middle of
    /// its bucket, never above the maximum.
    pub fn percentile(&self, p: f64) -> Duration {
        let count = self.count();
        if count == 0 {
            return Duration::ZERO;
        }
        let rank = ((count as f64 * p).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        for (bucket, n) in self.buckets.iter().enumerate() {
            seen += n.load(Ordering::Relaxed);
            if seen >= rank {
                let (low, high) = bucket_range(bucket);
                let middle = low + (high - low) / 2;
                return Duration::from_micros(middle).min(self.max());
            }
        }
        self.max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        for value in [
            0,
            1,
            31,
            32,
            33,
            63,
            64,
            65,
            1000,
            123_456,
            u64::MAX / 3,
            u64::MAX,
        ] {
            let bucket = bucket_of(value);
            assert!(bucket < N_BUCKETS, "{value}");
            let (low, high) = bucket_range(bucket);
            assert!(low <= value && value <= high, "{value} in {low}..={high}");
            assert!((high - low) as f64 <= value as f64 / SUB as f64, "{value}");
        }
        assert_eq!(bucket_of(u64::MAX), N_BUCKETS - 1);
    }

    #[test]
    fn percentiles_are_read_within_the_bucket_error() {
        fn check(latencies_ms: &[u64], p: f64, expect_ms: f64) {
            let histogram = Histogram::default();
            for &ms in latencies_ms {
                histogram.record(Duration::from_millis(ms));
            }
            let got = histogram.percentile(p).as_secs_f64() * 1000.0;
            assert!(
                (got - expect_ms).abs() <= expect_ms * 0.03,
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
        assert_eq!(histogram.count(), 2);
        assert_eq!(histogram.mean(), Duration::from_micros(61_730));
    }
}
