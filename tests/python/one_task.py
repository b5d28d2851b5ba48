"""One real task of a generated dataset for the client tests of tests/python/ (Tavily's,
gpt-oss's): a task that one search and one page answer, the answer read off what a client
returned, and `fabula eval` scoring it, as tests/e2e/suites.rs does for the other suites.
Standard library only, so every client's venv can import it.

    task = pick_task(fabula_bin(), worlds, tmp_dir)
    ... search for task.name, open task.evidence through the client, read the page ...
    assert score(fabula_bin(), task, read_off(page_text, task, "my client"), tmp_dir) == 1.0
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Task:
    """A task that one search and one page answer."""

    id: str
    world: int
    question: str
    answer: str  # the gold answer's text
    evidence: str  # the url of the one page that states it
    name: str  # the entity the question names: the evidence page's title
    record: str  # the task's line of `fabula tasks export`, as `fabula eval` reads it


def find_phrase(text: str, phrase: str) -> int | None:
    """Where PHRASE stands in TEXT as whole words (not inside a longer word or number)."""
    found = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)
    return found.start() if found else None


def pick_task(binary: str, worlds: Path, out: Path) -> Task:
    """The first easy lookup of WORLDS whose one evidence page is the article of an entity its
    question names and states the gold answer's text, preferring a name to a number (from
    `fabula tasks export` and `fabula corpus export`, written into OUT)."""
    tasks, corpus = out / "tasks.jsonl", out / "corpus.jsonl"
    for args, path in ((["tasks", "export", "--tier", "easy"], tasks), (["corpus", "export"], corpus)):
        subprocess.run([binary, *args, "--worlds", str(worlds), "--out", str(path)],
                       check=True, capture_output=True)
    pages = {}
    for line in corpus.read_text().splitlines():
        page = json.loads(line)
        pages[page["url"]] = (page["title"], page["contents"])
    candidates = []
    for line in tasks.read_text().splitlines():
        task = json.loads(line)
        answer, evidence = task["answer"], task["evidence"]
        if task["kind"] != "lookup" or task["tier"] != "easy" or not isinstance(answer, str):
            continue
        if len(evidence) != 1:
            continue
        title, contents = pages[evidence[0]]
        if title in task["question"] and find_phrase(contents, answer) is not None:
            candidates.append(Task(task["id"], task["world"], task["question"], answer,
                                   evidence[0], title, line))
    assert candidates, f"no easy lookup fits in {tasks}"
    named = [task for task in candidates if not any(c.isdigit() for c in task.answer)]
    return (named or candidates)[0]


def read_off(text: str, task: Task, suite: str) -> str:
    """The answer as TEXT, what SUITE returned, states it: the gold answer's text found there as
    whole words. Fails the test when the suite did not deliver it."""
    at = find_phrase(text, task.answer)
    assert at is not None, (f"{suite} did not deliver the answer {task.answer!r} to "
                            f"{task.question!r} ({task.id}); it returned:\n{text}")
    return text[at:at + len(task.answer)]


def score(binary: str, task: Task, answer: str, out: Path) -> float:
    """Writes ANSWER as TASK's prediction into OUT, runs `fabula eval --json` on the task and
    returns its exact match (checking the report is of that one task and prediction)."""
    tasks, predictions = out / "task.jsonl", out / "predictions.jsonl"
    tasks.write_text(task.record + "\n")
    predictions.write_text(json.dumps({"task_id": task.id, "answer": answer}) + "\n")
    ran = subprocess.run([binary, "eval", "--tasks", str(tasks), "--predictions",
                          str(predictions), "--json"], check=True, capture_output=True, text=True)
    report = json.loads(ran.stdout)
    assert report["counts"]["tasks"] == 1 and report["counts"]["predictions"] == 1, report
    (scored,) = report["per_task"]
    assert scored["task_id"] == task.id, report
    return scored["em"]
