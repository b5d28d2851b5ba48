"""The reward for verl (`custom_reward_function.path`) and any trainer: `compute_score`.

`ground_truth` is what `fabula tasks export --format verl` writes in
`reward_model.ground_truth`: `{"target": [...], "answer": "<gold answer as JSON text>"}`. The
gold answer is scored with fabula's exact metrics (`fabula_env.score`: fabula-score compiled
into this package, the code `fabula eval` runs). The answer is the last `<answer>...</answer>` of
the solution, or the whole solution when it has none.

verl loads this file by its path (`custom_reward_function.path`) as a module of its own, outside
the package, so every import here is absolute.

Every call returns the same keys, because verl collects each key into one list per batch: the
reward under `score`, `is_table`, and every figure, with 0.0 for figures that do not apply to
the task's kind.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fabula_env.score import FIGURES, Gold, InvalidGold, Prediction, Score, score

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def extract_answer(solution_str: str) -> str:
    """The content of the last `<answer>...</answer>`, or the whole string."""
    found = _ANSWER.findall(solution_str)
    return found[-1] if found else solution_str


def _plain(value: Any) -> Any:
    """Turns numpy arrays and scalars (as parquet readers return them) into plain values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _parse_answer(answer: Any) -> Gold:
    """The gold answer: JSON text (as exported), else an already parsed value; a string that
    is not a valid JSON gold answer is itself a short answer."""
    if isinstance(answer, str):
        try:
            return Gold.from_json(json.loads(answer))
        except (ValueError, InvalidGold):
            return Gold.from_json(answer)
    return Gold.from_json(answer)


def gold_alternatives(ground_truth: Any) -> list[Gold]:
    """The gold answers a ground truth accepts: its `answer`, or else each of its `target`
    strings (alternatives, as Search-R1's `golden_answers`), or a bare string or list."""
    ground_truth = _plain(ground_truth)
    if isinstance(ground_truth, dict) and ground_truth.get("answer") is not None:
        return [_parse_answer(ground_truth["answer"])]
    target = ground_truth.get("target") if isinstance(ground_truth, dict) else ground_truth
    if isinstance(target, str):
        return [Gold.from_json(target)]
    if isinstance(target, list) and target:
        return [Gold.from_json(str(item)) for item in target]
    raise ValueError(f"ground truth without an answer or a target: {ground_truth!r}")


def check_data_source(data_source: str) -> None:
    """Accepts `fabula` and `fabula/...`; anything else is a `ValueError` naming it."""
    if data_source != "fabula" and not str(data_source).startswith("fabula/"):
        raise ValueError(
            f"unknown data_source {data_source!r}: fabula's reward scores `fabula` and `fabula/...`"
        )


def score_solution(solution_str: str, ground_truth: Any) -> Score:
    """The best `Score` of the solution's answer over the accepted gold answers."""
    prediction = Prediction.from_text(extract_answer(solution_str))
    scores = [score(gold, prediction) for gold in gold_alternatives(ground_truth)]
    return max(scores, key=lambda scored: scored.reward())


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    short_reward: str = "em",
    table_reward: str = "item_f1",
    **kwargs: Any,
) -> dict[str, float]:
    """verl's custom reward: `{"score": reward, "is_table": 0/1, "em": .., "f1": ..,
    "success": .., "row_f1": .., "item_f1": .., ...}`.

    The reward is exact match for short answers and item F1 for tables (fabula-score's
    `Score::reward`); `short_reward="f1"` and `table_reward="row_f1"` or `"success"` (verl's
    `custom_reward_function.reward_kwargs`) choose other figures.
    """
    check_data_source(data_source)
    scored = score_solution(solution_str, ground_truth)
    result = {"score": scored.reward(short_reward, table_reward)}
    result["is_table"] = 1.0 if scored.is_table() else 0.0
    for name, value in scored.figures().items():
        result[name] = 0.0 if value is None else value
    return result


__all__ = ["FIGURES", "check_data_source", "compute_score", "extract_answer", "score_solution"]
