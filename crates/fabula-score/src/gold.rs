//! Gold answers: a string, a list of strings, or a table with key columns and typed metrics.

use serde_json::{Map, Value};

use crate::date::is_iso_date_or_year;
use crate::error::{Error, Result};
use crate::metrics::Metric;
use crate::normalize::{canonical_number, norm_column, value_to_cell};

/// A gold answer, parsed from the task's `answer` JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Gold {
    /// A short answer, scored by exact match and token F1. A JSON number becomes its plain text.
    Text(String),
    /// A set of short answers, scored by set equality and item F1.
    List(Vec<String>),
    /// A WideSearch-style table.
    Table(GoldTable),
}

/// A gold table: columns, the unique key, one metric and tolerance per column, and the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldTable {
    columns: Vec<String>,
    key: Vec<usize>,
    metrics: Vec<Metric>,
    tolerances: Vec<f64>,
    rows: Vec<Vec<String>>,
}

impl Gold {
    /// Parses a gold answer.
    ///
    /// A string or number is a [`Gold::Text`]; an array of strings and numbers is a
    /// [`Gold::List`]; an object `{"columns": [..], "key": [..], "rows": [[..], ..]}` is a
    /// [`Gold::Table`], optionally with `"metrics": {column: "exact" | "number" | "date" | "in" |
    /// "url"}` (WideSearch's names `exact_match`, `number_near`, ... are accepted too) and
    /// `"tolerance"`, either one number for every number column or `{column: number}`.
    /// Column names in `key`, `metrics` and `tolerance` match after
    /// [`crate::normalize::norm_column`]. Cells are strings, numbers or `null` (empty).
    ///
    /// A column without a metric gets one inferred from its gold cells: `number` when every cell
    /// is a JSON number or a plainly written number (`12,345`, `-4.5`, `12%`), else `date` when
    /// every cell is an ISO date `YYYY-MM-DD` or a four-digit year, else `exact`. A column with no
    /// rows is `exact`. The default tolerance is 0.0: exact numeric equality.
    ///
    /// ```
    /// use fabula_score::Gold;
    /// let gold = Gold::from_json(&serde_json::json!({
    ///     "columns": ["Name", "Founded"], "key": ["Name"], "rows": [["Vess", 1021]]
    /// })).unwrap();
    /// let Gold::Table(table) = gold else { unreachable!() };
    /// assert_eq!(table.metrics(), [fabula_score::Metric::Exact, fabula_score::Metric::Number]);
    /// ```
    pub fn from_json(value: &Value) -> Result<Gold> {
        match value {
            Value::String(text) => Ok(Gold::Text(text.clone())),
            Value::Number(_) => Ok(Gold::Text(value_to_cell(value))),
            Value::Array(items) => {
                let items = items
                    .iter()
                    .map(|item| match item {
                        Value::String(_) | Value::Number(_) => Ok(value_to_cell(item)),
                        other => Err(invalid(format!(
                            "a list answer holds a non-string item: {other}"
                        ))),
                    })
                    .collect::<Result<Vec<String>>>()?;
                Ok(Gold::List(items))
            }
            Value::Object(object) => GoldTable::from_object(object).map(Gold::Table),
            other => Err(invalid(format!(
                "expected a string, a list or a table, found {other}"
            ))),
        }
    }

    /// Whether this is a table answer.
    pub fn is_table(&self) -> bool {
        matches!(self, Gold::Table(_))
    }
}

impl GoldTable {
    /// The column names as written in the gold answer.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Indices into [`GoldTable::columns`] of the unique key columns.
    pub fn key(&self) -> &[usize] {
        &self.key
    }

    /// The metric of each column, explicit or inferred.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The `number_near` criterion of each column (0.0 unless set).
    pub fn tolerances(&self) -> &[f64] {
        &self.tolerances
    }

    /// The rows, one string per column.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// Whether column `column_idx` is part of the unique key.
    pub fn is_key(&self, column_idx: usize) -> bool {
        self.key.contains(&column_idx)
    }

    /// Parses the table form of a gold answer; see [`Gold::from_json`].
    fn from_object(object: &Map<String, Value>) -> Result<GoldTable> {
        let columns = string_array(object, "columns")?;
        if columns.is_empty() {
            return Err(invalid("a table needs at least one column"));
        }
        let normalised: Vec<String> = columns.iter().map(|name| norm_column(name)).collect();
        for (idx, name) in normalised.iter().enumerate() {
            if normalised[..idx].contains(name) {
                return Err(invalid(format!("column {:?} appears twice", columns[idx])));
            }
        }
        let find_column = |name: &str| {
            let wanted = norm_column(name);
            normalised
                .iter()
                .position(|column| *column == wanted)
                .ok_or_else(|| invalid(format!("unknown column {name:?}")))
        };

        let mut key = Vec::new();
        for name in string_array(object, "key")? {
            let idx = find_column(&name)?;
            if !key.contains(&idx) {
                key.push(idx);
            }
        }
        if key.is_empty() {
            return Err(invalid("a table needs at least one key column"));
        }

        let rows = match object.get("rows") {
            Some(Value::Array(rows)) => rows
                .iter()
                .enumerate()
                .map(|(row_idx, row)| parse_gold_row(row, row_idx, columns.len()))
                .collect::<Result<Vec<_>>>()?,
            _ => return Err(invalid("a table needs \"rows\": an array of arrays")),
        };

        let mut metrics: Vec<Option<Metric>> = vec![None; columns.len()];
        match object.get("metrics") {
            None | Some(Value::Null) => {}
            Some(Value::Object(explicit)) => {
                for (name, metric) in explicit {
                    let idx = find_column(name)?;
                    let metric: Metric = serde_json::from_value(metric.clone()).map_err(|_| {
                        invalid(format!("unknown metric {metric} for column {name:?}"))
                    })?;
                    metrics[idx] = Some(metric);
                }
            }
            Some(other) => {
                return Err(invalid(format!(
                    "\"metrics\" must be an object, found {other}"
                )));
            }
        }
        let metrics = metrics
            .into_iter()
            .enumerate()
            .map(|(idx, metric)| metric.unwrap_or_else(|| infer_metric(&rows, idx)))
            .collect();

        let mut tolerances = vec![0.0; columns.len()];
        match object.get("tolerance") {
            None | Some(Value::Null) => {}
            Some(Value::Number(number)) => tolerances.fill(parse_tolerance(number.as_f64())?),
            Some(Value::Object(per_column)) => {
                for (name, value) in per_column {
                    tolerances[find_column(name)?] = parse_tolerance(value.as_f64())?;
                }
            }
            Some(other) => {
                return Err(invalid(format!(
                    "\"tolerance\" must be a number or an object, found {other}"
                )));
            }
        }

        Ok(GoldTable {
            columns,
            key,
            metrics,
            tolerances,
            rows,
        })
    }
}

/// Infers the metric of column `idx` from its gold cells; see [`Gold::from_json`]. JSON numbers
/// were already rendered as plain numbers, so one textual test covers both kinds of cell.
fn infer_metric(rows: &[Vec<String>], idx: usize) -> Metric {
    if rows.is_empty() {
        return Metric::Exact;
    }
    if rows
        .iter()
        .all(|row| canonical_number(row[idx].trim()).is_some())
    {
        return Metric::Number;
    }
    if rows.iter().all(|row| is_iso_date_or_year(row[idx].trim())) {
        return Metric::Date;
    }
    Metric::Exact
}

/// Parses one gold row, which must have one cell per column.
fn parse_gold_row(row: &Value, row_idx: usize, n_columns: usize) -> Result<Vec<String>> {
    let Value::Array(cells) = row else {
        return Err(invalid(format!("row {row_idx} is not an array")));
    };
    if cells.len() != n_columns {
        return Err(invalid(format!(
            "row {row_idx} has {} cells, expected {n_columns}",
            cells.len()
        )));
    }
    cells
        .iter()
        .map(|cell| match cell {
            Value::String(_) | Value::Number(_) | Value::Null => Ok(value_to_cell(cell)),
            other => Err(invalid(format!(
                "row {row_idx} holds a cell that is not a string or number: {other}"
            ))),
        })
        .collect()
}

/// Reads a required array of strings from a table object.
fn string_array(object: &Map<String, Value>, field: &str) -> Result<Vec<String>> {
    let Some(Value::Array(items)) = object.get(field) else {
        return Err(invalid(format!(
            "a table needs {field:?}: an array of strings"
        )));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| invalid(format!("{field:?} holds a non-string: {item}")))
        })
        .collect()
}

/// Checks a tolerance: a finite, non-negative number.
fn parse_tolerance(value: Option<f64>) -> Result<f64> {
    match value {
        Some(tolerance) if tolerance.is_finite() && tolerance >= 0.0 => Ok(tolerance),
        _ => Err(invalid("a tolerance must be a non-negative number")),
    }
}

/// Builds an [`Error::InvalidGold`].
fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidGold(message.into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn table(value: Value) -> GoldTable {
        match Gold::from_json(&value).unwrap() {
            Gold::Table(table) => table,
            other => panic!("not a table: {other:?}"),
        }
    }

    #[test]
    fn infers_metrics_per_column() {
        let gold = table(json!({
            "columns": ["Name", "Population", "Founded", "Share", "Motto"],
            "key": ["name"],
            "rows": [["Vess", 12345, "1021-04-02", "12%", "Salt"], ["Orr", "1,200", "1044", "3.5", "7"]]
        }));
        use Metric::{Date, Exact, Number};
        assert_eq!(gold.metrics(), [Exact, Number, Date, Number, Exact]);
        assert_eq!(gold.rows()[0][1], "12345");
        assert_eq!(gold.key(), [0]);
    }

    #[test]
    fn explicit_metrics_and_tolerances() {
        let gold = table(json!({
            "columns": ["Name", "Site", "Area"],
            "key": ["Name"],
            "rows": [["Vess", "https://vess.test", 10]],
            "metrics": {"site": "url_match", "Area": "number"},
            "tolerance": {"AREA": 0.1}
        }));
        assert_eq!(gold.metrics(), [Metric::Exact, Metric::Url, Metric::Number]);
        assert_eq!(gold.tolerances(), [0.0, 0.0, 0.1]);
    }

    #[test]
    fn rejects_malformed_tables() {
        let cases = [
            json!({"columns": ["a"], "rows": [["x"]]}),
            json!({"columns": ["a"], "key": ["b"], "rows": [["x"]]}),
            json!({"columns": ["a", "b"], "key": ["a"], "rows": [["x"]]}),
            json!({"columns": ["a", "A"], "key": ["a"], "rows": []}),
            json!({"columns": ["a"], "key": ["a"], "rows": [], "metrics": {"a": "fuzzy"}}),
            json!({"columns": ["a"], "key": ["a"], "rows": [], "tolerance": -1}),
            json!(true),
            json!([["nested"]]),
        ];
        for case in cases {
            assert!(Gold::from_json(&case).is_err(), "{case}");
        }
    }

    #[test]
    fn short_answers() {
        assert_eq!(
            Gold::from_json(&json!(12345.0)).unwrap(),
            Gold::Text("12345".into())
        );
        assert_eq!(
            Gold::from_json(&json!(["a", 2])).unwrap(),
            Gold::List(vec!["a".into(), "2".into()])
        );
    }
}
