//! Exports: exact record shapes on a hand-made fixture, files on a written dataset, and splits.

use std::collections::BTreeMap;

use fabula_bench::export::{corpus_record, jsonl_record, searchr1_record, widesearch_record};
use fabula_bench::{ExportConfig, Format, Split, export_corpus, export_tasks, split_of};
use fabula_file::{Task, TaskKind};

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
    }
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
    let evaluation: serde_json::Value =
        serde_json::from_str(record["evaluation"].as_str().unwrap()).unwrap();
    insta::assert_snapshot!(format!(
        "{}\n\nevaluation = {}\n\n{csv}",
        pretty(&record),
        pretty(&evaluation)
    ));
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
fn splits_are_stable_and_near_80_10_10() {
    let mut counts: BTreeMap<Split, usize> = BTreeMap::new();
    for id in 0..10_000 {
        *counts.entry(split_of(id)).or_default() += 1;
    }
    let share = |s: Split| counts[&s] as f64 / 10_000.0;
    assert!((0.78..0.82).contains(&share(Split::Train)), "{counts:?}");
    assert!((0.09..0.11).contains(&share(Split::Dev)), "{counts:?}");
    assert!((0.09..0.11).contains(&share(Split::Test)), "{counts:?}");
    // The hash is part of the format: these assignments must never change.
    let first: Vec<&str> = (0..20).map(|id| split_of(id).as_str()).collect();
    insta::assert_snapshot!(first.join(" "));
}

#[test]
fn exports_write_every_format() {
    let dir = small_dataset();
    let tmp = tempfile::tempdir().unwrap();
    let all = fabula_bench::load_tasks(dir, Split::All).unwrap();

    let out = tmp.path().join("tasks.jsonl");
    let cfg = ExportConfig {
        worlds: dir.to_path_buf(),
        format: Format::Jsonl,
        split: Split::All,
        out: out.clone(),
    };
    let summary = export_tasks(&cfg).unwrap();
    assert_eq!(summary.records, all.len());
    let read = fabula_score::read_tasks(&out).unwrap();
    assert_eq!(read.len(), all.len());
    assert_eq!(read[0].answer, all[0].answer);

    let out = tmp.path().join("ws").join("tasks.jsonl");
    let cfg = ExportConfig {
        format: Format::WideSearch,
        out: out.clone(),
        ..cfg
    };
    let summary = export_tasks(&cfg).unwrap();
    let tables = all.iter().filter(|t| t.kind == TaskKind::Table).count();
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

    let out = tmp.path().join("train.jsonl");
    let cfg = ExportConfig {
        format: Format::SearchR1,
        split: Split::Train,
        out: out.clone(),
        ..cfg
    };
    let summary = export_tasks(&cfg).unwrap();
    let train = fabula_bench::load_tasks(dir, Split::Train).unwrap();
    assert_eq!(summary.records, train.len());

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
