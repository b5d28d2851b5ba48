//! `fabula audit`: a dataset's difficulty ladder, per task kind and tier.
//!
//! Tiers are read from the world files, where the generator stored them. Every task is measured
//! again as the generator and the world browser measure it ([`fabula_vocab::difficulty`]): its
//! question is searched in its own world (top 10, partial hiding, in process over the dataset's
//! indexes) to see whether the answer shows in the results, and the report counts the stored
//! tiers that disagree with this measure (0 on a dataset as generated). Per kind and tier the report gives
//! the tasks, the pages needed (mean, median and max), the share whose answer shows in the
//! question's results or in the question, the share one page answers, three cheap guessers and,
//! with a server address, the rule-based baseline agent's mean reward:
//!
//! - *most common*: the most common gold answer of the other tasks of the same kind and
//!   phrasing in the dataset (leave one out), exact match;
//! - *random entity*: the expected exact match of a uniform guess among the world's rows of
//!   the answer's table, for answers that name a row (1/n when the answer is one of n rows);
//! - *first option*: the first row name the question mentions (earliest, then longest); beside
//!   it, `1/n`, the odds of a blind pick among a comparison's n options, which it should not
//!   beat by more than a few points.
//!
//! Guessers apply to short answers only; a figure over no task prints as `-`.
//!
//! The search space ([`render_search_space`]) gives per kind and tier the share of questions
//! that name an entity of their world, the smallest candidate set a single clue reaches and the
//! near misses (measured on the world file by [`fabula_check::search_space`], for questions built
//! of separate clues), and, with a server address, the calls the rule-based agent made: the
//! cheapest plan of an agent that knows every template and layout.

use std::collections::BTreeMap;
use std::path::Path;

use fabula_agent::keyword::run_keyword;
use fabula_agent::{AgentConfig, run_baseline_counted};
use fabula_file::{ColumnRole, Task, Value as Cell, WorldFile};
use fabula_score::{Gold, Prediction, TaskKind, TaskRecord};
use fabula_search::{Corpus, CorpusOptions, SearchOptions, WorldIndex, WorldInfo};
use fabula_vocab::difficulty::{self, Features, Tier, join_results, result_text};
use fabula_vocab::phrasing_id;
use fabula_vocab::phrasings::match_question;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::dataset::score_record;
use crate::error::{Error, Result};
use fabula_check::search_space::{self, SearchSpace};

/// Which agent `fabula audit --addr` runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum AuditAgent {
    /// The rule-based baseline agent, which knows every template.
    #[default]
    Rules,
    /// The generic keyword agent ([`fabula_agent::keyword`]), which knows none.
    Keyword,
}

/// How to audit.
#[derive(Debug, Clone, Default)]
pub struct AuditConfig {
    /// A running server (`host:port`) for the agent; none skips it.
    pub addr: Option<String>,
    pub agent: AgentConfig,
    pub agent_kind: AuditAgent,
    /// Worlds measured at once.
    pub jobs: usize,
}

/// One line of the report: a kind (or `all`) and a tier (or `all`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    pub kind: String,
    pub tier: String,
    pub tasks: usize,
    pub pages_mean: f64,
    pub pages_median: f64,
    pub pages_max: usize,
    /// Shares in 0..=1.
    pub answer_in_results: f64,
    pub answer_in_question: f64,
    pub one_page: f64,
    pub most_common: Option<f64>,
    pub random_entity: Option<f64>,
    pub first_option: Option<f64>,
    /// The first option's odds by chance, 1/n over the comparisons of n options.
    pub chance: Option<f64>,
    pub agent: Option<f64>,
    /// The share of questions naming a row of their world.
    pub names_entity: f64,
    /// The median and the least, over questions of separate clues, of the smallest candidate
    /// set one clue reaches.
    pub candidates_median: Option<f64>,
    pub candidates_min: Option<usize>,
    /// The median and the least near misses (rows failing exactly one clue).
    pub near_misses_median: Option<f64>,
    pub near_misses_min: Option<usize>,
    /// The median and the least calls of the agent.
    pub agent_calls_median: Option<f64>,
    pub agent_calls_min: Option<usize>,
    /// The stored effort of the tasks that have one (the frontier's): the least, median and
    /// largest calls of the cheapest plan opening every candidate, and stopping at the first
    /// fit ([`fabula_file::Effort`]).
    pub plan_calls: Option<Spread>,
    pub plan_calls_first_fit: Option<Spread>,
    /// The smallest candidate set any two clues leave together.
    pub candidates_after_two: Option<Spread>,
    /// The share of those whose cheapest plan starts above the person (from settlements,
    /// organisations, categories or news).
    pub plan_starts_above: Option<f64>,
}

/// The least, median and largest of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub min: usize,
    pub median: f64,
    pub max: usize,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    pub worlds: usize,
    pub tasks: usize,
    /// The tasks whose stored tier is not the one measured now.
    pub tier_disagreements: usize,
    /// Per kind and tier, then per tier over all kinds, then everything.
    pub rows: Vec<AuditRow>,
}

/// One task's measurements.
#[derive(Debug, Clone)]
struct Measured {
    record: TaskRecord,
    /// The tier the world file stores.
    tier: Tier,
    features: Features,
    random_entity: Option<f64>,
    first_option: Option<bool>,
    /// 1/n for a comparison of n options.
    chance: Option<f64>,
    most_common: Option<bool>,
    agent: Option<f64>,
    agent_calls: Option<usize>,
    names_entity: bool,
    space: Option<SearchSpace>,
    effort: Option<fabula_file::Effort>,
}

/// Audits every world of the dataset in `dir`.
pub fn audit(dir: &Path, config: &AuditConfig) -> Result<AuditReport> {
    let options = CorpusOptions {
        write_indexes: false,
        ..CorpusOptions::default()
    };
    let corpus = Corpus::open_with(dir, options)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.max(1))
        .build()
        .map_err(|e| Error::Audit(e.to_string()))?;
    let per_world: Vec<Result<Vec<Measured>>> = pool.install(|| {
        corpus
            .worlds()
            .par_iter()
            .map(|info| measure_world(&corpus, info))
            .collect()
    });
    let mut measured = Vec::new();
    for world in per_world {
        measured.extend(world?);
    }
    add_most_common(&mut measured);
    if let Some(addr) = &config.addr {
        add_agent(&mut measured, addr, config)?;
    }
    Ok(AuditReport {
        worlds: corpus.worlds().len(),
        tasks: measured.len(),
        tier_disagreements: measured
            .iter()
            .filter(|m| m.features.tier() != m.tier)
            .count(),
        rows: rows(&measured),
    })
}

/// A task's difficulty features: its evidence and hops, and one search of its question.
fn measure_task(index: &WorldIndex, task: &Task) -> Result<Features> {
    let hits = index
        .search(&task.question, &SearchOptions::FIRST_PAGE)?
        .hits;
    let results = join_results(
        hits.iter()
            .map(|h| result_text(&h.title, &h.snippet, &h.url, h.date.as_deref())),
    );
    Ok(difficulty::measure(task, Some(&results)))
}

/// Measures one world's tasks: features (one search each) and the row-based guessers.
fn measure_world(corpus: &Corpus, info: &WorldInfo) -> Result<Vec<Measured>> {
    let file = WorldFile::open(&info.file)?;
    let names = EntityNames::read(&file)?;
    let index = corpus.world(info.id)?;
    let mut out = Vec::new();
    for task in file.tasks()? {
        let record = score_record(info.id, &task)?;
        let features = measure_task(&index, &task)?;
        let short = record.answer.as_str();
        out.push(Measured {
            tier: task.tier,
            random_entity: short.and_then(|answer| names.random_hit(answer)),
            first_option: short.map(|answer| names.first_in(&task.question) == Some(answer)),
            chance: features
                .choice
                .then(|| options(&task.question))
                .flatten()
                .map(|n| 1.0 / n as f64),
            most_common: None,
            agent: None,
            agent_calls: None,
            names_entity: names.first_in(&task.question).is_some(),
            space: search_space::measure(&file, &task.sql).map_err(Error::Audit)?,
            effort: task.effort,
            features,
            record,
        });
    }
    Ok(out)
}

/// The number of options a comparison's question names (its slots `a` to `d`).
fn options(question: &str) -> Option<usize> {
    let matched = match_question(question)?;
    let is_option = |slot: &str| ["a", "b", "c", "d"].contains(&slot);
    let n = matched
        .slots
        .iter()
        .filter(|(slot, _)| is_option(slot))
        .count();
    (n > 0).then_some(n)
}

/// The names of a world's rows, by table.
struct EntityNames {
    /// Per name: the number of rows of its table (a name is unique within its table; the
    /// smallest table wins when two tables share one).
    table_size: BTreeMap<String, usize>,
    /// Every name, longest first, for finding the first one a question mentions.
    by_length: Vec<String>,
}

impl EntityNames {
    fn read(file: &WorldFile) -> Result<EntityNames> {
        let mut table_size: BTreeMap<String, usize> = BTreeMap::new();
        for table in file.tables()? {
            let Some(at) = table
                .columns
                .iter()
                .position(|c| c.role == ColumnRole::Name)
            else {
                continue;
            };
            let rows = file.table_rows(&table)?;
            for row in &rows {
                if let Some(Cell::Text(name)) = row.get(at) {
                    let size = table_size.entry(name.clone()).or_insert(rows.len());
                    *size = (*size).min(rows.len());
                }
            }
        }
        let mut by_length: Vec<String> = table_size.keys().cloned().collect();
        by_length.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        Ok(EntityNames {
            table_size,
            by_length,
        })
    }

    /// The expected exact match of a uniform guess among the rows of the answer's table;
    /// `None` when the answer names no row.
    fn random_hit(&self, answer: &str) -> Option<f64> {
        self.table_size.get(answer).map(|size| 1.0 / *size as f64)
    }

    /// The row name the question mentions first (earliest start, then longest).
    fn first_in<'a>(&'a self, question: &str) -> Option<&'a str> {
        self.by_length
            .iter()
            .filter_map(|name| find_word(question, name).map(|at| (at, name)))
            .min_by_key(|(at, name)| (*at, std::cmp::Reverse(name.len())))
            .map(|(_, name)| name.as_str())
    }
}

/// The byte offset of the first occurrence of `needle` in `text` at word boundaries.
fn find_word(text: &str, needle: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric();
    text.match_indices(needle).map(|(at, _)| at).find(|at| {
        let before = text[..*at].chars().next_back().is_none_or(|c| !is_word(c));
        let after = text[at + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_word(c));
        before && after
    })
}

/// Fills in the most-common-answer guesser: per (kind, phrasing), the most common answer of
/// the other tasks (ties to the smallest JSON text).
fn add_most_common(measured: &mut [Measured]) {
    let group = |m: &Measured| {
        (
            m.record.kind,
            phrasing_id(&m.record.question).unwrap_or_default(),
        )
    };
    let mut counts: BTreeMap<(TaskKind, String), BTreeMap<String, usize>> = BTreeMap::new();
    for m in measured.iter().filter(|m| m.record.answer.is_string()) {
        *counts
            .entry(group(m))
            .or_default()
            .entry(m.record.answer.to_string())
            .or_default() += 1;
    }
    for m in measured.iter_mut().filter(|m| m.record.answer.is_string()) {
        let own = m.record.answer.to_string();
        let others = &counts[&group(m)];
        let best = others
            .iter()
            .map(|(answer, n)| (answer, if *answer == own { n - 1 } else { *n }))
            .filter(|(_, n)| *n > 0)
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)));
        m.most_common = Some(best.is_some_and(|(answer, _)| *answer == own));
    }
}

/// Runs the configured agent on every task and keeps each task's reward.
fn add_agent(measured: &mut [Measured], addr: &str, config: &AuditConfig) -> Result<()> {
    let records: Vec<TaskRecord> = measured.iter().map(|m| m.record.clone()).collect();
    let (predictions, calls) = match config.agent_kind {
        AuditAgent::Rules => {
            let counted = run_baseline_counted(addr, &records, &config.agent)?;
            let (predictions, calls): (Vec<_>, Vec<_>) = counted.into_iter().unzip();
            (predictions, calls.into_iter().map(Some).collect())
        }
        AuditAgent::Keyword => (
            run_keyword(addr, &records, &config.agent)?,
            vec![None; records.len()],
        ),
    };
    for ((m, prediction), calls) in measured.iter_mut().zip(predictions).zip(calls) {
        m.agent_calls = calls;
        let gold = Gold::from_json(&m.record.answer).map_err(|e| Error::Audit(e.to_string()))?;
        let predicted = match &prediction.answer {
            Value::String(text) => Prediction::from_text(text),
            other => Prediction::from_json(other),
        };
        m.agent = Some(fabula_score::score(&gold, &predicted).reward());
    }
    Ok(())
}

/// The report's rows: each (kind, tier) present, each tier over all kinds, then everything.
fn rows(measured: &[Measured]) -> Vec<AuditRow> {
    let mut kinds: Vec<TaskKind> = measured.iter().map(|m| m.record.kind).collect();
    kinds.sort();
    kinds.dedup();
    let mut rows = Vec::new();
    let tiers = Tier::ALL.map(Some);
    for kind in kinds.iter().map(|k| Some(*k)).chain([None]) {
        for tier in tiers.iter().copied().chain([None]) {
            let members: Vec<&Measured> = measured
                .iter()
                .filter(|m| kind.is_none_or(|k| m.record.kind == k))
                .filter(|m| tier.is_none_or(|t| m.tier == t))
                .collect();
            if members.is_empty() || (kind.is_some() && tier.is_none()) {
                continue;
            }
            let kind = kind.map_or("all", TaskKind::as_str).to_owned();
            let tier = tier.map_or("all", Tier::as_str).to_owned();
            rows.push(row(kind, tier, &members));
        }
    }
    rows
}

fn row(kind: String, tier: String, members: &[&Measured]) -> AuditRow {
    let n = members.len() as f64;
    let share =
        |hit: &dyn Fn(&Measured) -> bool| members.iter().filter(|m| hit(m)).count() as f64 / n;
    let mean = |value: &dyn Fn(&Measured) -> Option<f64>| {
        let values: Vec<f64> = members.iter().filter_map(|m| value(m)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let as_share = |flag: Option<bool>| flag.map(|hit| if hit { 1.0 } else { 0.0 });
    AuditRow {
        kind,
        tier,
        tasks: members.len(),
        pages_mean: members
            .iter()
            .map(|m| m.features.pages_needed as f64)
            .sum::<f64>()
            / n,
        pages_median: median(members.iter().map(|m| m.features.pages_needed).collect()),
        pages_max: members
            .iter()
            .map(|m| m.features.pages_needed)
            .max()
            .unwrap_or(0),
        answer_in_results: share(&|m| m.features.answer_in_results == Some(true)),
        answer_in_question: share(&|m| m.features.answer_in_question),
        one_page: share(&|m| m.features.pages_needed <= 1),
        most_common: mean(&|m| as_share(m.most_common)),
        random_entity: mean(&|m| m.random_entity),
        first_option: mean(&|m| as_share(m.first_option)),
        chance: mean(&|m| m.chance),
        agent: mean(&|m| m.agent),
        names_entity: share(&|m| m.names_entity),
        candidates_median: median_of(members, |m| m.space.map(|s| s.smallest_candidates)),
        candidates_min: least(members, |m| m.space.map(|s| s.smallest_candidates)),
        near_misses_median: median_of(members, |m| m.space.map(|s| s.near_misses)),
        near_misses_min: least(members, |m| m.space.map(|s| s.near_misses)),
        agent_calls_median: median_of(members, |m| m.agent_calls),
        agent_calls_min: least(members, |m| m.agent_calls),
        plan_calls: spread(members, |m| m.effort.map(|e| e.plan_calls as usize)),
        plan_calls_first_fit: spread(members, |m| {
            m.effort.map(|e| e.plan_calls_first_fit as usize)
        }),
        candidates_after_two: spread(members, |m| {
            m.effort
                .and_then(|e| e.candidates_after_two)
                .map(|n| n as usize)
        }),
        plan_starts_above: {
            let efforts: Vec<bool> = members
                .iter()
                .filter_map(|m| m.effort.map(|e| e.plan_starts_above))
                .collect();
            (!efforts.is_empty())
                .then(|| efforts.iter().filter(|&&a| a).count() as f64 / efforts.len() as f64)
        },
    }
}

/// The spread of a figure over the members that have it; `None` when none has.
fn spread(members: &[&Measured], value: impl Fn(&Measured) -> Option<usize>) -> Option<Spread> {
    let values: Vec<usize> = members.iter().filter_map(|m| value(m)).collect();
    Some(Spread {
        min: *values.iter().min()?,
        max: *values.iter().max()?,
        median: median(values),
    })
}

/// The median of a figure over the members that have it; `None` when none has.
fn median_of(members: &[&Measured], value: impl Fn(&Measured) -> Option<usize>) -> Option<f64> {
    let values: Vec<usize> = members.iter().filter_map(|m| value(m)).collect();
    (!values.is_empty()).then(|| median(values))
}

/// The least of a figure over the members that have it.
fn least(members: &[&Measured], value: impl Fn(&Measured) -> Option<usize>) -> Option<usize> {
    members.iter().filter_map(|m| value(m)).min()
}

/// The middle value (the mean of the two middle ones for an even count); 0 for none.
fn median(mut values: Vec<usize>) -> f64 {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2] as f64,
        _ => (values[n / 2 - 1] + values[n / 2]) as f64 / 2.0,
    }
}

/// The report's columns: a header and its width.
const COLUMNS: [(&str, usize); 14] = [
    ("kind", 10),
    ("tier", 8),
    ("tasks", 6),
    ("pages mean", 10),
    ("median", 6),
    ("pages max", 9),
    ("in results", 10),
    ("in question", 11),
    ("one page", 8),
    ("common", 7),
    ("random", 7),
    ("first", 7),
    ("1/n", 6),
    ("agent", 7),
];

/// The guesser columns of the report, which `fabula eval --blind` prints.
const GUESSER_COLUMNS: [(&str, usize); 7] = [
    ("kind", 10),
    ("tier", 8),
    ("tasks", 6),
    ("common", 7),
    ("random", 7),
    ("first", 7),
    ("1/n", 6),
];

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn maybe(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), percent)
}

/// The report as a plain-text table: shares in percent, `-` where a figure covers no task; a
/// last line counts the stored tiers that disagree with the measure.
pub fn render_audit(report: &AuditReport) -> String {
    let table = render_table(report, &COLUMNS, |r| {
        vec![
            r.kind.clone(),
            r.tier.clone(),
            r.tasks.to_string(),
            format!("{:.2}", r.pages_mean),
            format!("{}", r.pages_median),
            r.pages_max.to_string(),
            percent(r.answer_in_results),
            percent(r.answer_in_question),
            percent(r.one_page),
            maybe(r.most_common),
            maybe(r.random_entity),
            maybe(r.first_option),
            maybe(r.chance),
            maybe(r.agent),
        ]
    });
    format!(
        "{table}stored tiers that disagree with the measure: {} of {}\n",
        report.tier_disagreements, report.tasks
    )
}

/// The search-space columns of the report.
const SPACE_COLUMNS: [(&str, usize); 13] = [
    ("kind", 10),
    ("tier", 8),
    ("tasks", 6),
    ("names entity", 12),
    ("candidates", 10),
    ("(least)", 7),
    ("near misses", 11),
    ("(least)", 7),
    ("agent calls", 11),
    ("plan calls", 14),
    ("first fit", 14),
    ("after two", 12),
    ("starts above", 12),
];

/// The search space per kind and tier: the share of questions naming an entity, the median
/// (and least) smallest candidate set and near misses of questions of separate clues, the
/// median (and least) calls of the agent, and the stored effort's cheapest plan, opening every
/// candidate and stopping at the first fit: median (least-largest), the smallest set two clues
/// leave, and the share of those plans that start above the person.
pub fn render_search_space(report: &AuditReport) -> String {
    let least = |v: Option<usize>| v.map_or("-".to_owned(), |v| format!("({v})"));
    let median = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v}"));
    render_table(report, &SPACE_COLUMNS, |r| {
        let calls = match (r.agent_calls_median, r.agent_calls_min) {
            (Some(m), Some(l)) => format!("{m} ({l})"),
            _ => "-".to_owned(),
        };
        vec![
            r.kind.clone(),
            r.tier.clone(),
            r.tasks.to_string(),
            percent(r.names_entity),
            median(r.candidates_median),
            least(r.candidates_min),
            median(r.near_misses_median),
            least(r.near_misses_min),
            calls,
            spread_text(r.plan_calls),
            spread_text(r.plan_calls_first_fit),
            spread_text(r.candidates_after_two),
            r.plan_starts_above.map_or("-".to_owned(), percent),
        ]
    })
}

/// `median (least-largest)`, or `-`.
fn spread_text(spread: Option<Spread>) -> String {
    spread.map_or("-".to_owned(), |s| {
        format!("{} ({}-{})", s.median, s.min, s.max)
    })
}

/// The cheap guessers alone, per kind and tier: the most common answer, a random entity of the
/// answer's table, the first option, and 1/n beside it.
pub fn render_guessers(report: &AuditReport) -> String {
    render_table(report, &GUESSER_COLUMNS, |r| {
        vec![
            r.kind.clone(),
            r.tier.clone(),
            r.tasks.to_string(),
            maybe(r.most_common),
            maybe(r.random_entity),
            maybe(r.first_option),
            maybe(r.chance),
        ]
    })
}

/// A header line with the dataset's size, then one line per row: the first two cells left
/// aligned, the rest right aligned, each in its column's width.
fn render_table(
    report: &AuditReport,
    columns: &[(&str, usize)],
    cells: impl Fn(&AuditRow) -> Vec<String>,
) -> String {
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(columns)
            .enumerate()
            .map(|(i, (cell, &(_, width)))| {
                if i < 2 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        padded.join(" ").trim_end().to_owned() + "\n"
    };
    let mut out = format!("{} worlds, {} tasks\n", report.worlds, report.tasks);
    out.push_str(&line(
        columns.iter().map(|(h, _)| (*h).to_owned()).collect(),
    ));
    for r in &report.rows {
        out.push_str(&line(cells(r)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_pages_needed() {
        let check = |values: &[usize], expect: f64| assert_eq!(median(values.to_vec()), expect);
        check(&[], 0.0);
        check(&[4], 4.0);
        check(&[9, 4, 5], 5.0);
        check(&[6, 4, 5, 9], 5.5);
    }

    #[test]
    fn the_first_option_is_the_earliest_longest_name_at_word_boundaries() {
        let names = EntityNames {
            table_size: BTreeMap::from([
                ("Kest".to_owned(), 4),
                ("Kest Line".to_owned(), 2),
                ("Orm".to_owned(), 4),
            ]),
            by_length: vec!["Kest Line".into(), "Kest".into(), "Orm".into()],
        };
        let check = |question: &str, expect: Option<&str>| {
            assert_eq!(names.first_in(question), expect, "{question}");
        };
        check(
            "Between Kest Line and Orm, which is older?",
            Some("Kest Line"),
        );
        check("Between Orm and Kest, which is older?", Some("Orm"));
        check("Is Kestrel or Ormond older?", None);
        assert_eq!(names.random_hit("Kest Line"), Some(0.5));
        assert_eq!(names.random_hit("1901"), None);
    }
}
