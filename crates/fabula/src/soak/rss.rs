//! The server's resident memory over time, read from `/proc/PID/status` (`VmRSS`) once a second.
//! The series is bounded: when it reaches [`MAX_SAMPLES`], every other sample is dropped and the
//! interval doubles, so a run of days keeps the same few kilobytes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;

/// The most samples kept (over a day at one a second).
pub const MAX_SAMPLES: usize = 100_000;

/// One reading: seconds since the load started (negative during the warm-up) and resident
/// memory in kibibytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    pub t_s: f64,
    pub rss_kib: u64,
}

/// The resident memory of a process in kibibytes, or `None` when it has gone or the system has
/// no `/proc`.
pub fn read_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_rss(&status)
}

/// The `VmRSS:` line of a `/proc/PID/status` text, in kibibytes.
fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") | None => Some(value),
        Some("mB") => Some(value * 1024),
        _ => None,
    }
}

/// A bounded series of samples that thins itself out.
#[derive(Debug, Default)]
pub struct Series {
    samples: Vec<Sample>,
    /// Samples are kept every `stride` readings.
    stride: u64,
    readings: u64,
}

impl Series {
    /// Adds a reading, keeping one in `stride`.
    pub fn push(&mut self, sample: Sample, max_samples: usize) {
        let stride = self.stride.max(1);
        self.readings += 1;
        if !(self.readings - 1).is_multiple_of(stride) {
            return;
        }
        self.samples.push(sample);
        if self.samples.len() >= max_samples.max(2) {
            let mut idx = 0;
            self.samples.retain(|_| {
                idx += 1;
                idx % 2 == 1
            });
            self.stride = stride * 2;
        }
    }

    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }
}

/// Samples a process every second until told to stop.
pub struct Sampler {
    series: Arc<Mutex<Series>>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Sampler {
    /// Starts sampling `pid`; times are measured from `origin`.
    pub fn start(pid: u32, origin: Instant) -> Sampler {
        let series = Arc::new(Mutex::new(Series::default()));
        let (stop, mut stopped) = watch::channel(false);
        let shared = series.clone();
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stopped.changed() => break,
                }
                let Some(rss_kib) = read_rss_kib(pid) else {
                    continue;
                };
                let t_s = signed_secs(origin);
                if let Ok(mut series) = shared.lock() {
                    series.push(Sample { t_s, rss_kib }, MAX_SAMPLES);
                }
            }
        });
        Sampler { series, stop, task }
    }

    /// Stops sampling and returns the series.
    pub async fn finish(self) -> Vec<Sample> {
        let _ = self.stop.send(true);
        let _ = self.task.await;
        self.series
            .lock()
            .map(|series| series.samples().to_vec())
            .unwrap_or_default()
    }
}

/// Seconds from `origin` to now, negative when `origin` is still ahead.
fn signed_secs(origin: Instant) -> f64 {
    let now = Instant::now();
    if now >= origin {
        (now - origin).as_secs_f64()
    } else {
        -(origin - now).as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_kibibytes() {
        fn check(status: &str, expect: Option<u64>) {
            assert_eq!(parse_vm_rss(status), expect, "{status}");
        }
        check(
            "Name:\tfabula\nVmRSS:\t   10520 kB\nThreads: 3\n",
            Some(10_520),
        );
        check("VmRSS:\t7 mB\n", Some(7 * 1024));
        check("Name:\tkthreadd\n", None);
        check("VmRSS:\tlots kB\n", None);
    }

    #[test]
    fn our_own_rss_is_readable() {
        let rss = read_rss_kib(std::process::id()).expect("Linux has /proc");
        assert!(rss > 100, "{rss}");
    }

    #[test]
    fn a_full_series_halves_and_doubles_its_stride() {
        let mut series = Series::default();
        for i in 0..20 {
            series.push(
                Sample {
                    t_s: i as f64,
                    rss_kib: i,
                },
                8,
            );
        }
        let times: Vec<u64> = series.samples().iter().map(|s| s.rss_kib).collect();
        assert!(series.samples().len() < 8, "{times:?}");
        // Kept samples stay in order and evenly spaced once thinned.
        assert_eq!(times, [0, 4, 8, 12, 16]);
    }
}
