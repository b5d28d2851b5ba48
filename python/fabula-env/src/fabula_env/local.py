"""Driving the `fabula` program from Python: make a dataset, index it, export its tasks, and
serve it on a free port for as long as a `with` block runs.

The wheel carries the `fabula` binary (it lands on the venv's PATH beside `python`), so none
of this needs a Rust toolchain:

    >>> import fabula_env
    >>> data = fabula_env.generate("worlds/small", count=50, seed=0)
    >>> with fabula_env.serve(data.path) as server:
    ...     hits = fabula_env.FabulaClient(server.url).search(0, "harbour", top_k=3)

Each function runs the binary with the flags the README documents and raises `FabulaRunError`
(with the program's own message) when it fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_LISTENING = re.compile(r"fabula: serving .* on (http://\S+) ")
_ADMIN = re.compile(r"fabula: admin listener .* on (http://\S+)")
_LOG_LINES = 200


class FabulaRunError(RuntimeError):
    """The `fabula` program failed, or could not be found or started."""


def find_fabula() -> str:
    """The `fabula` binary: `$FABULA_BIN`, else the one this package's wheel installed beside
    the interpreter, else the first on `PATH`."""
    explicit = os.environ.get("FABULA_BIN")
    if explicit:
        return explicit
    name = "fabula.exe" if sys.platform == "win32" else "fabula"
    beside = Path(sysconfig.get_path("scripts")) / name
    if beside.is_file():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise FabulaRunError(
            "no `fabula` binary: install the fabula-env wheel, or set $FABULA_BIN"
        )
    return found


def run(*args: str) -> str:
    """Runs `fabula ARGS...` to its end and returns what it printed on stdout."""
    done = subprocess.run([find_fabula(), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FabulaRunError(
            f"fabula {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout


@dataclass(frozen=True)
class Dataset:
    """A generated dataset: its folder, seed and number of worlds (from `manifest.json`)."""

    path: Path
    seed: int
    worlds: int

    @staticmethod
    def open(path: str | os.PathLike[str]) -> Dataset:
        """Reads a dataset's `manifest.json`."""
        folder = Path(path)
        manifest = json.loads((folder / "manifest.json").read_text())
        return Dataset(folder, int(manifest["master_seed"]), len(manifest["worlds"]))


def generate(
    out: str | os.PathLike[str],
    *,
    count: int = 1000,
    seed: int = 0,
    jobs: int | None = None,
    index: bool = True,
) -> Dataset:
    """`fabula generate`: `count` worlds of master seed `seed` in `out`, with their search
    indexes unless `index=False` (`--no-index`). Deterministic: the same arguments give the
    same files."""
    args = ["generate", "--count", str(count), "--seed", str(seed), "--out", os.fspath(out)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    if not index:
        args.append("--no-index")
    run(*args)
    return Dataset.open(out)


def build_index(worlds: str | os.PathLike[str], *, jobs: int | None = None) -> None:
    """`fabula index`: the search indexes of every world and the corpus-wide passage index."""
    args = ["index", os.fspath(worlds)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    run(*args)


def export_tasks(
    worlds: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    format: str = "jsonl",
    split: str = "all",
    tier: str | None = None,
) -> Path:
    """`fabula tasks export`: `format` is `jsonl`, `widesearch`, `searchr1` or `verl` (parquet
    for verl, and for searchr1 when `out` ends in `.parquet`); `split` is `train`, `dev`,
    `test` or `all`; `tier` keeps one difficulty tier. Returns `out`."""
    args = ["tasks", "export", "--worlds", os.fspath(worlds), "--format", format]
    args += ["--split", split, "--out", os.fspath(out)]
    if tier is not None:
        args += ["--tier", tier]
    run(*args)
    return Path(out)


@dataclass(frozen=True)
class Server:
    """A running `fabula serve`: the search API's base URL, and the trainers' listener's when
    one was asked for."""

    url: str
    admin_url: str | None
    pid: int


@contextmanager
def serve(
    worlds: str | os.PathLike[str],
    *,
    admin_token: str | None = None,
    extra_args: Sequence[str] = (),
    timeout: float = 120.0,
    command: str = "serve",
) -> Iterator[Server]:
    """Serves `worlds` on a free loopback port for the `with` block, then stops the server
    (SIGTERM, a graceful drain). With `admin_token` (16 characters or more) the trainers'
    listener (episodes, gold answers, scoring) opens too, on another free port. `command="up"`
    runs `fabula up`, which first generates and indexes the worlds when they are absent
    (`extra_args` then take `--count` and `--seed`)."""
    if command not in ("serve", "up"):
        raise ValueError(f"command {command!r} must be serve or up")
    args = [find_fabula(), command, "--worlds", os.fspath(worlds), "--addr", "127.0.0.1:0"]
    if admin_token is not None:
        args += ["--admin-addr", "127.0.0.1:0", "--admin-token", admin_token]
    args += list(extra_args)
    process = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    log = _ServerLog(process)
    try:
        url = log.wait_for(_LISTENING, timeout)
        admin_url = log.wait_for(_ADMIN, timeout) if admin_token is not None else None
        yield Server(url=url, admin_url=admin_url, pid=process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class _ServerLog:
    """Reads a server's stderr on a thread (so the pipe never fills) and keeps its last lines."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process
        self._lines: deque[str] = deque(maxlen=_LOG_LINES)
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            with self._changed:
                self._lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> str:
        """The first group of the first line matching `pattern`; `FabulaRunError` when the
        server exits or `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self._lines:
                    found = pattern.search(line)
                    if found:
                        return found.group(1)
                left = deadline - time.monotonic()
                if self._process.poll() is not None or left <= 0:
                    said = "\n".join(self._lines)
                    raise FabulaRunError(f"fabula serve did not start: {said}")
                self._changed.wait(min(left, 0.5))


__all__ = [
    "Dataset",
    "FabulaRunError",
    "Server",
    "build_index",
    "export_tasks",
    "find_fabula",
    "generate",
    "run",
    "serve",
]
