"""fabula-env's `FabulaBackend` through the gpt-oss package's own browser classes, against a live
`fabula serve`: the backend's search and fetch as `PageContents` (the package's `process_html`
making link ids and the page text), in the world and in a session under its controls, a failed
call as the package's `BackendError`, a real task answered through the backend alone and scored
with `fabula eval`, and the whole `SimpleBrowserTool` (search, open by link id, find) where
tiktoken's `o200k_base` file can be had (no registry here ships it: the test says so as a skip).

Needs FABULA_BIN (default target/debug/fabula) and fabula-env installed in this venv.
"""

import json
import sys
import urllib.request
from pathlib import Path

import anyio
import pytest
from aiohttp import ClientSession
from gpt_oss.tools.simple_browser.backend import BackendError
from gpt_oss.tools.simple_browser.page_contents import PageContents

from fabula_env.gpt_oss import FabulaBackend, markdown_to_html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from live_server import fabula_bin, generated, serving
from one_task import pick_task, read_off, score

BINARY = fabula_bin()


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    return generated(BINARY, tmp_path_factory.mktemp("worlds"), count=2)


@pytest.fixture(scope="module")
def base(worlds):
    with serving(BINARY, worlds) as url:
        yield url


def run(coroutine_fn, *args):
    async def with_session():
        async with ClientSession() as session:
            return await coroutine_fn(session, *args)
    return anyio.run(with_session)


def test_markdown_becomes_html_with_anchors() -> None:
    page = markdown_to_html("# Kest\n\nBorn in [Port Amsel](https://w.fab/wiki/Port_Amsel) <1>.\n",
                            "Kest")
    assert page == (
        "<html><head><title>Kest</title></head><body><h1>Kest</h1><p>Born in "
        '<a href="https://w.fab/wiki/Port_Amsel">Port Amsel</a> &lt;1&gt;.</p></body></html>'
    )


def test_search_and_fetch_give_the_packages_page_contents(base) -> None:
    backend = FabulaBackend(base_url=base, world=0)
    results = run(lambda s: backend.search(query="history of the city", topn=5, session=s))
    assert isinstance(results, PageContents)
    assert results.title == "history of the city" and results.url == ""
    assert 1 <= len(results.urls) <= 5
    assert "【0†" in results.text, results.text[:500]
    url = results.urls["0"]
    page = run(lambda s: backend.fetch(url=url, session=s))
    assert page.url == url and page.title
    assert page.text.startswith(f"\nURL: {url}\n")
    # The page's links became the package's numbered anchors, each with its url.
    assert page.urls and all(u.startswith("https://") for u in page.urls.values())
    assert "【0†" in page.text
    # view-source: as the package asks for it.
    assert run(lambda s: backend.fetch(url=f"view-source:{url}", session=s)).url == url


def test_a_session_applies_its_controls_and_errors_are_backend_errors(base) -> None:
    request = urllib.request.Request(
        f"{base}/v1/sessions", data=json.dumps({"world": 0, "controls": {"drop_rate": 1.0}})
        .encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        session_id = json.load(answer)["session"]
    dropping = FabulaBackend(base_url=base, world=0, session_id=session_id)
    results = run(lambda s: dropping.search(query="history of the city", topn=5, session=s))
    assert results.urls == {}
    backend = FabulaBackend(base_url=base, world=0)
    with pytest.raises(BackendError, match="url_not_found"):
        run(lambda s: backend.fetch(url="https://nowhere.example/page", session=s))


def test_a_task_answered_through_the_backend(worlds, base, tmp_path) -> None:
    """An easy lookup: the backend's search for the entity the question names lists the evidence
    page among its links, its fetch of that page gives the answer, and `fabula eval` scores the
    answer read off the fetched text full marks."""
    task = pick_task(BINARY, worlds, tmp_path)
    backend = FabulaBackend(base_url=base, world=task.world)
    results = run(lambda s: backend.search(query=task.name, topn=10, session=s))
    links = [link for link, url in results.urls.items() if url == task.evidence]
    assert links, (task.evidence, results.urls)
    page = run(lambda s: backend.fetch(url=results.urls[links[0]], session=s))
    assert page.url == task.evidence
    answer = read_off(page.text, task, "FabulaBackend.fetch")
    assert score(BINARY, task, answer, tmp_path) == 1.0


def test_the_whole_browser_tool(base) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    try:
        tiktoken.get_encoding("o200k_base")
    except Exception as error:  # the file is downloaded on first use
        pytest.skip(f"tiktoken's o200k_base is not available here: {type(error).__name__}")
    from gpt_oss.tools.simple_browser import SimpleBrowserTool

    async def browse():
        tool = SimpleBrowserTool(backend=FabulaBackend(base_url=base, world=0))
        texts = []
        async for message in tool.search(query="history of the city"):
            texts.append(message.content[0].text)
        async for message in tool.open(id=0):
            texts.append(message.content[0].text)
        async for message in tool.find(pattern="the"):
            texts.append(message.content[0].text)
        return texts

    search, opened, found = anyio.run(browse)
    assert "【0†" in search and "L0:" in opened and "the" in found.lower()
