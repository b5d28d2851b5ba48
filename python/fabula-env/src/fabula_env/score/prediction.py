"""Predictions: what an agent answered, read from JSON or free text, never failing
(fabula-score's `prediction.rs`).

A prediction is a `Prediction` whose `kind` is `text` (free text: a short answer, or Markdown
holding a table), `list` (short answers) or `table` (a `PredictedTable` given as JSON rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .chars import parse_json, to_json, trim, value_to_cell


@dataclass
class PredictedTable:
    """Column names (`None` when rows are lists in gold column order) and rows of cells."""

    columns: list[str] | None = None
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Prediction:
    """An agent's answer: `kind` is `text`, `list` or `table`, with the matching field set."""

    kind: str
    text: str = ""
    items: list[str] = field(default_factory=list)
    table: PredictedTable | None = None

    @staticmethod
    def from_json(value: Any) -> Prediction:
        """Reads a prediction from parsed JSON, as fabula-score's `Prediction::from_json`."""
        if isinstance(value, str):
            return Prediction.from_text(value)
        if value is None:
            return Prediction("text", text="")
        if isinstance(value, (bool, int, float)):
            return Prediction("text", text=value_to_cell(value))
        if isinstance(value, list):
            if value and all(isinstance(item, (dict, list)) for item in value):
                return Prediction("table", table=_table_from_rows(None, value))
            return Prediction("list", items=[value_to_cell(item) for item in value])
        if isinstance(value, dict):
            return _from_object(value)
        raise TypeError(f"not a JSON value: {value!r}")

    @staticmethod
    def from_text(text: str) -> Prediction:
        """Reads free text; text that starts with `[` or `{` and parses as JSON is JSON."""
        trimmed = trim(text)
        if trimmed.startswith(("[", "{")):
            try:
                value = parse_json(trimmed)
            except ValueError:
                value = None
            if isinstance(value, (list, dict)):
                return Prediction.from_json(value)
        return Prediction("text", text=text)


def _from_object(value: dict) -> Prediction:
    rows = value.get("rows")
    if isinstance(rows, list):
        columns = value.get("columns")
        names = [value_to_cell(c) for c in columns] if isinstance(columns, list) else None
        return Prediction("table", table=_table_from_rows(names, rows))
    if "answer" in value:
        return Prediction.from_json(value["answer"])
    return Prediction("text", text=to_json(value))


def _table_from_rows(columns: list[str] | None, rows: list) -> PredictedTable:
    has_objects = any(isinstance(row, dict) for row in rows)
    if columns is None and has_objects:
        columns = []
    if columns is not None:
        for row in rows:
            if isinstance(row, dict):
                for name in sorted(row):
                    if name not in columns:
                        columns.append(name)
    cells = []
    for row in rows:
        if isinstance(row, dict) and columns is not None:
            cells.append([value_to_cell(row[name]) if name in row else "" for name in columns])
        elif isinstance(row, list):
            cells.append([value_to_cell(cell) for cell in row])
        else:
            cells.append([value_to_cell(row)])
    return PredictedTable(columns=columns, rows=cells)
