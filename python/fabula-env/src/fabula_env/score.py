"""fabula's scoring: the Rust crate fabula-score, compiled into this package (`_native`).

`Gold.from_json` reads a task's gold answer, `Prediction.from_json` / `Prediction.from_text`
read what an agent wrote, `score` compares them and `Score.reward` turns the result into one
number (exact match for short answers, item F1 for tables). `evaluate` scores whole task and
prediction files as `fabula eval --json` does. This is the code `fabula eval` runs, not a copy:
the rules are documented once, in fabula-score's crate docs (`crates/fabula-score/src/lib.rs`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from fabula_env import _native
from fabula_env._native import InvalidGold

FIGURES: tuple[str, ...] = tuple(_native.FIGURES)
"""Every figure of a score, in `fabula eval`'s per-task order."""


@dataclass(frozen=True)
class Gold:
    """A task's gold answer: a string, a list of strings or a table."""

    native: _native.Gold

    @staticmethod
    def from_json(value: Any) -> Gold:
        """Reads a gold answer (a parsed JSON value); raises `InvalidGold` when malformed."""
        return Gold(_native.Gold.from_json_text(json.dumps(value)))

    def is_table(self) -> bool:
        """Whether the answer is a table."""
        return self.native.is_table()


@dataclass(frozen=True)
class Prediction:
    """What an agent answered."""

    native: _native.Prediction

    @staticmethod
    def from_json(value: Any) -> Prediction:
        """A prediction given as a parsed JSON value (text, a list, rows, `{"answer": ..}`)."""
        return Prediction(_native.Prediction.from_json_text(json.dumps(value)))

    @staticmethod
    def from_text(text: str) -> Prediction:
        """A prediction written as free text (a short answer, a list, a Markdown table)."""
        return Prediction(_native.Prediction.from_text(text))


@dataclass(frozen=True)
class Score:
    """The figures of one prediction; those that do not apply are `None` (short answers fill
    `em` and `f1`, tables the rest). `issues` say what was wrong beyond wrong values, as
    fabula-score's `ScoreIssue` serialises (`{"issue": "missing_column", "column": "Motto"}`)."""

    em: float | None = None
    f1: float | None = None
    success: float | None = None
    row_precision: float | None = None
    row_recall: float | None = None
    row_f1: float | None = None
    item_precision: float | None = None
    item_recall: float | None = None
    item_f1: float | None = None
    issues: list[dict[str, Any]] = field(default_factory=list)
    native: _native.Score | None = field(default=None, repr=False, compare=False)

    def is_table(self) -> bool:
        """Whether this is the score of a table answer."""
        return self.item_f1 is not None

    def reward(self, short: str = "em", table: str = "item_f1") -> float:
        """One number: `em` (or `f1`) for short answers, `item_f1` (or `row_f1`, `success`)
        for tables, as fabula-score's `Score::reward_with`; 0.0 when it does not apply. An
        unknown figure name raises `ValueError`."""
        if self.native is None:
            raise ValueError("a Score made by hand has no reward; use fabula_env.score.score")
        return self.native.reward(short, table)

    def figures(self) -> dict[str, float | None]:
        """Every figure by name, in `FIGURES` order."""
        return {name: getattr(self, name) for name in FIGURES}


def score(gold: Gold, prediction: Prediction) -> Score:
    """Scores a prediction against a gold answer."""
    native = _native.score(gold.native, prediction.native)
    figures = dict(native.figures())
    issues = json.loads(native.issues_json())
    return Score(**figures, issues=issues, native=native)


def evaluate(
    tasks: str | os.PathLike[str],
    predictions: str | os.PathLike[str],
    gold_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Scores a tasks file (fabula JSONL or WideSearch's `tasks.jsonl`) against a predictions
    file or a folder of WideSearch response files: the report `fabula eval --json` prints
    (`summary`, `per_task`, ...). `gold_dir` is WideSearch's gold CSV folder when it is not
    beside the tasks file. Unreadable or malformed files raise `ValueError`."""
    report = _native.evaluate_files(
        os.fspath(tasks), os.fspath(predictions), None if gold_dir is None else os.fspath(gold_dir)
    )
    result: dict[str, Any] = json.loads(report)
    return result


__all__ = ["FIGURES", "Gold", "InvalidGold", "Prediction", "Score", "evaluate", "score"]
