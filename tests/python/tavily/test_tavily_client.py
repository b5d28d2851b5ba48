"""tavily-python's own `TavilyClient`, pointed at a live `fabula serve` through an `api_base_url`
with a trailing slash: search with domain and time filters, extract, and the unsupported options
and endpoints refused with a readable `BadRequestError`, and a real task answered through search and
extract alone and scored with `fabula eval`.

Needs FABULA_BIN (default target/debug/fabula, built with `cargo build -p fabula`).
"""

import email.utils
import json
import sys
import urllib.request
from pathlib import Path

import pytest
from tavily import TavilyClient
from tavily.errors import BadRequestError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from live_server import fabula_bin, generated, serving
from one_task import pick_task, read_off, score


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    return generated(fabula_bin(), tmp_path_factory.mktemp("worlds"), count=4)


@pytest.fixture(scope="module")
def base(worlds):
    with serving(fabula_bin(), worlds) as url:
        yield url


def client(base: str, world: int = 0) -> TavilyClient:
    # A trailing slash: the client posts to `.../compat/tavily/0//search`.
    return TavilyClient(api_key="unused", api_base_url=f"{base}/compat/tavily/{world}/")


def world_name(base: str) -> str:
    with urllib.request.urlopen(f"{base}/v1/worlds", timeout=5) as response:
        return json.load(response)["worlds"][0]["name"]


def host(url: str) -> str:
    return url.split("/")[2]


def test_filters_are_honoured(base):
    tavily = client(base)
    query = world_name(base)
    everything = tavily.search(query, max_results=20)["results"]
    hosts = sorted({host(result["url"]) for result in everything})
    assert len(hosts) > 1, hosts

    only = tavily.search(query, max_results=20, include_domains=[hosts[0]])["results"]
    assert only and all(host(result["url"]) == hosts[0] for result in only)
    without = tavily.search(query, max_results=20, exclude_domains=[hosts[0]])["results"]
    assert without and all(host(result["url"]) != hosts[0] for result in without)

    # Dated results carry `published_date` (RFC 2822, as Tavily writes it; urls hold no date);
    # time ranges count back from the world's latest page date.
    def dates(results):
        found = [result.get("published_date") for result in results]
        assert all(found), [result["url"] for result in results]
        return sorted(email.utils.parsedate_to_datetime(date).date() for date in found)

    # The world's latest page is news whose title ends in one of these words; whichever it is,
    # a week back from it holds it, and a year back holds it and older news.
    words = ["joins", "published", "founded", "names", "opened", "wins", "launched"]
    last_year, last_week = [], []
    for word in words:
        found = dates(tavily.search(word, max_results=20, time_range="year")["results"])
        assert not found or (found[-1] - found[0]).days <= 366, (word, found)
        last_year += found
        found = dates(tavily.search(word, max_results=20, time_range="w")["results"])
        assert not found or (found[-1] - found[0]).days <= 7, (word, found)
        last_week += found
    last_year.sort()
    last_week.sort()
    assert last_year and (last_year[-1] - last_year[0]).days <= 366
    assert last_week and (last_week[-1] - last_week[0]).days <= 7
    # The year searches keep their 20 best matches only, so they may miss the latest page.
    assert last_week[-1] >= last_year[-1]
    since = last_week[-1].isoformat()
    latest = set()
    for word in words:
        latest |= set(dates(tavily.search(word, start_date=since)["results"]))
    assert latest == {last_week[-1]}


def test_extract_reads_a_found_page(base):
    tavily = client(base)
    url = tavily.search(world_name(base))["results"][0]["url"]
    page = tavily.extract(urls=[url])
    assert page["results"][0]["url"] == url and page["failed_results"] == []


def test_a_task_answered_through_search_and_extract(worlds, base, tmp_path):
    """An easy lookup: a search for the entity the question names finds the evidence page, its
    extract gives the answer, and `fabula eval` scores the answer read off `raw_content` full
    marks."""
    task = pick_task(fabula_bin(), worlds, tmp_path)
    tavily = client(base, task.world)
    urls = [result["url"] for result in tavily.search(task.name, max_results=10)["results"]]
    assert task.evidence in urls, (task.evidence, urls)
    page = tavily.extract(urls=[urls[urls.index(task.evidence)]])
    assert page["failed_results"] == [], page
    (result,) = page["results"]
    assert result["url"] == task.evidence, result
    answer = read_off(result["raw_content"], task, "Tavily extract")
    assert score(fabula_bin(), task, answer, tmp_path) == 1.0


def test_unsupported_options_and_endpoints_are_readable_errors(base):
    tavily = client(base)
    with pytest.raises(BadRequestError, match="include_answer is not supported"):
        tavily.search("anything", include_answer=True)
    with pytest.raises(BadRequestError, match="crawl is not supported"):
        tavily.crawl("https://example.org/")
    with pytest.raises(BadRequestError, match="map is not supported"):
        tavily.map("https://example.org/")


def test_readme_example(tmp_path):
    """README.md's example, run as written against the README's `fabula up` (free ports and a
    7-world dataset of seed 0: see tests/python/readme_blocks.py); what its comments say it
    prints, it prints."""
    import readme_blocks

    readme_blocks.run_example("Tavily", fabula_bin(), tmp_path)
