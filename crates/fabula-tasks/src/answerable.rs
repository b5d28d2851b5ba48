//! Answerability: every gold value can be read through the agent-facing API.
//!
//! For every task of a dataset, [`check_answerability`] opens each evidence page through
//! `POST /v1/worlds/{id}/extract`, following `next_start` window by window, and confirms that
//! each gold value (for aggregates, each value the answer is computed from; see
//! [`crate::check::required_values`]) appears in what the agent receives. The target is 100%.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use fabula_world::dataset;

use crate::check::{required_values, run_sql, stored_tasks, text_states};
use crate::export::open_world;
use crate::http::{ClientConfig, HttpClient};
use crate::{Error, Result};

/// How the answerability check talks to the server.
#[derive(Debug, Clone)]
pub struct AnswerabilityConfig {
    pub client: ClientConfig,
    /// Characters per extract window; small windows exercise pagination.
    pub max_chars: usize,
}

impl Default for AnswerabilityConfig {
    fn default() -> AnswerabilityConfig {
        AnswerabilityConfig {
            client: ClientConfig::default(),
            max_chars: 8_000,
        }
    }
}

/// A gold value the agent cannot read on its task's evidence pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub world: u32,
    pub task: String,
    pub value: String,
    /// Why: the value is absent, or an evidence page could not be opened.
    pub reason: String,
}

/// The outcome of an answerability check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnswerabilityReport {
    pub worlds: usize,
    pub tasks: usize,
    /// Gold values checked.
    pub values: usize,
    /// Gold values found in what the agent receives.
    pub found: usize,
    pub unreadable: Vec<Unreadable>,
}

impl AnswerabilityReport {
    /// The share of gold values found, 1.0 when there are none.
    pub fn fraction(&self) -> f64 {
        if self.values == 0 {
            1.0
        } else {
            self.found as f64 / self.values as f64
        }
    }

    /// A short readable report, listing at most 20 unreadable values.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} worlds, {} tasks, {} of {} gold values readable ({:.2}%)\n",
            self.worlds,
            self.tasks,
            self.found,
            self.values,
            100.0 * self.fraction()
        );
        for u in self.unreadable.iter().take(20) {
            let _ = writeln!(
                out,
                "world {} task {}: `{}` {}",
                u.world, u.task, u.value, u.reason
            );
        }
        out
    }
}

/// Checks every task of the dataset in `dir` against the server at `addr` (`host:port`).
pub fn check_answerability(
    addr: &str,
    dir: &Path,
    config: &AnswerabilityConfig,
) -> Result<AnswerabilityReport> {
    let client = HttpClient::new(addr, config.client.clone());
    let manifest = dataset::read_manifest(dir)?;
    let mut report = AnswerabilityReport::default();
    for entry in &manifest.worlds {
        let conn = open_world(&dir.join(&entry.file))?;
        // Pages are fetched once per world, however many tasks cite them.
        let mut fetched: BTreeMap<String, std::result::Result<String, String>> = BTreeMap::new();
        for task in stored_tasks(&conn)? {
            report.tasks += 1;
            let answer: Value =
                serde_json::from_str(&task.answer).map_err(|source| Error::TaskJson {
                    task: task.id.clone(),
                    source,
                })?;
            let urls: Vec<String> =
                serde_json::from_str(&task.evidence).map_err(|source| Error::TaskJson {
                    task: task.id.clone(),
                    source,
                })?;
            let rows = run_sql(&conn, &task.sql)
                .map_err(|e| Error::BadInput(format!("task {}: {e}", task.id)))?;
            for url in &urls {
                if !fetched.contains_key(url) {
                    let got = match client.extract_all(entry.id, url, config.max_chars) {
                        Ok((_, content)) => Ok(content),
                        Err(e @ Error::Status { .. }) => Err(e.to_string()),
                        Err(e) => return Err(e),
                    };
                    fetched.insert(url.clone(), got);
                }
            }
            let mut texts = Vec::new();
            let mut failures = Vec::new();
            for url in &urls {
                match &fetched[url] {
                    Ok(content) => texts.push(content.as_str()),
                    Err(e) => failures.push(format!("cannot open {url}: {e}")),
                }
            }
            for value in required_values(&task.kind, &answer, &rows) {
                report.values += 1;
                if texts.iter().any(|t| text_states(t, &value)) {
                    report.found += 1;
                } else {
                    let reason = if failures.is_empty() {
                        "is on none of its evidence pages".to_string()
                    } else {
                        failures.join("; ")
                    };
                    report.unreadable.push(Unreadable {
                        world: entry.id,
                        task: task.id.clone(),
                        value,
                        reason,
                    });
                }
            }
        }
        report.worlds += 1;
    }
    Ok(report)
}
