//! Scoring one prediction against one gold answer: [`score`] and the [`Score`] it returns.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::gold::{Gold, GoldTable};
use crate::markdown::extract_table;
use crate::metrics::score_cell;
use crate::normalize::{answer_tokens, norm_column, norm_name};
use crate::prediction::{PredictedTable, Prediction};

/// The nine figures of a score, each `None` where it does not apply to the kind of answer: short
/// answers fill `em` and `f1`, tables fill the rest. A prediction's [`Score`] holds them, and so
/// does a task's Avg@N or Max@N over its attempts ([`TaskScore`](crate::TaskScore)).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Figures {
    /// Normalised exact match, 0.0 or 1.0 (short answers).
    pub em: Option<f64>,
    /// Token F1, or item F1 for list answers (short answers).
    pub f1: Option<f64>,
    /// 1.0 when every row and item precision and recall is 1.0 (tables).
    pub success: Option<f64>,
    /// Row-level precision (tables).
    pub row_precision: Option<f64>,
    /// Row-level recall (tables).
    pub row_recall: Option<f64>,
    /// Row-level F1 (tables).
    pub row_f1: Option<f64>,
    /// Item-level precision (tables).
    pub item_precision: Option<f64>,
    /// Item-level recall (tables).
    pub item_recall: Option<f64>,
    /// Item-level F1 (tables).
    pub item_f1: Option<f64>,
}

impl Figures {
    /// Every figure, in [`FIGURES`] order.
    pub fn to_array(self) -> [Option<f64>; 9] {
        [
            self.em,
            self.f1,
            self.success,
            self.row_precision,
            self.row_recall,
            self.row_f1,
            self.item_precision,
            self.item_recall,
            self.item_f1,
        ]
    }

    /// The figures of an array in [`FIGURES`] order.
    pub fn from_array(figures: [Option<f64>; 9]) -> Figures {
        let [
            em,
            f1,
            success,
            row_precision,
            row_recall,
            row_f1,
            item_precision,
            item_recall,
            item_f1,
        ] = figures;
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
        }
    }
}

/// The scores of one prediction: its [`Figures`] (written inline in JSON) and what was wrong
/// with it beyond wrong values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The figures; those that do not apply to the kind of answer are `None`.
    #[serde(flatten)]
    pub figures: Figures,
    /// What was wrong with the prediction, beyond wrong values.
    pub issues: Vec<ScoreIssue>,
}

/// Something about a prediction that the scores alone do not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "issue", rename_all = "snake_case")]
pub enum ScoreIssue {
    /// A table task got an answer with no table in it; every table score is 0.
    NoTable,
    /// A gold column has no predicted column of the same normalised name. As in WideSearch's
    /// evaluator, the table is then unusable and every table figure is 0.
    MissingColumn {
        /// The gold column name.
        column: String,
    },
    /// A predicted column (with a non-empty name) matches no gold column, or repeats an earlier
    /// predicted column's normalised name. As in WideSearch's evaluator, the table is then
    /// unusable and every table figure is 0.
    ExtraColumn {
        /// The predicted column name as written.
        column: String,
    },
    /// Predicted rows repeating an earlier row's key were dropped (WideSearch keeps the first).
    DuplicateRows {
        /// How many rows were dropped.
        n_dropped: usize,
    },
    /// Gold rows repeating an earlier row's key were dropped; a bug in the gold answer.
    DuplicateGoldRows {
        /// How many rows were dropped.
        n_dropped: usize,
    },
    /// Predicted rows had fewer cells than columns; the missing cells read as empty.
    ShortRows {
        /// How many rows were short.
        n_rows: usize,
    },
}

impl ScoreIssue {
    /// Whether this issue means the prediction's table could not be used at all.
    pub fn is_malformed_table(&self) -> bool {
        matches!(
            self,
            ScoreIssue::NoTable | ScoreIssue::MissingColumn { .. } | ScoreIssue::ExtraColumn { .. }
        )
    }
}

/// Which figure [`Score::reward_with`] returns for short answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShortReward {
    /// Normalised exact match: 0 or 1.
    #[default]
    ExactMatch,
    /// Token F1 (item F1 for lists): partial credit.
    TokenF1,
}

/// Which figure [`Score::reward_with`] returns for tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableReward {
    /// Item-level F1, WideSearch's headline metric.
    #[default]
    ItemF1,
    /// Row-level F1.
    RowF1,
    /// Success: 1 only for a perfect table.
    Success,
}

/// How [`Score::reward_with`] turns a score into one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RewardConfig {
    /// The figure for short answers.
    pub short: ShortReward,
    /// The figure for tables.
    pub table: TableReward,
}

/// The names of a score's figures, in the order [`Figures::to_array`] gives them (and `fabula eval`
/// reports them).
pub const FIGURES: [&str; 9] = [
    "em",
    "f1",
    "success",
    "row_precision",
    "row_recall",
    "row_f1",
    "item_precision",
    "item_recall",
    "item_f1",
];

impl Score {
    /// The reward under the default [`RewardConfig`]: exact match for short answers, item F1
    /// for tables.
    pub fn reward(&self) -> f64 {
        self.reward_with(&RewardConfig::default())
    }

    /// The reward under a chosen [`RewardConfig`]; 0.0 when the figure does not apply.
    pub fn reward_with(&self, config: &RewardConfig) -> f64 {
        let figure = if self.is_table() {
            match config.table {
                TableReward::ItemF1 => self.figures.item_f1,
                TableReward::RowF1 => self.figures.row_f1,
                TableReward::Success => self.figures.success,
            }
        } else {
            match config.short {
                ShortReward::ExactMatch => self.figures.em,
                ShortReward::TokenF1 => self.figures.f1,
            }
        };
        figure.unwrap_or(0.0)
    }

    /// Whether this is the score of a table answer.
    pub fn is_table(&self) -> bool {
        self.figures.item_f1.is_some()
    }

    /// The score of a missing prediction for a gold answer: zero wherever a figure applies.
    pub fn zero(gold: &Gold) -> Score {
        if gold.is_table() {
            table_score(&TableCounts::default(), Vec::new())
        } else {
            short_score(0.0, 0.0)
        }
    }
}

/// Scores a prediction against a gold answer.
///
/// ```
/// use fabula_score::{score, Gold, Prediction};
/// let gold = Gold::from_json(&serde_json::json!("12,345")).unwrap();
/// let scored = score(&gold, &Prediction::from_text("12345.0"));
/// assert_eq!((scored.figures.em, scored.figures.f1), (Some(1.0), Some(1.0)));
/// ```
pub fn score(gold: &Gold, prediction: &Prediction) -> Score {
    match gold {
        Gold::Text(gold) => score_text(gold, prediction),
        Gold::List(gold) => score_list(gold, prediction),
        Gold::Table(gold) => score_table(gold, prediction),
    }
}

/// A short-answer score.
fn short_score(em: f64, f1: f64) -> Score {
    Score {
        figures: Figures {
            em: Some(em),
            f1: Some(f1),
            ..Figures::default()
        },
        issues: Vec::new(),
    }
}

/// The prediction flattened to one text, for a gold answer that is one text.
fn prediction_text(prediction: &Prediction) -> String {
    match prediction {
        Prediction::Text(text) => text.clone(),
        Prediction::List(items) => items.join(", "),
        Prediction::Table(table) => table
            .rows
            .iter()
            .map(|row| row.join(" "))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Exact match and SQuAD token F1 for a single short answer.
fn score_text(gold: &str, prediction: &Prediction) -> Score {
    let gold_tokens = answer_tokens(gold);
    let predicted_tokens = answer_tokens(&prediction_text(prediction));
    let em = if gold_tokens == predicted_tokens {
        1.0
    } else {
        0.0
    };
    short_score(em, token_f1(&gold_tokens, &predicted_tokens))
}

/// SQuAD's token F1 over multisets of tokens; 1.0 when both are empty.
fn token_f1(gold: &[String], predicted: &[String]) -> f64 {
    if gold.is_empty() || predicted.is_empty() {
        return if gold.is_empty() && predicted.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let mut gold_counts: HashMap<&str, usize> = HashMap::new();
    for token in gold {
        *gold_counts.entry(token).or_default() += 1;
    }
    let mut n_same = 0usize;
    for token in predicted {
        if let Some(count) = gold_counts.get_mut(token.as_str())
            && *count > 0
        {
            *count -= 1;
            n_same += 1;
        }
    }
    f1_from_counts(n_same, predicted.len(), gold.len())
}

/// F1 from an overlap and the two sizes; 0.0 without overlap.
fn f1_from_counts(n_same: usize, n_predicted: usize, n_gold: usize) -> f64 {
    if n_same == 0 {
        return 0.0;
    }
    let precision = n_same as f64 / n_predicted as f64;
    let recall = n_same as f64 / n_gold as f64;
    f1(precision, recall)
}

/// The harmonic mean, 0.0 when both are 0.
fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall > 1e-9 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// The prediction as a list of items, for a list gold answer.
fn prediction_items(prediction: &Prediction) -> Vec<String> {
    match prediction {
        Prediction::Text(text) => split_list(text),
        Prediction::List(items) => items.clone(),
        Prediction::Table(table) => table
            .rows
            .iter()
            .filter_map(|row| row.first().cloned())
            .collect(),
    }
}

/// Splits a free-text list into items: on new lines and `;`, and on commas that are not between
/// two digits (so `12,345` stays whole); a leading bullet (`-`, `*`, `•`, `1.`) and a leading
/// `and ` or `or ` are removed from each item.
pub(crate) fn split_list(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut items = Vec::new();
    let mut item = String::new();
    for (idx, &c) in chars.iter().enumerate() {
        let between_digits = idx > 0
            && chars[idx - 1].is_ascii_digit()
            && chars.get(idx + 1).is_some_and(char::is_ascii_digit);
        if c == '\n' || c == ';' || (c == ',' && !between_digits) {
            items.push(std::mem::take(&mut item));
        } else {
            item.push(c);
        }
    }
    items.push(item);
    items
        .iter()
        .map(|item| clean_list_item(item))
        .filter(|item| !item.is_empty())
        .collect()
}

/// Removes list markup from one item.
fn clean_list_item(item: &str) -> String {
    let mut item = item.trim();
    if let Some(rest) = item.strip_prefix(['-', '*', '•']) {
        item = rest.trim_start();
    } else {
        let digits = item.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0
            && let Some(rest) = item[digits..].strip_prefix(['.', ')'])
            && rest.starts_with(' ')
        {
            item = rest.trim_start();
        }
    }
    for conjunction in ["and ", "or "] {
        if item.len() > conjunction.len()
            && item
                .get(..conjunction.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(conjunction))
        {
            item = item[conjunction.len()..].trim_start();
        }
    }
    item.to_string()
}

/// Set exact match and item F1 for a list answer.
fn score_list(gold: &[String], prediction: &Prediction) -> Score {
    let normalise = |items: &[String]| -> HashSet<String> {
        items
            .iter()
            .map(|item| answer_tokens(item).join(" "))
            .filter(|item| !item.is_empty())
            .collect()
    };
    let gold_set = normalise(gold);
    let predicted_set = normalise(&prediction_items(prediction));
    let em = if gold_set == predicted_set { 1.0 } else { 0.0 };
    let f1 = if gold_set.is_empty() && predicted_set.is_empty() {
        1.0
    } else {
        let n_same = gold_set.intersection(&predicted_set).count();
        f1_from_counts(n_same, predicted_set.len(), gold_set.len())
    };
    short_score(em, f1)
}

/// The tallies behind the table scores.
#[derive(Debug, Clone, Copy, Default)]
struct TableCounts {
    n_predicted_rows: usize,
    n_gold_rows: usize,
    n_columns: usize,
    tp_row: f64,
    tp_item: f64,
}

/// WideSearch's table scores from the tallies.
fn table_score(counts: &TableCounts, issues: Vec<ScoreIssue>) -> Score {
    let ratio = |numerator: f64, denominator: usize| {
        if denominator > 0 {
            numerator / denominator as f64
        } else {
            0.0
        }
    };
    let row_precision = ratio(counts.tp_row, counts.n_predicted_rows);
    let row_recall = ratio(counts.tp_row, counts.n_gold_rows);
    let item_precision = ratio(counts.tp_item, counts.n_predicted_rows * counts.n_columns);
    let item_recall = ratio(counts.tp_item, counts.n_gold_rows * counts.n_columns);
    let perfect = [row_precision, row_recall, item_precision, item_recall]
        .iter()
        .all(|&figure| figure == 1.0);
    Score {
        figures: Figures {
            em: None,
            f1: None,
            success: Some(if perfect { 1.0 } else { 0.0 }),
            row_precision: Some(row_precision),
            row_recall: Some(row_recall),
            row_f1: Some(f1(row_precision, row_recall)),
            item_precision: Some(item_precision),
            item_recall: Some(item_recall),
            item_f1: Some(f1(item_precision, item_recall)),
        },
        issues,
    }
}

/// The prediction as a table, or `None` when it holds none. A list answers a one-column table.
fn prediction_table(gold: &GoldTable, prediction: &Prediction) -> Option<PredictedTable> {
    match prediction {
        Prediction::Table(table) => Some(table.clone()),
        Prediction::Text(text) => extract_table(text),
        Prediction::List(items) if items.is_empty() => Some(PredictedTable::default()),
        Prediction::List(items) if gold.columns().len() == 1 => Some(PredictedTable {
            columns: None,
            rows: items.iter().map(|item| vec![item.clone()]).collect(),
        }),
        Prediction::List(_) => None,
    }
}

/// Keeps the first row of each key and returns how many rows were dropped.
fn drop_duplicate_keys<T>(rows: Vec<(Vec<String>, T)>) -> (Vec<(Vec<String>, T)>, usize) {
    let mut seen = HashSet::new();
    let n_rows = rows.len();
    let kept: Vec<_> = rows
        .into_iter()
        .filter(|(key, _)| seen.insert(key.clone()))
        .collect();
    let n_dropped = n_rows - kept.len();
    (kept, n_dropped)
}

/// Maps each gold column to the index of its predicted column, or returns `None` (recording
/// why in `issues`) when the predicted columns are not exactly the gold columns.
///
/// Named columns match after [`norm_column`]; predicted columns whose normalised name is empty
/// are ignored, as WideSearch drops pandas' `Unnamed` columns. Like WideSearch's
/// `evaluate_single_query`, which returns all zeros unless `set(required_columns) ==
/// set(response_df.columns)`, a missing gold column, an extra predicted column or a predicted
/// column named twice makes the whole table unusable. Rows given without names are read in
/// gold column order.
fn map_columns(
    gold: &GoldTable,
    table: &PredictedTable,
    issues: &mut Vec<ScoreIssue>,
) -> Option<Vec<usize>> {
    let Some(written) = &table.columns else {
        return Some((0..gold.columns().len()).collect());
    };
    let gold_names: Vec<String> = gold.columns().iter().map(|c| norm_column(c)).collect();
    let names: Vec<String> = written.iter().map(|name| norm_column(name)).collect();
    let mut usable = true;
    for (idx, name) in names.iter().enumerate() {
        let repeated = names[..idx].contains(name);
        if !name.is_empty() && (repeated || !gold_names.contains(name)) {
            usable = false;
            issues.push(ScoreIssue::ExtraColumn {
                column: written[idx].clone(),
            });
        }
    }
    let mut column_map = Vec::with_capacity(gold_names.len());
    for (idx, gold_name) in gold_names.iter().enumerate() {
        match names.iter().position(|name| name == gold_name) {
            Some(position) => column_map.push(position),
            None => {
                usable = false;
                issues.push(ScoreIssue::MissingColumn {
                    column: gold.columns()[idx].clone(),
                });
            }
        }
    }
    usable.then_some(column_map)
}

/// WideSearch's table scoring, with keys aligned by [`norm_name`] instead of an LLM.
fn score_table(gold: &GoldTable, prediction: &Prediction) -> Score {
    let mut issues = Vec::new();
    let mut counts = TableCounts {
        n_columns: gold.columns().len(),
        ..TableCounts::default()
    };

    let gold_rows: Vec<(Vec<String>, &Vec<String>)> = gold
        .rows()
        .iter()
        .map(|row| {
            (
                gold.key().iter().map(|&idx| norm_name(&row[idx])).collect(),
                row,
            )
        })
        .collect();
    let (gold_rows, n_gold_dropped) = drop_duplicate_keys(gold_rows);
    if n_gold_dropped > 0 {
        issues.push(ScoreIssue::DuplicateGoldRows {
            n_dropped: n_gold_dropped,
        });
    }
    counts.n_gold_rows = gold_rows.len();

    let Some(table) = prediction_table(gold, prediction) else {
        issues.push(ScoreIssue::NoTable);
        return table_score(&counts, issues);
    };

    let Some(column_map) = map_columns(gold, &table, &mut issues) else {
        return table_score(&counts, issues);
    };
    let n_predicted_columns = match &table.columns {
        Some(names) => names.len(),
        None => gold.columns().len(),
    };

    let n_short = table
        .rows
        .iter()
        .filter(|row| row.len() < n_predicted_columns)
        .count();
    if n_short > 0 {
        issues.push(ScoreIssue::ShortRows { n_rows: n_short });
    }
    let cell = |row: &[String], column_idx: usize| -> String {
        row.get(column_map[column_idx]).cloned().unwrap_or_default()
    };
    let predicted_rows: Vec<(Vec<String>, Vec<String>)> = table
        .rows
        .iter()
        .map(|row| {
            let key = gold
                .key()
                .iter()
                .map(|&idx| norm_name(&cell(row, idx)))
                .collect();
            (key, row.clone())
        })
        .collect();
    let (predicted_rows, n_dropped) = drop_duplicate_keys(predicted_rows);
    if n_dropped > 0 {
        issues.push(ScoreIssue::DuplicateRows { n_dropped });
    }
    counts.n_predicted_rows = predicted_rows.len();

    let predicted_by_key: HashMap<&Vec<String>, &Vec<String>> =
        predicted_rows.iter().map(|(key, row)| (key, row)).collect();
    for (key, gold_row) in &gold_rows {
        let Some(predicted_row) = predicted_by_key.get(key) else {
            continue;
        };
        let mut row_min = 1.0f64;
        for (column_idx, gold_cell) in gold_row.iter().enumerate() {
            let cell_score = if gold.is_key(column_idx) {
                1.0
            } else {
                score_cell(
                    gold.metrics()[column_idx],
                    &cell(predicted_row, column_idx),
                    gold_cell,
                    gold.tolerances()[column_idx],
                )
            };
            row_min = row_min.min(cell_score);
            counts.tp_item += cell_score;
        }
        counts.tp_row += row_min;
    }
    table_score(&counts, issues)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_list_handles_prose_lists() {
        assert_eq!(split_list("Vess, Orr, and Kael"), ["Vess", "Orr", "Kael"]);
        assert_eq!(
            split_list("- Vess\n- 12,345\n2. Orr"),
            ["Vess", "12,345", "Orr"]
        );
        assert_eq!(split_list("Salt and Iron; Oral"), ["Salt and Iron", "Oral"]);
        // A multi-byte character across the length of `and ` must not be sliced through.
        assert_eq!(split_list("abcé, oré x"), ["abcé", "oré x"]);
    }

    #[test]
    fn token_f1_counts_multisets() {
        let tokens = |text: &str| answer_tokens(text);
        assert_eq!(
            token_f1(&tokens("x b b c"), &tokens("b b")),
            2.0 * 1.0 * 0.5 / 1.5
        );
        assert_eq!(token_f1(&tokens(""), &tokens("")), 1.0);
        assert_eq!(token_f1(&tokens("x"), &tokens("")), 0.0);
    }

    #[test]
    fn reward_follows_the_config() {
        let short = short_score(0.0, 0.5);
        assert_eq!(short.reward(), 0.0);
        let config = RewardConfig {
            short: ShortReward::TokenF1,
            table: TableReward::Success,
        };
        assert_eq!(short.reward_with(&config), 0.5);
        let counts = TableCounts {
            n_predicted_rows: 2,
            n_gold_rows: 2,
            n_columns: 2,
            tp_row: 1.0,
            tp_item: 3.0,
        };
        let table = table_score(&counts, Vec::new());
        assert_eq!(table.reward(), 0.75);
        assert_eq!(table.reward_with(&config), 0.0);
    }
}
