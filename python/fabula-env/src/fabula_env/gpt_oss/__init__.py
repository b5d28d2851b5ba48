"""A fabula backend for the `gpt-oss` package's browser tool (`SimpleBrowserTool`), so
`SimpleBrowserTool(backend=FabulaBackend(...))` browses a fabula world unchanged: `search`,
`open` (by link id or URL, with its cursor and line window) and `find` work on fabula's pages.

```python
from gpt_oss.tools.simple_browser import SimpleBrowserTool
from fabula_env.gpt_oss import FabulaBackend

browser = SimpleBrowserTool(backend=FabulaBackend(base_url="http://127.0.0.1:8080", world=0))
```

The backend implements the package's `Backend`: `search(query, topn, session)` asks `fabula
serve` for `topn` results (at most 50) and lays them out as the package's own backends do, a
"Search Results" list of links with their snippets; `fetch(url, session)` reads the whole page
(window by window) and hands it to the package's `process_html`, so links become its numbered
`【id†text】` anchors and the text its line-numbered view. With `session_id` the calls run in a
fabula session (`POST /v1/sessions`), under its seeded controls; without it, in the world.
A failed call raises the package's `BackendError` with fabula's code and message.

Needs the `gpt-oss` package (it asks for Python 3.12 and installs on 3.11 with pip's
`--ignore-requires-python`); the whole tool also needs tiktoken's `o200k_base` file.
"""

from __future__ import annotations

import html
import re
from typing import Any

import chz
from aiohttp import ClientSession
from gpt_oss.tools.simple_browser.backend import VIEW_SOURCE_PREFIX, Backend, BackendError
from gpt_oss.tools.simple_browser.page_contents import PageContents, process_html

__all__ = ["FabulaBackend", "markdown_to_html"]

# The most results one fabula search returns, and the widest extract window.
_MAX_TOP_K = 50
_MAX_CHARS = 100_000
# A page is far shorter than this many windows; the bound only guards the loop.
_MAX_WINDOWS = 64

_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def _inline(text: str) -> str:
    """One line of Markdown as HTML: its links as anchors, everything else escaped."""
    out: list[str] = []
    last = 0
    for match in _LINK.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        label, href = match.group(1), match.group(2)
        out.append(f'<a href="{html.escape(href, quote=True)}">{html.escape(label)}</a>')
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def markdown_to_html(markdown: str, title: str = "") -> str:
    """fabula's page Markdown as the HTML the browser tool reads: headings, one paragraph per
    line (table rows and list items included) and links as anchors."""
    body: list[str] = []
    for line in markdown.splitlines():
        if not line.strip():
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            body.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        else:
            body.append(f"<p>{_inline(line)}</p>")
    head = f"<head><title>{html.escape(title)}</title></head>" if title else ""
    return f"<html>{head}<body>{''.join(body)}</body></html>"


@chz.chz(typecheck=True)
class FabulaBackend(Backend):  # type: ignore[misc]
    """fabula's worlds as a `gpt-oss` browser backend."""

    source: str = chz.field(doc="Description of the backend source", default="fabula")
    base_url: str = chz.field(
        doc="The address of `fabula serve`", default="http://127.0.0.1:8080"
    )
    world: int = chz.field(doc="The world to browse", default=0)
    session_id: str | None = chz.field(
        doc="A fabula session to browse in (its controls apply); None browses the world",
        default=None,
    )
    api_key: str | None = chz.field(doc="The server's API key, when it needs one", default=None)

    def _route(self, action: str) -> str:
        base = self.base_url.rstrip("/")
        if self.session_id is not None:
            return f"{base}/v1/sessions/{self.session_id}/{action}"
        return f"{base}/v1/worlds/{self.world}/{action}"

    async def _call(self, session: ClientSession, action: str, body: dict[str, Any]) -> Any:
        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        async with session.post(self._route(action), json=body, headers=headers) as response:
            if response.status != 200:
                text = await response.text()
                raise BackendError(f"fabula {action} error {response.status}: {text}")
            return await response.json()

    async def search(self, query: str, topn: int, session: ClientSession) -> PageContents:
        top_k = max(1, min(int(topn), _MAX_TOP_K))
        answer = await self._call(session, "search", {"query": query, "top_k": top_k})
        items = "".join(
            f'<li><a href="{html.escape(hit["url"], quote=True)}">{html.escape(hit["title"])}</a> '
            f"{html.escape(hit.get('snippet') or '')}</li>"
            for hit in answer.get("results", [])
        )
        page = f"<html><body><h1>Search Results</h1><ul>{items}</ul></body></html>"
        return process_html(html=page, url="", title=query, display_urls=True, session=session)

    async def fetch(self, url: str, session: ClientSession) -> PageContents:
        if url.startswith(VIEW_SOURCE_PREFIX):
            url = url[len(VIEW_SOURCE_PREFIX) :]
        content: list[str] = []
        title = ""
        start = 0
        for _ in range(_MAX_WINDOWS):
            body = {"url": url, "start": start, "max_chars": _MAX_CHARS}
            window = await self._call(session, "extract", body)
            title = title or window.get("title", "")
            content.append(window.get("content", ""))
            following = window.get("next_start")
            if following is None or following <= start:
                break
            start = following
        page = markdown_to_html("".join(content), title)
        return process_html(html=page, url=url, title=title, display_urls=True, session=session)
