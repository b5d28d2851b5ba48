"""fabula's scoring in pure Python: a faithful port of the Rust crate fabula-score.

`Gold.from_json` reads a task's gold answer, `Prediction.from_json` / `Prediction.from_text`
read what an agent wrote, `score` compares them and `Score.reward` turns the result into one
number (exact match for short answers, item F1 for tables). A differential test checks every
figure against `fabula eval` on generated tasks. The rules are documented once, in
fabula-score's crate docs (`crates/fabula-score/src/lib.rs`).
"""

from .gold import Gold, GoldTable, InvalidGold
from .prediction import PredictedTable, Prediction
from .scoring import FIGURES, Score, score

__all__ = [
    "FIGURES",
    "Gold",
    "GoldTable",
    "InvalidGold",
    "PredictedTable",
    "Prediction",
    "Score",
    "score",
]
