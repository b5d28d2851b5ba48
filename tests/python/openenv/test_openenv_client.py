"""openenv-core's own client (`GenericEnvClient`, over its WebSocket) drives episodes against a
live `fabula serve` with the trainers' listener: reset on a named or a seeded task, search, read
a page, answer, and the reward is the task's score.

Needs FABULA_BIN (default target/debug/fabula, built with `cargo build -p fabula`).
"""

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from openenv.core import GenericEnvClient

REPO = Path(__file__).resolve().parents[3]
TOKEN = "openenv-test-token-0123"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get_json(url: str, token: str | None = None):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    binary = os.environ.get("FABULA_BIN", str(REPO / "target/debug/fabula"))
    worlds = tmp_path_factory.mktemp("worlds")
    subprocess.run(
        [binary, "generate", "--count", "4", "--seed", "7", "--out", str(worlds)],
        check=True,
        capture_output=True,
    )
    addr, admin = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [binary, "serve", "--worlds", str(worlds), "--addr", addr,
         "--admin-addr", admin, "--admin-token", TOKEN],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get_json(f"http://{admin}/health")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("fabula serve did not come up")
                time.sleep(0.1)
        yield f"http://{admin}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def lookup_task(base: str) -> dict:
    """A short-answer task of world 0, with its gold answer, from the admin API."""
    tasks = get_json(f"{base}/admin/worlds/0/tasks", TOKEN)["tasks"]
    return next(task for task in tasks if isinstance(task["answer"], str))


def client(base: str) -> GenericEnvClient:
    # openenv-core's WebSocket sends no headers of its own: the token rides as the URL's
    # password, which the websockets library sends as Basic auth.
    return GenericEnvClient(base_url=base.replace("http://", f"http://fabula:{TOKEN}@")).sync()


def test_an_episode_on_a_named_task_scores_the_gold_answer(server):
    task = lookup_task(server)
    with client(server) as env:
        result = env.reset(task_id=task["id"])
        assert result.done is False and result.reward is None
        assert result.observation["text"] == task["question"]
        assert result.observation["info"]["task_id"] == task["id"]

        result = env.step({"tool": "web_search", "query": task["question"]})
        assert result.done is False and result.reward == 0.0
        hits = result.observation["info"]["result"]
        url = hits["responses"][0]["results"][0]["url"] if "responses" in hits else hits["results"][0]["url"]
        result = env.step({"tool": "web_extractor", "url": url})
        assert result.done is False
        assert result.observation["text"]

        result = env.step({"tool": "answer", "answer": task["answer"]})
        assert result.done is True
        assert result.reward == 1.0
        state = env.state()
        assert state["step_count"] == 3 and state["done"] is True
        assert state["task_id"] == task["id"]


def test_seeded_resets_repeat_and_a_wrong_answer_scores_low(server):
    with client(server) as env:
        first = env.reset(seed=11)
        again = env.reset(seed=11)
        assert first.observation["info"]["task_id"] == again.observation["info"]["task_id"]
        assert first.observation["info"]["episode_id"] != again.observation["info"]["episode_id"]
        result = env.step({"tool": "answer", "answer": "certainly not the answer"})
        assert result.done is True
        assert result.reward < 1.0


def test_errors_come_back_as_openenv_errors(server):
    with client(server) as env:
        with pytest.raises(RuntimeError, match="send a reset first"):
            env.step({"tool": "web_search", "query": "anything"})
        env.reset(seed=1)
        with pytest.raises(RuntimeError, match="unknown tool `browse`"):
            env.step({"tool": "browse"})
        # The connection survives an error.
        assert env.state()["step_count"] == 0


def test_a_wrong_token_is_refused(server):
    wrong = GenericEnvClient(base_url=server.replace("http://", "http://fabula:wrong@")).sync()
    with pytest.raises(ConnectionError):
        wrong.connect()


def test_readme_example(tmp_path):
    """README.md's example, run as written against the README's `fabula up` (free ports and a
    7-world dataset of seed 0: see tests/python/readme_blocks.py); what its comments say it
    prints, it prints."""
    import sys

    sys.path.insert(0, str(REPO / "tests" / "python"))
    import readme_blocks

    binary = os.environ.get("FABULA_BIN", str(REPO / "target/debug/fabula"))
    readme_blocks.run_example("TRL and OpenEnv", binary, tmp_path)
