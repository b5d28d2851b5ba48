"""`FabulaClient` against a live `fabula serve`: every route family it wraps."""

from __future__ import annotations

import httpx
import pytest

from conftest import ADMIN_TOKEN
from fabula_env import FabulaClient, FabulaError, render_extract, render_search
from fabula_env.client import observation_date


@pytest.fixture()
def client(server):
    with FabulaClient(server["url"], admin_url=server["admin_url"], admin_token=ADMIN_TOKEN) as c:
        yield c


def test_search_extract_and_retrieve(client, tasks):
    worlds = client.worlds()
    assert [w["id"] for w in worlds] == [0, 1, 2, 3]
    task = tasks[0]
    one = client.search(task["world"], task["question"], top_k=3)
    assert one["query"] == task["question"] and len(one["results"]) == 3
    batch = client.search(task["world"], queries=[task["question"], "founded"], top_k=2)
    assert [r["query"] for r in batch["responses"]] == [task["question"], "founded"]
    text = render_search(batch["responses"])
    assert text.count("\n[") == 4 and "\n[4] " in text
    url = one["results"][0]["url"]
    page = client.extract(task["world"], url, max_chars=200)
    assert page["url"] == url and len(page["content"]) <= 200 and page["next_start"] == 200
    assert render_extract(page).endswith("start_index of 200 to get more content.</error>")
    rest = client.extract(task["world"], url, start=200)
    assert rest["content"]
    hits = client.retrieve([task["question"]], topk=2, return_scores=True, world=task["world"])
    assert len(hits) == 1 and len(hits[0]) == 2 and "score" in hits[0][0]


def test_renderers_write_the_servers_own_text(client, tasks):
    """`render_search` and `render_extract` write what the server's tools write (MCP's
    `web_search` and `web_extractor`, the episode API's observations) from the same answers."""
    task = tasks[0]
    episode = client.reset(world=task["world"])["episode_id"]
    queries = [task["question"], "founded", "qzxqzx vvqq"]
    step = client.step(episode, {"tool": "web_search", "queries": queries, "top_k": 2})
    responses = step["info"]["result"]["responses"]
    assert "\n[1] " in step["observation"]
    assert step["observation"] == render_search(responses)
    url = responses[0]["results"][0]["url"]
    for window in ({"max_length": 200}, {"start_index": 200}):
        step = client.step(episode, {"tool": "web_extractor", "url": url, **window})
        assert step["observation"] == render_extract(step["info"]["result"])
    assert "start_index of 200" in client.step(
        episode, {"tool": "web_extractor", "url": url, "max_length": 200}
    )["observation"]


def test_dates_are_written_as_the_seed_writes_them():
    assert observation_date("2024-06-18") == "Jun 18, 2024"
    assert observation_date("1290-01-02") == "Jan 2, 1290"
    assert observation_date(None) == "N/A"
    assert observation_date("2024-02-30") == "2024-02-30"
    assert observation_date("sometime") == "sometime"


def test_errors_carry_the_servers_code(client):
    with pytest.raises(FabulaError) as raised:
        client.search(999, "anything")
    assert (raised.value.status, raised.value.code) == (404, "world_not_found")
    assert raised.value.text().startswith("Error world_not_found (404): ")
    with pytest.raises(FabulaError) as raised:
        client.extract(0, "https://nowhere.example/")
    assert raised.value.code == "url_not_found"


def test_sessions_apply_controls_and_log_calls(client, tasks):
    task = tasks[0]
    with client.create_session(task["world"], seed=3, controls={"drop_rate": 1.0}) as session:
        assert session.controls["drop_rate"] == 1.0 and session.seed == 3
        answer = session.search(task["question"])
        assert answer["results"] == []
        log = session.log()
        assert [e["endpoint"] for e in log["entries"]] == ["search"]
        assert log["entries"][0]["dropped_results"] > 0
    with pytest.raises(FabulaError) as raised:
        client.session_log(session.id)
    assert raised.value.code == "session_not_found"


def test_sessions_run_qwen_agentworlds_tools(client, tasks):
    task = tasks[0]
    with client.create_session(task["world"], seed=1) as session:
        searched = session.tool("web_search", query=task["question"], top_k=2)
        responses = searched["structured"]["responses"]
        assert searched["text"] == render_search(responses)
        url = responses[0]["results"][0]["url"]
        page = session.tool("web_extractor", url=url, max_length=200)
        assert page["text"] == render_extract(page["structured"])
        added = session.memory("add", dict={"lead": url})
        assert added == "Successfully added items of ['lead'] to memory."
        assert session.memory("retrieve", key_list=["lead", "other"]) == (
            f'{{"lead":"{url}"}}\nKey not found: [\'other\']'
        )
        assert session.memory("remove_all") == "Successfully cleared all memory."
        with pytest.raises(FabulaError) as raised:
            session.memory("add")
        assert raised.value.code == "bad_request"


def test_tasks_scores_and_episodes(client, tasks):
    task = next(t for t in tasks if isinstance(t["answer"], str))
    gold = {t["id"]: t for t in client.tasks(task["world"])}
    assert gold[task["id"]]["answer"] == task["answer"]
    assert client.score(task["id"], task["answer"])["reward"] == 1.0
    started = client.reset(task_id=task["id"], seed=1)
    assert task["question"] in started["observation"] and started["done"] is False
    episode = started["episode_id"]
    searched = client.step(episode, {"tool": "web_search", "queries": [task["question"]]})
    assert searched["done"] is False and "[1] " in searched["observation"]
    assert client.state(episode)
    ended = client.step(episode, {"tool": "answer", "answer": task["answer"]})
    assert ended["done"] is True and ended["reward"] == 1.0


def test_asearchers_local_client_reads_retrieve_and_access(server, tasks):
    """ASearcher's `AsyncSearchBrowserClient` (inclusionAI/ASearcher, utils/search_utils.py):
    `/retrieve` without scores, reading each document's `contents` and `url`, then `/access`
    with those urls, reading each page's `contents` ("" for a null), field for field."""
    base = server["url"]
    question = tasks[0]["question"]
    res = httpx.post(f"{base}/retrieve", json={"queries": [question], "topk": 3,
                                               "return_scores": False}, timeout=30).json()
    found = [dict(documents=[r["contents"] for r in result], urls=[r["url"] for r in result],
                  server_type="async-search-browser") for result in res["result"]]
    urls = found[0]["urls"]
    assert len(urls) == 3 and all(url.startswith("https://") for url in urls)
    res = httpx.post(f"{base}/access", json={"urls": [*urls, "https://nowhere.example/x"]},
                     timeout=30).json()
    pages = [dict(page=result["contents"] if result is not None else "", type="access",
                  server_type="async-search-browser") for result in res["result"]]
    assert len(pages) == 4 and all(page["page"] for page in pages[:3]) and pages[3]["page"] == ""
