"""verl tools (`BaseTool` subclasses, verl 0.9) for fabula's `web_search` and `web_extractor`.

verl's tool agent loop calls `create(create_kwargs=...)`, `execute` and `release` on every tool
call, with `create_kwargs` taken from the row's `extra_info.tools_kwargs[tool_name]`; `fabula
tasks export --format verl` writes `{"world": N}` there, so each call goes to its task's world.
Without controls a call is a plain search or extract of that world (`hiding` from the tool
config). With controls (`controls` in the tool config or in `create_kwargs`) the calls of one
trajectory share one server session, so its seeded faults and its log span the whole
trajectory: the session is keyed by verl's per-trajectory `agent_data.request_id`, created on
the trajectory's first call, shared by both tools, and deleted when more than `max_sessions`
trajectories are open (the server also drops sessions idle past `--session-ttl`). A
`create_kwargs` may also name an existing `session` to use.

Tool config (`config:` in verl's tool YAML; see `tool_config.yaml` beside this file):
`base_url` (default `$FABULA_URL`), `api_key` (default `$FABULA_API_KEY`), `timeout`,
`top_k` (results per query, default 5), `hiding` (default `partial`), `max_length`
(characters per extract window), `controls` and `seed` (sessions), `max_sessions`.
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections import OrderedDict
from typing import Any, ClassVar
from uuid import uuid4

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from ..client import FabulaClient, FabulaError, render_extract, render_search

WEB_SEARCH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "web_search",
        "description": (
            "Search this world's web. Give `queries`, a list of search queries; each returns a few "
            "results as blocks `[n] URL` / `Title:` / `Snippet:` / `Date:`. Snippets only hint at "
            "the facts: open a result's URL with `web_extractor` to read the page."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "queries": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Search queries, run one by one; results come back in order.",
                }
            },
            "required": ["queries"],
        },
    },
}

WEB_EXTRACTOR_SCHEMA = {
    "type": "function",
    "function": {
        "name": "web_extractor",
        "description": (
            "Read one page of this world's web as Markdown. Give the `url` of a search result. "
            "Long pages come in windows: when the text is cut, the answer ends with a hint naming "
            "the `start_index` to ask for next."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "The URL of the page to read."},
                "start_index": {
                    "type": "integer",
                    "description": "The character to start reading from (default 0).",
                },
            },
            "required": ["url"],
        },
    },
}


class _Sessions:
    """Server sessions by trajectory, shared by every fabula tool of the process, oldest
    deleted first beyond a cap."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: OrderedDict[tuple[str, int, str], str] = OrderedDict()

    def get(self, client: FabulaClient, world: int, trajectory: str, seed: int,
            controls: dict[str, Any], cap: int) -> str:
        key = (client.base_url, world, trajectory)
        evicted = []
        # Creation happens under the lock: the parallel tool calls of one turn must find one
        # session, not make two.
        with self._lock:
            if key in self._by_key:
                self._by_key.move_to_end(key)
                return self._by_key[key]
            session = client.create_session(world, seed=seed, controls=controls).id
            self._by_key[key] = session
            while len(self._by_key) > cap:
                evicted.append(self._by_key.popitem(last=False)[1])
        for old in evicted:
            try:
                client.delete_session(old)
            except FabulaError:
                pass  # Already dropped by the server's idle time to live.
        return session

    def __len__(self) -> int:
        return len(self._by_key)


SESSIONS = _Sessions()


class _Route:
    """Where one tool call goes: a world, and a session when controls are on."""

    def __init__(self, world: int, session: str | None, seed: int | None,
                 controls: dict[str, Any] | None):
        self.world = world
        self.session = session
        self.seed = seed
        self.controls = controls


class FabulaTool(BaseTool):
    """What `web_search` and `web_extractor` share: config, routing and the session registry."""

    default_schema: ClassVar[dict[str, Any]] = {}

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema | None = None):
        config = dict(config or {})
        self.client = FabulaClient(
            config.get("base_url"), config.get("api_key"), timeout=float(config.get("timeout", 60))
        )
        self.hiding = config.get("hiding", "partial")
        self.top_k = int(config.get("top_k", 5))
        self.max_length = config.get("max_length")
        self.controls = config.get("controls") or None
        self.seed = config.get("seed")
        self.max_sessions = int(config.get("max_sessions", 4096))
        self._routes: dict[str, _Route] = {}
        super().__init__(config, tool_schema)

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        return OpenAIFunctionToolSchema.model_validate(self.default_schema)

    async def create(self, instance_id: str | None = None, create_kwargs: dict | None = None,
                     **kwargs: Any) -> tuple[str, ToolResponse]:
        """Remembers where this instance's calls go. `create_kwargs` (verl 0.9), or the same
        keys passed flat (older callers): `world` (required), and optionally `session`,
        `seed`, `controls`."""
        route_kwargs = {**kwargs, **(create_kwargs or {})}
        if "world" not in route_kwargs:
            raise ValueError(
                f"{self.name}: create_kwargs has no `world`; export tasks with "
                "`fabula tasks export --format verl` or pass tools_kwargs"
            )
        instance_id = instance_id or str(uuid4())
        controls = route_kwargs.get("controls") or self.controls
        seed = route_kwargs.get("seed", self.seed)
        self._routes[instance_id] = _Route(
            int(route_kwargs["world"]), route_kwargs.get("session"), seed, controls
        )
        return instance_id, ToolResponse()

    def _session(self, route: _Route, trajectory: str) -> str | None:
        """The session a call uses: the named one, one per trajectory when controls or a seed
        are set, else none."""
        if route.session:
            return route.session
        if route.controls is None and route.seed is None:
            return None
        seed = route.seed if route.seed is not None else zlib.crc32(trajectory.encode())
        return SESSIONS.get(
            self.client, route.world, trajectory, int(seed), route.controls or {}, self.max_sessions
        )

    async def execute(self, instance_id: str, parameters: dict[str, Any],
                      **kwargs: Any) -> tuple[ToolResponse, float, dict]:
        route = self._routes.get(instance_id)
        if route is None:
            raise ValueError(f"{self.name}: no instance {instance_id} (call create first)")
        trajectory = str(getattr(kwargs.get("agent_data"), "request_id", None) or instance_id)
        try:
            text, metrics = await asyncio.to_thread(self._run, route, trajectory, parameters)
        except FabulaError as error:
            return ToolResponse(text=error.text()), 0.0, {"world": route.world, "error": error.code}
        return ToolResponse(text=text), 0.0, {"world": route.world, **metrics}

    def _run(self, route: _Route, trajectory: str,
             parameters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._routes.pop(instance_id, None)


def _queries(parameters: dict[str, Any]) -> list[str]:
    queries = parameters.get("queries")
    if queries is None and parameters.get("query") is not None:
        queries = [parameters["query"]]
    if isinstance(queries, str):
        queries = [queries]
    if not isinstance(queries, list) or not queries:
        raise FabulaError(400, "bad_request", "give `queries`, a list of search queries")
    return [str(q) for q in queries]


class FabulaSearchTool(FabulaTool):
    """`web_search`: searches the task's world and answers with result blocks."""

    default_schema = WEB_SEARCH_SCHEMA

    def _run(self, route: _Route, trajectory: str,
             parameters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        queries = _queries(parameters)
        session = self._session(route, trajectory)
        if session is None:
            answer = self.client.search(
                route.world, queries=queries, top_k=self.top_k, hiding=self.hiding
            )
        else:
            answer = self.client.session_search(session, queries=queries, top_k=self.top_k)
        responses = answer["responses"]
        n_results = sum(len(r.get("results", [])) for r in responses)
        return render_search(responses), {"queries": len(queries), "results": n_results}


class FabulaExtractTool(FabulaTool):
    """`web_extractor`: reads one page of the task's world as Markdown."""

    default_schema = WEB_EXTRACTOR_SCHEMA

    def _run(self, route: _Route, trajectory: str,
             parameters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        url = parameters.get("url")
        if not isinstance(url, str) or not url.strip():
            raise FabulaError(400, "bad_request", "give the `url` of a search result")
        start = parameters.get("start_index")
        start = int(start) if start is not None else None
        session = self._session(route, trajectory)
        if session is None:
            extract = self.client.extract(route.world, url, start=start, max_chars=self.max_length)
        else:
            extract = self.client.session_extract(
                session, url, start=start, max_chars=self.max_length
            )
        return render_extract(extract, self.name), {"chars": len(extract["content"])}
