//! Session controls: the faults and frictions a session injects (errors, pagination, dropped
//! results, truncated extracts, batch failures, latency, hiding), the `noise_level` mix of them, and
//! the seeded per-call randomness that decides each call's outcome.
//!
//! Reproducibility: every random decision of a call comes from a ChaCha8 generator keyed by
//! (session seed, call index), one stream per kind of decision. So the same seed, controls and
//! sequence of calls give the same outcomes, whatever the threads, the clock or the other
//! sessions, and turning one control on does not change the draws of another.
//!
//! `noise_level` n (0..=1) sets, for every control the request leaves out:
//!
//! | control              | value at noise n                        | at n = 1       |
//! |----------------------|-----------------------------------------|----------------|
//! | `error_rate`         | 0.2 n                                   | 0.2            |
//! | `error_kinds`        | `rate_limit`, `server_error`            | same           |
//! | `drop_rate`          | 0.3 n                                   | 0.3            |
//! | `batch_failure_rate` | 0.25 n                                  | 0.25           |
//! | `page_size`          | none at 0, else round(10 - 7 n)         | 3              |
//! | `truncate_extract`   | none at 0, else round(8000 - 6000 n)    | 2,000          |
//! | `latency_ms`         | [0, round(100 n)]                       | [0, 100]       |
//! | `timeout_ms`         | 3,000 (the default, not scaled)         | 3,000          |
//! | `hiding`             | unchanged (the request's, else partial) | unchanged      |

use std::time::Duration;

use fabula_search::{Hiding, Hit};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::api_error::ApiError;
use crate::wire::{HidingName, MAX_TOP_K};

/// How long an injected timeout waits before answering 504, when `timeout_ms` is not given.
pub const DEFAULT_TIMEOUT_MS: u64 = 3_000;
/// The longest injected timeout or latency, in milliseconds.
pub const MAX_DELAY_MS: u64 = 120_000;
/// The `Retry-After` seconds sent with an injected rate limit.
pub const RETRY_AFTER_S: u64 = 1;

/// A kind of injected error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 429 `rate_limited` with `Retry-After`.
    RateLimit,
    /// 500 `injected_server_error`.
    ServerError,
    /// 504 `timeout`, sent after `timeout_ms`.
    Timeout,
}

/// The `controls` object of `POST /v1/sessions`; every field is optional and unknown fields are
/// rejected, so a misspelt control is an error rather than silently ignored.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Controls)]
pub struct ControlsRequest {
    /// 0..=1; sets every control left out to its level in the mix (see the module docs).
    #[schema(minimum = 0, maximum = 1)]
    pub noise_level: Option<f64>,
    /// The chance, 0..=1, that a call fails as a whole with one of `error_kinds`.
    #[schema(minimum = 0, maximum = 1)]
    pub error_rate: Option<f64>,
    /// The kinds an injected error is drawn from, uniformly; default `rate_limit` and `server_error`.
    #[schema(min_items = 1)]
    pub error_kinds: Option<Vec<ErrorKind>>,
    /// How long an injected timeout waits, in milliseconds, at most 120,000.
    #[schema(maximum = 120000)]
    pub timeout_ms: Option<u64>,
    /// The most results per page, 1..=50, whatever `top_k` asks.
    #[schema(minimum = 1, maximum = 50)]
    pub page_size: Option<usize>,
    /// The chance, 0..=1, that each result is silently left out.
    #[schema(minimum = 0, maximum = 1)]
    pub drop_rate: Option<f64>,
    /// The most characters an extract returns; a longer window is cut and ends the page
    /// (`next_start` null).
    #[schema(minimum = 1, maximum = 18446744073709551615_u64)]
    pub truncate_extract: Option<usize>,
    /// The chance, 0..=1, that each query of a `queries` batch fails on its own.
    #[schema(minimum = 0, maximum = 1)]
    pub batch_failure_rate: Option<f64>,
    /// `[min, max]` milliseconds added to every call, drawn uniformly; the two bounds may come
    /// in either order, and neither may be over 120,000.
    #[schema(value_type = Option<Vec<DelayMs>>, min_items = 2, max_items = 2)]
    pub latency_ms: Option<[u64; 2]>,
    /// The hiding level every search of the session uses, whatever the request says.
    #[schema(value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// The controls of a session after defaults and the noise mix are applied.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(as = ResolvedControls)]
pub struct Controls {
    #[schema(minimum = 0, maximum = 1)]
    pub noise_level: f64,
    #[schema(minimum = 0, maximum = 1)]
    pub error_rate: f64,
    #[schema(min_items = 1)]
    pub error_kinds: Vec<ErrorKind>,
    #[schema(maximum = 120000)]
    pub timeout_ms: u64,
    /// `null` when pages are as long as `top_k` asks.
    #[schema(required = true, minimum = 1, maximum = 50)]
    pub page_size: Option<usize>,
    #[schema(minimum = 0, maximum = 1)]
    pub drop_rate: f64,
    /// `null` when extracts are not cut.
    #[schema(required = true, minimum = 1)]
    pub truncate_extract: Option<usize>,
    #[schema(minimum = 0, maximum = 1)]
    pub batch_failure_rate: f64,
    /// `[min, max]`, min <= max.
    #[schema(value_type = Vec<DelayMs>, min_items = 2, max_items = 2)]
    pub latency_ms: [u64; 2],
    /// `null` when each search's own `hiding` applies.
    #[schema(required = true, value_type = Option<HidingName>)]
    pub hiding: Option<Hiding>,
}

/// The schema of one bound of `latency_ms`: milliseconds, at most [`MAX_DELAY_MS`].
pub struct DelayMs;

impl utoipa::PartialSchema for DelayMs {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(MAX_DELAY_MS as usize))
            .into()
    }
}

impl ToSchema for DelayMs {}

/// The controls that `noise_level` alone sets (see the module docs for the table).
pub fn noise_controls(noise_level: f64) -> Controls {
    let n = noise_level.clamp(0.0, 1.0);
    let scaled = |from: f64, to: f64| (from + (to - from) * n).round() as usize;
    Controls {
        noise_level: n,
        error_rate: 0.2 * n,
        error_kinds: vec![ErrorKind::RateLimit, ErrorKind::ServerError],
        timeout_ms: DEFAULT_TIMEOUT_MS,
        page_size: (n > 0.0).then(|| scaled(10.0, 3.0)),
        drop_rate: 0.3 * n,
        truncate_extract: (n > 0.0).then(|| scaled(8000.0, 2000.0)),
        batch_failure_rate: 0.25 * n,
        latency_ms: [0, (100.0 * n).round() as u64],
        hiding: None,
    }
}

impl ControlsRequest {
    /// Checks the ranges and fills what is left out from the noise mix.
    pub fn resolve(self) -> Result<Controls, ApiError> {
        let noise_level = check_unit(self.noise_level, "noise_level")?.unwrap_or(0.0);
        let mut controls = noise_controls(noise_level);
        if let Some(rate) = check_unit(self.error_rate, "error_rate")? {
            controls.error_rate = rate;
        }
        if let Some(kinds) = self.error_kinds {
            if kinds.is_empty() {
                return Err(ApiError::bad_request(
                    "controls.error_kinds must not be empty",
                ));
            }
            controls.error_kinds = kinds;
        }
        if let Some(timeout_ms) = self.timeout_ms {
            if timeout_ms > MAX_DELAY_MS {
                return Err(ApiError::bad_request(format!(
                    "controls.timeout_ms must be at most {MAX_DELAY_MS}"
                )));
            }
            controls.timeout_ms = timeout_ms;
        }
        if let Some(page_size) = self.page_size {
            if page_size == 0 || page_size > MAX_TOP_K {
                return Err(ApiError::bad_request(format!(
                    "controls.page_size must be between 1 and {MAX_TOP_K}"
                )));
            }
            controls.page_size = Some(page_size);
        }
        if let Some(rate) = check_unit(self.drop_rate, "drop_rate")? {
            controls.drop_rate = rate;
        }
        if let Some(limit) = self.truncate_extract {
            if limit == 0 {
                return Err(ApiError::bad_request(
                    "controls.truncate_extract must be at least 1",
                ));
            }
            controls.truncate_extract = Some(limit);
        }
        if let Some(rate) = check_unit(self.batch_failure_rate, "batch_failure_rate")? {
            controls.batch_failure_rate = rate;
        }
        if let Some([one, other]) = self.latency_ms {
            // The bounds may come in either order, so every pair the OpenAPI schema allows is
            // accepted (a schema cannot say that one item is at most the other).
            let (min, max) = (one.min(other), one.max(other));
            if max > MAX_DELAY_MS {
                return Err(ApiError::bad_request(format!(
                    "controls.latency_ms must be two bounds of at most {MAX_DELAY_MS}"
                )));
            }
            controls.latency_ms = [min, max];
        }
        if self.hiding.is_some() {
            controls.hiding = self.hiding;
        }
        Ok(controls)
    }
}

fn check_unit(value: Option<f64>, field: &str) -> Result<Option<f64>, ApiError> {
    match value {
        Some(value) if !(0.0..=1.0).contains(&value) => Err(ApiError::bad_request(format!(
            "controls.{field} must be between 0 and 1, got {value}"
        ))),
        _ => Ok(value),
    }
}

/// The kinds of random decision; each has its own ChaCha stream within a call.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Latency = 1,
    Error = 2,
    BatchFailure = 3,
    Drop = 4,
}

/// The generator of one kind of decision of one call of one session.
fn call_rng(seed: u64, call: u64, stream: Stream, sub_stream: u32) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&call.to_le_bytes());
    key[16..24].copy_from_slice(b"fabula-s");
    let mut rng = ChaCha8Rng::from_seed(key);
    rng.set_stream(((stream as u64) << 32) | u64::from(sub_stream));
    rng
}

/// What the controls decided for a call before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallPlan {
    /// The delay added to the answer.
    pub latency: Duration,
    /// The error the whole call fails with, if any.
    pub error: Option<ErrorKind>,
}

/// Decides a call's latency and whether it fails as a whole.
pub(crate) fn plan_call(controls: &Controls, seed: u64, call: u64) -> CallPlan {
    let [min, max] = controls.latency_ms;
    let latency_ms = if max > min {
        call_rng(seed, call, Stream::Latency, 0).random_range(min..=max)
    } else {
        min
    };
    let mut rng = call_rng(seed, call, Stream::Error, 0);
    let error = if controls.error_rate > 0.0 && rng.random_bool(controls.error_rate) {
        let kind_idx = rng.random_range(0..controls.error_kinds.len());
        Some(controls.error_kinds[kind_idx])
    } else {
        None
    };
    CallPlan {
        latency: Duration::from_millis(latency_ms),
        error,
    }
}

/// Decides which queries of a batch fail on their own.
pub(crate) fn batch_failures(
    controls: &Controls,
    seed: u64,
    call: u64,
    n_queries: usize,
) -> Vec<bool> {
    let rate = controls.batch_failure_rate;
    if rate <= 0.0 {
        return vec![false; n_queries];
    }
    let mut rng = call_rng(seed, call, Stream::BatchFailure, 0);
    (0..n_queries).map(|_| rng.random_bool(rate)).collect()
}

/// Silently leaves out hits of one query at the drop rate and renumbers the rest from
/// `offset + 1`, so the gaps do not show. Returns how many were left out.
pub(crate) fn drop_hits(
    controls: &Controls,
    seed: u64,
    call: u64,
    query_idx: usize,
    offset: usize,
    hits: &mut Vec<Hit>,
) -> usize {
    if controls.drop_rate <= 0.0 {
        return 0;
    }
    let mut rng = call_rng(seed, call, Stream::Drop, query_idx as u32);
    let n_before = hits.len();
    hits.retain(|_| !rng.random_bool(controls.drop_rate));
    for (position, hit) in hits.iter_mut().enumerate() {
        hit.rank = offset + position + 1;
    }
    n_before - hits.len()
}

/// Cuts `content` to at most `limit` characters; returns whether it was cut.
pub(crate) fn truncate_chars(content: &mut String, limit: usize) -> bool {
    match content.char_indices().nth(limit) {
        Some((byte_idx, _)) => {
            content.truncate(byte_idx);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_zero_is_clean_and_one_is_the_documented_maximum() {
        let clean = noise_controls(0.0);
        assert_eq!(clean.error_rate, 0.0);
        assert_eq!(clean.page_size, None);
        assert_eq!(clean.truncate_extract, None);
        assert_eq!(clean.latency_ms, [0, 0]);
        let noisy = noise_controls(1.0);
        assert_eq!(noisy.error_rate, 0.2);
        assert_eq!(noisy.drop_rate, 0.3);
        assert_eq!(noisy.batch_failure_rate, 0.25);
        assert_eq!(noisy.page_size, Some(3));
        assert_eq!(noisy.truncate_extract, Some(2000));
        assert_eq!(noisy.latency_ms, [0, 100]);
    }

    #[test]
    fn latency_bounds_may_come_in_either_order() {
        for (bounds, expected) in [
            ([5, 30], Some([5, 30])),
            ([30, 5], Some([5, 30])),
            ([0, 120_001], None),
        ] {
            let request = ControlsRequest {
                latency_ms: Some(bounds),
                ..ControlsRequest::default()
            };
            let resolved = request.resolve().ok().map(|controls| controls.latency_ms);
            assert_eq!(resolved, expected, "{bounds:?}");
        }
    }

    #[test]
    fn explicit_controls_override_the_noise_mix() {
        let request = ControlsRequest {
            noise_level: Some(1.0),
            error_rate: Some(0.0),
            page_size: Some(7),
            ..ControlsRequest::default()
        };
        let controls = request.resolve().unwrap();
        assert_eq!(controls.error_rate, 0.0);
        assert_eq!(controls.page_size, Some(7));
        assert_eq!(controls.drop_rate, 0.3);
    }

    #[test]
    fn plans_depend_only_on_seed_and_call() {
        let controls = ControlsRequest {
            error_rate: Some(0.5),
            latency_ms: Some([0, 50]),
            ..ControlsRequest::default()
        }
        .resolve()
        .unwrap();
        let first: Vec<_> = (0..64).map(|call| plan_call(&controls, 7, call)).collect();
        let again: Vec<_> = (0..64).map(|call| plan_call(&controls, 7, call)).collect();
        let other: Vec<_> = (0..64).map(|call| plan_call(&controls, 8, call)).collect();
        assert_eq!(first, again);
        assert_ne!(first, other);
        let n_errors = first.iter().filter(|plan| plan.error.is_some()).count();
        assert!(
            (16..=48).contains(&n_errors),
            "{n_errors} errors in 64 calls at rate 0.5"
        );
    }

    #[test]
    fn truncation_counts_characters() {
        let mut text = "héllo wörld".to_owned();
        assert!(truncate_chars(&mut text, 4));
        assert_eq!(text, "héll");
        assert!(!truncate_chars(&mut text, 4));
    }
}
