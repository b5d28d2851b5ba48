//! The server's resident memory over time, read through `sysinfo` (on Linux from `/proc`) once a
//! second.
//! The series is bounded: when it reaches [`MAX_SAMPLES`], every other sample is dropped and the
//! interval doubles, so a run of days keeps the same few kilobytes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};
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

/// The resident memory of a process in kibibytes, or `None` when it has gone (or is a zombie,
/// which holds none).
pub fn read_rss_kib(pid: u32) -> Option<u64> {
    let bytes = with_process(
        pid,
        ProcessRefreshKind::nothing().with_memory(),
        |process| process.memory(),
    )?;
    (bytes > 0).then_some(bytes / 1024)
}

/// Whether a process with this id is running.
pub fn process_exists(pid: u32) -> bool {
    with_process(pid, ProcessRefreshKind::nothing(), |_| ()).is_some()
}

/// Reads one process's figures through `sysinfo`, refreshing only what `kind` names.
fn with_process<T>(
    pid: u32,
    kind: ProcessRefreshKind,
    read: impl FnOnce(&sysinfo::Process) -> T,
) -> Option<T> {
    let pid = Pid::from_u32(pid);
    let mut system = System::new();
    system.refresh_processes_specifics(ProcessesToUpdate::Some(&[pid]), true, kind);
    system.process(pid).map(read)
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
    fn our_own_rss_is_readable() {
        let rss = read_rss_kib(std::process::id()).expect("this process has a resident set");
        assert!(rss > 100, "{rss}");
        assert!(process_exists(std::process::id()));
    }

    #[test]
    fn a_process_that_has_gone_has_no_rss() {
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let pid = child.id();
        child.wait().expect("true exits");
        assert_eq!(read_rss_kib(pid), None);
        assert!(!process_exists(pid));
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
