"""Checks a fabula-env installed from source (`pip install ./python/fabula-env`, or `-e`): the
`fabula` entry point the wheel put beside the venv's python, one search through the package's
client against a server that entry point runs, and one reward from the compiled scorer.

Run it with the venv's python, from anywhere:

    python3 -m venv target/src-venv
    FABULA_CARGO_PROFILE=dev target/src-venv/bin/pip install ./python/fabula-env   # or -e
    target/src-venv/bin/python scripts/from-source-check.py [--editable]

`--editable` also checks that the package is imported from python/fabula-env/src (an editable
install), otherwise that it is imported from the venv (a wheel install). $FABULA_BIN is ignored:
the point is the entry point the install made.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "python" / "fabula-env" / "src"


def main() -> None:
    editable = sys.argv[1:] == ["--editable"]
    if sys.argv[1:] not in ([], ["--editable"]):
        sys.exit(f"usage: {sys.argv[0]} [--editable]")
    os.environ.pop("FABULA_BIN", None)

    import fabula_env
    from fabula_env import FabulaClient, _native
    from fabula_env.reward import compute_score

    # Where the package came from: the source tree for -e, the venv's site-packages otherwise.
    package = Path(fabula_env.__file__).resolve()
    native = Path(_native.__file__).resolve()
    for path in (package, native):
        inside = path.is_relative_to(SOURCE)
        assert inside == editable, f"{path} is {'' if inside else 'not '}under {SOURCE}"
    print(f"fabula_env from {package.parent}, its scorer {native.name}")

    # The entry point: `fabula` in the venv's bin/, which the package itself finds first.
    fabula = Path(sysconfig.get_path("scripts")) / "fabula"
    assert fabula.is_file() and os.access(fabula, os.X_OK), f"no `fabula` entry point at {fabula}"
    assert fabula_env.find_fabula() == str(fabula), fabula_env.find_fabula()
    version = subprocess.run([fabula, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("fabula "), version.stdout
    print(f"{fabula} --version: {version.stdout.strip()}")

    with tempfile.TemporaryDirectory(prefix="fabula-from-source-") as tmp:
        worlds = Path(tmp) / "worlds"
        tasks = Path(tmp) / "tasks.jsonl"
        subprocess.run(
            [fabula, "generate", "--count", "1", "--seed", "1", "--out", worlds], check=True
        )
        subprocess.run(
            [fabula, "tasks", "export", "--worlds", worlds, "--format", "jsonl", "--out", tasks],
            check=True,
        )
        every = [json.loads(line) for line in tasks.read_text().splitlines()]
        task = next(t for t in every if isinstance(t["answer"], str))

        # One search: `fabula serve` on a free loopback port for the block (SIGTERM after it).
        with fabula_env.serve(worlds, timeout=120) as server, FabulaClient(server.url) as client:
            hits = client.search(task["world"], task["question"], top_k=3)["results"]
            assert len(hits) == 3, hits
            print(f"search {task['question']!r}: {hits[0]['url']} first of {len(hits)}")

    # One reward: the compiled scorer, through the function verl calls.
    truth = {"target": [task["answer"]], "answer": json.dumps(task["answer"])}
    right = compute_score("fabula", f"<answer>{task['answer']}</answer>", truth)
    wrong = compute_score("fabula", "<answer>Nowhere at all</answer>", truth)
    assert (right["score"], wrong["score"]) == (1.0, 0.0), (right, wrong)
    print(f"reward: {right['score']} for the gold answer {task['answer']!r}, 0.0 for another")
    print("fabula-env from source: ok")


if __name__ == "__main__":
    main()
