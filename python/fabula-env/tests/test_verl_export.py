"""`fabula tasks export --format verl` read by verl 0.9's own `RLHFDataset` and `collate_fn`,
with the package's tool config loaded the way verl loads it, and scored by the reward."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from conftest import run_fabula
from verl_helpers import local_tokenizer, tool_config


@pytest.fixture(scope="module")
def parquet(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("verl") / "all.parquet"
    run_fabula("tasks", "export", "--worlds", str(dataset), "--format", "verl", "--out", str(out))
    return out


def load(parquet, tmp_path, tasks, **config):
    from verl.utils.dataset.rl_dataset import RLHFDataset

    tokenizer = local_tokenizer([t["question"] for t in tasks] + ["Answer the question below."])
    config = OmegaConf.create(
        {"cache_dir": str(tmp_path / "cache"), "filter_overlong_prompts_workers": 1, **config}
    )
    return RLHFDataset(data_files=str(parquet), tokenizer=tokenizer, config=config)


def test_rlhf_dataset_reads_every_row_with_its_routing(parquet, tmp_path, tasks, server):
    tools = tool_config(tmp_path / "tools.yaml", server["url"])
    dataset = load(parquet, tmp_path, tasks, max_prompt_length=100_000, tool_config_path=str(tools))
    assert dataset.tool_schemas is not None, "verl could not load the package's tool config"
    assert sorted(s["function"]["name"] for s in dataset.tool_schemas) == [
        "web_extractor",
        "web_search",
    ]
    assert len(dataset) == len(tasks)
    for index, task in enumerate(tasks):
        row = dataset[index]
        assert row["data_source"] == "fabula"
        assert row["agent_name"] == "tool_agent"
        assert row["index"] == index
        assert row["raw_prompt"][0]["role"] == "user"
        assert task["question"] in row["raw_prompt"][0]["content"]
        info = row["extra_info"]
        assert (info["task_id"], info["world"], info["kind"], info["split"]) == (
            task["id"], task["world"], task["kind"], "all"
        )
        route = {"create_kwargs": {"world": task["world"]}}
        assert row["tools_kwargs"] == {"web_search": route, "web_extractor": route}
        truth = row["reward_model"]["ground_truth"]
        assert row["reward_model"]["style"] == "rule"
        assert json.loads(truth["answer"]) == task["answer"]
        if isinstance(task["answer"], str):
            assert list(truth["target"]) == [task["answer"]]


def test_the_length_filter_tokenizes_every_prompt(parquet, tmp_path, tasks):
    assert len(load(parquet, tmp_path, tasks, max_prompt_length=8)) == 0


def test_collated_rows_score_one_with_the_gold_answer(parquet, tmp_path, tasks):
    from verl.utils.dataset.rl_dataset import collate_fn

    from fabula_env.reward import compute_score

    dataset = load(parquet, tmp_path, tasks, max_prompt_length=100_000)
    batch = collate_fn([dataset[i] for i in range(len(dataset))])
    short = 0
    for source, truth, task in zip(batch["data_source"], batch["reward_model"], tasks):
        gold = task["answer"]
        if not isinstance(gold, str):
            continue
        short += 1
        result = compute_score(source, f"<think>...</think><answer>{gold}</answer>", truth["ground_truth"])
        assert result["score"] == 1.0, (task["id"], gold, result)
        wrong = compute_score(source, "<answer>Nowhere at all</answer>", truth["ground_truth"])
        assert wrong["score"] < 1.0, (task["id"], wrong)
    assert short > 0


def test_rlhf_dataset_reads_the_search_r1_parquet(dataset, tmp_path, tasks):
    """`--format searchr1` as parquet: Search-R1's prompt, in the columns its trainer's
    `RLHFDataset` (verl's) reads, with the exact-match targets of its reward."""
    out = tmp_path / "searchr1.parquet"
    run_fabula("tasks", "export", "--worlds", str(dataset), "--format", "searchr1", "--out", str(out))
    rows = load(out, tmp_path, tasks, max_prompt_length=100_000)
    assert len(rows) == len(tasks)
    for index, task in enumerate(tasks):
        row = rows[index]
        prompt = row["raw_prompt"][0]["content"]
        assert "<search>" in prompt and "<answer>" in prompt and task["question"] in prompt
        assert row["agent_name"] == "single_turn_agent"
        truth = row["reward_model"]["ground_truth"]
        if isinstance(task["answer"], str):
            assert list(truth["target"]) == [task["answer"]]
