"""The reward: the compiled bindings (`fabula_env.score`, fabula-score through PyO3) score
exactly as the `fabula` binary's `fabula eval` does, and `compute_score` reads verl's ground truth.

The agreement test exports the tasks of the small generated dataset (see conftest.py), builds
for every task the gold as written, reformatted variants and perturbed ones, scores them all
with one `fabula eval --json` run and through the bindings, one by one and as whole files
(`fabula_env.score.evaluate`), and requires every figure to agree. The same table answers are
scored again through the WideSearch export and WideSearch-shaped response files. Both sides run
the same Rust code, so a disagreement means the bindings pass values wrongly (JSON numbers, list
predictions, reward names), which is what these tests guard.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import run_fabula

from fabula_env.reward import compute_score
from fabula_env.score import FIGURES, Gold, InvalidGold, Prediction, evaluate, score


@pytest.fixture(scope="module")
def exports(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small dataset's tasks exported as fabula JSONL and as WideSearch."""
    root = tmp_path_factory.mktemp("exports")
    for fmt, out in [("jsonl", "tasks.jsonl"), ("widesearch", "ws/tasks.jsonl")]:
        run_fabula("tasks", "export", "--worlds", str(dataset), "--format", fmt,
                   "--out", str(root / out))
    return root


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# Variants of a gold answer: (name, prediction as JSON). Each is scored by both scorers.


def text_variants(gold: str, rng: random.Random) -> list[tuple[str, object]]:
    variants = [
        ("gold", gold),
        ("upper", gold.upper()),
        ("lower", gold.lower()),
        ("punctuated", f"“{gold}”."),
        ("bold", f"**{gold}**"),
        ("sentence", f"The answer is {gold}."),
        ("json_answer", json.dumps({"answer": gold})),
        ("list", [gold]),
        ("wrong", gold + " Vell"),
        ("truncated", gold[: max(1, len(gold) // 2)]),
        ("reversed_words", " ".join(reversed(gold.split()))),
        ("repeated_words", f"{gold} {gold}"),
        ("empty", ""),
    ]
    digits = gold.replace(",", "")
    if digits.lstrip("-").isdigit():
        number = int(digits)
        variants += [
            ("grouped", f"{number:,}"),
            ("fraction", f"{number}.0"),
            ("json_number", number),
            ("off_by_one", str(number + 1)),
            ("percent", f"{number}%"),
        ]
    if len(gold) == 10 and gold[4] == "-" and gold[7] == "-":
        year, month, day = gold.split("-")
        months = ["January", "February", "March", "April", "May", "June", "July",
                  "August", "September", "October", "November", "December"]
        variants += [
            ("date_words", f"{months[int(month) - 1]} {int(day)}, {year}"),
            ("date_us", f"{month}/{day}/{year}"),
            ("date_month", f"{months[int(month) - 1]} {year}"),
            ("date_year", year),
        ]
    shuffled = list(gold)
    rng.shuffle(shuffled)
    variants.append(("shuffled_chars", "".join(shuffled)))
    return variants


def list_variants(gold: list[str], rng: random.Random) -> list[tuple[str, object]]:
    reordered = list(gold)
    rng.shuffle(reordered)
    return [
        ("gold", gold),
        ("prose", ", ".join(gold[:-1]) + (", and " if len(gold) > 1 else "") + gold[-1]),
        ("bullets", "\n".join(f"- {item}" for item in reordered)),
        ("numbered", "\n".join(f"{i + 1}. {item}" for i, item in enumerate(gold))),
        ("semicolons", "; ".join(item.upper() for item in reordered)),
        ("json_text", json.dumps(gold)),
        ("missing_one", gold[1:]),
        ("extra_one", [*gold, "Nowhere Vell"]),
        ("empty", ""),
    ]


def markdown_table(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table_variants(gold: dict, rng: random.Random) -> list[tuple[str, object]]:
    columns = gold["columns"]
    rows = [["" if c is None else str(c) for c in row] for row in gold["rows"]]
    key = columns.index(gold["key"][0])
    metrics = gold.get("metrics", {})
    shuffled = list(rows)
    rng.shuffle(shuffled)
    wrong = [list(row) for row in rows]
    value_col = next((i for i in range(len(columns)) if i != key), key)
    if wrong:
        wrong[0][value_col] = wrong[0][value_col] + "7"
    reformatted = []
    for row in rows:
        cells = []
        for column, cell in zip(columns, row):
            if metrics.get(column) == "number" and cell.isdigit():
                cells.append(f"{int(cell):,}")
            elif metrics.get(column) == "date" and len(cell) == 10:
                cells.append(cell.replace("-", "/"))
            else:
                cells.append(f"**{cell}**" if cell else cell)
        reformatted.append(cells)
    table = markdown_table(columns, rows)
    return [
        ("block", f"Here it is:\n```markdown\n{table}\n```\nDone."),
        ("pipe", f"Found these:\n\n{table}\n\nThat is all."),
        ("records", [dict(zip(columns, row)) for row in rows]),
        ("positional", rows),
        ("columns_rows", {"columns": [c.upper() for c in columns], "rows": rows}),
        ("shuffled", markdown_table(columns, shuffled)),
        ("duplicated", markdown_table(columns, rows + rows[:2])),
        ("keys_cased", markdown_table(columns, [
            [c.upper() if i == key else c for i, c in enumerate(row)] for row in rows])),
        ("reformatted", markdown_table([f"**{c}**" for c in columns], reformatted)),
        ("wrong_value", markdown_table(columns, wrong)),
        ("missing_row", markdown_table(columns, rows[1:])),
        ("missing_column", markdown_table(
            [c for i, c in enumerate(columns) if i != value_col],
            [[c for i, c in enumerate(row) if i != value_col] for row in rows])),
        ("extra_column", markdown_table([*columns, "Notes"], [[*row, "x"] for row in rows])),
        ("repeated_column", markdown_table(
            [*columns, columns[value_col]], [[*row, row[value_col]] for row in rows])),
        ("unnamed_column", markdown_table([*columns, ""], [[*row, "x"] for row in rows])),
        ("no_table", "I could not find them."),
        ("empty", ""),
    ]


def variants(answer: object, rng: random.Random) -> list[tuple[str, object]]:
    if isinstance(answer, str):
        return text_variants(answer, rng)
    if isinstance(answer, list):
        return list_variants(answer, rng)
    return table_variants(answer, rng)


def bindings_figures(answer: object, prediction: object) -> dict:
    return score(Gold.from_json(answer), Prediction.from_json(prediction)).figures()


def assert_same(rust: dict, python: dict, what: str) -> None:
    for name in FIGURES:
        expected, got = rust[name], python[name]
        if expected is None or got is None:
            assert expected is got, f"{what}: {name} rust={expected} python={got}"
        else:
            assert abs(expected - got) <= 1e-9, f"{what}: {name} rust={expected} python={got}"


def test_bindings_equal_fabula_eval(exports: Path, tmp_path: Path) -> None:
    rng = random.Random(7)
    tasks, predictions, expected = [], [], {}
    for task in read_jsonl(exports / "tasks.jsonl"):
        for name, prediction in variants(task["answer"], rng):
            task_id = f"{task['id']}~{name}"
            tasks.append({**task, "id": task_id})
            predictions.append({"task_id": task_id, "answer": prediction})
            expected[task_id] = (task["answer"], prediction)
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions))
    report = json.loads(run_fabula("eval", "--tasks", str(tmp_path / "tasks.jsonl"),
                               "--predictions", str(tmp_path / "pred.jsonl"), "--json"))
    assert evaluate(tmp_path / "tasks.jsonl", tmp_path / "pred.jsonl") == report
    assert len(report["per_task"]) == len(tasks) > 1000
    kinds = {row["kind"] for row in report["per_task"]}
    assert {"lookup", "table"} <= kinds
    for row in report["per_task"]:
        answer, prediction = expected[row["task_id"]]
        assert_same(row, bindings_figures(answer, prediction), row["task_id"])
    # The variants must exercise both outcomes, or the comparison proves little.
    rewards = {row["item_f1"] if row["kind"] == "table" else row["em"]
               for row in report["per_task"]}
    assert {0.0, 1.0} <= rewards


def test_widesearch_export_and_responses(exports: Path, tmp_path: Path) -> None:
    """`fabula eval` on the WideSearch export and a WideSearch response root (one
    `{model}_{instance_id}_{trial}_response.jsonl` per attempt) equals the bindings on the gold."""
    rng = random.Random(11)
    gold = {t["id"]: t["answer"] for t in read_jsonl(exports / "tasks.jsonl")}
    records = read_jsonl(exports / "ws" / "tasks.jsonl")
    assert records and all(isinstance(r["evaluation"], (str, dict)) for r in records)
    responses = tmp_path / "responses"
    responses.mkdir()
    trials: dict[str, list[str]] = {}
    for record in records:
        iid = record["instance_id"]
        texts = [v for _, v in table_variants(gold[iid], rng) if isinstance(v, str)][:2]
        trials[iid] = texts
        for trial, text in enumerate(texts):
            line = {"instance_id": iid, "response": text, "messages": [], "trial_idx": trial}
            (responses / f"m_{iid}_{trial}_response.jsonl").write_text(json.dumps(line) + "\n")
    report = json.loads(run_fabula("eval", "--tasks", str(exports / "ws" / "tasks.jsonl"),
                               "--predictions", str(responses), "--json"))
    assert evaluate(exports / "ws" / "tasks.jsonl", responses) == report
    assert report["attempts"] == 2 and len(report["per_task"]) == len(records)
    for row in report["per_task"]:
        attempts = [bindings_figures(gold[row["task_id"]], t) for t in trials[row["task_id"]]]
        mean = {name: (attempts[0][name] + attempts[1][name]) / 2 for name in FIGURES
                if attempts[0][name] is not None}
        assert_same({**dict.fromkeys(FIGURES), **{k: row[k] for k in mean}},
                    {**dict.fromkeys(FIGURES), **mean}, row["task_id"])


def gold_solution(gold: object) -> str:
    """The gold answer written as an agent would: text, a comma list or a pipe table."""
    if isinstance(gold, dict):
        rows = [[str(cell) for cell in row] for row in gold["rows"]]
        return markdown_table(gold["columns"], rows)
    if isinstance(gold, list):
        return ", ".join(gold)
    return str(gold)


def test_reward_on_the_verl_export(dataset: Path, tmp_path: Path) -> None:
    """verl reads the parquet with pandas, so `target` arrives as a numpy array."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "train.parquet"
    run_fabula("tasks", "export", "--worlds", str(dataset), "--format", "verl", "--out", str(out))
    frame = pd.read_parquet(out)
    kinds = set()
    for _, row in frame.iterrows():
        truth = row["reward_model"]["ground_truth"]
        solution = gold_solution(json.loads(truth["answer"]))
        right = compute_score(row["data_source"], f"<answer>{solution}</answer>", truth,
                              row["extra_info"])
        wrong = compute_score(row["data_source"], "<answer>Nowhere</answer>", truth,
                              row["extra_info"])
        assert (right["score"], wrong["score"]) == (1.0, 0.0), row["extra_info"]
        kinds.add(row["extra_info"]["kind"])
    assert {"lookup", "table"} <= kinds


TOWNS = {
    "columns": ["Name", "Population", "Founded", "Motto"],
    "key": ["Name"],
    "rows": [
        ["Vess", 12000, "1021-04-02", "Salt and Iron"],
        ["Orr", 4500, "1044-11-30", "By the Tide"],
        ["Kael Moor", 800, "1102-06-15", "Stone Holds"],
    ],
}


def check(answer: object, solution: str, expect: dict) -> None:
    """Scores a solution with `compute_score` as verl calls it and compares chosen keys."""
    ground_truth = {"target": ["unused"], "answer": json.dumps(answer)}
    got = compute_score("fabula", solution, ground_truth, extra_info={"kind": "x"})
    assert set(got) == {"score", "is_table", *FIGURES}
    assert {k: round(got[k], 4) for k in expect} == expect, got


def test_hand_written_cases() -> None:
    check("12,345", "<think>hm</think><answer>12345.0</answer>", {"score": 1.0, "f1": 1.0})
    check("March 5, 1987", "<answer>x</answer> <answer>1987-03-05</answer>", {"score": 1.0})
    check("The Order of the Lamp", "Order of Lamp", {"score": 1.0})
    check("Vess Hall", "<answer>Vess</answer>", {"score": 0.0, "f1": 0.6667})
    check(["Vess", "Orr"], "<answer>Orr, and Vess</answer>", {"score": 1.0})
    check(["Vess", "Orr"], "<answer>Vess</answer>", {"em": 0.0, "f1": 0.6667})
    rows = "| Vess | 12000 | 1021-04-02 | Salt and Iron |\n"
    rows += "| Orr | 4600 | 1044-11-30 | By the Tide |\n"
    rows += "| Kael Moor | 800 | 1102-06-15 | Stone Holds |"
    header = "| Name | Population | Founded | Motto |\n|---|---|---|---|\n"
    check(TOWNS, f"<answer>{header}{rows}</answer>",
          {"score": 0.9167, "row_f1": 0.6667, "success": 0.0, "is_table": 1.0})
    # WideSearch's evaluator zeroes a table that misses a column (item F1 0, not 0.75).
    no_motto = "\n".join(line.rsplit("|", 2)[0] + "|" for line in (header + rows).splitlines())
    check(TOWNS, no_motto, {"score": 0.0, "item_f1": 0.0, "row_f1": 0.0})


def test_ground_truth_shapes() -> None:
    parsed = compute_score("fabula/lookup", "<answer>Vess</answer>", {"answer": "Vess"})
    assert parsed["score"] == 1.0
    as_list = compute_score("fabula", "Orr", {"answer": ["Orr"], "target": ["Orr"]})
    assert as_list["score"] == 1.0
    alternatives = compute_score("fabula", "<answer>Orr</answer>", {"target": ["Vess", "Orr"]})
    assert alternatives["score"] == 1.0
    assert compute_score("fabula", "Orr", ["Vess"])["score"] == 0.0
    assert compute_score("fabula", "Vess", "Vess")["score"] == 1.0
    tolerant = compute_score("fabula", "Vess", {"answer": "Vess Hall"}, short_reward="f1")
    assert round(tolerant["score"], 4) == 0.6667


def test_unknown_data_source_is_named() -> None:
    with pytest.raises(ValueError, match="'nq'"):
        compute_score("nq", "Vess", {"answer": "\"Vess\""})


def test_bindings_refuse_what_they_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InvalidGold, match="columns"):
        Gold.from_json({"rows": [["Vess"]]})
    with pytest.raises(ValueError, match="short_reward"):
        score(Gold.from_json("Vess"), Prediction.from_text("Vess")).reward(short="bleu")
    with pytest.raises(ValueError, match="cannot read"):
        evaluate(tmp_path / "missing.jsonl", tmp_path / "pred.jsonl")
    scored = score(Gold.from_json(TOWNS), Prediction.from_text("no table here"))
    assert scored.issues == [{"issue": "no_table"}] and scored.reward() == 0.0
