//! What the load tasks count, shared by all of them: per operation a latency histogram and the
//! answers by outcome (ok, injected fault, refusal at a cap, real error), and the real errors by
//! kind with a few examples. Every structure has a fixed size or a cap.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hyper::StatusCode;
use serde::Deserialize;

use crate::histogram::Histogram;

/// The most distinct kinds of real error kept; later kinds are counted under "other".
const MAX_ERROR_KINDS: usize = 64;
/// The most example messages of real errors kept, one per kind.
const MAX_ERROR_EXAMPLES: usize = 10;
/// The error codes session controls inject (`rate_limit`, `server_error`, `timeout`).
const INJECTED_CODES: [&str; 3] = ["rate_limited", "injected_server_error", "timeout"];

/// One kind of request the benchmark sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Search,
    SearchBatch,
    Extract,
    SessionCreate,
    SessionSearch,
    SessionExtract,
    SessionLog,
    SessionDelete,
    McpInitialize,
    McpInitialized,
    McpToolCall,
    McpDelete,
}

impl Op {
    /// Every operation, in report order.
    pub const ALL: [Op; 12] = [
        Op::Search,
        Op::SearchBatch,
        Op::Extract,
        Op::SessionCreate,
        Op::SessionSearch,
        Op::SessionExtract,
        Op::SessionLog,
        Op::SessionDelete,
        Op::McpInitialize,
        Op::McpInitialized,
        Op::McpToolCall,
        Op::McpDelete,
    ];

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Op::Search => "search",
            Op::SearchBatch => "search_batch",
            Op::Extract => "extract",
            Op::SessionCreate => "session_create",
            Op::SessionSearch => "session_search",
            Op::SessionExtract => "session_extract",
            Op::SessionLog => "session_log",
            Op::SessionDelete => "session_delete",
            Op::McpInitialize => "mcp_initialize",
            Op::McpInitialized => "mcp_initialized",
            Op::McpToolCall => "mcp_tool_call",
            Op::McpDelete => "mcp_delete",
        }
    }
}

/// How one request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// A fault the benchmark asked a session's controls to inject.
    Injected,
    /// A 429 at a server cap (not an injected rate limit).
    Refused,
    /// Anything else: a wrong status, a malformed answer, a lost connection, a client timeout.
    Real(String),
}

/// The counts of one operation.
#[derive(Default)]
pub struct OpTally {
    pub latency: Histogram,
    pub ok: AtomicU64,
    pub injected: AtomicU64,
    pub refused: AtomicU64,
    pub real: AtomicU64,
}

impl OpTally {
    /// Requests sent, whatever their outcome.
    pub fn requests(&self) -> u64 {
        [&self.ok, &self.injected, &self.refused, &self.real]
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum()
    }
}

/// Everything counted during a run.
#[derive(Default)]
pub struct Tally {
    ops: [OpTally; Op::ALL.len()],
    real_kinds: Mutex<BTreeMap<String, u64>>,
    examples: Mutex<Vec<String>>,
}

impl Tally {
    /// The counts of one operation.
    pub fn op(&self, op: Op) -> &OpTally {
        &self.ops[op as usize]
    }

    /// Records one request: its latency when an answer came, and its outcome.
    pub fn record(&self, op: Op, latency: Option<Duration>, outcome: Outcome) {
        let counts = self.op(op);
        if let Some(latency) = latency {
            counts.latency.record(latency);
        }
        let counter = match &outcome {
            Outcome::Ok => &counts.ok,
            Outcome::Injected => &counts.injected,
            Outcome::Refused => &counts.refused,
            Outcome::Real(_) => &counts.real,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if let Outcome::Real(message) = outcome {
            self.record_real(op, &message);
        }
    }

    fn record_real(&self, op: Op, message: &str) {
        // The kind is the message up to its first colon, so details do not split kinds.
        let kind = format!("{}: {}", op.name(), message.split(':').next().unwrap_or(""));
        let mut new_kind = false;
        if let Ok(mut kinds) = self.real_kinds.lock() {
            new_kind = !kinds.contains_key(&kind);
            let key = if !new_kind || kinds.len() < MAX_ERROR_KINDS {
                kind
            } else {
                "other".to_owned()
            };
            *kinds.entry(key).or_default() += 1;
        }
        // One example per kind: the first.
        if new_kind
            && let Ok(mut examples) = self.examples.lock()
            && examples.len() < MAX_ERROR_EXAMPLES
        {
            let clipped: String = message.chars().take(300).collect();
            examples.push(format!("{}: {clipped}", op.name()));
        }
    }

    /// Totals over every operation: (requests, ok, injected, refused, real).
    pub fn totals(&self) -> [u64; 5] {
        let mut totals = [0; 5];
        for counts in &self.ops {
            let row = [
                counts.requests(),
                counts.ok.load(Ordering::Relaxed),
                counts.injected.load(Ordering::Relaxed),
                counts.refused.load(Ordering::Relaxed),
                counts.real.load(Ordering::Relaxed),
            ];
            for (total, n) in totals.iter_mut().zip(row) {
                *total += n;
            }
        }
        totals
    }

    /// Real errors by kind (`op: what`).
    pub fn real_kinds(&self) -> BTreeMap<String, u64> {
        self.real_kinds
            .lock()
            .map(|kinds| kinds.clone())
            .unwrap_or_default()
    }

    /// The first few real errors, whole.
    pub fn examples(&self) -> Vec<String> {
        self.examples
            .lock()
            .map(|examples| examples.clone())
            .unwrap_or_default()
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorFields,
}

#[derive(Deserialize)]
struct ErrorFields {
    code: String,
}

/// The `error.code` of a JSON error body, if it has one.
pub fn error_code(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<ErrorBody>(body)
        .ok()
        .map(|parsed| parsed.error.code)
}

/// Whether an error code is one that session controls inject.
pub fn is_injected_code(code: &str) -> bool {
    INJECTED_CODES.contains(&code)
}

/// Classifies an HTTP answer. `injecting` says whether the request ran under controls that
/// inject faults; only then are the injected codes counted as injected.
pub fn classify(status: StatusCode, body: &[u8], injecting: bool) -> Outcome {
    if status.is_success() {
        return Outcome::Ok;
    }
    let code = error_code(body);
    match code.as_deref() {
        Some(code) if injecting && is_injected_code(code) => Outcome::Injected,
        Some("rate_limited") => Outcome::Real(format!("{} rate_limited", status.as_u16())),
        _ if status == StatusCode::TOO_MANY_REQUESTS => Outcome::Refused,
        Some(code) => Outcome::Real(format!("{} {code}", status.as_u16())),
        None => Outcome::Real(format!("{} without a JSON error body", status.as_u16())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_classified_by_status_and_code() {
        fn check(status: u16, body: &str, injecting: bool, expect: Outcome) {
            let status = StatusCode::from_u16(status).unwrap();
            assert_eq!(
                classify(status, body.as_bytes(), injecting),
                expect,
                "{body}"
            );
        }
        let error = |code: &str| format!(r#"{{"error":{{"code":"{code}","message":"m"}}}}"#);
        check(200, "{}", false, Outcome::Ok);
        check(204, "", true, Outcome::Ok);
        check(429, &error("rate_limited"), true, Outcome::Injected);
        check(
            500,
            &error("injected_server_error"),
            true,
            Outcome::Injected,
        );
        check(504, &error("timeout"), true, Outcome::Injected);
        check(429, &error("too_many_sessions"), true, Outcome::Refused);
        check(429, &error("too_many_sessions"), false, Outcome::Refused);
        check(429, "", false, Outcome::Refused);
        let real = |text: &str| Outcome::Real(text.to_owned());
        check(429, &error("rate_limited"), false, real("429 rate_limited"));
        check(
            500,
            &error("injected_server_error"),
            false,
            real("500 injected_server_error"),
        );
        check(500, &error("internal"), true, real("500 internal"));
        check(
            404,
            &error("session_not_found"),
            true,
            real("404 session_not_found"),
        );
        check(
            502,
            "bad gateway",
            false,
            real("502 without a JSON error body"),
        );
    }

    #[test]
    fn real_errors_are_kept_by_kind_with_capped_examples() {
        let tally = Tally::default();
        for i in 0..20 {
            let message = format!("connection: reset {i}");
            tally.record(Op::Search, None, Outcome::Real(message));
        }
        for i in 0..(MAX_ERROR_KINDS + 5) {
            tally.record(Op::Extract, None, Outcome::Real(format!("kind {i}")));
        }
        tally.record(Op::Extract, Some(Duration::from_millis(2)), Outcome::Ok);
        tally.record(
            Op::McpInitialize,
            Some(Duration::from_millis(1)),
            Outcome::Refused,
        );
        let n_real = 20 + MAX_ERROR_KINDS as u64 + 5;
        assert_eq!(tally.totals(), [n_real + 2, 1, 0, 1, n_real]);
        let kinds = tally.real_kinds();
        assert_eq!(kinds.get("search: connection"), Some(&20));
        assert_eq!(kinds.get("other"), Some(&6));
        assert_eq!(kinds.len(), MAX_ERROR_KINDS + 1);
        let examples = tally.examples();
        assert_eq!(examples.len(), MAX_ERROR_EXAMPLES);
        assert_eq!(examples[0], "search: connection: reset 0");
        assert_eq!(examples[1], "extract: kind 0");
        assert_eq!(tally.op(Op::Extract).latency.count(), 1);
        assert_eq!(tally.op(Op::Search).latency.count(), 0);
    }
}
