//! The views only the admin listener shows, since they hold gold answers: a world's tasks with
//! their tiers, one task with its evidence path and difficulty features, the sessions with
//! every call, and the dataset's tiers and pages needed.

use std::collections::BTreeMap;

use fabula_file::{Task, WorldFile};
use fabula_search::{Hit, SearchOptions};
use fabula_server::AppState;
use fabula_server::sessions::SessionRecord;
use serde_json::{Value as Json, json};

use crate::error::{Error, Result};
use crate::plot::bar_chart;
use crate::views::{hits_view, page_href, percent_encode};
use fabula_tasks::difficulty::{
    self, Features, Tier, all_shown, answer_values, join_results, result_text,
};

/// The most pages-needed buckets the dataset's histogram shows; larger counts join the last.
const MAX_PAGES_BUCKET: usize = 16;

/// A task's answer and evidence as JSON, read once.
pub(crate) struct ParsedTask {
    pub task: Task,
    pub answer: Json,
    pub evidence: Vec<String>,
}

impl ParsedTask {
    pub(crate) fn parse(task: Task) -> ParsedTask {
        let answer = serde_json::from_str(&task.answer).unwrap_or(Json::Null);
        let evidence = serde_json::from_str(&task.evidence).unwrap_or_default();
        ParsedTask {
            task,
            answer,
            evidence,
        }
    }
}

/// The features of one task without searching: its evidence, hops and rows, and whether the
/// answer shows in the question. Its tier is the one its world file stores.
pub(crate) fn features(task: &ParsedTask) -> Features {
    difficulty::measure(&task.task, None)
}

/// The features of one task measured as the generator measured them (the question searched in
/// its world, partial hiding, top 10), and those results, for the task view.
pub(crate) async fn features_and_hits(
    app: &AppState,
    world_id: u32,
    task: &ParsedTask,
) -> (Features, Vec<Hit>) {
    let hits = app
        .search_world(
            world_id,
            task.task.question.clone(),
            SearchOptions::FIRST_PAGE,
        )
        .await
        .map(|results| results.hits);
    let results = hits.as_ref().ok().map(|hits| {
        join_results(
            hits.iter()
                .map(|hit| result_text(&hit.title, &hit.snippet, &hit.url, hit.date.as_deref())),
        )
    });
    let features = difficulty::measure(&task.task, results.as_deref());
    (features, hits.unwrap_or_default())
}

/// A world's tasks, parsed.
pub(crate) fn read_tasks(file: &WorldFile) -> Result<Vec<ParsedTask>> {
    Ok(file.tasks()?.into_iter().map(ParsedTask::parse).collect())
}

/// The task list of a world view: id, kind, question and tier.
pub(crate) fn task_rows(world_id: u32, tasks: &[(ParsedTask, Features)]) -> Json {
    let rows: Vec<Json> = tasks
        .iter()
        .map(|(parsed, features)| {
            let task = &parsed.task;
            json!({"id": task.id, "kind": task.kind.as_str(), "question": task.question,
                   "tier": task.tier.as_str(), "pages_needed": features.pages_needed,
                   "href": format!("/ui/worlds/{world_id}/tasks/{}", percent_encode(&task.id))})
        })
        .collect();
    Json::Array(rows)
}

/// One task: question, gold answer, the evidence pages in order (the path), each with the
/// answer values it states, the difficulty features, the tier the world file stores and the
/// one the features give now.
pub(crate) fn task(
    file: &WorldFile,
    world_id: u32,
    parsed: &ParsedTask,
    features: &Features,
    hits: &[Hit],
) -> Result<Json> {
    let values = answer_values(&parsed.answer);
    let mut path = Vec::new();
    for (step, url) in parsed.evidence.iter().enumerate() {
        let stored = file.page(url)?;
        let (title, kind, states) = match &stored {
            Some(stored) => {
                let shown: Vec<&str> = stored.page.facts.iter().map(|f| f.shown.as_str()).collect();
                let states: Vec<&String> = values
                    .iter()
                    .filter(|value| {
                        shown
                            .iter()
                            .any(|s| all_shown(std::slice::from_ref(value), s))
                    })
                    .collect();
                (stored.page.title.clone(), stored.page.kind.as_str(), states)
            }
            None => (url.clone(), "missing", Vec::new()),
        };
        path.push(
            json!({"step": step + 1, "url": url, "href": page_href(world_id, url),
                         "title": title, "kind": kind, "states": states}),
        );
    }
    let task = &parsed.task;
    Ok(json!({
        "title": format!("Task {}", task.id),
        "world": world_id,
        "world_name": file.meta()?.name,
        "task": {"id": task.id, "kind": task.kind.as_str(), "question": task.question,
                 "hops": task.hops, "sql": task.sql},
        "answer": answer_view(&parsed.answer),
        "path": path,
        "hits": hits_view(world_id, hits, &values),
        "features": features,
        "tier": task.tier.as_str(),
        "measured_tier": features.tier().as_str(),
    }))
}

/// A gold answer for the template: `{"text"}`, `{"items"}` or `{"columns", "rows"}`.
fn answer_view(answer: &Json) -> Json {
    match answer {
        Json::String(text) => json!({"text": text}),
        Json::Array(items) => json!({"items": items}),
        Json::Object(table) => json!({"columns": table.get("columns"), "rows": table.get("rows"),
                                      "key": table.get("key")}),
        other => json!({"text": other.to_string()}),
    }
}

/// The sessions view: one line per live session.
pub(crate) fn sessions(records: &[SessionRecord]) -> Json {
    let rows: Vec<Json> = records
        .iter()
        .map(|record| {
            let log = &record.log;
            json!({"id": log.session, "world": log.world, "seed": log.seed, "calls": log.calls,
                   "forgotten": log.forgotten, "href": format!("/ui/sessions/{}", log.session)})
        })
        .collect();
    json!({"title": "Sessions", "sessions": rows})
}

/// One session: its controls, every kept call in order with the results it returned and the
/// page it opened, and the requests that replay it from its seed.
pub(crate) fn session(record: &SessionRecord) -> Json {
    let log = &record.log;
    let calls: Vec<Json> = log
        .entries
        .iter()
        .map(|entry| {
            let results: Vec<Json> = entry
                .result_urls
                .iter()
                .flatten()
                .map(|url| json!({"url": url, "href": page_href(log.world, url)}))
                .collect();
            let opened = entry
                .url
                .as_ref()
                .map(|url| json!({"url": url, "href": page_href(log.world, url)}));
            json!({"call": entry.call, "endpoint": entry.endpoint, "queries": entry.queries,
                   "opened": opened, "status": entry.status, "outcome": entry.outcome,
                   "latency_ms": entry.latency_ms, "results": results,
                   "n_results": entry.results, "dropped": entry.dropped_results,
                   "failed_queries": entry.failed_queries, "truncated": entry.truncated,
                   "via": entry.via})
        })
        .collect();
    let create = json!({"world": log.world, "seed": log.seed, "controls": record.controls});
    json!({
        "title": format!("Session {}", log.session),
        "session": {"id": log.session, "world": log.world, "seed": log.seed, "calls": log.calls,
                    "forgotten": log.forgotten},
        "controls": serde_json::to_string_pretty(&record.controls).unwrap_or_default(),
        "replay": serde_json::to_string_pretty(&create).unwrap_or_default(),
        "calls": calls,
    })
}

/// The number of tiers.
const TIERS: usize = Tier::ALL.len();

/// Tiers and pages needed over the whole dataset, computed once per admin listener.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    /// Per world id: tasks per tier.
    pub per_world: BTreeMap<u32, [usize; TIERS]>,
    /// Tasks per (kind, tier).
    pub by_kind: BTreeMap<String, [usize; TIERS]>,
    /// Tasks per number of pages needed (the last bucket holds the rest).
    pub pages_needed: [usize; MAX_PAGES_BUCKET + 1],
    /// Worlds whose tasks could not be read.
    pub unreadable: Vec<u32>,
}

impl Summary {
    pub(crate) fn add(&mut self, world_id: u32, task: &ParsedTask, features: &Features) {
        let tier = task.task.tier as usize;
        self.per_world.entry(world_id).or_default()[tier] += 1;
        self.by_kind
            .entry(task.task.kind.as_str().to_owned())
            .or_default()[tier] += 1;
        self.pages_needed[features.pages_needed.min(MAX_PAGES_BUCKET)] += 1;
    }

    /// The dataset view's extra context: totals, a kind × tier table and the two charts.
    pub(crate) fn context(&self) -> Json {
        let mut totals = [0usize; TIERS];
        for counts in self.per_world.values() {
            for (total, n) in totals.iter_mut().zip(counts) {
                *total += n;
            }
        }
        let all: usize = totals.iter().sum();
        let tier_bars: Vec<(String, usize)> = Tier::ALL
            .iter()
            .zip(totals)
            .map(|(tier, n)| (tier.as_str().to_owned(), n))
            .collect();
        let page_bars: Vec<(String, usize)> = self
            .pages_needed
            .iter()
            .enumerate()
            .skip(1)
            .map(|(n, count)| {
                let label = if n == MAX_PAGES_BUCKET {
                    format!("{n}+")
                } else {
                    n.to_string()
                };
                (label, *count)
            })
            .collect();
        let kinds: Vec<Json> = self
            .by_kind
            .iter()
            .map(|(kind, counts)| json!({"kind": kind, "tiers": counts, "total": counts.iter().sum::<usize>()}))
            .collect();
        let share = |n: usize| {
            if all == 0 {
                0.0
            } else {
                n as f64 * 100.0 / all as f64
            }
        };
        json!({
            "tasks": all,
            "totals": totals,
            "shares": totals.iter().map(|n| format!("{:.1}", share(*n))).collect::<Vec<_>>(),
            "kinds": kinds,
            "tier_chart": bar_chart("Tasks per tier", &tier_bars, 360),
            "pages_chart": bar_chart("Tasks per number of pages needed", &page_bars, 640),
            "unreadable": self.unreadable,
        })
    }
}

/// Reads a world's tasks on a blocking thread, under the server's permits.
pub(crate) async fn world_tasks(
    app: &AppState,
    world_id: u32,
    path: std::path::PathBuf,
) -> Result<Vec<ParsedTask>> {
    app.run_blocking(move || read_tasks(&WorldFile::open(&path)?))
        .await
        .map_err(|e| Error::Join(e.message))?
        .map_err(|error| crate::error::file_failed(app, world_id, error))
}
