"""A Python BM25 search server over a fabula dataset, for comparing throughput with `fabula serve`.

It speaks the two routes `fabula bench search` uses (`GET /v1/worlds` and
`POST /v1/worlds/{id}/search`), ranks one world's pages with rank_bm25's BM25Okapi, and returns
the first 200 characters of each hit as its snippet (no hiding, so it does less work than fabula).

    python -m venv .venv && .venv/bin/pip install rank_bm25 numpy
    .venv/bin/python benches/python/bm25_server.py worlds/default 127.0.0.1:8090
    fabula bench search --addr 127.0.0.1:8090
"""

import json
import re
import sqlite3
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from rank_bm25 import BM25Okapi

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text):
    return TOKEN.findall(text.lower())


def load(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    worlds = {}
    for entry in manifest["worlds"]:
        conn = sqlite3.connect(f"file:{dataset / entry['file']}?mode=ro", uri=True)
        pages = conn.execute("SELECT url, title, published, body FROM fabula_pages ORDER BY url").fetchall()
        conn.close()
        index = BM25Okapi([tokens(title + " " + body) for _, title, _, body in pages])
        worlds[entry["id"]] = (entry, pages, index)
    return worlds


def make_handler(worlds):
    listing = json.dumps(
        {"worlds": [{"id": e["id"], "name": e["name"], "theme": e["theme"], "pages": e["pages"]} for e, _, _ in worlds.values()]}
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/v1/worlds":
                self.reply(200, listing)
            else:
                self.reply(404, b'{"error": {"code": "not_found", "message": "no route"}}')

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length) or b"{}")
            match = re.fullmatch(r"/v1/worlds/(\d+)/search", self.path)
            if not match or int(match.group(1)) not in worlds:
                self.reply(404, b'{"error": {"code": "world_not_found", "message": "no such world"}}')
                return
            _, pages, index = worlds[int(match.group(1))]
            top_k = int(request.get("top_k", 10))
            scores = index.get_scores(tokens(request.get("query", "")))
            # Ties are broken by url, as pages are in url order and the sort is stable.
            order = sorted(range(len(pages)), key=lambda i: -scores[i])[:top_k]
            results = [
                {"rank": r + 1, "url": pages[i][0], "title": pages[i][1], "snippet": pages[i][3][:200], "date": pages[i][2]}
                for r, i in enumerate(order)
                if scores[i] > 0
            ]
            body = json.dumps({"query": request.get("query"), "results": results, "page": 1, "has_more": False}).encode()
            self.reply(200, body)

    return Handler


def main():
    dataset = Path(sys.argv[1] if len(sys.argv) > 1 else "worlds/default")
    host, port = (sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1:8090").rsplit(":", 1)
    worlds = load(dataset)
    server = ThreadingHTTPServer((host, int(port)), make_handler(worlds))
    print(f"python bm25: serving {len(worlds)} worlds on http://{host}:{port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
