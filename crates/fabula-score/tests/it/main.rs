//! Integration tests for fabula-score: every scoring rule against hand-computed cases.
//!
//! All cases go through [`check`], which scores a prediction and compares a one-line dump of the
//! whole [`Score`] with the expected text. Figures are printed to four decimals.

mod eval;
mod short;
mod table;
mod widesearch;

use fabula_score::{Figures, Gold, Prediction, Score, score};
use serde_json::Value;

/// Formats a figure to four decimals without trailing zeros.
fn figure(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

/// Dumps every field of a score on one line. Short answers read `em=.. f1=..`; tables read
/// `success=.. row=P/R/F1 item=P/R/F1`, followed by the issues when there are any.
fn dump(scored: &Score) -> String {
    let Score {
        figures:
            Figures {
                em,
                f1,
                success,
                row_precision,
                row_recall,
                row_f1,
                item_precision,
                item_recall,
                item_f1,
            },
        issues,
    } = scored;
    let table = [
        success,
        row_precision,
        row_recall,
        row_f1,
        item_precision,
        item_recall,
        item_f1,
    ];
    let mut out = match (em, f1) {
        (Some(em), Some(f1)) => {
            assert!(
                table.iter().all(|value| value.is_none()),
                "a short answer with table figures"
            );
            format!("em={} f1={}", figure(*em), figure(*f1))
        }
        (None, None) => {
            let [success, row_p, row_r, row_f1, item_p, item_r, item_f1] =
                table.map(|value| figure(value.expect("a table figure is missing")));
            format!(
                "success={success} row={row_p}/{row_r}/{row_f1} item={item_p}/{item_r}/{item_f1}"
            )
        }
        _ => panic!("em and f1 must be set together"),
    };
    if !issues.is_empty() {
        out.push_str(&format!(" issues={issues:?}"));
    }
    out
}

/// Scores `prediction` against the gold answer `gold` and compares the dump with `expect`.
#[track_caller]
fn check(gold: &Value, prediction: &Prediction, expect: &str) {
    let gold = Gold::from_json(gold).expect("the gold answer parses");
    let scored = score(&gold, prediction);
    assert_eq!(dump(&scored), expect, "prediction: {prediction:?}");
}

/// A prediction written as text.
fn text(prediction: &str) -> Prediction {
    Prediction::from_text(prediction)
}

/// A prediction written as JSON.
fn json(prediction: Value) -> Prediction {
    Prediction::from_json(&prediction)
}
