//! Predictions: what an agent answered, read from JSON or from free text, never failing.

use serde_json::{Map, Value};

use crate::normalize::value_to_cell;

/// An agent's answer, in one of the shapes agents write.
///
/// Reading a prediction never fails: anything unrecognised becomes [`Prediction::Text`], and a
/// text that holds no usable table scores zero against a table task with a
/// [`crate::ScoreIssue::NoTable`] issue.
#[derive(Debug, Clone, PartialEq)]
pub enum Prediction {
    /// Free text: a short answer, or Markdown holding a table.
    Text(String),
    /// A list of short answers.
    List(Vec<String>),
    /// A table given as JSON rows.
    Table(PredictedTable),
}

/// A predicted table: column names (absent when rows are lists in gold column order) and rows
/// of text cells.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PredictedTable {
    /// The column names as written, or `None` for rows given in gold column order.
    pub columns: Option<Vec<String>>,
    /// The rows; a row may be shorter or longer than the column list.
    pub rows: Vec<Vec<String>>,
}

impl Prediction {
    /// Reads a prediction from JSON.
    ///
    /// A string is read with [`Prediction::from_text`]; a number is text; an array of objects is
    /// a table whose columns are the union of the objects' keys; an array of arrays is a
    /// table in gold column order; any other array is a list (its items rendered as text); an
    /// object with `"rows"` (and optionally `"columns"`) is a table; an object with `"answer"`
    /// is read from that field; anything else is its JSON text.
    ///
    /// ```
    /// use fabula_score::Prediction;
    /// let rows = serde_json::json!([{"name": "Vess"}, {"name": "Orr", "founded": 1044}]);
    /// let Prediction::Table(table) = Prediction::from_json(&rows) else { unreachable!() };
    /// assert_eq!(table.columns.unwrap(), ["name", "founded"]);
    /// assert_eq!(table.rows, [["Vess", ""], ["Orr", "1044"]]);
    /// ```
    pub fn from_json(value: &Value) -> Prediction {
        match value {
            Value::String(text) => Prediction::from_text(text),
            Value::Null => Prediction::Text(String::new()),
            Value::Number(_) | Value::Bool(_) => Prediction::Text(value_to_cell(value)),
            Value::Array(items)
                if !items.is_empty()
                    && items.iter().all(|item| item.is_object() || item.is_array()) =>
            {
                Prediction::Table(table_from_rows(None, items))
            }
            Value::Array(items) => Prediction::List(items.iter().map(value_to_cell).collect()),
            Value::Object(object) => from_object(object),
        }
    }

    /// Reads a prediction from free text. Text that starts with `[` or `{` and parses as JSON is
    /// read with [`Prediction::from_json`]; anything else stays text (tables in it are found at
    /// scoring time, see [`crate::markdown::extract_table`]).
    pub fn from_text(text: &str) -> Prediction {
        let trimmed = text.trim();
        if trimmed.starts_with(['[', '{'])
            && let Ok(value) = serde_json::from_str::<Value>(trimmed)
            && !value.is_string()
        {
            return Prediction::from_json(&value);
        }
        Prediction::Text(text.to_string())
    }
}

/// Reads a JSON object prediction.
fn from_object(object: &Map<String, Value>) -> Prediction {
    if let Some(Value::Array(rows)) = object.get("rows") {
        let columns = match object.get("columns") {
            Some(Value::Array(columns)) => Some(columns.iter().map(value_to_cell).collect()),
            _ => None,
        };
        return Prediction::Table(table_from_rows(columns, rows));
    }
    if let Some(answer) = object.get("answer") {
        return Prediction::from_json(answer);
    }
    Prediction::Text(Value::Object(object.clone()).to_string())
}

/// Builds a table from JSON rows: objects are read by key (adding unseen keys as columns),
/// arrays by position, and any other value as a one-cell row.
fn table_from_rows(columns: Option<Vec<String>>, rows: &[Value]) -> PredictedTable {
    let has_objects = rows.iter().any(Value::is_object);
    let mut columns = match (columns, has_objects) {
        (Some(columns), _) => Some(columns),
        (None, true) => Some(Vec::new()),
        (None, false) => None,
    };
    if let Some(columns) = columns.as_mut() {
        for row in rows.iter().filter_map(Value::as_object) {
            for name in row.keys() {
                if !columns.contains(name) {
                    columns.push(name.clone());
                }
            }
        }
    }
    let rows = rows
        .iter()
        .map(|row| match (row, columns.as_ref()) {
            (Value::Object(cells), Some(columns)) => columns
                .iter()
                .map(|name| cells.get(name).map(value_to_cell).unwrap_or_default())
                .collect(),
            (Value::Array(cells), _) => cells.iter().map(value_to_cell).collect(),
            (other, _) => vec![value_to_cell(other)],
        })
        .collect();
    PredictedTable { columns, rows }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn table(columns: Option<&[&str]>, rows: &[&[&str]]) -> Prediction {
        Prediction::Table(PredictedTable {
            columns: columns.map(|columns| columns.iter().map(|c| c.to_string()).collect()),
            rows: rows
                .iter()
                .map(|row| row.iter().map(|c| c.to_string()).collect())
                .collect(),
        })
    }

    #[test]
    fn reads_every_json_shape() {
        assert_eq!(
            Prediction::from_json(&json!("Vess")),
            Prediction::Text("Vess".into())
        );
        assert_eq!(
            Prediction::from_json(&json!(12.0)),
            Prediction::Text("12".into())
        );
        assert_eq!(
            Prediction::from_json(&json!(["a", 1])),
            Prediction::List(vec!["a".into(), "1".into()])
        );
        assert_eq!(Prediction::from_json(&json!([])), Prediction::List(vec![]));
        assert_eq!(
            Prediction::from_json(&json!([["Vess", 1], ["Orr"]])),
            table(None, &[&["Vess", "1"], &["Orr"]])
        );
        assert_eq!(
            Prediction::from_json(&json!([{"a": "x"}, {"b": "y", "a": null}])),
            table(Some(&["a", "b"]), &[&["x", ""], &["", "y"]])
        );
        assert_eq!(
            Prediction::from_json(&json!({"columns": ["a", "b"], "rows": [["x", "y"]]})),
            table(Some(&["a", "b"]), &[&["x", "y"]])
        );
        assert_eq!(
            Prediction::from_json(&json!({"answer": "Vess"})),
            Prediction::Text("Vess".into())
        );
    }

    #[test]
    fn text_holding_json_is_read_as_json() {
        assert_eq!(
            Prediction::from_text(" [\"a\", \"b\"] "),
            Prediction::List(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            Prediction::from_text("[not json"),
            Prediction::Text("[not json".into())
        );
        assert_eq!(
            Prediction::from_text("| a |"),
            Prediction::Text("| a |".into())
        );
    }
}
