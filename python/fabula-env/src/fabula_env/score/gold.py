"""Gold answers: a string, a list of strings, or a table with key columns and typed metrics
(fabula-score's `gold.rs`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .chars import is_json_number, trim, value_to_cell
from .date import is_iso_date_or_year
from .metrics import ALIASES
from .normalize import canonical_number, norm_column


class InvalidGold(ValueError):
    """A gold answer that is not a string, a list of strings or a well-formed table."""


@dataclass
class GoldTable:
    """Columns, the key (column indices), one metric and tolerance per column, and rows."""

    columns: list[str]
    key: list[int]
    metrics: list[str]
    tolerances: list[float]
    rows: list[list[str]] = field(default_factory=list)

    def is_key(self, column_idx: int) -> bool:
        """Whether a column is part of the unique key."""
        return column_idx in self.key


@dataclass
class Gold:
    """A gold answer: `kind` is `text`, `list` or `table`, with the matching field set."""

    kind: str
    text: str = ""
    items: list[str] = field(default_factory=list)
    table: GoldTable | None = None

    @staticmethod
    def from_json(value: Any) -> Gold:
        """Parses a gold answer as fabula-score's `Gold::from_json`; raises `InvalidGold`."""
        if isinstance(value, str):
            return Gold("text", text=value)
        if is_json_number(value):
            return Gold("text", text=value_to_cell(value))
        if isinstance(value, list):
            items = []
            for item in value:
                if not isinstance(item, str) and not is_json_number(item):
                    raise InvalidGold(f"a list answer holds a non-string item: {item!r}")
                items.append(value_to_cell(item))
            return Gold("list", items=items)
        if isinstance(value, dict):
            return Gold("table", table=_table(value))
        raise InvalidGold(f"expected a string, a list or a table, found {value!r}")


def _string_array(value: dict, name: str) -> list[str]:
    items = value.get(name)
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise InvalidGold(f"a table needs {name!r}: an array of strings")
    return list(items)


def _table(value: dict) -> GoldTable:
    columns = _string_array(value, "columns")
    if not columns:
        raise InvalidGold("a table needs at least one column")
    normalised = [norm_column(name) for name in columns]
    if len(set(normalised)) != len(normalised):
        raise InvalidGold("a column appears twice")

    def find_column(name: str) -> int:
        wanted = norm_column(name)
        if wanted not in normalised:
            raise InvalidGold(f"unknown column {name!r}")
        return normalised.index(wanted)

    key: list[int] = []
    for name in _string_array(value, "key"):
        idx = find_column(name)
        if idx not in key:
            key.append(idx)
    if not key:
        raise InvalidGold("a table needs at least one key column")

    raw_rows = value.get("rows")
    if not isinstance(raw_rows, list):
        raise InvalidGold('a table needs "rows": an array of arrays')
    rows = [_gold_row(row, idx, len(columns)) for idx, row in enumerate(raw_rows)]

    metrics: list[str | None] = [None] * len(columns)
    explicit = value.get("metrics")
    if isinstance(explicit, dict):
        for name in sorted(explicit):
            metric = explicit[name]
            idx = find_column(name)
            if not isinstance(metric, str) or metric not in ALIASES:
                raise InvalidGold(f"unknown metric {metric!r} for column {name!r}")
            metrics[idx] = ALIASES[metric]
    elif explicit is not None:
        raise InvalidGold('"metrics" must be an object')
    resolved = [m if m is not None else _infer_metric(rows, i) for i, m in enumerate(metrics)]

    tolerances = [0.0] * len(columns)
    tolerance = value.get("tolerance")
    if is_json_number(tolerance):
        tolerances = [_tolerance(tolerance)] * len(columns)
    elif isinstance(tolerance, dict):
        for name in sorted(tolerance):
            tolerances[find_column(name)] = _tolerance(tolerance[name])
    elif tolerance is not None:
        raise InvalidGold('"tolerance" must be a number or an object')
    return GoldTable(columns, key, resolved, tolerances, rows)


def _gold_row(row: Any, row_idx: int, n_columns: int) -> list[str]:
    if not isinstance(row, list):
        raise InvalidGold(f"row {row_idx} is not an array")
    if len(row) != n_columns:
        raise InvalidGold(f"row {row_idx} has {len(row)} cells, expected {n_columns}")
    for cell in row:
        if not (cell is None or isinstance(cell, str) or is_json_number(cell)):
            raise InvalidGold(f"row {row_idx} holds a cell that is not a string or number")
    return [value_to_cell(cell) for cell in row]


def _tolerance(value: Any) -> float:
    if not is_json_number(value) or not math.isfinite(value) or value < 0:
        raise InvalidGold("a tolerance must be a non-negative number")
    return float(value)


def _infer_metric(rows: list[list[str]], idx: int) -> str:
    if not rows:
        return "exact"
    if all(canonical_number(trim(row[idx])) is not None for row in rows):
        return "number"
    if all(is_iso_date_or_year(trim(row[idx])) for row in rows):
        return "date"
    return "exact"
