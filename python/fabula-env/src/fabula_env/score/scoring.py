"""Scoring one prediction against one gold answer (fabula-score's `score.rs`): `score` and the
`Score` it returns, with `Score.reward` as the trainers' number."""

from __future__ import annotations

from dataclasses import dataclass, field

from .chars import ascii_lower, is_ascii_digit, trim, trim_start, utf8_len
from .gold import Gold, GoldTable
from .markdown import extract_table
from .metrics import score_cell
from .normalize import answer_tokens, norm_column, norm_name
from .prediction import PredictedTable, Prediction

TABLE_FIGURES = (
    "success",
    "row_precision",
    "row_recall",
    "row_f1",
    "item_precision",
    "item_recall",
    "item_f1",
)
"""The figures of a table score, in Rust's field order."""

FIGURES = ("em", "f1", *TABLE_FIGURES)
"""Every figure of a score, in Rust's field order (`fabula eval`'s per-task JSON)."""


@dataclass
class Score:
    """The figures of one prediction; those that do not apply are `None` (short answers fill
    `em` and `f1`, tables the rest). `issues` name what was wrong beyond wrong values, as
    `kind` or `kind:detail` strings (`no_table`, `missing_column:Motto`, `extra_column:Notes`,
    `duplicate_rows:2`, `duplicate_gold_rows:1`); unlike the figures they are not compared
    with fabula-score's, and short rows are not reported."""

    em: float | None = None
    f1: float | None = None
    success: float | None = None
    row_precision: float | None = None
    row_recall: float | None = None
    row_f1: float | None = None
    item_precision: float | None = None
    item_recall: float | None = None
    item_f1: float | None = None
    issues: list[str] = field(default_factory=list)

    def is_table(self) -> bool:
        """Whether this is the score of a table answer."""
        return self.item_f1 is not None

    def reward(self, short: str = "em", table: str = "item_f1") -> float:
        """One number: `em` (or `f1`) for short answers, `item_f1` (or `row_f1`, `success`)
        for tables, as fabula-score's `Score::reward_with`; 0.0 when it does not apply."""
        if short not in ("em", "f1"):
            raise ValueError(f"short reward {short!r} must be em or f1")
        if table not in ("item_f1", "row_f1", "success"):
            raise ValueError(f"table reward {table!r} must be item_f1, row_f1 or success")
        figure = getattr(self, table if self.is_table() else short)
        return 0.0 if figure is None else figure

    def figures(self) -> dict[str, float | None]:
        """Every figure by name."""
        return {name: getattr(self, name) for name in FIGURES}


def score(gold: Gold, prediction: Prediction) -> Score:
    """Scores a prediction against a gold answer."""
    if gold.kind == "text":
        return _score_text(gold.text, prediction)
    if gold.kind == "list":
        return _score_list(gold.items, prediction)
    assert gold.table is not None
    return _score_table(gold.table, prediction)


def _prediction_text(prediction: Prediction) -> str:
    if prediction.kind == "text":
        return prediction.text
    if prediction.kind == "list":
        return ", ".join(prediction.items)
    assert prediction.table is not None
    return ", ".join(" ".join(row) for row in prediction.table.rows)


def _f1(precision: float, recall: float) -> float:
    if precision + recall > 1e-9:
        return 2.0 * precision * recall / (precision + recall)
    return 0.0


def _f1_from_counts(n_same: int, n_predicted: int, n_gold: int) -> float:
    if n_same == 0:
        return 0.0
    return _f1(n_same / n_predicted, n_same / n_gold)


def _token_f1(gold: list[str], predicted: list[str]) -> float:
    if not gold or not predicted:
        return 1.0 if not gold and not predicted else 0.0
    counts: dict[str, int] = {}
    for token in gold:
        counts[token] = counts.get(token, 0) + 1
    n_same = 0
    for token in predicted:
        if counts.get(token, 0) > 0:
            counts[token] -= 1
            n_same += 1
    return _f1_from_counts(n_same, len(predicted), len(gold))


def _score_text(gold: str, prediction: Prediction) -> Score:
    gold_tokens = answer_tokens(gold)
    predicted_tokens = answer_tokens(_prediction_text(prediction))
    em = 1.0 if gold_tokens == predicted_tokens else 0.0
    return Score(em=em, f1=_token_f1(gold_tokens, predicted_tokens))


def split_list(text: str) -> list[str]:
    """Splits a free-text list on new lines, `;` and commas not between two digits, removing
    bullets and a leading `and` or `or` from each item."""
    items, item = [], []
    for idx, c in enumerate(text):
        between_digits = (
            idx > 0
            and is_ascii_digit(text[idx - 1])
            and idx + 1 < len(text)
            and is_ascii_digit(text[idx + 1])
        )
        if c in "\n;" or (c == "," and not between_digits):
            items.append("".join(item))
            item = []
        else:
            item.append(c)
    items.append("".join(item))
    cleaned = (_clean_list_item(item) for item in items)
    return [item for item in cleaned if item]


def _clean_list_item(item: str) -> str:
    item = trim(item)
    if item[:1] in ("-", "*", "•"):
        item = trim_start(item[1:])
    else:
        digits = 0
        while digits < len(item) and is_ascii_digit(item[digits]):
            digits += 1
        rest = item[digits:]
        if digits > 0 and rest[:1] in (".", ")") and rest[1:].startswith(" "):
            item = trim_start(rest[1:])
    for conjunction in ("and ", "or "):
        head = item[: len(conjunction)]
        if utf8_len(item) > len(conjunction) and ascii_lower(head) == conjunction:
            item = trim_start(item[len(conjunction) :])
    return item


def _prediction_items(prediction: Prediction) -> list[str]:
    if prediction.kind == "text":
        return split_list(prediction.text)
    if prediction.kind == "list":
        return list(prediction.items)
    assert prediction.table is not None
    return [row[0] for row in prediction.table.rows if row]


def _score_list(gold: list[str], prediction: Prediction) -> Score:
    def normalise(items: list[str]) -> set[str]:
        joined = (" ".join(answer_tokens(item)) for item in items)
        return {item for item in joined if item}

    gold_set = normalise(gold)
    predicted_set = normalise(_prediction_items(prediction))
    em = 1.0 if gold_set == predicted_set else 0.0
    if not gold_set and not predicted_set:
        f1 = 1.0
    else:
        f1 = _f1_from_counts(len(gold_set & predicted_set), len(predicted_set), len(gold_set))
    return Score(em=em, f1=f1)


def _table_score(
    n_predicted_rows: int,
    n_gold_rows: int,
    n_columns: int,
    tp_row: float,
    tp_item: float,
    issues: list[str],
) -> Score:
    def ratio(numerator: float, denominator: int) -> float:
        return numerator / denominator if denominator > 0 else 0.0

    row_precision = ratio(tp_row, n_predicted_rows)
    row_recall = ratio(tp_row, n_gold_rows)
    item_precision = ratio(tp_item, n_predicted_rows * n_columns)
    item_recall = ratio(tp_item, n_gold_rows * n_columns)
    perfect = all(f == 1.0 for f in (row_precision, row_recall, item_precision, item_recall))
    return Score(
        success=1.0 if perfect else 0.0,
        row_precision=row_precision,
        row_recall=row_recall,
        row_f1=_f1(row_precision, row_recall),
        item_precision=item_precision,
        item_recall=item_recall,
        item_f1=_f1(item_precision, item_recall),
        issues=issues,
    )


def _prediction_table(gold: GoldTable, prediction: Prediction) -> PredictedTable | None:
    if prediction.kind == "table":
        return prediction.table
    if prediction.kind == "text":
        return extract_table(prediction.text)
    if not prediction.items:
        return PredictedTable(columns=None, rows=[])
    if len(gold.columns) == 1:
        return PredictedTable(columns=None, rows=[[item] for item in prediction.items])
    return None


def _drop_duplicate_keys(rows: list[tuple[tuple[str, ...], list[str]]]):
    seen: set[tuple[str, ...]] = set()
    kept = []
    for key, row in rows:
        if key not in seen:
            seen.add(key)
            kept.append((key, row))
    return kept, len(rows) - len(kept)


def _map_columns(gold: GoldTable, table: PredictedTable, issues: list[str]) -> list[int] | None:
    """Each gold column's predicted column, or `None` when the predicted columns are not
    exactly the gold columns (WideSearch's `set(required) == set(response_df.columns)`)."""
    if table.columns is None:
        return list(range(len(gold.columns)))
    gold_names = [norm_column(column) for column in gold.columns]
    names = [norm_column(name) for name in table.columns]
    usable = True
    for idx, name in enumerate(names):
        if name and (name in names[:idx] or name not in gold_names):
            usable = False
            issues.append(f"extra_column:{table.columns[idx]}")
    column_map = []
    for idx, gold_name in enumerate(gold_names):
        if gold_name in names:
            column_map.append(names.index(gold_name))
        else:
            usable = False
            issues.append(f"missing_column:{gold.columns[idx]}")
    return column_map if usable else None


def _score_table(gold: GoldTable, prediction: Prediction) -> Score:
    issues: list[str] = []
    n_columns = len(gold.columns)
    gold_rows, n_gold_dropped = _drop_duplicate_keys(
        [(tuple(norm_name(row[idx]) for idx in gold.key), row) for row in gold.rows]
    )
    if n_gold_dropped:
        issues.append(f"duplicate_gold_rows:{n_gold_dropped}")
    table = _prediction_table(gold, prediction)
    if table is None:
        issues.append("no_table")
        return _table_score(0, len(gold_rows), n_columns, 0.0, 0.0, issues)
    column_map = _map_columns(gold, table, issues)
    if column_map is None:
        return _table_score(0, len(gold_rows), n_columns, 0.0, 0.0, issues)

    def cell(row: list[str], column_idx: int) -> str:
        idx = column_map[column_idx]
        return row[idx] if idx < len(row) else ""

    predicted_rows, n_dropped = _drop_duplicate_keys(
        [(tuple(norm_name(cell(row, idx)) for idx in gold.key), row) for row in table.rows]
    )
    if n_dropped:
        issues.append(f"duplicate_rows:{n_dropped}")
    by_key = dict(predicted_rows)
    tp_row = tp_item = 0.0
    for key, gold_row in gold_rows:
        predicted_row = by_key.get(key)
        if predicted_row is None:
            continue
        row_min = 1.0
        for column_idx, gold_cell in enumerate(gold_row):
            if gold.is_key(column_idx):
                cell_score = 1.0
            else:
                cell_score = score_cell(
                    gold.metrics[column_idx],
                    cell(predicted_row, column_idx),
                    gold_cell,
                    gold.tolerances[column_idx],
                )
            row_min = min(row_min, cell_score)
            tp_item += cell_score
        tp_row += row_min
    return _table_score(len(predicted_rows), len(gold_rows), n_columns, tp_row, tp_item, issues)
