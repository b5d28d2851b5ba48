"""Shared fixtures: the `fabula` binary, a small generated dataset and a live `fabula serve`.

The binary is `$FABULA_BIN` (default `target/debug/fabula` of this repository, built with
`cargo build -p fabula`). The dataset is `fabula generate --count 4 --seed 7`; the server
listens on free loopback ports, with the trainers' listener beside it, and is stopped at the
end of the session.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

import fabula_env

REPO = Path(__file__).resolve().parents[3]
ADMIN_TOKEN = "fabula-env-tests-admin-token"


def fabula_bin() -> str:
    path = Path(os.environ.get("FABULA_BIN", REPO / "target" / "debug" / "fabula"))
    if not path.is_file():
        pytest.fail(f"no fabula binary at {path}: run `cargo build -p fabula` or set FABULA_BIN")
    return str(path.resolve())


def run_fabula(*args: str) -> str:
    done = subprocess.run([fabula_bin(), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"fabula {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("worlds") / "small"
    run_fabula("generate", "--count", "4", "--seed", "7", "--out", str(out))
    return out


@pytest.fixture(scope="session")
def server(dataset):
    """The base urls of a live server: `{"url", "admin_url"}` (`fabula_env.serve`: free ports,
    the trainers' listener beside the public one)."""
    os.environ["FABULA_BIN"] = fabula_bin()
    with fabula_env.serve(dataset, admin_token=ADMIN_TOKEN, timeout=60) as running:
        yield {"url": running.url, "admin_url": running.admin_url}


@pytest.fixture(scope="session")
def tasks(dataset, tmp_path_factory) -> list[dict]:
    """Every task with its world, from `fabula tasks export --format jsonl`."""
    out = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    run_fabula("tasks", "export", "--worlds", str(dataset), "--format", "jsonl", "--out", str(out))
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.fixture(scope="session")
def search_r1_like_utils():
    """verl 0.7.1's `search_r1_like_utils` module, loaded from its file (see
    test_search_r1_utils.py)."""
    default = REPO / "target" / "verl-venv" / "verl071" / "search_r1_like_utils.py"
    path = Path(os.environ.get("VERL071_SEARCH_R1_UTILS", default))
    if not path.is_file():
        pytest.fail(f"verl 0.7.1's search_r1_like_utils.py is not at {path} (see README.md)")
    spec = importlib.util.spec_from_file_location("verl071_search_r1_like_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
