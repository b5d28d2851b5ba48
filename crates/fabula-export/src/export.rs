//! Exporting a dataset's tasks and pages: task formats and the retrieval corpus, for one split
//! ([`fabula_file::Split`]) and optionally one difficulty tier. Tasks export as fabula JSONL (what
//! `fabula_score::read_tasks` reads), as WideSearch tasks with one gold CSV per table task in
//! `widesearch_gold/` beside the JSONL, as Search-R1 rows (JSONL or parquet, the same records), or
//! as verl parquet ([`crate::verl`]); pages export as a JSONL corpus for offline retrievers. The
//! record builders are public so their shapes can be tested and reused on their own.
//!
//! WideSearch has two loaders that disagree on one field (`src/evaluation/data_loader.py` in
//! ByteDance-Seed/WideSearch): `WideSearchDataLoader.load_data` reads the task JSONL with
//! `pd.read_json(lines=True)` and indexes `item["evaluation"]["required"]`, so `evaluation` must
//! be a JSON object there; `WideSearchDataLoaderHF.load_data` reads the `full` split of a
//! Hugging Face dataset and calls `json.loads(item["evaluation"])`, so it must be a string. The
//! export therefore writes both: the JSONL with an object, and, beside it,
//! `data/full-00000-of-00001.jsonl` with a string, which makes the directory (with its
//! `widesearch_gold/`) a Hugging Face dataset repository whose `full` split the HF loader reads.
//! Both loaders build `WideSearchQuery(**item)` from a record, a dataclass that takes no other
//! field, so the task's tier goes inside `evaluation` (as `evaluation.tier`), which the loaders
//! and the evaluator read only by `required`, `unique_columns` and `eval_pipeline`.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use fabula_file::{Split, parse_json, read_dataset_tasks};
use fabula_file::{Task, WorldFile};
use fabula_tasks::Tier;
use serde_json::{Value, json};

use crate::verl::{Message, VerlRecord, write_verl_parquet};
use crate::{Error, Result};

/// A task file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// fabula's own JSONL, read by `fabula_score::read_tasks`.
    Jsonl,
    /// WideSearch task JSONL plus `widesearch_gold/{instance_id}.csv` (table tasks only).
    #[cfg_attr(feature = "clap", value(name = "widesearch"))]
    WideSearch,
    /// Search-R1 rows: parquet when the output ends in `.parquet`, else JSONL of the same rows.
    #[cfg_attr(feature = "clap", value(name = "searchr1"))]
    SearchR1,
    /// verl's parquet (see [`crate::verl`]).
    Verl,
}

impl std::str::FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format> {
        match s {
            "jsonl" => Ok(Format::Jsonl),
            "widesearch" => Ok(Format::WideSearch),
            "searchr1" => Ok(Format::SearchR1),
            "verl" => Ok(Format::Verl),
            _ => Err(Error::BadInput(format!(
                "unknown format `{s}` (known: jsonl, widesearch, searchr1, verl)"
            ))),
        }
    }
}

/// What to export.
#[derive(Debug, Clone)]
pub struct ExportConfig {
    /// The dataset directory (with `manifest.json`).
    pub worlds: PathBuf,
    pub format: Format,
    pub split: Split,
    /// The file to write (parquet for verl, else JSONL); WideSearch gold CSVs go to
    /// `widesearch_gold/` beside it, and its Hugging Face copy to `data/` beside it.
    pub out: PathBuf,
    /// Only the tasks of this difficulty tier; every tier when `None`.
    pub tier: Option<Tier>,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    pub worlds: usize,
    /// Records written to the output file.
    pub records: usize,
    /// Gold CSV files written (WideSearch only).
    pub gold_files: usize,
}

/// One line of fabula JSONL: `world` (the numeric id), `id`, `kind`, `question`, `answer`,
/// `evidence` (real JSON), `hops` and `tier` (as the world file stores it), and `effort` where
/// the world file estimates it (frontier tasks: `{plan_calls, plan_calls_first_fit,
/// candidates, near_misses}`, see [`fabula_file::Effort`]).
pub fn jsonl_record(world: u32, task: &Task) -> Result<Value> {
    let mut record = json!({
        "world": world,
        "id": task.id,
        "kind": task.kind,
        "question": task.question,
        "answer": parse_json::<Value>(task, &task.answer)?,
        "evidence": parse_json::<Value>(task, &task.evidence)?,
        "hops": task.hops,
        "tier": task.tier.as_str(),
    });
    if let Some(effort) = task.effort {
        record["effort"] = json!(effort);
    }
    Ok(record)
}

/// WideSearch's column-name normalisation: trimmed, lower-case, without spaces.
pub fn widesearch_column(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// A table answer's parts: columns, key columns, metric per column and rows.
struct TableAnswer {
    columns: Vec<String>,
    key: Vec<String>,
    metrics: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// The parts of a table answer, or `None` when the answer is not a table (a JSON object).
fn table_answer(answer: &Value) -> Option<TableAnswer> {
    let Value::Object(table) = answer else {
        return None;
    };
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().map(cell_string).collect())
            .unwrap_or_default()
    };
    let columns = strings(table.get("columns"));
    let key = strings(table.get("key"));
    let metrics = columns
        .iter()
        .map(|c| {
            table
                .get("metrics")
                .and_then(|m| m.get(c))
                .and_then(Value::as_str)
                .unwrap_or("exact")
                .to_string()
        })
        .collect();
    let rows = table
        .get("rows")
        .and_then(Value::as_array)
        .map(|rows| rows.iter().map(|r| strings(Some(r))).collect())
        .unwrap_or_default();
    Some(TableAnswer {
        columns,
        key,
        metrics,
        rows,
    })
}

fn cell_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A CSV document: a header and rows, lines ended by `\n`, fields quoted only where they must
/// be (a comma, a quote or a line break), through the `csv` crate.
pub fn to_csv(columns: &[String], rows: &[Vec<String>]) -> String {
    let mut writer = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for line in std::iter::once(columns).chain(rows.iter().map(Vec::as_slice)) {
        // Writing to memory cannot fail.
        let _ = writer.write_record(line);
    }
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A WideSearch task and its gold CSV, or `None` for a short-answer task. The instance id is
/// the task id; column names are WideSearch-normalised in both the evaluation and the CSV.
/// `evaluation` is a JSON object, as WideSearch's local loader reads it, with the task's tier as
/// `evaluation.tier`; [`widesearch_hf_record`] turns it into the string its Hugging Face loader
/// reads.
pub fn widesearch_record(task: &Task) -> Result<Option<(Value, String)>> {
    let Some(table) = table_answer(&parse_json(task, &task.answer)?) else {
        return Ok(None);
    };
    let columns: Vec<String> = table.columns.iter().map(|c| widesearch_column(c)).collect();
    let mut pipeline = serde_json::Map::new();
    for (column, metric) in columns.iter().zip(&table.metrics) {
        let step = match metric.as_str() {
            "number" => {
                json!({"preprocess": ["extract_number"], "metric": ["number_near"], "criterion": 0.0})
            }
            "date" => json!({"preprocess": ["norm_date"], "metric": ["date_near"]}),
            "url" => json!({"metric": ["url_match"]}),
            "in" => json!({"preprocess": ["norm_str"], "metric": ["in_match"]}),
            _ => json!({"preprocess": ["norm_str"], "metric": ["exact_match"]}),
        };
        pipeline.insert(column.clone(), step);
    }
    let mut evaluation = json!({
        "unique_columns": table.key.iter().map(|k| widesearch_column(k)).collect::<Vec<_>>(),
        "required": columns,
        "eval_pipeline": pipeline,
        "tier": task.tier.as_str(),
    });
    if let Some(effort) = task.effort {
        evaluation["effort"] = json!(effort);
    }
    let query = format!(
        "{}\n\nGive the answer as one Markdown table in a ```markdown code block, with exactly these columns: {}. \
         Write one row per item, numbers as plain digits.",
        task.question,
        table.columns.join(", ")
    );
    let record = json!({
        "instance_id": task.id,
        "query": query,
        "language": "en",
        "evaluation": evaluation,
    });
    Ok(Some((record, to_csv(&columns, &table.rows))))
}

/// A WideSearch record as its Hugging Face dataset stores it: `evaluation` as a JSON string.
pub fn widesearch_hf_record(record: &Value) -> Value {
    let mut record = record.clone();
    if let Some(evaluation) = record.get_mut("evaluation") {
        *evaluation = Value::String(evaluation.to_string());
    }
    record
}

/// Where the Hugging Face copy of a WideSearch export goes, relative to the export's directory:
/// the one shard of the `full` split, named as `datasets` recognises a split.
pub const WIDESEARCH_HF_FILE: &str = "data/full-00000-of-00001.jsonl";

/// The instructions a Search-R1-style prompt puts before the question.
const SEARCHR1_INSTRUCTIONS: &str = "Answer the question below. Think step by step inside <think> and </think> \
whenever you receive new information. When you need facts you do not have, search for them by writing \
<search> your query </search>; the results come back between <information> and </information>. Search as \
often as you need. When you know the answer, write it inside <answer> and </answer> with no explanation, \
for example <answer> Port Vessa </answer>.";

/// What a prompt says after the question about the answer's form: a table's columns, or that
/// a set answer names every item; nothing for a short answer.
fn answer_hint(answer: &Value) -> String {
    if answer.is_array() {
        return "\nName every one of them inside the answer tags, separated by semicolons.".into();
    }
    match table_answer(answer) {
        Some(table) => format!(
            "\nGive the answer as one Markdown table with exactly these columns: {}, one row per item.",
            table.columns.join(", ")
        ),
        None => String::new(),
    }
}

/// A Search-R1 JSONL line: [`searchr1_parquet_record`] as JSON ([`VerlRecord::to_json`]), so
/// the JSONL and the parquet export hold the same fields with the same encodings:
/// `ground_truth.target` lists the accepted strings (a table's gold is its Markdown table),
/// `ground_truth.answer` is the gold as JSON text (one type in every row, as `datasets` needs),
/// and `extra_info` carries the tier and verl's `tools_kwargs`.
pub fn searchr1_record(world: u32, task: &Task, split: Split, index: usize) -> Result<Value> {
    Ok(searchr1_parquet_record(world, task, split, index)?.to_json())
}

/// The instructions a verl prompt puts before the question: the tools of `fabula_env.verl`
/// and the answer tags `fabula_env.reward` reads.
const VERL_INSTRUCTIONS: &str = "Answer the question below. You can call two tools: `web_search` finds \
pages of this world's web and `web_extractor` reads one page by its url. Snippets only hint at the facts, \
so open the pages you need. When you know the answer, write it inside <answer> and </answer> with no \
explanation, for example <answer> Port Vessa </answer>.";

/// A verl row: the question with tool instructions as the user message, the Search-R1 targets,
/// the gold JSON as text, and `tool_agent` as the agent loop. A table task's prompt names its
/// columns and asks for a Markdown table inside the answer tags; a set answer's asks for every
/// item, separated by semicolons.
pub fn verl_record(world: u32, task: &Task, split: Split, index: usize) -> Result<VerlRecord> {
    let answer: Value = parse_json(task, &task.answer)?;
    let hint = answer_hint(&answer);
    Ok(VerlRecord {
        data_source: "fabula".into(),
        prompt: vec![Message {
            role: "user".into(),
            content: format!("{VERL_INSTRUCTIONS}\n\nQuestion: {}{hint}", task.question),
        }],
        ability: "fact-reasoning".into(),
        target: searchr1_target(&answer),
        answer: answer.to_string(),
        split: split.as_str().into(),
        index: i64::try_from(index).unwrap_or(i64::MAX),
        world,
        task_id: task.id.clone(),
        kind: task.kind.as_str().into(),
        tier: task.tier.as_str().into(),
        agent_name: "tool_agent".into(),
    })
}

/// A Search-R1 training row as parquet (`--format searchr1 --out X.parquet`): the columns of
/// [`verl_record`] with Search-R1's prompt (`<search>` and `<information>` tags, the answer in
/// `<answer>`), which its trainer's rollout loop expects, and verl's single-turn agent loop.
pub fn searchr1_parquet_record(
    world: u32,
    task: &Task,
    split: Split,
    index: usize,
) -> Result<VerlRecord> {
    let answer: Value = parse_json(task, &task.answer)?;
    let hint = answer_hint(&answer).replace('\n', " ");
    Ok(VerlRecord {
        prompt: vec![Message {
            role: "user".into(),
            content: format!(
                "{SEARCHR1_INSTRUCTIONS} Question: {}{hint}\n",
                task.question
            ),
        }],
        agent_name: "single_turn_agent".into(),
        ..verl_record(world, task, split, index)?
    })
}

fn is_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == "parquet")
}

/// The strings a Search-R1 reward accepts: a string answer, a set answer's items joined by
/// `, ` in the gold's order (Search-R1's exact match accepts any one target, so the items
/// cannot be targets of their own; `ground_truth.answer` scores a set by item F1), or a
/// table's Markdown table.
fn searchr1_target(answer: &Value) -> Vec<String> {
    match answer {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => vec![items.iter().map(cell_string).collect::<Vec<_>>().join(", ")],
        _ => match table_answer(answer) {
            Some(t) => vec![markdown_table(&t.columns, &t.rows)],
            None => Vec::new(),
        },
    }
}

fn markdown_table(columns: &[String], rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        columns.join(" | "),
        "---|".repeat(columns.len())
    );
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}

/// One corpus line: `id` (`wNNNNN-pNNNNN`), `world`, `url`, `title` and `contents` (the
/// quoted title, a line break and the page's Markdown, as Search-R1 corpora write documents).
pub fn corpus_record(world: u32, page_id: i64, url: &str, title: &str, body: &str) -> Value {
    json!({
        "id": format!("w{world:05}-p{page_id:05}"),
        "world": world,
        "url": url,
        "title": title,
        "contents": format!("\"{title}\"\n{body}"),
    })
}

fn create_parent(path: &Path) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    Ok(())
}

fn write_lines(path: &Path, lines: &[String]) -> Result<()> {
    create_parent(path)?;
    let file = fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    for line in lines {
        writeln!(out, "{line}").map_err(|e| Error::io(path, e))?;
    }
    out.flush().map_err(|e| Error::io(path, e))
}

/// Exports the tasks of a split in one format.
pub fn export_tasks(config: &ExportConfig) -> Result<ExportSummary> {
    let worlds = read_dataset_tasks(&config.worlds, config.split)?;
    let tasks: Vec<(u32, &Task)> = worlds
        .iter()
        .flat_map(|w| w.tasks.iter().map(|t| (w.world, t)))
        .filter(|(_, task)| config.tier.is_none_or(|want| task.tier == want))
        .collect();
    let summary = match config.format {
        Format::Verl => export_verl(&tasks, config, verl_record)?,
        Format::SearchR1 if is_parquet(&config.out) => {
            export_verl(&tasks, config, searchr1_parquet_record)?
        }
        Format::WideSearch => export_widesearch(&tasks, &config.out)?,
        Format::Jsonl | Format::SearchR1 => export_jsonl(&tasks, config)?,
    };
    Ok(ExportSummary {
        worlds: worlds.len(),
        ..summary
    })
}

fn export_jsonl(tasks: &[(u32, &Task)], config: &ExportConfig) -> Result<ExportSummary> {
    let mut lines = Vec::new();
    for &(world, task) in tasks {
        let record = match config.format {
            Format::SearchR1 => searchr1_record(world, task, config.split, lines.len())?,
            _ => jsonl_record(world, task)?,
        };
        lines.push(record.to_string());
    }
    write_lines(&config.out, &lines)?;
    Ok(ExportSummary {
        records: lines.len(),
        ..ExportSummary::default()
    })
}

fn export_verl(
    tasks: &[(u32, &Task)],
    config: &ExportConfig,
    record: fn(u32, &Task, Split, usize) -> Result<VerlRecord>,
) -> Result<ExportSummary> {
    let mut records = Vec::new();
    for &(world, task) in tasks {
        records.push(record(world, task, config.split, records.len())?);
    }
    create_parent(&config.out)?;
    write_verl_parquet(&config.out, &records)?;
    Ok(ExportSummary {
        records: records.len(),
        ..ExportSummary::default()
    })
}

/// Writes the WideSearch task JSONL, its Hugging Face copy and the gold CSVs.
fn export_widesearch(tasks: &[(u32, &Task)], out: &Path) -> Result<ExportSummary> {
    let dir = out.parent().unwrap_or(Path::new("."));
    let gold_dir = dir.join("widesearch_gold");
    let mut lines = Vec::new();
    let mut hf_lines = Vec::new();
    let mut gold = Vec::new();
    for &(_, task) in tasks {
        if let Some((record, csv)) = widesearch_record(task)? {
            gold.push((gold_dir.join(format!("{}.csv", task.id)), csv));
            hf_lines.push(widesearch_hf_record(&record).to_string());
            lines.push(record.to_string());
        }
    }
    write_lines(out, &lines)?;
    write_lines(&dir.join(WIDESEARCH_HF_FILE), &hf_lines)?;
    if !gold.is_empty() {
        fs::create_dir_all(&gold_dir).map_err(|e| Error::io(&gold_dir, e))?;
    }
    for (path, csv) in &gold {
        fs::write(path, csv).map_err(|e| Error::io(path, e))?;
    }
    Ok(ExportSummary {
        records: lines.len(),
        gold_files: gold.len(),
        ..ExportSummary::default()
    })
}

/// What a corpus export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorpusSummary {
    pub worlds: usize,
    pub pages: usize,
}

/// Exports every page of every world of a dataset as corpus JSONL.
pub fn export_corpus(worlds: &Path, out: &Path) -> Result<CorpusSummary> {
    let manifest = fabula_file::read_manifest(worlds)?;
    create_parent(out)?;
    let file = fs::File::create(out).map_err(|e| Error::io(out, e))?;
    let mut writer = std::io::BufWriter::new(file);
    let mut summary = CorpusSummary::default();
    for entry in &manifest.worlds {
        let world = WorldFile::open(&worlds.join(&entry.file))?;
        for stored in world.pages_without_facts()? {
            let page = &stored.page;
            let record = corpus_record(entry.id, stored.id, &page.url, &page.title, &page.body);
            writeln!(writer, "{record}").map_err(|e| Error::io(out, e))?;
            summary.pages += 1;
        }
        summary.worlds += 1;
    }
    writer.flush().map_err(|e| Error::io(out, e))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use fabula_file::TaskKind;

    use super::*;

    /// Checks how one stored answer is shaped for export: its Search-R1 targets and, when it is
    /// a table, its WideSearch gold CSV.
    fn check(answer: &str, targets: &[&str], csv: Option<&str>) {
        let task = Task {
            id: "w00001-t001".into(),
            kind: TaskKind::Lookup,
            question: "Which?".into(),
            answer: answer.into(),
            evidence: "[]".into(),
            hops: 1,
            sql: "SELECT 1".into(),
            tier: Tier::Easy,
            effort: None,
        };
        let value: Value = serde_json::from_str(answer).unwrap();
        assert_eq!(searchr1_target(&value), targets, "{answer}");
        let gold = widesearch_record(&task).unwrap().map(|(_, csv)| csv);
        assert_eq!(gold.as_deref(), csv, "{answer}");
    }

    #[test]
    fn answers_shape_into_targets_and_gold_csvs() {
        check(r#""Orrwick""#, &["Orrwick"], None);
        check(r#"["Kel", "Vess"]"#, &["Kel, Vess"], None);
        check("12", &[], None);
        check(
            r#"{"columns": ["Name", "Founded"], "key": ["Name"], "rows": [["Vess, Upper", "1702"], ["Kel", null]]}"#,
            &["| Name | Founded |\n|---|---|\n| Vess, Upper | 1702 |\n| Kel |  |\n"],
            Some("name,founded\n\"Vess, Upper\",1702\nKel,\n"),
        );
    }

    #[test]
    fn csv_quotes_only_when_needed() {
        let check = |field: &str, expect: &str| {
            let text = to_csv(&["name".to_owned()], &[vec![field.to_owned()]]);
            assert_eq!(text, format!("name\n{expect}\n"), "{field:?}");
        };
        check("Vess", "Vess");
        check("Vess, Upper", "\"Vess, Upper\"");
        check(" Vess ", " Vess ");
        check("the \"Old\" Hall", "\"the \"\"Old\"\" Hall\"");
        check("two\nlines", "\"two\nlines\"");
        assert_eq!(widesearch_column(" Home market Town "), "homemarkettown");
    }

    #[test]
    fn formats_parse() {
        assert_eq!("verl".parse::<Format>().unwrap(), Format::Verl);
        assert!("parquet".parse::<Format>().is_err());
    }
}
