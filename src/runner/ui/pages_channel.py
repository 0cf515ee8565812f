"""The pages connected to ``runner open`` over its WebSocket (``/ws``), in JSON messages.

A page needs an ``Origin`` of this server. On connect it gets ``hello`` (everything) and the last
screencast frame seen (the app's view is never empty after a run, nor after a reload); then every
message the server broadcasts, in order, and only the newest screencast frame (a page that falls
too far behind is made to reconnect and starts anew). When the last page leaves while a run goes
on, the run is stopped after a grace (its browser closed), unless a page comes back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSMsgType, web

__all__ = ["PageChannel"]

_CLIENT_BACKLOG = 20000  # messages a page may fall behind before it is made to reconnect


class _Client:
    """One connected page: its messages in order, and only the newest frame."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.frame: str | None = None
        self.wake = asyncio.Event()

    def put(self, text: str) -> None:
        if self.queue.qsize() > _CLIENT_BACKLOG:
            asyncio.ensure_future(self.ws.close())  # it reconnects and gets everything anew
            return
        self.queue.put_nowait(text)
        self.wake.set()

    def put_frame(self, text: str) -> None:
        self.frame = text
        self.wake.set()

    async def pump(self) -> None:
        while not self.ws.closed:
            await self.wake.wait()
            self.wake.clear()
            while not self.queue.empty():
                await self.ws.send_str(self.queue.get_nowait())
            if self.frame is not None:
                frame, self.frame = self.frame, None
                await self.ws.send_str(frame)


class PageChannel:
    """The connected pages: each one's queue, the broadcast to all, and the orphaned run's grace."""

    def __init__(self, *, port: Callable[[], int], hello: Callable[[], dict[str, Any]],
                 handle: Callable[[dict[str, Any]], Awaitable[None]], has_run: Callable[[], bool],
                 stop_orphan: Callable[[], Awaitable[None]], orphan_grace: float) -> None:
        self._port = port  # known once the server listens (port 0 picks one)
        self._hello = hello  # what a page gets first (the project read anew)
        self._handle = handle  # one message of a page
        self._has_run = has_run  # whether a run was started (left without a page, it is stopped)
        self._stop_orphan = stop_orphan
        self.orphan_grace = orphan_grace
        self._clients: set[_Client] = set()
        self._last_frame: str | None = None  # the app as last painted, for a page that connects later
        self._orphan_task: asyncio.Task[Any] | None = None

    def broadcast(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False, default=str)
        for client in list(self._clients):
            client.put(text)

    def frame(self, text: str) -> None:
        """The newest screencast frame, to every page (an older one not yet sent is dropped)."""
        self._last_frame = text
        for client in list(self._clients):
            client.put_frame(text)

    async def connect(self, request: web.Request) -> web.StreamResponse:
        """``/ws``: one page, from its ``hello`` until it goes."""
        port = self._port()
        origin = request.headers.get("Origin", "")
        if origin not in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
            return web.Response(status=403, text="runner open: wrong origin\n")
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4 * 1024 * 1024)
        await ws.prepare(request)
        client = _Client(ws)
        client.put(json.dumps(self._hello()))
        if self._last_frame is not None:
            client.put_frame(self._last_frame)
        self._clients.add(client)
        if self._orphan_task is not None:
            self._orphan_task.cancel()
            self._orphan_task = None
        pump = asyncio.create_task(client.pump())
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    continue
                if isinstance(data, dict):
                    await self._handle(data)
        finally:
            self._clients.discard(client)
            pump.cancel()
            if not self._clients and self._has_run():
                self._orphan_task = asyncio.create_task(self._orphaned())
        return ws

    async def _orphaned(self) -> None:
        await asyncio.sleep(self.orphan_grace)
        if not self._clients:
            await self._stop_orphan()

    def cancel_orphan_stop(self) -> None:
        """The server ends: it stops the run itself."""
        if self._orphan_task is not None:
            self._orphan_task.cancel()

    async def close_pages(self) -> None:
        """The server ends: every page's socket is closed."""
        for client in list(self._clients):
            try:
                await client.ws.close()
            except Exception:  # noqa: BLE001 - closing must not raise
                pass
