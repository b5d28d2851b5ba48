"""How often the root /retrieve puts a task's answer in front of a search-only agent.

For every short task (a string answer) of a fabula task export, the question is sent as the query
through the consumers' own client code, unmodified:

- verl's `perform_single_search_batch` (verl <= 0.7.1, `verl/tools/utils/search_r1_like_utils.py`),
  one call per question, as verl's SearchTool makes it;
- Search-R1's `LLMGenerationManager.batch_search` (`search_r1/llm_agent/generation.py`), all
  questions in batches of `--batch`, as a training step sends them. Its module imports torch and
  verl, so the three methods the search path uses (`batch_search`, `_batch_search`,
  `_passages2string`) are read out of the file with `ast` and run on a small stand-in object
  holding `config.topk` and `config.search_url`.

A lookup counts as found when the gold answer appears in the formatted top-k text as a whole
word, compared case-insensitively with commas between digits dropped on both sides (`19,656`
is `19656`). The report gives the share per task kind and overall, and the latency of
`--latency-runs` batches of `--batch` queries (p50, p99, max).

    python benches/python/retrieve_recall.py --url http://127.0.0.1:8080/retrieve \
        --tasks test.jsonl --verl-utils search_r1_like_utils.py --search-r1 generation.py
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib.util
import json
import re
import statistics
import sys
import time
import types


def load_verl(path: str):
    spec = importlib.util.spec_from_file_location("search_r1_like_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.perform_single_search_batch


def load_search_r1(path: str, url: str, topk: int):
    """Search-R1's three search methods, bound to a stand-in manager."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    wanted = {"batch_search", "_batch_search", "_passages2string"}
    methods = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "LLMGenerationManager":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in wanted:
                    methods[item.name] = item
    missing = wanted - methods.keys()
    if missing:
        sys.exit(f"{path} has no LLMGenerationManager.{sorted(missing)}")
    import requests  # noqa: F401  (the methods use it as a global)
    from typing import List  # noqa: F401

    namespace = {"requests": requests, "List": List}
    module = ast.Module(body=list(methods.values()), type_ignores=[])
    exec(compile(module, path, "exec"), namespace)
    manager = types.SimpleNamespace(config=types.SimpleNamespace(topk=topk, search_url=url))
    for name in wanted:
        setattr(manager, name, types.MethodType(namespace[name], manager))
    return manager.batch_search


def normalized(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", text.lower())


def found(answer: str, text: str) -> bool:
    needle = re.escape(normalized(answer.strip()))
    return re.search(rf"(?<!\w){needle}(?!\w)", normalized(text)) is not None


def short_tasks(path: str) -> list[dict]:
    tasks = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            task = json.loads(line)
            if isinstance(task.get("answer"), str) and task["answer"].strip():
                tasks.append(task)
    return tasks


def report(name: str, tasks: list[dict], texts: list[str]) -> dict:
    per_kind = collections.defaultdict(lambda: [0, 0])
    for task, text in zip(tasks, texts):
        per_kind[task["kind"]][1] += 1
        per_kind[task["kind"]][0] += found(task["answer"], text)
    total = [sum(v[0] for v in per_kind.values()), sum(v[1] for v in per_kind.values())]
    print(f"{name}:")
    for kind in sorted(per_kind):
        hits, count = per_kind[kind]
        print(f"  {kind:<10} {hits:>5} / {count:<5} {100 * hits / count:5.1f}%")
    print(f"  {'all':<10} {total[0]:>5} / {total[1]:<5} {100 * total[0] / max(total[1], 1):5.1f}%")
    return {kind: v for kind, v in per_kind.items()} | {"all": total}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the root retrieve url")
    parser.add_argument("--tasks", required=True, help="fabula tasks export (jsonl)")
    parser.add_argument("--verl-utils", help="verl's search_r1_like_utils.py")
    parser.add_argument("--search-r1", help="Search-R1's search_r1/llm_agent/generation.py")
    parser.add_argument("--topk", type=int, default=5)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--latency-runs", type=int, default=20)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    tasks = short_tasks(args.tasks)
    questions = [task["question"] for task in tasks]
    print(f"{len(tasks)} short tasks from {args.tasks}, top-{args.topk} passages")
    figures: dict = {"tasks": len(tasks), "topk": args.topk}

    if args.verl_utils:
        search = load_verl(args.verl_utils)
        texts = []
        for question in questions:
            _, metadata = search(args.url, [question], topk=args.topk)
            if metadata["status"] not in ("success", "no_results"):
                sys.exit(f"verl's search failed: {metadata['status']} {metadata['api_request_error']}")
            texts.append(metadata["formatted_result"] or "")
        figures["verl"] = report("verl perform_single_search_batch", tasks, texts)

    if args.search_r1:
        batch_search = load_search_r1(args.search_r1, args.url, args.topk)
        texts = []
        for start in range(0, len(questions), args.batch):
            texts.extend(batch_search(questions[start : start + args.batch]))
        figures["search_r1"] = report("Search-R1 batch_search", tasks, texts)

        batch = [questions[i % len(questions)] for i in range(args.batch)]
        seconds = []
        for _ in range(args.latency_runs):
            started = time.perf_counter()
            answers = batch_search(batch)
            seconds.append(time.perf_counter() - started)
            assert len(answers) == len(batch)
        figures["batch_latency_s"] = {
            "queries": len(batch),
            "runs": len(seconds),
            "p50": statistics.median(seconds),
            "p99": percentile(seconds, 0.99),
            "max": max(seconds),
        }
        lat = figures["batch_latency_s"]
        print(
            f"batch of {len(batch)} queries, {len(seconds)} runs: p50 {lat['p50']:.3f} s, "
            f"p99 {lat['p99']:.3f} s, max {lat['max']:.3f} s"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
