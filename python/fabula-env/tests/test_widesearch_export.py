"""`fabula tasks export --format widesearch` read the way both of WideSearch's loaders read it.

WideSearch's loaders cannot be imported in CI (the repository is not a package on PyPI), so this
test performs exactly the reads of `src/evaluation/data_loader.py` in ByteDance-Seed/WideSearch
(commit 0e664c3), step by step:

- `WideSearchDataLoader.load_data`: `pd.read_json(data_path, lines=True).to_dict(orient=
  "records")`, then for each item `load_answer(f"{answer_root}/{instance_id}.csv",
  item["evaluation"]["required"])`, then `WideSearchQuery(**item)`;
- `WideSearchDataLoader.load_answer` (the HF loader's is the same after finding the file):
  `pd.read_csv`, columns `norm_column(col.strip())`, every required column present, then
  `answer[required_columns]`;
- `WideSearchDataLoaderHF.load_data`: `load_dataset(repo_id)["full"]`, then
  `item["evaluation"] = json.loads(item["evaluation"])` before the same steps; the gold CSVs
  are the repository's `widesearch_gold/{instance_id}.csv`.

`evaluation.py` then reads `evaluation["required"]`, `["unique_columns"]` and
`["eval_pipeline"][col]` with `preprocess`, `metric` and `criterion`, whose names must be in
`metric_utils.py`'s registries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import pytest

from conftest import run_fabula

PREPROCESS = {"extract_number", "norm_str", "norm_date"}
METRICS = {"exact_match", "url_match", "in_match", "number_near", "date_near", "llm_judge"}


@dataclass
class WideSearchQuery:
    """WideSearch's `data_loader.WideSearchQuery`: `**item` must fill exactly these fields."""

    instance_id: str
    query: str
    evaluation: dict
    answer: pd.DataFrame
    language: str


def norm_column(col: str) -> str:
    """WideSearch's `src/utils/utils.py` `norm_column`."""
    return col.strip().lower().replace(" ", "")


def load_answer(answer_path, required_columns):
    answer = pd.read_csv(answer_path)
    answer.columns = [norm_column(col.strip()) for col in answer.columns]
    for col in required_columns:
        assert col in answer.columns, (answer_path, col, list(answer.columns))
    return answer[required_columns]


def check_query(query: WideSearchQuery, gold_csv: str):
    evaluation = query.evaluation
    assert set(evaluation["unique_columns"]) <= set(evaluation["required"])
    assert set(evaluation["eval_pipeline"]) == set(evaluation["required"])
    for step in evaluation["eval_pipeline"].values():
        assert set(step.get("preprocess", [])) <= PREPROCESS, step
        assert step["metric"] and set(step["metric"]) <= METRICS, step
    assert len(query.answer) == len(pd.read_csv(gold_csv)) > 0


@pytest.fixture(scope="module")
def export(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("widesearch") / "widesearch.jsonl"
    run_fabula("tasks", "export", "--worlds", str(dataset), "--format", "widesearch", "--out", str(out))
    return out


def test_the_local_loader_reads_every_table_task(export, tasks):
    answer_root = export.parent / "widesearch_gold"
    data = pd.read_json(export, lines=True).to_dict(orient="records")
    tables = [t for t in tasks if t["kind"] == "table"]
    assert len(data) == len(tables) > 0
    for item in data:
        answer_path = f"{answer_root}/{item['instance_id']}.csv"
        item["answer"] = load_answer(answer_path, item["evaluation"]["required"])
        check_query(WideSearchQuery(**item), answer_path)


def test_the_hf_loader_reads_the_full_split(export, tasks):
    from datasets import load_dataset

    data = load_dataset(str(export.parent))["full"]
    local = pd.read_json(export, lines=True).to_dict(orient="records")
    assert len(data) == len(local)
    for item, same in zip(data, local):
        assert isinstance(item, dict)
        item["evaluation"] = json.loads(item["evaluation"])
        assert item["evaluation"] == same["evaluation"]
        answer_path = export.parent / "widesearch_gold" / f"{item['instance_id']}.csv"
        item["answer"] = load_answer(answer_path, item["evaluation"]["required"])
        check_query(WideSearchQuery(**item), str(answer_path))
