"""The package's verl tools against a live `fabula serve`, loaded by verl 0.9's own tool
registry and called in the order of its tool agent loop."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from verl_helpers import call_tool, tool_config


def load_tools(tmp_path, url, **extra) -> dict:
    from verl.tools.tool_registry import load_all_tools

    tools = load_all_tools(str(tool_config(tmp_path / "tools.yaml", url, **extra)), None)
    return {tool.name: tool for tool in tools}


def route(world: int) -> dict:
    return {name: {"create_kwargs": {"world": world}} for name in ("web_search", "web_extractor")}


def urls(text: str) -> list[str]:
    return re.findall(r"^\[\d+\] (\S+)$", text, re.MULTILINE)


def test_each_call_goes_to_its_tasks_world(tmp_path, server, tasks):
    tools = load_tools(tmp_path, server["url"])
    by_world = {}
    for task in tasks:
        by_world.setdefault(task["world"], task)
    assert len(by_world) >= 2
    seen = {}
    for world, task in by_world.items():
        response, reward, metrics = asyncio.run(
            call_tool(tools, route(world), "web_search", {"queries": [task["question"]]})
        )
        assert reward == 0.0 and metrics["world"] == world and metrics["results"] > 0
        assert response.text.startswith(f'Results for "{task["question"]}":')
        found = urls(response.text)
        assert found, response.text
        seen[world] = set(found)
        page, _, metrics = asyncio.run(
            call_tool(tools, route(world), "web_extractor", {"url": found[0]})
        )
        assert page.text.startswith(f"Contents of {found[0]}:\nTitle: "), page.text[:200]
        assert metrics["chars"] > 0
        # The same url read through another world is not found there.
        other = next(w for w in by_world if w != world)
        missing, _, metrics = asyncio.run(
            call_tool(tools, route(other), "web_extractor", {"url": found[0]})
        )
        assert missing.text.startswith("Error "), missing.text[:200]
        assert metrics["error"]
    worlds = list(seen)
    assert seen[worlds[0]].isdisjoint(seen[worlds[1]])


def test_bad_arguments_and_missing_routes_are_readable(tmp_path, server):
    tools = load_tools(tmp_path, server["url"])
    response, _, metrics = asyncio.run(call_tool(tools, route(0), "web_search", {"queries": []}))
    assert response.text.startswith("Error bad_request (400)") and metrics["error"] == "bad_request"
    try:
        asyncio.run(call_tool(tools, {}, "web_search", {"queries": ["x"]}))
    except ValueError as error:
        assert "world" in str(error)
    else:
        raise AssertionError("a call without a world must fail")


def test_controls_share_one_session_per_trajectory(tmp_path, server, tasks):
    from fabula_env.client import FabulaClient
    from fabula_env.verl.tools import SESSIONS

    tools = load_tools(tmp_path, server["url"], controls={"hiding": "none"}, seed=5)
    world = tasks[0]["world"]
    trajectory = SimpleNamespace(request_id="trajectory-1")
    queries = {"queries": [tasks[0]["question"]]}
    first, _, _ = asyncio.run(call_tool(tools, route(world), "web_search", queries, trajectory))
    url = urls(first.text)[0]
    asyncio.run(call_tool(tools, route(world), "web_extractor", {"url": url}, trajectory))
    asyncio.run(call_tool(tools, route(world), "web_search", queries, trajectory))
    session = SESSIONS.get(FabulaClient(server["url"]), world, "trajectory-1", 5, {}, 4096)
    log = FabulaClient(server["url"]).session_log(session)
    assert (log["world"], log["seed"]) == (world, 5)
    assert [entry["endpoint"] for entry in log["entries"]] == ["search", "extract", "search"]

    failing = load_tools(tmp_path, server["url"], controls={"error_rate": 1.0})
    other = SimpleNamespace(request_id="trajectory-2")
    response, _, metrics = asyncio.run(call_tool(failing, route(world), "web_search", queries, other))
    assert metrics["error"] in ("rate_limited", "injected_server_error"), response.text
    assert response.text.startswith(f"Error {metrics['error']} ("), response.text


def test_function_tools_load_from_their_path(tmp_path, server, tasks, monkeypatch):
    import fabula_env.verl
    from verl.tools.function_tool import load_function_tools_from_path

    monkeypatch.setenv("FABULA_URL", server["url"])
    monkeypatch.setenv("FABULA_WORLD", str(tasks[0]["world"]))
    path = Path(fabula_env.verl.__file__).with_name("function_tools.py")
    tools = {tool.name: tool for tool in load_function_tools_from_path(str(path))}
    assert sorted(tools) == ["web_extractor", "web_search"]
    schema = tools["web_search"].tool_schema.function.parameters.model_dump()
    assert schema["properties"]["queries"]["type"] == "array"
    text = asyncio.run(tools["web_search"].call({"queries": [tasks[0]["question"]]}))
    url = urls(text)[0]
    page = asyncio.run(tools["web_extractor"].call({"url": url}))
    assert page.startswith(f"Contents of {url}:"), page[:200]
    assert os.environ["FABULA_WORLD"] == str(tasks[0]["world"])


def test_function_tools_without_a_world_search_every_world(server, tasks, monkeypatch):
    import fabula_env.verl
    from verl.tools.function_tool import load_function_tools_from_path

    monkeypatch.setenv("FABULA_URL", server["url"])
    monkeypatch.delenv("FABULA_WORLD", raising=False)
    path = Path(fabula_env.verl.__file__).with_name("function_tools.py")
    tools = {tool.name: tool for tool in load_function_tools_from_path(str(path))}
    questions = [tasks[0]["question"], tasks[-1]["question"]]
    text = asyncio.run(tools["web_search"].call({"queries": questions}))
    assert text.startswith(f'Results for "{questions[0]}":'), text[:200]
    assert f'Results for "{questions[1]}":' in text and "\n[1] https://" in text
    page = asyncio.run(tools["web_extractor"].call({"url": "https://example.org/"}))
    assert page.startswith("Error bad_request (400): web_extractor needs a world")


def test_parallel_calls_share_a_session_and_old_sessions_are_deleted(tmp_path, server, tasks):
    from fabula_env.client import FabulaClient, FabulaError
    from fabula_env.verl.tools import SESSIONS

    tools = load_tools(tmp_path, server["url"], seed=9, max_sessions=1)
    world = tasks[0]["world"]
    queries = {"queries": [tasks[0]["question"]]}

    async def turn(trajectory):
        agent = SimpleNamespace(request_id=trajectory)
        calls = [call_tool(tools, route(world), "web_search", queries, agent) for _ in range(4)]
        return await asyncio.gather(*calls)

    asyncio.run(turn("parallel-1"))
    client = FabulaClient(server["url"])
    first = SESSIONS.get(client, world, "parallel-1", 9, {}, 4096)
    assert len(client.session_log(first)["entries"]) == 4
    asyncio.run(turn("parallel-2"))
    with pytest.raises(FabulaError) as raised:
        client.session_log(first)
    assert raised.value.code == "session_not_found"
