"""verl 0.7.1's `search_r1_like_utils.perform_single_search_batch`, unmodified, against the
server's Search-R1 `/retrieve`: the root route, which searches every world of the dataset at
once, as verl's `SearchTool` uses it (one fixed `retrieval_service_url`).

The module is taken from the verl 0.7.1 wheel when the test environment is made (it imports
only the standard library and `requests`); its path is `$VERL071_SEARCH_R1_UTILS`, default
`target/verl-venv/verl071/search_r1_like_utils.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest



def test_a_batch_over_all_worlds_finds_each_questions_world(search_r1_like_utils, server, tasks):
    from fabula_env import FabulaClient, FabulaError

    # A frontier question names no entity of its world, so a search over every world's pages
    # need not lead back to its own; the others name one.
    named = [t for t in tasks if t["tier"] != "frontier"]
    picked = [t for i, t in enumerate(named) if i % 5 == 0]
    assert len({t["world"] for t in picked}) >= 3
    text, metadata = search_r1_like_utils.perform_single_search_batch(
        retrieval_service_url=f"{server['url']}/retrieve",
        query_list=[t["question"] for t in picked],
        topk=3,
    )
    assert metadata["status"] == "success", metadata
    assert metadata["total_results"] == 3 * len(picked)
    blocks = json.loads(text)["result"].split("\n---\n")
    assert len(blocks) == len(picked)
    for block in blocks:
        assert block.startswith("Doc 1 (Title: "), block[:200]
        assert "Doc 3 (Title: " in block
    # The hits' urls (the document ids, `URL#pN` for passage N) lead back to the question's
    # own world: some top-3 page of most questions opens there. A question that names no row
    # ("how many citizens come from cities founded before 1592?") may find another world's.
    client = FabulaClient(server["url"])
    home = 0
    for task, hits in zip(picked, metadata["api_response"]["result"]):
        own = 0
        for hit in hits:
            url = hit["document"]["id"].split("#")[0]
            try:
                client.extract(task["world"], url, max_chars=1)
                own += 1
            except FabulaError as error:
                assert error.code == "url_not_found", error
        home += own > 0
    assert home >= 0.8 * len(picked), (home, len(picked))


def test_a_blank_query_does_not_fail_the_batch(search_r1_like_utils, server, tasks):
    text, metadata = search_r1_like_utils.perform_single_search_batch(
        retrieval_service_url=f"{server['url']}/retrieve",
        query_list=[tasks[0]["question"], "   "],
        topk=2,
    )
    assert metadata["status"] == "success", metadata
    assert metadata["total_results"] == 2
    assert len(json.loads(text)["result"].split("\n---\n")) == 2
