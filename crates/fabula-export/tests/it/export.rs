//! Exports: exact record shapes on a hand-made fixture, files on a written dataset, and splits.

use fabula_export::export::{
    WIDESEARCH_HF_FILE, corpus_record, jsonl_record, searchr1_record, verl_record,
    widesearch_hf_record, widesearch_record,
};
use fabula_export::{ExportConfig, Format, export_corpus, export_tasks};
use fabula_file::{Split, Task, TaskKind};
use fabula_tasks::Tier;

use crate::common::small_dataset;

fn lookup_fixture() -> Task {
    Task {
        id: "w00042-t003".into(),
        kind: TaskKind::MultiHop,
        question: "In which market town was the founder of Vess Hall born?".into(),
        answer: "\"Orrwick\"".into(),
        evidence:
            "[\"https://vesspedia.org/wiki/Vess_Hall\",\"https://vesspedia.org/wiki/Amo_Tal\"]"
                .into(),
        hops: 2,
        sql: "SELECT 'Orrwick'".into(),
        tier: Tier::Medium,
        effort: None,
    }
}

fn table_fixture() -> Task {
    Task {
        id: "w00042-t021".into(),
        kind: TaskKind::Table,
        question: "List every guild founded after 1700, with its founder, founding year and home market town.".into(),
        answer: r#"{"columns":["Guild","Founder","Founded","Home market town"],"key":["Guild"],"metrics":{"Guild":"exact","Founder":"exact","Founded":"number","Home market town":"exact"},"rows":[["Vess Hall","Amo Tal","1702","Orrwick"],["The \"Old\" Guild","Ila Orr","1710","Kel, Upper"]]}"#.into(),
        evidence: "[\"https://vesspedia.org/wiki/List_of_guilds\"]".into(),
        hops: 2,
        sql: "SELECT 1".into(),
        tier: Tier::Hard,
        effort: None,
    }
}

#[test]
fn a_tasks_effort_is_exported_where_the_world_file_has_it() {
    let effort = fabula_file::Effort {
        plan_calls: 61,
        plan_calls_first_fit: 48,
        plan_starts_above: true,
        candidates: 23,
        near_misses: 14,
        candidates_after_two: Some(6),
    };
    let expected = serde_json::json!({
        "plan_calls": 61, "plan_calls_first_fit": 48, "plan_starts_above": true,
        "candidates": 23, "near_misses": 14, "candidates_after_two": 6
    });
    let task = Task {
        tier: Tier::Frontier,
        effort: Some(effort),
        ..lookup_fixture()
    };
    assert_eq!(jsonl_record(42, &task).unwrap()["effort"], expected);
    assert!(
        jsonl_record(42, &lookup_fixture())
            .unwrap()
            .get("effort")
            .is_none()
    );
    let table = Task {
        effort: Some(effort),
        ..table_fixture()
    };
    let (record, _) = widesearch_record(&table).unwrap().unwrap();
    assert_eq!(record["evaluation"]["effort"], expected);
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[test]
fn jsonl_record_shape() {
    insta::assert_snapshot!(pretty(&jsonl_record(42, &lookup_fixture()).unwrap()));
}

#[test]
fn widesearch_record_shape() {
    assert!(
        widesearch_record(&lookup_fixture()).unwrap().is_none(),
        "short answers are not WideSearch tasks"
    );
    let (record, csv) = widesearch_record(&table_fixture()).unwrap().unwrap();
    // WideSearch's loaders build `WideSearchQuery(**item)`, a dataclass of exactly these fields
    // (and `answer`, which they add): the tier rides inside `evaluation`, which they read by key.
    let mut fields: Vec<&str> = record
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, ["evaluation", "instance_id", "language", "query"]);
    assert_eq!(record["evaluation"]["tier"], "hard");
    // The Hugging Face copy differs only in `evaluation`, the same JSON as a string.
    let hf = widesearch_hf_record(&record);
    let evaluation: serde_json::Value =
        serde_json::from_str(hf["evaluation"].as_str().unwrap()).unwrap();
    assert_eq!(evaluation, record["evaluation"]);
    let mut rest = hf.clone();
    rest["evaluation"] = record["evaluation"].clone();
    assert_eq!(rest, record);
    insta::assert_snapshot!(format!("{}\n\n{csv}", pretty(&record)));
}

#[test]
fn verl_record_shape() {
    let short = verl_record(42, &lookup_fixture(), Split::Test, 0).unwrap();
    let table = verl_record(42, &table_fixture(), Split::Test, 1).unwrap();
    insta::assert_snapshot!(format!("{short:#?}\n\n{table:#?}"));
}

#[test]
fn searchr1_record_shape() {
    let short = searchr1_record(42, &lookup_fixture(), Split::Test, 0).unwrap();
    let table = searchr1_record(42, &table_fixture(), Split::Test, 1).unwrap();
    insta::assert_snapshot!(format!("{}\n\n{}", pretty(&short), pretty(&table)));
}

#[test]
fn corpus_record_shape() {
    let record = corpus_record(
        42,
        7,
        "https://vesspedia.org/wiki/Vess_Hall",
        "Vess Hall",
        "# Vess Hall\n\nA guild.",
    );
    insta::assert_snapshot!(pretty(&record));
}

#[test]
fn exports_write_every_format() {
    let dir = small_dataset();
    let tmp = tempfile::tempdir().unwrap();
    let all = fabula_audit::load_tasks(dir, Split::All).unwrap();

    let out = tmp.path().join("tasks.jsonl");
    let cfg = ExportConfig {
        worlds: dir.to_path_buf(),
        format: Format::Jsonl,
        split: Split::All,
        out: out.clone(),
        tier: None,
    };
    let summary = export_tasks(&cfg).unwrap();
    assert_eq!(summary.records, all.len());
    let read = fabula_score::read_tasks(&out).unwrap();
    assert_eq!(read.len(), all.len());
    assert_eq!(read[0].answer, all[0].answer);
    // Every record carries its tier, and `tier` keeps the tasks of one tier only.
    let tiers = |path: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let record = |line: &str| serde_json::from_str::<serde_json::Value>(line).unwrap();
        text.lines()
            .map(|l| record(l)["tier"].as_str().unwrap().to_owned())
            .collect()
    };
    let all_tiers = tiers(&out);
    let hard = all_tiers.iter().filter(|t| *t == "hard").count();
    assert!(hard > 0 && hard < all.len(), "{all_tiers:?}");
    let hard_out = tmp.path().join("hard.jsonl");
    let summary = export_tasks(&ExportConfig {
        out: hard_out.clone(),
        tier: Some(Tier::Hard),
        ..cfg.clone()
    })
    .unwrap();
    assert_eq!(summary.records, hard);
    assert!(tiers(&hard_out).iter().all(|t| t == "hard"));

    let out = tmp.path().join("ws").join("tasks.jsonl");
    let cfg = ExportConfig {
        format: Format::WideSearch,
        out: out.clone(),
        ..cfg
    };
    let summary = export_tasks(&cfg).unwrap();
    let tables = all
        .iter()
        .filter(|t| t.kind == fabula_score::TaskKind::Table)
        .count();
    assert_eq!((summary.records, summary.gold_files), (tables, tables));
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let id = first["instance_id"].as_str().unwrap();
    let csv = std::fs::read_to_string(
        tmp.path()
            .join("ws/widesearch_gold")
            .join(format!("{id}.csv")),
    )
    .unwrap();
    assert!(csv.lines().count() >= 6, "{csv}");
    let hf = std::fs::read_to_string(tmp.path().join("ws").join(WIDESEARCH_HF_FILE)).unwrap();
    assert_eq!(hf.lines().count(), tables);
    let hf_first: serde_json::Value = serde_json::from_str(hf.lines().next().unwrap()).unwrap();
    assert_eq!(hf_first, widesearch_hf_record(&first));
    let tier = first["evaluation"]["tier"].as_str().unwrap();
    assert!(tier.parse::<Tier>().is_ok(), "{tier}");

    let out = tmp.path().join("train.jsonl");
    let cfg = ExportConfig {
        format: Format::SearchR1,
        split: Split::Train,
        out: out.clone(),
        ..cfg
    };
    let summary = export_tasks(&cfg).unwrap();
    let train = fabula_audit::load_tasks(dir, Split::Train).unwrap();
    assert_eq!(summary.records, train.len());

    let out = tmp.path().join("verl").join("train.parquet");
    let cfg = ExportConfig {
        format: Format::Verl,
        out: out.clone(),
        ..cfg
    };
    let summary = export_tasks(&cfg).unwrap();
    assert_eq!(summary.records, train.len());
    check_verl_parquet(&out, &train);
    let again = tmp.path().join("verl").join("again.parquet");
    export_tasks(&ExportConfig {
        out: again.clone(),
        ..cfg.clone()
    })
    .unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&again).unwrap(),
        "verl export is deterministic"
    );

    // Search-R1's prompt in the same parquet columns, for its trainer.
    let out = tmp.path().join("searchr1").join("train.parquet");
    export_tasks(&ExportConfig {
        format: Format::SearchR1,
        out: out.clone(),
        ..cfg
    })
    .unwrap();
    let rows = read_parquet_rows(&out);
    assert_eq!(rows.len(), train.len());
    for (row, task) in rows.iter().zip(&train) {
        let prompt = row["prompt"][0]["content"].as_str().unwrap();
        assert!(
            prompt.contains("<search>") && prompt.contains(&task.question),
            "{prompt}"
        );
        assert_eq!(row["agent_name"], "single_turn_agent");
        assert_eq!(row["extra_info"]["task_id"], task.id.as_str());
    }

    // The Search-R1 JSONL holds the same rows as its parquet, field for field.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(tmp.path().join("train.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), rows.len());
    for (line, row) in lines.iter().zip(&rows) {
        assert_eq!(line, row);
    }
    assert!(
        lines
            .iter()
            .all(|line| line["reward_model"]["ground_truth"]["answer"].is_string()),
        "the gold answer is JSON text in every row"
    );

    let out = tmp.path().join("corpus.jsonl");
    let summary = export_corpus(dir, &out).unwrap();
    let manifest = fabula_file::read_manifest(dir).unwrap();
    assert_eq!(
        summary.pages,
        manifest.worlds.iter().map(|w| w.pages).sum::<usize>()
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        summary.pages
    );
}

/// Reads a verl export back with the parquet crate's row reader and checks every row against
/// its task: routing, ids, the gold answer as JSON text and the prompt.
fn check_verl_parquet(path: &std::path::Path, tasks: &[fabula_score::TaskRecord]) {
    let rows = read_parquet_rows(path);
    assert_eq!(rows.len(), tasks.len());
    for (index, (row, task)) in rows.iter().zip(tasks).enumerate() {
        let world: i64 = task.world.parse().unwrap();
        let route = serde_json::json!({"create_kwargs": {"world": world}});
        let info = &row["extra_info"];
        assert_eq!(
            info["tools_kwargs"],
            serde_json::json!({"web_search": route, "web_extractor": route})
        );
        assert_eq!(
            (info["index"].as_u64(), info["world"].as_i64()),
            (Some(index as u64), Some(world))
        );
        assert_eq!(info["task_id"], task.id.as_str());
        let tier = info["tier"].as_str().unwrap();
        assert!(tier.parse::<Tier>().is_ok(), "{tier}");
        assert_eq!(
            (row["data_source"].as_str(), row["agent_name"].as_str()),
            (Some("fabula"), Some("tool_agent"))
        );
        let truth = &row["reward_model"]["ground_truth"];
        let answer: serde_json::Value =
            serde_json::from_str(truth["answer"].as_str().unwrap()).unwrap();
        assert_eq!(answer, task.answer);
        let prompt = row["prompt"].as_array().unwrap();
        assert_eq!(prompt.len(), 1);
        assert!(
            prompt[0]["content"]
                .as_str()
                .unwrap()
                .ends_with(&task.question)
                || task.kind == fabula_score::TaskKind::Table
                || task.answer.is_array()
        );
    }
}

/// Every row of a parquet file, as JSON.
fn read_parquet_rows(path: &std::path::Path) -> Vec<serde_json::Value> {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row_json(&row.unwrap()))
        .collect()
}

fn row_json(row: &parquet::record::Row) -> serde_json::Value {
    row.get_column_iter()
        .map(|(name, field)| (name.clone(), field_json(field)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The JSON of the field types a verl export holds.
fn field_json(field: &parquet::record::Field) -> serde_json::Value {
    use parquet::record::Field;
    match field {
        Field::Str(text) => text.as_str().into(),
        Field::Long(n) => (*n).into(),
        Field::Bool(b) => (*b).into(),
        Field::Group(row) => row_json(row),
        Field::ListInternal(list) => list.elements().iter().map(field_json).collect(),
        other => panic!("unexpected field {other:?}"),
    }
}
