//! Answerability: every gold value can be read through the agent-facing API.
//!
//! For every task of a dataset, [`check_answerability`] opens each evidence page through
//! `POST /v1/worlds/{id}/extract`, following `next_start` window by window, and confirms that
//! each gold value (for aggregates, each value the answer is computed from; see
//! [`fabula_vocab::answer::required_values`]) appears in what the agent receives. The target is
//! 100%.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use fabula_agent::http::{ClientConfig, HttpClient};
use fabula_file::{Task, WorldFile};
use fabula_vocab::answer::{required_values, text_states};
use serde_json::Value;

use crate::{Error, Result};
use fabula_file::parse_json;

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
    let manifest = fabula_file::read_manifest(dir)?;
    let mut report = AnswerabilityReport::default();
    for entry in &manifest.worlds {
        let file = WorldFile::open(&dir.join(&entry.file))?;
        let mut world = WorldCheck {
            client: &client,
            max_chars: config.max_chars,
            world: entry.id,
            fetched: BTreeMap::new(),
        };
        for task in file.tasks()? {
            let rows = file
                .query_text(&task.sql)
                .map_err(|message| Error::TaskSql {
                    task: task.id.clone(),
                    message,
                })?;
            world.check_task(&task, &rows, &mut report)?;
        }
        report.worlds += 1;
    }
    Ok(report)
}

/// The answerability check of one world: its pages are fetched once, however many tasks cite
/// them.
struct WorldCheck<'a> {
    client: &'a HttpClient,
    max_chars: usize,
    world: u32,
    /// Each fetched page's Markdown, or why it could not be opened.
    fetched: BTreeMap<String, std::result::Result<String, String>>,
}

impl WorldCheck<'_> {
    /// Checks that every required value of one task (given its query rows) is readable.
    fn check_task(
        &mut self,
        task: &Task,
        rows: &[Vec<String>],
        report: &mut AnswerabilityReport,
    ) -> Result<()> {
        report.tasks += 1;
        let answer: Value = parse_json(task, &task.answer)?;
        let urls: Vec<String> = parse_json(task, &task.evidence)?;
        for url in &urls {
            self.fetch(url)?;
        }
        let mut texts = Vec::new();
        let mut failures = Vec::new();
        for url in &urls {
            match &self.fetched[url] {
                Ok(content) => texts.push(content.as_str()),
                Err(e) => failures.push(format!("cannot open {url}: {e}")),
            }
        }
        for value in required_values(task.kind, &answer, rows) {
            report.values += 1;
            if texts.iter().any(|t| text_states(t, &value)) {
                report.found += 1;
                continue;
            }
            let reason = if failures.is_empty() {
                "is on none of its evidence pages".to_owned()
            } else {
                failures.join("; ")
            };
            report.unreadable.push(Unreadable {
                world: self.world,
                task: task.id.clone(),
                value,
                reason,
            });
        }
        Ok(())
    }

    /// Fetches a page's Markdown through the API unless it was fetched before. An error status
    /// is kept as the page's failure; a broken connection is an error.
    fn fetch(&mut self, url: &str) -> Result<()> {
        if self.fetched.contains_key(url) {
            return Ok(());
        }
        let got = match self.client.extract_all(self.world, url, self.max_chars) {
            Ok((_, content)) => Ok(content),
            Err(e @ fabula_agent::Error::Status { .. }) => Err(e.to_string()),
            Err(e) => return Err(e.into()),
        };
        self.fetched.insert(url.to_owned(), got);
        Ok(())
    }
}
