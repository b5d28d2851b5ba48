"""README.md's "Trainers and agents" commands, run as written: its fenced blocks, the server
they talk to, and the only rewrites a test needs (standard library only, so every test venv
imports it: fabula-env's, OpenEnv's and Tavily's).

A block's key is its sub-heading and its order under it, `("curl", 0)`. Blocks run as written
but for three rewrites, the places where a test machine must differ from a reader's: the ports
(the README's 8080 and 8081 become the test server's free ports), the dataset (`worlds/default`
becomes the test's own, `fabula up --count 7 --seed 0`: its world 0 is the README's world 0,
since a world depends on the master seed and its id only) and the working directory (a
temporary folder). `fabula` and `python` on PATH are the binary under test and the test's
interpreter.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SECTION = "## Trainers and agents"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
_LISTENING = re.compile(r"fabula: serving .* on http://(\S+) ")
_ADMIN = re.compile(r"fabula: admin listener .* on http://(\S+)")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language and text."""

    heading: str
    index: int
    lang: str
    text: str

    @property
    def key(self) -> tuple[str, int]:
        return (self.heading, self.index)


def blocks() -> list[Block]:
    """The fenced blocks of the section, in order."""
    readme = (REPO / "README.md").read_text()
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    section = readme[start : end if end != -1 else len(readme)]
    found: list[Block] = []
    heading, counts = SECTION[3:], {}
    for part in re.split(r"^(### .*)$", section, flags=re.MULTILINE):
        if part.startswith("### "):
            heading = part[4:].strip()
            continue
        for fence in _FENCE.finditer(part):
            index = counts.get(heading, 0)
            counts[heading] = index + 1
            found.append(Block(heading, index, fence.group(1), fence.group(2)))
    return found


def block(heading: str, index: int = 0) -> Block:
    """The block with this key; `KeyError` names the keys there are."""
    every = blocks()
    for candidate in every:
        if candidate.key == (heading, index):
            return candidate
    raise KeyError(f"no block {(heading, index)} in README.md: {[b.key for b in every]}")


@dataclass(frozen=True)
class Server:
    """A `fabula up` started from the README's first block: addresses and the dataset."""

    addr: str
    admin_addr: str
    worlds: Path
    token: str

    def rewrite(self, text: str) -> str:
        """The README's text for this server: ports and dataset."""
        for host in ("127.0.0.1", "localhost"):
            text = text.replace(f"{host}:8080", self.addr).replace(f"{host}:8081", self.admin_addr)
        return text.replace("worlds/default", str(self.worlds))


def up_args() -> list[str]:
    """The arguments of the README's `fabula up` command (after `up`)."""
    command = block(SECTION[3:]).text.strip()
    prefix = "cargo run --release -p fabula -- up "
    assert command.startswith(prefix), command
    return command[len(prefix) :].split()


def start_server(fabula: str, root: Path) -> tuple[Server, subprocess.Popen[str]]:
    """Runs the README's `fabula up`, on free ports, for 7 worlds of seed 0 (world 6 falls in
    the test split) in `root/worlds/default`; returns once both listeners are open."""
    args = up_args()
    token = args[args.index("--admin-token") + 1]
    admin = args.index("--admin-addr")
    args[admin + 1] = "127.0.0.1:0"
    worlds = root / "worlds" / "default"
    command = [fabula, "up", *args, "--addr", "127.0.0.1:0"]
    command += ["--worlds", str(worlds), "--count", "7", "--seed", "0"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    lines: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 300
    while True:
        text = "".join(lines)
        addr, admin_addr = _LISTENING.search(text), _ADMIN.search(text)
        if addr and admin_addr:
            return Server(addr.group(1), admin_addr.group(1), worlds, token), process
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"fabula up did not start: {text[-3000:]}")
        time.sleep(0.1)


def stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def bin_dir(fabula: str, root: Path) -> str:
    """What goes first on PATH so the README's commands find `fabula` (the binary under test,
    linked into `root/bin`) and `python` (this interpreter's own bin folder, so a venv's
    interpreter keeps its venv)."""
    folder = root / "bin"
    folder.mkdir(exist_ok=True)
    link = folder / "fabula"
    if not link.exists():
        link.symlink_to(fabula)
    return f"{folder}{os.pathsep}{Path(sys.executable).parent}"


def run_shell(text: str, cwd: Path, path_first: str, env: dict[str, str] | None = None) -> str:
    """Runs a block's text with bash (`set -euo pipefail`) in `cwd`; returns its stdout and
    raises with its stderr when it fails."""
    environ = {**os.environ, **(env or {})}
    environ["PATH"] = f"{path_first}{os.pathsep}{environ['PATH']}"
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise AssertionError(f"README block failed ({done.returncode}):\n{text}\n{done.stderr}")
    return done.stdout


def run_python(text: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Runs a block's text with this interpreter in `cwd`; returns its stdout."""
    environ = {**os.environ, **(env or {})}
    done = subprocess.run([sys.executable, "-c", text], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise AssertionError(f"README block failed ({done.returncode}):\n{text}\n{done.stderr}")
    return done.stdout


def expected_prints(text: str) -> list[str]:
    """What a Python block's `print(...)  # X` statements say they print, in order (the
    comment may sit on a print's last line)."""
    expected, depth = [], 0
    for line in text.splitlines():
        code, _, comment = line.partition("  # ")
        if depth == 0 and not code.lstrip().startswith("print("):
            continue
        depth += _parens(code)
        if depth == 0 and comment:
            expected.append(comment.strip())
    return expected


def _parens(code: str) -> int:
    """Opening minus closing parentheses outside string literals (single-line strings)."""
    depth, quote = 0, ""
    for char in code:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
    return depth


def assert_prints(stdout: str, text: str) -> None:
    """Every `# X` a print statement of `text` promises is a line of `stdout`, in order."""
    lines = [line.strip() for line in stdout.splitlines()]
    position = 0
    for expected in expected_prints(text):
        while position < len(lines) and lines[position] != expected:
            position += 1
        assert position < len(lines), f"README promises {expected!r}; printed:\n{stdout}"
        position += 1


def run_example(heading: str, fabula: str, root: Path) -> None:
    """Runs the Python example under `heading` against the README's `fabula up` and checks
    what its comments say it prints: the OpenEnv and Tavily suites' README tests."""
    up, process = start_server(fabula, root)
    try:
        text = up.rewrite(block(heading).text)
        assert_prints(run_python(text, root), text)
    finally:
        stop(process)
