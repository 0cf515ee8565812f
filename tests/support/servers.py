"""Real HTTP servers on 127.0.0.1 for the tests: an echo server and friends.

Every server runs in a daemon thread, answers within bounded time and is shut down by its
fixture. ``disable_nagle_algorithm`` avoids Python's 40 ms keep-alive stall (engine-facts.md).
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

Route = Callable[["Handler"], None]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    routes: dict[str, Route] = {}
    received: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, status: int = 200, body: bytes | str | Any = b"", headers: dict[str, str] | None = None,
             content_type: str | None = None) -> None:
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            content_type = content_type or "application/json"
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        self.query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.request_body = self._body()
        record = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": self.request_body.decode("utf-8", "replace")}
        type(self).received.append(record)
        route = type(self).routes.get(parts.path) or _default_routes.get(parts.path.split("/")[1] if "/" in parts.path else "")
        if route is None:
            self.send(404, "not found", content_type="text/plain")
            return
        route(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago (for a server a test starts in a process of its own)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _echo(h: Handler) -> None:
    h.send(200, {"method": h.command, "path": h.path, "headers": {k.lower(): v for k, v in h.headers.items()},
                 "body": h.request_body.decode("utf-8", "replace")},
           headers={"Access-Control-Allow-Origin": "*"})


def _status(h: Handler) -> None:
    code = int(h.path.split("/")[2].split("?")[0])
    h.send(code, f"status {code}", content_type="text/plain")


def _slow(h: Handler) -> None:
    time.sleep(min(float(h.query.get("ms", "100")), 5000) / 1000)
    h.send(200, {"slow": True}, headers={"Access-Control-Allow-Origin": "*"})


def _html(h: Handler) -> None:
    name = h.path.split("/")[2].split("?")[0] if h.path.count("/") >= 2 else ""
    h.send(200, PAGES.get(name, f"<html><head><title>{name}</title></head><body><h1>{name}</h1></body></html>"),
           content_type="text/html; charset=utf-8")


def _cookie(h: Handler) -> None:
    h.send(200, {"cookie": h.headers.get("cookie", "")},
           headers={"Set-Cookie": "fromServer=yes; Path=/"})


def _redirect(h: Handler) -> None:
    h.send(302, b"", headers={"Location": h.query.get("to", "/echo")})


def _download(h: Handler) -> None:
    h.send(200, b"col1,col2\n1,2\n", headers={"Content-Disposition": 'attachment; filename="report.csv"'},
           content_type="text/csv")


_default_routes: dict[str, Route] = {
    "echo": _echo, "status": _status, "slow": _slow, "html": _html, "cookie": _cookie,
    "redirect": _redirect, "download": _download,
}

PAGES: dict[str, str] = {}


class TestServer:
    """A threaded HTTP server on 127.0.0.1 with its own routes and received-request log."""

    def __init__(self) -> None:
        handler = type("BoundHandler", (Handler,), {"routes": {}, "received": []})
        self.handler = handler
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def received(self) -> list[dict[str, Any]]:
        return self.handler.received

    def route(self, path: str, func: Route) -> None:
        self.handler.routes[path] = func

    def page(self, path: str, html: str) -> str:
        self.route(path, lambda h: h.send(200, html, content_type="text/html; charset=utf-8"))
        return self.url + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@contextmanager
def serving() -> Iterator[TestServer]:
    server = TestServer()
    try:
        yield server
    finally:
        server.close()
