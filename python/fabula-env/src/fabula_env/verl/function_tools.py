"""fabula's tools as verl `@function_tool` functions, for `multi_turn.function_tool_path`.

verl calls function tools without any per-task kwargs (its tool agent loop ignores
`tools_kwargs` for them by design), so these cannot follow a task to its world. They serve one
configured world, `$FABULA_WORLD`, on the server at `$FABULA_URL` (default
`http://127.0.0.1:8080`, key `$FABULA_API_KEY`); without `$FABULA_WORLD`, `web_search` searches
the whole dataset through the root `/retrieve` and `web_extractor` says it needs a world. For
multi-world training use the `BaseTool` classes of `fabula_env.verl.tools`.

Give verl this file's path (`python -c "import fabula_env.verl, os;
print(os.path.join(os.path.dirname(fabula_env.verl.__file__), 'function_tools.py'))"`); verl
executes it itself, so do not also import it in the same process.
"""

import os

from verl.tools.function_tool import function_tool

from fabula_env.client import FabulaClient, FabulaError, render_extract, render_search

_CLIENT = None


def _client() -> FabulaClient:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = FabulaClient()
    return _CLIENT


def _world():
    world = os.environ.get("FABULA_WORLD", "").strip()
    return int(world) if world else None


def _passages(queries: list, hits: list) -> str:
    parts = []
    for query, docs in zip(queries, hits, strict=True):
        lines = [f'Results for "{query}":']
        for n, doc in enumerate(docs, 1):
            doc = doc.get("document", doc)
            lines.append(f"[{n}] {doc['id']}\n{doc['contents']}")
        if not docs:
            lines.append("No results.")
        parts.append("\n\n".join(lines))
    return "\n\n".join(parts)


@function_tool
def web_search(queries: list[str]) -> str:
    """Search the web of fabula's worlds; each query returns a few results with their urls.

    Args:
        queries: Search queries, run one by one; results come back in order.
    """
    if isinstance(queries, str):
        queries = [queries]
    top_k = int(os.environ.get("FABULA_TOP_K", "5"))
    world = _world()
    try:
        if world is None:
            return _passages(queries, _client().retrieve(queries, topk=top_k))
        answer = _client().search(world, queries=queries, top_k=top_k)
        return render_search(answer["responses"])
    except FabulaError as error:
        return error.text()


@function_tool
def web_extractor(url: str, start_index: int = 0) -> str:
    """Read one page as Markdown, given the url of a search result.

    Args:
        url: The URL of the page to read.
        start_index: The character to start reading from; use the one a truncated answer names.
    """
    world = _world()
    if world is None:
        return "Error bad_request (400): web_extractor needs a world: set FABULA_WORLD"
    try:
        return render_extract(_client().extract(world, url, start=start_index or None))
    except FabulaError as error:
        return error.text()
