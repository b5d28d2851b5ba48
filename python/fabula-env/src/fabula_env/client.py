"""A small client for the fabula server's REST API: search, extract, Search-R1 retrieval,
sessions with seeded controls and, on the trainers' listener, tasks, scoring and episodes.

Every method returns the server's JSON as plain dicts and lists; an error status raises
`FabulaError` with the server's stable error code. The shapes are those of the server's own
OpenAPI document (`GET /openapi.json`).

    >>> from fabula_env import FabulaClient
    >>> with FabulaClient("http://127.0.0.1:8080") as fabula:  # doctest: +SKIP
    ...     hits = fabula.search(0, "founded")["results"]
    ...     page = fabula.extract(0, hits[0]["url"])
"""

from __future__ import annotations

import datetime
import os
from typing import Any

import httpx

DEFAULT_URL = "http://127.0.0.1:8080"


class FabulaError(Exception):
    """An error answer of the server: its HTTP status, error code and message."""

    def __init__(self, status: int, code: str, message: str, retry_after_s: float | None = None):
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s

    def text(self) -> str:
        """The error as an agent reads it, as the server's MCP tools write it."""
        text = f"Error {self.code} ({self.status}): {self.message}"
        if self.retry_after_s is not None:
            text += f" (retry after {self.retry_after_s:g} s)"
        return text


def _error_of(response: httpx.Response) -> FabulaError:
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(body.get("detail"), dict):
        error = body["detail"]  # Tavily's shape: {"detail": {"error": "..."}}
    if not isinstance(error, dict):
        return FabulaError(response.status_code, "http_error", response.text[:500])
    retry = response.headers.get("retry-after")
    return FabulaError(
        response.status_code,
        str(error.get("code", "http_error")),
        str(error.get("message", error.get("error", ""))),
        float(retry) if retry and retry.replace(".", "", 1).isdigit() else None,
    )


def _drop_none(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if value is not None}


class FabulaClient:
    """A client for one fabula server.

    `base_url` defaults to `$FABULA_URL`, else `http://127.0.0.1:8080`; `api_key` to
    `$FABULA_API_KEY`. The trainers' listener (`fabula serve --admin-addr`), which holds the
    gold answers and the episode API, is `admin_url` with `admin_token` (default
    `$FABULA_ADMIN_URL` and `$FABULA_ADMIN_TOKEN`).
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        admin_url: str | None = None,
        admin_token: str | None = None,
        timeout: float = 60.0,
    ):
        self.base_url = (base_url or os.environ.get("FABULA_URL") or DEFAULT_URL).rstrip("/")
        self.admin_url = (admin_url or os.environ.get("FABULA_ADMIN_URL") or "").rstrip("/")
        api_key = api_key or os.environ.get("FABULA_API_KEY")
        admin_token = admin_token or os.environ.get("FABULA_ADMIN_TOKEN")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout)
        self._admin: httpx.Client | None = None
        if self.admin_url:
            admin_headers = {"Authorization": f"Bearer {admin_token}"} if admin_token else {}
            self._admin = httpx.Client(
                base_url=self.admin_url, headers=admin_headers, timeout=timeout
            )

    def close(self) -> None:
        """Closes the connections."""
        self._http.close()
        if self._admin is not None:
            self._admin.close()

    def __enter__(self) -> FabulaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(
        self, method: str, path: str, body: Any = None, *, admin: bool = False, **kw: Any
    ) -> dict[str, Any]:
        """One request; the server's JSON object (`{}` for an empty body), or `FabulaError`."""
        http = self._http
        if admin:
            if self._admin is None:
                raise ValueError("this route is on the trainers' listener: give admin_url")
            http = self._admin
        response = http.request(method, path, json=body, **kw)
        if response.status_code >= 400:
            raise _error_of(response)
        if not response.content:
            return {}
        answer = response.json()
        if not isinstance(answer, dict):
            message = f"not a JSON object: {answer!r}"
            raise FabulaError(response.status_code, "unexpected_answer", message)
        return answer

    # The agent-facing API.

    def health(self) -> dict[str, Any]:
        """`GET /health`."""
        return self._call("GET", "/health")

    def worlds(self) -> list[dict[str, Any]]:
        """The worlds served: `[{"id", "name", "theme", "pages"}]`."""
        return list(self._call("GET", "/v1/worlds")["worlds"])

    def search(
        self,
        world: int,
        query: str | None = None,
        *,
        queries: list[str] | None = None,
        top_k: int | None = None,
        page: int | None = None,
        hiding: str | None = None,
    ) -> dict[str, Any]:
        """Searches one world: one `query` (a query response) or a batch of `queries`
        (`{"responses": [...]}`)."""
        body = _drop_none(
            {"query": query, "queries": queries, "top_k": top_k, "page": page, "hiding": hiding}
        )
        return self._call("POST", f"/v1/worlds/{world}/search", body)

    def extract(
        self, world: int, url: str, *, start: int | None = None, max_chars: int | None = None
    ) -> dict[str, Any]:
        """Reads a window of one page as Markdown: `{"url", "title", "date", "content",
        "next_start"}`."""
        body = _drop_none({"url": url, "start": start, "max_chars": max_chars})
        return self._call("POST", f"/v1/worlds/{world}/extract", body)

    def retrieve(
        self,
        queries: list[str],
        *,
        topk: int = 3,
        return_scores: bool = False,
        world: int | None = None,
        hiding: str | None = None,
    ) -> list[list[dict[str, Any]]]:
        """Search-R1 retrieval: one list of hits per query. Without `world`, the root
        `/retrieve` searches the whole dataset."""
        body = _drop_none(
            {"queries": queries, "topk": topk, "return_scores": return_scores, "hiding": hiding}
        )
        path = "/retrieve" if world is None else f"/v1/worlds/{world}/retrieve"
        return list(self._call("POST", path, body)["result"])

    # Sessions.

    def create_session(
        self, world: int, *, seed: int = 0, controls: dict[str, Any] | None = None
    ) -> Session:
        """Creates a session in one world with a seed and controls (error and drop rates,
        latency, hiding, ...); its calls are logged and its faults are drawn from the seed."""
        body = _drop_none({"world": world, "seed": seed, "controls": controls})
        return Session(self, self._call("POST", "/v1/sessions", body))

    def session_search(
        self, session_id: str, query: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        """A search under the session's controls; arguments as `search`."""
        body = _drop_none({"query": query, **kw})
        return self._call("POST", f"/v1/sessions/{session_id}/search", body)

    def session_extract(self, session_id: str, url: str, **kw: Any) -> dict[str, Any]:
        """An extract under the session's controls; arguments as `extract`."""
        body = _drop_none({"url": url, **kw})
        return self._call("POST", f"/v1/sessions/{session_id}/extract", body)

    def session_log(self, session_id: str) -> dict[str, Any]:
        """The session's call log."""
        return self._call("GET", f"/v1/sessions/{session_id}/log")

    def session_tool(self, session_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
        """One of Qwen-AgentWorld's search tools in the session (`web_search`, `web_extractor`
        or `dict_memory`, with its arguments): `{"tool", "text", "structured"}`, `text` being
        the observation an agent reads."""
        return self._call("POST", f"/v1/sessions/{session_id}/tools/{tool}", arguments)

    def delete_session(self, session_id: str) -> None:
        """Deletes a session."""
        self._call("DELETE", f"/v1/sessions/{session_id}")

    # The trainers' listener: gold answers, scoring and episodes.

    def tasks(self, world: int) -> list[dict[str, Any]]:
        """A world's tasks with gold answers."""
        return list(self._call("GET", f"/admin/worlds/{world}/tasks", admin=True)["tasks"])

    def score(self, task_id: str, answer: Any) -> dict[str, Any]:
        """Scores one answer: `{"task_id", "kind", "reward", "score"}`."""
        body = {"task_id": task_id, "answer": answer}
        return self._call("POST", "/admin/score", body, admin=True)

    def reset(
        self,
        *,
        world: int | None = None,
        task_id: str | None = None,
        seed: int = 0,
        controls: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Starts an episode: `{"episode_id", "observation", "reward", "done"}`."""
        body = _drop_none({"world": world, "task_id": task_id, "seed": seed, "controls": controls})
        return self._call("POST", "/v1/env/reset", body, admin=True)

    def step(self, episode_id: str, action: dict[str, Any]) -> dict[str, Any]:
        """One action (`{"tool": "web_search" | "web_extractor" | "dict_memory" | "answer", ...}`):
        `{"observation", "reward", "done", "info"}`."""
        body = {"episode_id": episode_id, "action": action}
        return self._call("POST", "/v1/env/step", body, admin=True)

    def state(self, episode_id: str | None = None) -> dict[str, Any]:
        """An episode's state, or every episode's without an id."""
        params = {"episode_id": episode_id} if episode_id else None
        return self._call("GET", "/v1/env/state", admin=True, params=params)


class Session:
    """A server session: its id, world, seed and resolved controls, and its calls."""

    def __init__(self, client: FabulaClient, created: dict[str, Any]):
        self.client = client
        self.id: str = created["session"]
        self.world: int = created["world"]
        self.seed: int = created["seed"]
        self.controls: dict[str, Any] = created["controls"]

    def search(self, query: str | None = None, **kw: Any) -> dict[str, Any]:
        """A search under the session's controls."""
        return self.client.session_search(self.id, query, **kw)

    def extract(self, url: str, **kw: Any) -> dict[str, Any]:
        """An extract under the session's controls."""
        return self.client.session_extract(self.id, url, **kw)

    def log(self) -> dict[str, Any]:
        """The session's call log."""
        return self.client.session_log(self.id)

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        """One of Qwen-AgentWorld's tools in this session; see `FabulaClient.session_tool`."""
        return self.client.session_tool(self.id, name, **arguments)

    def memory(self, operation: str, **arguments: Any) -> str:
        """`dict_memory` in this session (`add` or `update` with `dict`, `retrieve` or `remove`
        with `key_list`, `retrieve_all`, `remove_all`): the answer as the agent reads it."""
        answer = self.tool("dict_memory", operation=operation, **arguments)
        return str(answer["text"])

    def delete(self) -> None:
        """Deletes the session."""
        self.client.delete_session(self.id)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.delete()


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def observation_date(iso: str | None) -> str:
    """A page's date (`YYYY-MM-DD`) as the tools write it, in Qwen-AgentWorld's style
    (`Jun 18, 2024`); `N/A` for an undated page; anything else as given (as the server's
    `fabula_date::observation_date`)."""
    if not iso:
        return "N/A"
    parts = iso.split("-")
    if len(iso) != 10 or len(parts) != 3 or not all(p.isdigit() for p in parts):
        return iso
    try:
        day = datetime.date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return iso
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def render_search(responses: list[dict[str, Any]]) -> str:
    """Search answers as the agent tools show them: `Results for "QUERY":` then one block per
    hit (`[n] URL`, `Title:`, `Snippet:`, `Date:` as `observation_date` writes it), numbered
    across all queries; a failed query
    shows its error. The same text as the server's MCP `web_search` and episode observations
    (`tests/test_client.py` compares them on a live server)."""
    parts = []
    n = 0
    for response in responses:
        query = response.get("query", "")
        if "error" in response:
            error = response["error"]
            failure = f'Error {error.get("code")}: {error.get("message")}'
            parts.append(f'Results for "{query}":\n{failure}\n')
            continue
        text = f'Results for "{query}":\n'
        if not response.get("results"):
            text += "No results.\n"
        for hit in response.get("results", []):
            n += 1
            date = observation_date(hit.get("date"))
            text += f"\n[{n}] {hit['url']}\nTitle: {hit['title']}\n"
            text += f"Snippet: {hit['snippet']}\nDate: {date}\n"
        parts.append(text)
    return "\n".join(parts)


def render_extract(extract: dict[str, Any], tool_name: str = "web_extractor") -> str:
    """An extract as the agent tools show it: a header, the Markdown, and a hint naming the
    next `start_index` when the page goes on. The same text as the server's MCP
    `web_extractor` and episode observations (`tests/test_client.py` compares them on a live
    server)."""
    text = (
        f"Contents of {extract['url']}:\nTitle: {extract['title']}\n"
        f"Date: {observation_date(extract.get('date'))}\n\n{extract['content']}"
    )
    if extract.get("next_start") is not None:
        text += (
            f"\n\n<error>Content truncated. Call {tool_name} with a start_index of "
            f"{extract['next_start']} to get more content.</error>"
        )
    return text
