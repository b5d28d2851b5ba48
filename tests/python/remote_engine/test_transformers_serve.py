"""fabula's remote world model against a real third-party engine: `transformers serve`
(OpenAI-compatible, CPU, float32) serving the tiny random Qwen3.5 checkpoint of the differential
test (tests/python/qwen3_5/tiny_qwen35.py), behind `fabula serve --renderer lwm
--world-model-url URL --world-model-name NAME`.

The random model writes garbage, so its renders are rejected by verification and the template
text is served: what is checked is the protocol and the bookkeeping. Every search and extract
answers 200; each render fabula asks for reaches the engine (its access log) or is counted as an
engine failure (`time_budget`, `engine_unavailable`, `model_error`); `/metrics` adds up. Then the engine stalls (SIGSTOP: the render times out
within fabula's render budget, `--world-model-timeout`, and the renders after it skip the engine
for its cool-down, `--world-model-cooldown`), is killed with a render in flight and stays down
(template answers at once), and comes back on the same port: after the cool-down the renders that
failed go to it again.

Needs the `transformers[serving]` extra and FABULA_BIN (default target/debug/fabula).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "qwen3_5"))
from live_server import fabula_bin, free_port, generated, serving  # noqa: E402

# `transformers serve` and its `serving` extra: skipped without them, except in CI.
for module in ("torch", "transformers", "fastapi", "uvicorn", "openai", "accelerate", "requests"):
    if os.environ.get("CI"):
        importlib.import_module(module)
    else:
        pytest.importorskip(module)

# fabula's render budget (fabula_lwm::RenderConfig's default; `fabula serve` sets no other).
RENDER_BUDGET_S = 8
COOLDOWN_S = 2
MAX_NEW_TOKENS = 24
# A ChatML template: the tiny checkpoint's tokenizer has `<|im_start|>` and `<|im_end|>` but no
# template, and `transformers serve` applies the checkpoint's own.
CHAT_TEMPLATE = (
    "{%- for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
COMPLETION = re.compile(r'"POST /v1/chat/completions HTTP/1\.[01]" (\d{3})')


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """The dense tiny Qwen3.5, with a chat template added."""
    from tiny_qwen35 import write_checkpoint

    out = tmp_path_factory.mktemp("tiny-qwen35")
    write_checkpoint(out, "dense", 0)
    config = json.loads((out / "tokenizer_config.json").read_text())
    if "chat_template" not in config and not (out / "chat_template.jinja").exists():
        (out / "chat_template.jinja").write_text(CHAT_TEMPLATE)
    return out


@pytest.fixture(scope="module")
def worlds(tmp_path_factory) -> Path:
    return generated(fabula_bin(), tmp_path_factory.mktemp("worlds"), count=2)


class Engine:
    """`transformers serve` on one port, started and stopped at will; each start logs to its
    own file, whose access lines count the completions it answered."""

    def __init__(self, checkpoint: Path, folder: Path) -> None:
        self.checkpoint = checkpoint
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "engine-0.log"
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.log = self.folder / f"engine-{self.starts}.log"
        self.starts += 1
        env = {
            **os.environ,
            "HF_HOME": str(self.folder / "hf"),
            "HF_HUB_OFFLINE": "1",
            "HF_HUB_DISABLE_UPDATE_CHECK": "1",
            "CUDA_VISIBLE_DEVICES": "",
        }
        binary = Path(sys.executable).parent / "transformers"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(binary), "serve", str(self.checkpoint), "--device", "cpu",
                 "--dtype", "float32", "--host", "127.0.0.1", "--port", str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=5).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    tail = self.tail()
                    raise RuntimeError(f"transformers serve did not start:\n{tail}") from None
                time.sleep(0.2)

    def signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(sig)

    def stop(self) -> None:
        """Kills the engine (SIGKILL: no graceful end, as a crash) and waits for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    def completions(self) -> list[int]:
        """The status of each chat completion this start answered."""
        return [int(status) for status in COMPLETION.findall(self.log.read_text(errors="replace"))]

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@contextmanager
def engine_running(checkpoint: Path, folder: Path) -> Iterator[Engine]:
    engine = Engine(checkpoint, folder)
    try:
        engine.start()
        yield engine
    finally:
        engine.stop()


@contextmanager
def fabula_with(engine: Engine, worlds: Path) -> Iterator[str]:
    args = ["--renderer", "lwm", "--world-model-url", engine.url,
            "--world-model-name", str(engine.checkpoint), "--max-new-tokens", str(MAX_NEW_TOKENS),
            "--world-model-timeout", str(RENDER_BUDGET_S), "--world-model-cooldown", str(COOLDOWN_S)]
    with serving(fabula_bin(), worlds, args) as base:
        yield base


def post(url: str, body: dict, timeout: float = 120) -> tuple[int, dict]:
    """POSTs JSON; returns the status and the JSON answer, errors included."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def metrics(base: str) -> dict[str, float]:
    """`/metrics` as {series: value}, series as written (`name{labels}`)."""
    with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            values[series] = float(value)
    return values


# The fallback reasons of an engine that failed a render: no answer in time, none at all (or
# skipped in its cool-down), an answer that is no completion.
ENGINE_FAILURES = ("time_budget", "engine_unavailable", "model_error")


def engine_failures(reasons: dict[str, int]) -> int:
    """The renders an engine failed, whatever the reason."""
    return sum(reasons.get(r, 0) for r in ENGINE_FAILURES)


def fallbacks(values: dict[str, float]) -> dict[str, int]:
    return {series[len('fabula_lwm_fallbacks_total{reason="'):-2]: int(n)
            for series, n in values.items() if series.startswith("fabula_lwm_fallbacks_total{")}


@dataclass
class Driver:
    """Sessions' searches and extracts against one fabula, with what their answers imply."""

    base: str
    statuses: list[int] = field(default_factory=list)
    searches: int = 0
    extracts: int = 0
    renders: int = 0  # renders the answers imply (a search with results, a whole-page extract)
    rendered_by: dict[str, int] = field(default_factory=lambda: {"lwm": 0, "template": 0})
    sessions: dict[int, str] = field(default_factory=dict)

    def session(self, world: int, fresh: bool = False) -> str:
        if fresh or world not in self.sessions:
            status, answer = post(f"{self.base}/v1/sessions", {"world": world, "seed": 1})
            assert status == 200, answer
            self.sessions[world] = answer["session"]
        return self.sessions[world]

    def search(self, world: int, query: str, fresh: bool = False) -> dict:
        sid = self.session(world, fresh)
        status, answer = post(f"{self.base}/v1/sessions/{sid}/search", {"query": query, "top_k": 2})
        self.statuses.append(status)
        assert status == 200, (query, answer)
        self.searches += 1
        self.renders += bool(answer["results"])
        self.rendered_by[answer["rendered_by"]] += 1
        return answer

    def extract(self, world: int, url: str) -> dict:
        sid = self.session(world)
        status, answer = post(f"{self.base}/v1/sessions/{sid}/extract", {"url": url})
        self.statuses.append(status)
        assert status == 200, (url, answer)
        self.extracts += 1
        self.renders += answer["next_start"] is None
        self.rendered_by[answer["rendered_by"]] += 1
        return answer

    def pages(self, world: int, n: int) -> list[tuple[str, str]]:
        """The N shortest of 20 pages of WORLD as (url, title), distinct titles, through the
        Tavily routes (never rendered): short pages make short prompts."""
        with urllib.request.urlopen(f"{self.base}/v1/worlds", timeout=10) as response:
            name = next(w["name"] for w in json.load(response)["worlds"] if w["id"] == world)
        status, found = post(f"{self.base}/compat/tavily/{world}/search",
                             {"query": name, "max_results": 20})
        assert status == 200, found
        titles = {result["url"]: result["title"] for result in found["results"]}
        status, pages = post(f"{self.base}/compat/tavily/{world}/extract", {"urls": [*titles]})
        assert status == 200, pages
        pairs = [(len(page["raw_content"]), page["url"], titles[page["url"]])
                 for page in pages["results"]]
        shortest: dict[str, str] = {}
        for _, url, title in sorted(pairs):
            shortest.setdefault(title, url)
        assert len(shortest) >= n, pairs
        return [(url, title) for title, url in shortest.items()][:n]


def check_books(base: str, driver: Driver) -> dict[str, float]:
    """The identities `/metrics` must satisfy against what the driver saw; returns it."""
    values = metrics(base)
    reasons = fallbacks(values)
    attempted = int(values["fabula_lwm_renders_attempted_total"])
    accepted = int(values["fabula_lwm_renders_accepted_total"])
    assert attempted == accepted + sum(reasons.values()), values
    assert attempted == driver.renders, (attempted, driver.renders)
    served = {(endpoint, by): int(values[
        f'fabula_observations_total{{endpoint="{endpoint}",rendered_by="{by}"}}'])
        for endpoint in ("search", "extract") for by in ("lwm", "template")}
    assert served["search", "lwm"] + served["search", "template"] == driver.searches, served
    assert served["extract", "lwm"] + served["extract", "template"] == driver.extracts, served
    assert served["search", "lwm"] + served["extract", "lwm"] == driver.rendered_by["lwm"]
    assert driver.rendered_by["lwm"] == accepted, (driver.rendered_by, accepted)
    assert all(status == 200 for status in driver.statuses), driver.statuses
    return values


def test_renders_go_to_the_engine_and_the_counters_add_up(checkpoint, worlds, tmp_path):
    with engine_running(checkpoint, tmp_path) as engine, fabula_with(engine, worlds) as base:
        driver = Driver(base)
        for world in (0, 1):
            pages = driver.pages(world, 4)
            for _, title in pages[:3]:
                driver.search(world, title)
            for url, _ in pages[:2]:
                driver.extract(world, url)
        # World 1's first search again, from a new session: a cache hit, no request.
        driver.search(1, pages[0][1], fresh=True)

        values = check_books(base, driver)
        reasons = fallbacks(values)
        hits = int(values["fabula_lwm_cache_hits_total"])
        attempted = int(values["fabula_lwm_renders_attempted_total"])
        assert driver.renders >= 8 and hits == 1, (driver.renders, hits)
        # Every render but the cache hit reached the engine and came back a completion fabula
        # read: none failed as a model error, and none was lost on the way.
        assert sum(reasons[r] for r in ENGINE_FAILURES) == 0, (reasons, engine.tail())
        assert reasons["time_budget"] == 0, reasons
        assert engine.completions() == [200] * (attempted - hits), engine.tail()
        tokens = values["fabula_lwm_tokens_generated_total"]
        assert 0 < tokens <= (attempted - hits) * MAX_NEW_TOKENS, values
        assert values["fabula_lwm_generation_seconds_total"] > 0


def test_a_stalled_killed_and_restarted_engine(checkpoint, worlds, tmp_path):
    with engine_running(checkpoint, tmp_path) as engine, fabula_with(engine, worlds) as base:
        driver = Driver(base)
        pages = driver.pages(0, 8)
        titles = [title for _, title in pages]
        driver.search(0, titles[0])
        assert engine.completions() == [200]

        def model_errors() -> int:
            return engine_failures(fallbacks(metrics(base)))

        # Stalled: the engine accepts the connection but never answers; the render gives up
        # when its budget runs out and the template answers.
        engine.signal(signal.SIGSTOP)
        started = time.monotonic()
        answer = driver.search(0, titles[1])
        waited = time.monotonic() - started
        assert answer["rendered_by"] == "template"
        assert RENDER_BUDGET_S - 1 < waited < RENDER_BUDGET_S + 15, waited
        assert model_errors() == 1
        # Within the cool-down the stalled engine is not asked: the template answers at once.
        started = time.monotonic()
        skipped = driver.search(0, titles[6])
        assert skipped["rendered_by"] == "template"
        assert time.monotonic() - started < 3
        assert model_errors() == 2
        time.sleep(COOLDOWN_S)

        # Killed with a render in flight: that request still answers, at once.
        answers = []
        thread = threading.Thread(target=lambda: answers.append(driver.search(0, titles[2])))
        before = metrics(base)["fabula_lwm_renders_attempted_total"]
        thread.start()
        deadline = time.monotonic() + 10
        while metrics(base)["fabula_lwm_renders_attempted_total"] == before:
            assert time.monotonic() < deadline, "the render never started"
            time.sleep(0.05)
        time.sleep(0.5)
        killed = time.monotonic()
        engine.stop()
        thread.join(timeout=RENDER_BUDGET_S + 15)
        assert not thread.is_alive(), "the in-flight request hung"
        assert time.monotonic() - killed < 10
        assert answers and answers[0]["rendered_by"] == "template"
        assert model_errors() == 3
        time.sleep(COOLDOWN_S)

        # Down: every render fails to connect and falls back at once.
        down = [(titles[3], None), (titles[4], None), (None, pages[5][0])]
        renders_before = driver.renders
        for query, url in down:
            started = time.monotonic()
            if query:
                answer = driver.search(0, query)
            else:
                answer = driver.extract(0, url)
            assert answer["rendered_by"] == "template"
            assert time.monotonic() - started < 5
        # The stall, the skip, the kill, each render while down (the first refused, the rest
        # skipped in the cool-down it started).
        failed = 3 + driver.renders - renders_before
        assert model_errors() == failed
        check_books(base, driver)

        # Back on the same port, after the cool-down: the failed renders were not cached, so each
        # goes to the engine.
        engine.start()
        time.sleep(COOLDOWN_S)
        tokens_before = metrics(base)["fabula_lwm_tokens_generated_total"]
        renders_before = driver.renders
        for query, url in [(titles[1], None), (titles[6], None), (titles[2], None), *down]:
            if query:
                driver.search(0, query)
            else:
                driver.extract(0, url)
        values = check_books(base, driver)
        retried = driver.renders - renders_before
        assert retried == failed, (retried, failed)
        assert engine_failures(fallbacks(values)) == failed, values
        # Each failure counted under its own reason: the stall out of time, the rest unavailable.
        reasons = fallbacks(values)
        assert reasons["time_budget"] == 1, reasons
        assert reasons["engine_unavailable"] == failed - 1, reasons
        assert reasons["model_error"] == 0, reasons
        assert values["fabula_lwm_render_seconds_count"] >= failed, values
        assert engine.completions() == [200] * retried, engine.tail()
        assert values["fabula_lwm_tokens_generated_total"] > tokens_before
