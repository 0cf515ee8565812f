"""Throttled bodies that the page reads as they arrive (``throttleKbps``, ``res.set_throttle``).

Playwright's ``route.fulfill`` hands the browser a whole body at once. To stream one, runner
serves it from a small HTTP server of its own on 127.0.0.1 and continues the page's request to
it (``route.continue_(url=...)``: Chromium changes the URL in a way the page cannot observe, so
the response is the original URL's, CORS and all). The server writes the head at once, then the
body in slices paced to the rate. Chromium only changes a URL within the same scheme, so this
serves ``http:`` requests; an ``https:`` one is answered after waiting as long as its body takes.

One server per engine loop, started on first use, bound to 127.0.0.1 only; each body is
served once, at a path no one can guess.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field

from runner.net.messages import HttpResponse

__all__ = ["BodyStreams", "close_streams", "streams"]

_TICK_S = 0.05  # a slice of the body every 50 ms
_HEAD_LIMIT = 64 * 1024
_READ_BOUND_S = 10.0
_STALL_S = 30.0  # a page that reads nothing of a throttled body for this long stopped reading
_SKIPPED = frozenset({"content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"})


@dataclass
class _Body:
    response: HttpResponse
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Future[str | None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class BodyStreams:
    """Registers bodies and serves each once at its rate."""

    def __init__(self) -> None:
        self._server: asyncio.AbstractServer | None = None
        self._port = 0
        self._bodies: dict[str, _Body] = {}

    async def register(self, response: HttpResponse) -> tuple[str, _Body]:
        """The URL that serves ``response`` once, and its handle (``connected``, ``done``:
        None once the whole body was written, else why not)."""
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
            self._port = self._server.sockets[0].getsockname()[1]
        token = secrets.token_urlsafe(24)
        body = _Body(response)
        self._bodies[token] = body
        return f"http://127.0.0.1:{self._port}/{token}", body

    def forget(self, url: str) -> None:
        self._bodies.pop(url.rsplit("/", 1)[-1], None)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body: _Body | None = None
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _READ_BOUND_S)
            if len(head) > _HEAD_LIMIT:
                return
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1] if len(lines[0].split(" ")) >= 2 else "/"
            length = next((int(v) for k, _, v in (line.partition(":") for line in lines[1:])
                           if k.strip().lower() == "content-length" and v.strip().isdigit()), 0)
            if length:  # the page's request body: read, not used
                await asyncio.wait_for(reader.readexactly(length), _READ_BOUND_S)
            body = self._bodies.pop(path.lstrip("/"), None)
            if body is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                await writer.drain()
                return
            body.connected.set()
            await self._write(body.response, writer)
            _settle(body.done, None)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as err:
            if body is not None:
                _settle(body.done, f"the page stopped reading the body ({type(err).__name__})")
        finally:
            if body is not None:
                _settle(body.done, "the body could not be sent")
            writer.close()

    @staticmethod
    async def _write(response: HttpResponse, writer: asyncio.StreamWriter) -> None:
        head = [f"HTTP/1.1 {response.status} {response.status_text or 'OK'}"]
        head += [f"{name}: {line}" for name, line in response.header_lines() if name.lower() not in _SKIPPED]
        head += [f"Content-Length: {len(response.body)}", "Connection: close", "", ""]
        writer.write("\r\n".join(head).encode("latin-1", "replace"))
        await writer.drain()
        rate = (response.throttle_kbps or 0) * 1000 / 8  # bytes a second
        if rate <= 0:
            writer.write(response.body)
            await writer.drain()
            return
        loop = asyncio.get_running_loop()
        started = loop.time()
        data = memoryview(response.body)
        sent = 0
        while sent < len(data):
            elapsed = loop.time() - started
            due = min(len(data), max(sent + 1, int((elapsed + _TICK_S) * rate)))  # what the rate allows by the next tick
            writer.write(bytes(data[sent:due]))
            await asyncio.wait_for(writer.drain(), _STALL_S)  # a page that stopped reading
            sent = due
            if sent < len(data):
                await asyncio.sleep(max(0.0, started + sent / rate - loop.time()))


def _settle(future: asyncio.Future[str | None], value: str | None) -> None:
    if not future.done():
        future.set_result(value)


_by_loop: dict[int, BodyStreams] = {}


def streams() -> BodyStreams:
    """The streams of the running loop (one server per engine loop)."""
    key = id(asyncio.get_running_loop())
    found = _by_loop.get(key)
    if found is None:
        found = _by_loop[key] = BodyStreams()
    return found


async def close_streams() -> None:
    """Stop the running loop's server (the browser session closing): bodies not yet asked for
    are dropped; streams under way end as their pages do."""
    found = _by_loop.pop(id(asyncio.get_running_loop()), None)
    if found is not None and found._server is not None:
        found._server.close()
        found._bodies.clear()
