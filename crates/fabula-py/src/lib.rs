//! `fabula_env._native`: fabula-score compiled into a Python extension module, so that the
//! reward trainers call is the very code `fabula eval` runs (there is no Python port to keep
//! equal).
//!
//! The module is small on purpose: values cross the boundary as JSON text (a gold answer, a
//! prediction, an evaluation report), which `fabula_env.score` parses and types on the Python
//! side. Scoring itself holds no Python object, so it runs with the interpreter's lock released.

use fabula_score::{FIGURES, RewardConfig, ShortReward, TableReward};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    fabula_env._native,
    InvalidGold,
    PyValueError,
    "A gold answer that is not a string, a list of strings or a table."
);

/// A task's gold answer.
#[pyclass(frozen, module = "fabula_env._native")]
struct Gold(fabula_score::Gold);

#[pymethods]
impl Gold {
    /// Reads a gold answer from JSON text, as tasks files hold it; `InvalidGold` otherwise.
    #[staticmethod]
    fn from_json_text(text: &str) -> PyResult<Gold> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|err| InvalidGold::new_err(err.to_string()))?;
        fabula_score::Gold::from_json(&value)
            .map(Gold)
            .map_err(|err| InvalidGold::new_err(err.to_string()))
    }

    /// Whether the answer is a table.
    fn is_table(&self) -> bool {
        self.0.is_table()
    }
}

/// What an agent answered.
#[pyclass(frozen, module = "fabula_env._native")]
struct Prediction(fabula_score::Prediction);

#[pymethods]
impl Prediction {
    /// Reads a prediction given as JSON text (a string, a list, rows, `{"answer": ..}`).
    #[staticmethod]
    fn from_json_text(text: &str) -> PyResult<Prediction> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|err| PyValueError::new_err(err.to_string()))?;
        Ok(Prediction(fabula_score::Prediction::from_json(&value)))
    }

    /// Reads a prediction written as free text (a short answer, a list, a Markdown table).
    #[staticmethod]
    fn from_text(text: &str) -> Prediction {
        Prediction(fabula_score::Prediction::from_text(text))
    }
}

/// The scores of one prediction: figures that do not apply to the answer's kind are `None`.
#[pyclass(frozen, module = "fabula_env._native")]
struct Score(fabula_score::Score);

#[pymethods]
impl Score {
    /// The figures by name (`FIGURES`' order), `None` where one does not apply.
    fn figures(&self) -> Vec<(&'static str, Option<f64>)> {
        FIGURES.into_iter().zip(self.0.figures.to_array()).collect()
    }

    /// The reward: `short` is `"em"` or `"f1"`, `table` is `"item_f1"`, `"row_f1"` or
    /// `"success"`.
    #[pyo3(signature = (short = "em", table = "item_f1"))]
    fn reward(&self, short: &str, table: &str) -> PyResult<f64> {
        let config = RewardConfig {
            short: short_reward(short)?,
            table: table_reward(table)?,
        };
        Ok(self.0.reward_with(&config))
    }

    /// Whether this is the score of a table answer.
    fn is_table(&self) -> bool {
        self.0.is_table()
    }

    /// What was wrong with the prediction beyond wrong values, as JSON text (a list of
    /// `{"issue": .., ...}` objects).
    fn issues_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.0.issues).map_err(|err| PyValueError::new_err(err.to_string()))
    }
}

fn short_reward(name: &str) -> PyResult<ShortReward> {
    match name {
        "em" => Ok(ShortReward::ExactMatch),
        "f1" => Ok(ShortReward::TokenF1),
        _ => Err(PyValueError::new_err(format!(
            "unknown short_reward {name:?}: expected \"em\" or \"f1\""
        ))),
    }
}

fn table_reward(name: &str) -> PyResult<TableReward> {
    match name {
        "item_f1" => Ok(TableReward::ItemF1),
        "row_f1" => Ok(TableReward::RowF1),
        "success" => Ok(TableReward::Success),
        _ => Err(PyValueError::new_err(format!(
            "unknown table_reward {name:?}: expected \"item_f1\", \"row_f1\" or \"success\""
        ))),
    }
}

/// Scores a prediction against a gold answer.
#[pyfunction]
fn score(py: Python<'_>, gold: &Gold, prediction: &Prediction) -> Score {
    py.detach(|| Score(fabula_score::score(&gold.0, &prediction.0)))
}

/// Scores a tasks file (fabula JSONL or WideSearch's) against a predictions file or a folder of
/// WideSearch response files, as `fabula eval --json` does; returns the report as JSON text.
#[pyfunction]
#[pyo3(signature = (tasks, predictions, gold_dir = None))]
fn evaluate_files(
    py: Python<'_>,
    tasks: std::path::PathBuf,
    predictions: std::path::PathBuf,
    gold_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let report = py
        .detach(|| {
            let tasks = fabula_score::widesearch::read_task_file(&tasks, gold_dir.as_deref())?;
            let predictions = fabula_score::widesearch::read_prediction_files(&predictions)?;
            Ok::<_, fabula_score::Error>(fabula_score::evaluate(&tasks, &predictions))
        })
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    serde_json::to_string(&report).map_err(|err| PyValueError::new_err(err.to_string()))
}

/// The module: `Gold`, `Prediction`, `Score`, `score`, `evaluate_files`, `InvalidGold` and
/// `FIGURES`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Gold>()?;
    module.add_class::<Prediction>()?;
    module.add_class::<Score>()?;
    module.add_function(wrap_pyfunction!(score, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate_files, module)?)?;
    module.add("InvalidGold", module.py().get_type::<InvalidGold>())?;
    module.add("FIGURES", FIGURES.to_vec())?;
    Ok(())
}
