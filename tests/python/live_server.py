"""A live `fabula serve` for the client tests of tests/python/ (Tavily's, MCP's, gpt-oss's, the
remote world model's): a small generated dataset and a server on a free loopback port, stopped
when the block ends.
Standard library only, so every client's venv can import it.

    from live_server import fabula_bin, generated, serving
    with serving(fabula_bin(), generated(fabula_bin(), tmp_dir, count=2)) as base: ...
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def fabula_bin() -> str:
    """`$FABULA_BIN`, or this repository's target/debug/fabula."""
    return os.environ.get("FABULA_BIN", str(REPO / "target/debug/fabula"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def generated(binary: str, out: Path, count: int, seed: int = 7) -> Path:
    """`fabula generate --count COUNT --seed SEED --out OUT`; returns OUT."""
    subprocess.run([binary, "generate", "--count", str(count), "--seed", str(seed),
                    "--out", str(out)], check=True, capture_output=True)
    return out


@contextmanager
def serving(binary: str, worlds: Path, args: Sequence[str] = ()) -> Iterator[str]:
    """`fabula serve` over WORLDS on a free port, with ARGS added, until the block ends; yields
    its base url once `/health` answers."""
    addr = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen([binary, "serve", "--worlds", str(worlds), "--addr", addr, *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://{addr}/health", timeout=5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("fabula serve did not come up") from None
                time.sleep(0.1)
        yield f"http://{addr}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # still draining requests: stopped all the same
            process.kill()
            process.wait()
