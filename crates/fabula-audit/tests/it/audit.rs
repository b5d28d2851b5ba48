//! `fabula audit` on a small dataset: every task is counted once per breakdown, the figures are
//! shares, the guessers apply to short answers only, the report does not depend on the thread
//! count, and with a server the baseline agent's reward is filled in.

use fabula_audit::{AuditConfig, AuditReport, AuditRow, audit, load_tasks, render_audit};
use fabula_file::Split;

use crate::common::small_dataset;
use crate::stub;

fn run(jobs: usize, addr: Option<String>) -> AuditReport {
    let config = AuditConfig {
        addr,
        jobs,
        ..AuditConfig::default()
    };
    audit(small_dataset(), &config).unwrap()
}

fn tasks_where(report: &AuditReport, keep: impl Fn(&AuditRow) -> bool) -> usize {
    report
        .rows
        .iter()
        .filter(|r| keep(r))
        .map(|r| r.tasks)
        .sum()
}

#[test]
fn every_task_is_counted_once_in_each_breakdown() {
    let report = run(2, None);
    let tasks = load_tasks(small_dataset(), Split::All).unwrap();
    assert_eq!(report.worlds, 6);
    assert_eq!(report.tasks, tasks.len());
    let by_kind_and_tier = tasks_where(&report, |r| r.kind != "all");
    let by_tier = tasks_where(&report, |r| r.kind == "all" && r.tier != "all");
    let everything = tasks_where(&report, |r| r.kind == "all" && r.tier == "all");
    assert_eq!(
        (by_kind_and_tier, by_tier, everything),
        (tasks.len(), tasks.len(), tasks.len())
    );
    let most_pages = tasks
        .iter()
        .map(|t| t.evidence.as_array().unwrap().len())
        .max()
        .unwrap();
    let all = report.rows.last().unwrap();
    assert_eq!(all.pages_max, most_pages);
    for row in &report.rows {
        for share in [row.answer_in_results, row.answer_in_question, row.one_page] {
            assert!((0.0..=1.0).contains(&share), "{row:?}");
        }
        assert_eq!(row.agent, None);
        if row.kind == "table" {
            assert_eq!(
                (row.most_common, row.random_entity, row.first_option),
                (None, None, None)
            );
        }
        if row.tier == "easy" && row.kind != "compare" && row.kind != "all" {
            assert!(row.one_page > 0.0 || row.answer_in_results > 0.0, "{row:?}");
        }
        // A comparison names its options, so only the pages it needs make it hard.
        if row.tier == "hard" {
            let shown =
                ["compare", "all"].contains(&row.kind.as_str()) || row.answer_in_results == 0.0;
            assert!(row.pages_mean >= 4.0 && shown, "{row:?}");
        }
    }
    assert_eq!(run(1, None), report, "the thread count changes nothing");
    assert_eq!(
        report.tier_disagreements, 0,
        "the generator stored the measured tiers"
    );
    let text = render_audit(&report);
    assert!(
        text.starts_with("6 worlds, ") && text.contains("in results"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "disagree with the measure: 0 of {}\n",
            tasks.len()
        )),
        "{text}"
    );
}

#[test]
fn with_a_server_the_baseline_agent_is_scored_per_tier() {
    let addr = stub::start(small_dataset());
    let report = run(2, Some(addr));
    for row in &report.rows {
        let agent = row.agent.expect("every row has the agent's reward");
        assert!((0.0..=1.0).contains(&agent), "{row:?}");
    }
    let lookups = report
        .rows
        .iter()
        .find(|r| r.kind == "lookup" && r.tier == "easy")
        .unwrap();
    assert!(lookups.agent.unwrap() > 0.5, "{lookups:?}");
}
