"""The MCP Python SDK's own client (`mcp`, 2.3) against fabula's MCP servers: Streamable HTTP from
a live `fabula serve` and stdio from `fabula mcp`, with each tool set: Qwen-AgentWorld's
(`web_search`, `web_extractor`, `dict_memory`), OpenAI deep research's (`search`, `fetch`),
BrowseComp-Plus's (`search`, `get_document`) and Tongyi DeepResearch's (`search`, `visit`).

Needs FABULA_BIN (default target/debug/fabula, built with `cargo build -p fabula`).
"""

import json
import sys
import re
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from live_server import fabula_bin, generated, serving  # noqa: E402

BINARY = fabula_bin()


@pytest.fixture(scope="module")
def worlds(tmp_path_factory) -> Path:
    return generated(BINARY, tmp_path_factory.mktemp("worlds"), count=2)


@pytest.fixture(scope="module")
def base(worlds):
    with serving(BINARY, worlds) as url:
        yield url


async def deep_research(session: ClientSession) -> None:
    """OpenAI's contract: exactly `search` and `fetch`, each answering one text item holding a
    JSON object, `{results: [{id, title, url}]}` and `{id, title, text, url, metadata}`."""
    await session.initialize()
    tools = await session.list_tools()
    assert [tool.name for tool in tools.tools] == ["search", "fetch"]
    for tool in tools.tools:
        properties = tool.input_schema["properties"]
        assert list(properties) == (["query"] if tool.name == "search" else ["id"])
    found = await session.call_tool("search", {"query": "history of the city"})
    assert not found.is_error and len(found.content) == 1 and found.content[0].type == "text"
    results = json.loads(found.content[0].text)
    assert results == found.structured_content
    assert results["results"] and all(
        sorted(r) == ["id", "title", "url"] for r in results["results"])
    first = results["results"][0]
    page = await session.call_tool("fetch", {"id": first["id"]})
    assert not page.is_error
    document = json.loads(page.content[0].text)
    assert sorted(document) == ["id", "metadata", "text", "title", "url"]
    assert (document["id"], document["url"], document["title"]) == (
        first["id"], first["url"], first["title"])
    assert len(document["text"]) > 100 and document["metadata"]["world"] == 0
    missing = await session.call_tool("fetch", {"id": "https://nowhere.example/page"})
    assert missing.is_error and "url_not_found" in missing.content[0].text


async def browsecomp_plus(session: ClientSession) -> None:
    """BrowseComp-Plus's server: `search` answering a JSON list of the top 5
    `{docid, score, snippet}`, `get_document` answering `{docid, text}` or null."""
    await session.initialize()
    tools = await session.list_tools()
    assert [tool.name for tool in tools.tools] == ["search", "get_document"]
    found = await session.call_tool("search", {"query": "history of the city"})
    assert not found.is_error and len(found.content) == 1
    hits = json.loads(found.content[0].text)
    assert found.structured_content == {"result": hits}
    assert 1 <= len(hits) <= 5
    assert all(sorted(hit) == ["docid", "score", "snippet"] for hit in hits), hits
    assert all(isinstance(hit["score"], float) and hit["score"] > 0 for hit in hits), hits
    scores = [hit["score"] for hit in hits]
    assert scores == sorted(scores, reverse=True)
    document = await session.call_tool("get_document", {"docid": hits[0]["docid"]})
    page = json.loads(document.content[0].text)
    assert sorted(page) == ["docid", "text"] and page["docid"] == hits[0]["docid"]
    assert len(page["text"]) > 100
    missing = await session.call_tool("get_document", {"docid": "https://nowhere.example/x"})
    assert not missing.is_error and missing.content[0].text == "null"


async def tongyi(session: ClientSession) -> None:
    """Tongyi DeepResearch's tools in their texts: `search` (a list of queries) and
    `visit` (urls and a goal: evidence and summary)."""
    await session.initialize()
    tools = await session.list_tools()
    assert [tool.name for tool in tools.tools] == ["search", "visit"]
    found = await session.call_tool("search", {"query": ["history of the city", "qzxqzx"]})
    text = found.content[0].text
    first, second = text.split("\n=======\n")
    assert first.startswith("A Google search for 'history of the city' found ")
    assert "\n\n## Web Results\n1. [" in first
    assert second == "No results found for 'qzxqzx'. Try with a more general query."
    url = re.search(r"^1\. \[[^\]]*\]\((\S+)\)$", first, re.M).group(1)
    goal = "When was it founded?"
    visited = await session.call_tool("visit", {"url": url, "goal": goal})
    page = visited.content[0].text
    assert page.startswith(
        f"The useful information in {url} for user goal {goal} as follows: \n\n"
        "Evidence in page: \n")
    assert "\n\nSummary: \n" in page
    missing = await session.call_tool("visit", {"url": ["https://nowhere.example/x"], "goal": goal})
    assert "could not be accessed" in missing.content[0].text


async def agentworld(session: ClientSession) -> None:
    """Qwen-AgentWorld's three tools: result blocks with the seed's dates, the page as
    Markdown, and the session's notebook."""
    await session.initialize()
    tools = await session.list_tools()
    assert [tool.name for tool in tools.tools] == ["web_search", "web_extractor", "dict_memory"]
    searched = await session.call_tool("web_search", {"queries": ["history", "opened"]})
    text = searched.content[0].text
    assert not searched.is_error and "\n[1] https://" in text
    dates = re.findall(r"^Date: (.*)$", text, re.M)
    assert dates and all(d == "N/A" or re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}", d)
                         for d in dates), dates
    url = re.search(r"^\[1\] (\S+)$", text, re.M).group(1)
    page = await session.call_tool("web_extractor", {"url": url})
    assert not page.is_error and page.content[0].text.startswith(f"Contents of {url}:")
    added = await session.call_tool("dict_memory", {"operation": "add", "dict": {"url": url}})
    assert added.content[0].text == "Successfully added items of ['url'] to memory."
    got = await session.call_tool("dict_memory", {"operation": "retrieve", "key_list": ["url"]})
    assert json.loads(got.content[0].text) == {"url": url}


async def over_http(url: str, check) -> None:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await check(session)


async def over_stdio(worlds: Path, tools: str, check) -> None:
    params = StdioServerParameters(command=BINARY, args=[
        "mcp", "--worlds", str(worlds), "--world", "0", "--tools", tools])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await check(session)


def test_deep_research_over_http(base) -> None:
    anyio.run(over_http, f"{base}/mcp/0/deep-research", deep_research)


def test_deep_research_over_stdio(worlds) -> None:
    anyio.run(over_stdio, worlds, "deep-research", deep_research)


def test_agentworld_tools_over_http(base) -> None:
    anyio.run(over_http, f"{base}/mcp/0", agentworld)


def test_agentworld_tools_over_stdio(worlds) -> None:
    anyio.run(over_stdio, worlds, "agentworld", agentworld)


def test_browsecomp_plus_over_http(base) -> None:
    anyio.run(over_http, f"{base}/mcp/0/browsecomp-plus", browsecomp_plus)


def test_browsecomp_plus_over_stdio(worlds) -> None:
    anyio.run(over_stdio, worlds, "browsecomp-plus", browsecomp_plus)


def test_tongyi_over_http(base) -> None:
    anyio.run(over_http, f"{base}/mcp/0/tongyi", tongyi)


def test_tongyi_over_stdio(worlds) -> None:
    anyio.run(over_stdio, worlds, "tongyi", tongyi)
