"""README.md's "Trainers and agents" section, every block run as written (see
tests/python/readme_blocks.py for the three rewrites: ports, dataset, working directory), so a
README that drifts from what the server, the exports and the package do fails CI.

verl's lines go through verl 0.9.1's own loaders: the `$(python -c ...)` paths are expanded by
bash as a reader's shell would, the reward file is loaded by `get_custom_reward_fn` (by path,
outside the package) and the tool config by verl's tool registry, reading the server from
`$FABULA_URL`. The OpenEnv and Tavily examples run in their own clients' venvs
(tests/python/openenv, tests/python/tavily); the install block runs against the built wheel in
a fresh venv with no Rust on PATH.
"""

from __future__ import annotations

import asyncio
import csv
import glob
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import REPO, fabula_bin

sys.path.insert(0, str(REPO / "tests" / "python"))
import readme_blocks as readme  # noqa: E402

PACKAGE = "The Python package `fabula-env`"
# Blocks whose check lives in another venv's suite, named so a moved check is noticed.
ELSEWHERE = {
    ("TRL and OpenEnv", 0): "tests/python/openenv/test_openenv_client.py::test_readme_example",
    ("Tavily", 0): "tests/python/tavily/test_tavily_client.py::test_readme_example",
}
CHECKED_HERE = {
    ("Trainers and agents", 0), ("curl", 0), (PACKAGE, 0), (PACKAGE, 1), ("verl", 0),
    ("verl", 1), ("Search-R1", 0), ("TRL and OpenEnv", 1), ("WideSearch", 0), ("WideSearch", 1),
    ("MCP", 0), ("MCP", 1),
}


@pytest.fixture(scope="module")
def up(tmp_path_factory):
    """The README's `fabula up`, on free ports, over 7 worlds of seed 0."""
    root = tmp_path_factory.mktemp("readme")
    server, process = readme.start_server(fabula_bin(), root)
    try:
        yield server
    finally:
        readme.stop(process)


@pytest.fixture()
def workdir(tmp_path) -> Path:
    return tmp_path


def run_block(key: tuple[str, int], up, workdir: Path, env: dict | None = None) -> str:
    text = up.rewrite(readme.block(*key).text)
    return readme.run_shell(text, workdir, readme.bin_dir(fabula_bin(), workdir), env)


def test_every_block_has_a_check() -> None:
    keys = {block.key for block in readme.blocks()}
    assert keys == CHECKED_HERE | set(ELSEWHERE), "a README block was added or removed"
    for target in ELSEWHERE.values():
        path, name = target.split("::")
        assert f"def {name}(" in (REPO / path).read_text(), target


def test_the_up_command_opened_both_listeners(up) -> None:
    assert httpx.get(f"http://{up.addr}/health").json()["status"] == "ok"
    # The admin listener takes the README's token.
    reset = httpx.post(f"http://{up.admin_addr}/v1/env/reset",
                       headers={"authorization": f"Bearer {up.token}"},
                       json={"task_id": "w00000-t001", "seed": 1})
    assert reset.status_code == 200, reset.text


def test_curl(up, workdir) -> None:
    out = run_block(("curl", 0), up, workdir)
    assert "Bilyiarn Bikri" in out and "kriachaunwiki.org" in out, out[-2000:]
    assert '"session":' in out, out[-2000:]
    assert '"tool":"web_search"' in out and "\\nTitle: Bilyiarn Bikri" in out, out[-2000:]
    assert "Successfully added items of ['lead'] to memory." in out, out[-2000:]


def test_python_package_example(up, workdir) -> None:
    text = up.rewrite(readme.block(PACKAGE, 1).text)
    env = {"FABULA_BIN": fabula_bin()}
    out = readme.run_python(text, workdir, env)
    readme.assert_prints(out, text)


def test_install_in_a_fresh_venv_without_rust(up, tmp_path) -> None:
    """The install block with the wheel CI built: a new venv, PATH without cargo, `pip install`
    as written, then `fabula up` as written (on a free port) and a search."""
    wheels = sorted(glob.glob(str(REPO / "target" / "wheels" / "fabula_env-*.whl")))
    if not wheels:
        pytest.skip("no wheel in target/wheels: run scripts/build-wheel.sh first")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    path = f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    env = {"PATH": path, "HOME": str(tmp_path), "VIRTUAL_ENV": str(venv),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    assert subprocess.run(["bash", "-c", "command -v cargo"], env=env).returncode != 0
    install, serve = readme.block(PACKAGE, 0).text.strip().splitlines()
    started = time.monotonic()
    subprocess.run(["bash", "-euc", install.split("#")[0]], cwd=REPO, env=env, check=True)
    installed = time.monotonic() - started
    command = shlex.split(serve.split("#")[0]) + ["--addr", "127.0.0.1:0"]
    assert command[0] == "fabula"
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        addr = wait_listening(process)
        ready = time.monotonic() - started - installed
        hits = httpx.post(f"http://{addr}/v1/worlds/0/search",
                          json={"query": "Bilyiarn Bikri", "top_k": 3}).json()
        assert hits["results"], hits
        worlds = httpx.get(f"http://{addr}/v1/worlds").json()
        assert len(worlds["worlds"]) == 50, worlds
    finally:
        readme.stop(process)
    size = Path(wheels[-1]).stat().st_size
    print(f"\nwheel {Path(wheels[-1]).name}: {size / 2**20:.1f} MiB; pip install {installed:.1f} s;"
          f" fabula up --count 50 to its first answer {ready:.1f} s")


def wait_listening(process: subprocess.Popen) -> str:
    lines: list[str] = []
    deadline = time.monotonic() + 600
    assert process.stderr is not None
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        found = readme._LISTENING.search(line)
        if found:
            return found.group(1)
    raise AssertionError(f"fabula up did not start: {''.join(lines)[-3000:]}")


def verl_overrides(up, workdir: Path) -> dict[str, str]:
    """The `key=value` lines of the README's verl command, with `$(...)` expanded by bash."""
    text = readme.block("verl", 0).text
    command = text[text.index("python -m verl.trainer.main_ppo"):]
    command = command.split("  # ")[0].replace("\\\n", " ")
    words = readme.run_shell(
        f"printf '%s\\n' {command[len('python -m verl.trainer.main_ppo'):]}",
        workdir, readme.bin_dir(fabula_bin(), workdir)).splitlines()
    return dict(word.split("=", 1) for word in words if "=" in word)


def test_verl(up, workdir) -> None:
    text = up.rewrite(readme.block("verl", 0).text)
    exports = "\n".join(line for line in text.splitlines() if line.startswith("fabula "))
    readme.run_shell(exports, workdir, readme.bin_dir(fabula_bin(), workdir))
    overrides = verl_overrides(up, workdir)
    for key in ("data.train_files", "data.val_files"):
        assert (workdir / overrides[key]).is_file(), key
    # The reward, loaded by verl's own loader from the path the README computes.
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    reward_keys = [k for k in overrides if k.startswith("reward.custom_reward_function.")]
    config = OmegaConf.from_dotlist([f"{k}={overrides[k]}" for k in reward_keys])
    compute = get_custom_reward_fn(config)
    truth = {"target": ["Tusaun"], "answer": '"Tusaun"'}
    assert compute(data_source="fabula", solution_str="<answer>Tusaun</answer>",
                   ground_truth=truth, extra_info={})["score"] == 1.0
    # The tool config, loaded by verl's tool registry, talks to $FABULA_URL.
    from verl.tools.tool_registry import load_all_tools

    path = overrides["actor_rollout_ref.rollout.multi_turn.tool_config_path"]
    os.environ["FABULA_URL"] = f"http://{up.addr}"
    try:
        tools = {tool.name: tool for tool in load_all_tools(path, None)}
        search = tools["web_search"]
        instance, _ = asyncio.run(search.create(create_kwargs={"world": 0}))
        response, _, _ = asyncio.run(search.execute(instance, {"queries": ["Bilyiarn Bikri"]}))
        asyncio.run(search.release(instance))
    finally:
        del os.environ["FABULA_URL"]
    assert "Bilyiarn Bikri" in response.text, response


def test_verl_search_tool_config(up, search_r1_like_utils) -> None:
    import yaml

    config = yaml.safe_load(up.rewrite(readme.block("verl", 1).text))
    tool = config["tools"][0]
    assert tool["class_name"] == "verl.tools.search_tool.SearchTool"
    text, metadata = search_r1_like_utils.perform_single_search_batch(
        retrieval_service_url=tool["config"]["retrieval_service_url"],
        query_list=["In which colony was Bilyiarn Bikri born?"], topk=3)
    assert metadata["status"] == "success" and "Bilyiarn Bikri" in text, metadata


def test_search_r1(up, workdir) -> None:
    out = run_block(("Search-R1", 0), up, workdir)
    assert json.loads(out)["result"][0], out[-2000:]
    for split in ("train", "test"):
        assert (workdir / "data" / "searchr1" / f"{split}.parquet").is_file()


def test_openenv_over_rest(up, workdir) -> None:
    text = up.rewrite(readme.block("TRL and OpenEnv", 1).text)
    lines = text.replace("\\\n", " ").splitlines()
    header = next(line for line in lines if line.startswith("H="))
    reset = next(line for line in lines if "/v1/env/reset" in line).split("  #")[0]
    step = next(line for line in lines if "/v1/env/step" in line)
    bins = readme.bin_dir(fabula_bin(), workdir)
    episode = json.loads(readme.run_shell(f"{header}\n{reset}", workdir, bins))["episode_id"]
    out = readme.run_shell(f"{header}\n{step.replace('EPISODE', episode)}", workdir, bins)
    result = json.loads(out)
    assert (result["reward"], result["done"]) == (1.0, True), result


def test_widesearch(up, workdir) -> None:
    run_block(("WideSearch", 0), up, workdir)
    tasks = [json.loads(line) for line in
             (workdir / "widesearch" / "tasks.jsonl").read_text().splitlines()]
    assert tasks and all("tier" in task["evaluation"] for task in tasks), tasks[:1]
    # Responses as WideSearch writes them: the gold tables, one file per task.
    responses = workdir / "widesearch_responses"
    responses.mkdir()
    for task in tasks:
        gold = (workdir / "widesearch" / "widesearch_gold" / f"{task['instance_id']}.csv")
        rows = list(csv.reader(gold.read_text().splitlines()))
        table = "\n".join("| " + " | ".join(row) + " |" for row in rows[:1])
        table += "\n|" + "---|" * len(rows[0]) + "\n"
        table += "\n".join("| " + " | ".join(row) + " |" for row in rows[1:])
        line = {"instance_id": task["instance_id"], "response": table, "trial_idx": 0}
        (responses / f"m_{task['instance_id']}_0_response.jsonl").write_text(json.dumps(line))
    report = json.loads(run_block(("WideSearch", 1), up, workdir))
    assert report["counts"]["tasks"] == len(tasks) and report["overall"]["item_f1"] > 0.9


def mcp_initialize() -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "readme-test", "version": "1"}}}


def test_mcp_over_stdio(up, workdir) -> None:
    server = json.loads(up.rewrite(readme.block("MCP", 0).text))["mcpServers"]["fabula"]
    assert server["command"] == "fabula"
    done = subprocess.run([fabula_bin(), *server["args"]], input=json.dumps(mcp_initialize())
                          + "\n", capture_output=True, text=True, timeout=120, cwd=workdir)
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"], done.stdout


def test_mcp_over_http(up) -> None:
    server = json.loads(up.rewrite(readme.block("MCP", 1).text))["mcpServers"]["fabula"]
    answer = httpx.post(server["url"], json=mcp_initialize(),
                        headers={"accept": "application/json, text/event-stream"})
    assert answer.status_code == 200 and "serverInfo" in answer.text, answer.text
