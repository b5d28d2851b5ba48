//! Deterministic scoring of answers for fabula tasks: the reward function trainers call.
//!
//! A gold answer ([`Gold`]) is a string, a list of strings, or a WideSearch-style table; a
//! prediction ([`Prediction`]) is whatever the agent wrote: text, a JSON list, JSON rows, or a
//! Markdown table. [`score`] compares the two and returns a [`Score`]; [`Score::reward`] turns it
//! into one number. [`evaluate`] scores whole task and prediction files ([`read_tasks`],
//! [`read_predictions`]) into an [`EvalReport`] with Avg@N and Max@N over repeated attempts;
//! [`widesearch`] reads WideSearch's task files, gold CSVs and response files into the same
//! records.
//! The crate depends only on serde, serde_json and thiserror.
//!
//! Python trainers call this crate itself: `crates/fabula-py` compiles it into fabula-env's
//! wheel (PyO3), so the reward verl calls and `fabula eval` are one code.
//!
//! # Short answers
//!
//! Exact match and token F1 follow SQuAD on the tokens of [`normalize::answer_tokens`]:
//! lowercase; split on whitespace; a token that is a plainly written number (optional sign,
//! digits plain or grouped by commas, optional fraction, optional `%`) becomes its canonical
//! form, so `12,345`, `12345` and `12345.0` agree; other tokens lose all punctuation; the
//! articles `a`, `an`, `the` are dropped; a token that is a full numeric date (`1987-03-05`,
//! `03/05/1987`) becomes `YYYY-MM-DD`. An answer that is wholly a date with a month
//! (`March 5, 1987`, `1987-03-05`, `03/05/1987`) becomes `YYYY-MM-DD` (or `YYYY-MM`). EM is 1.0
//! when the token sequences are equal; F1 is SQuAD's token-multiset F1.
//!
//! A list answer compares as a set of normalised items: EM is 1.0 when the sets are equal, F1 is
//! the F1 of the item overlap. A text prediction for a list is split on new lines, `;` and
//! commas not between digits, with bullets and a leading `and`/`or` removed.
//!
//! [`Score::reward`] uses EM for short answers (binary and hard to game); pass a
//! [`RewardConfig`] to [`Score::reward_with`] for token F1 instead.
//!
//! # Tables
//!
//! Tables follow WideSearch's evaluator (ByteDance-Seed/WideSearch, `evaluation.py`):
//!
//! 1. The table is found in the text: a ` ```markdown ` block, else any pipe table
//!    ([`markdown::extract_table`]); or it is given as JSON rows.
//! 2. Column names are matched after [`normalize::norm_column`]: strip, lowercase, remove
//!    spaces, and (fabula's stand-in for the LLM column mapping) drop `*`, `` ` `` and `_`.
//!    Rows given as JSON lists without names are read in gold column order. As in
//!    `evaluate_single_query`, which returns all zeros unless `set(required_columns) ==
//!    set(response_df.columns)`, the predicted columns must be exactly the gold columns: a
//!    missing gold column, an extra predicted column or a column named twice (pandas would
//!    rename it `name.1`) scores 0 in every figure. A predicted column with an empty name is
//!    ignored, as WideSearch drops pandas' `Unnamed` columns.
//! 3. Key cells are normalised with [`normalize::norm_name`]: WideSearch's `norm_str` (lowercase,
//!    drop spaces and `*`) widened to fold what the official scorer leaves to an LLM, and only
//!    that: a cell that is one Markdown link reads as its text; full-width ASCII reads as ASCII;
//!    all Unicode whitespace, zero-width characters, soft hyphens, backticks and straight or
//!    typographic quotes are dropped; typographic dashes read as `-`; everything is lowercased.
//!    Diacritics are not stripped. Keys are canonical names, so no other alignment is done.
//! 4. Rows repeating an earlier row's normalised key are dropped, the first kept, and counted.
//! 5. Prediction and gold are inner-joined on the normalised key. Key cells of a joined row
//!    score 1; every other cell scores with its column's [`Metric`] ([`metrics::score_cell`]):
//!    `exact` (norm_name, then case-insensitive equality), `number` (WideSearch's
//!    `extract_number`, then `number_near`: `|r - t| <= |t| * tolerance`, a `%` value divided
//!    by 100; the default tolerance is 0.0, meaning exact numeric equality), `date` (`norm_date`,
//!    then `date_near`: at most 31 days apart), `in` (norm_name, then the prediction is a
//!    non-empty substring of the gold cell) and `url` (the same set of URL hosts).
//! 6. A row's score is the minimum of its cell scores over all gold columns; `tp_row` sums row
//!    scores and `tp_item` cell scores. With `p` predicted rows, `g` gold rows and `c` columns
//!    (after dropping duplicates): `P_row = tp_row / p`, `R_row = tp_row / g`,
//!    `P_item = tp_item / (p * c)`, `R_item = tp_item / (g * c)`, `F1 = 2PR / (P + R)` (0 when
//!    `P + R` is 0, and every ratio is 0 when its denominator is). Success is 1.0 when all four
//!    of P and R are 1.0.
//!
//! Where WideSearch pays 1.0 for two unusable cells (two non-numbers, two non-dates, no URLs on
//! either side, an empty `in` response) fabula asks for agreement under `norm_name` instead, and
//! partial dates are read deterministically; see [`metrics`] and the `fabula-date` crate. [`Score::reward`]
//! uses item F1 for tables, WideSearch's headline figure.

mod date;
mod error;
mod eval;
mod gold;
pub mod markdown;
pub mod metrics;
pub mod normalize;
mod prediction;
mod score;
pub mod widesearch;

pub use error::{Error, Result};
pub use eval::{
    Counts, EvalReport, PredictionRecord, Summary, TaskKind, TaskRecord, TaskScore, evaluate,
    read_predictions, read_tasks,
};
pub use gold::{Gold, GoldTable};
pub use metrics::Metric;
pub use prediction::{PredictedTable, Prediction};
pub use score::{
    FIGURES, Figures, RewardConfig, Score, ScoreIssue, ShortReward, TableReward, score,
};
