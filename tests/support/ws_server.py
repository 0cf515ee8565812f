"""A real WebSocket server on 127.0.0.1 (aiohttp, in a thread of its own) for the tests.

``/ws``: says ``hello`` when a socket opens, answers each text message ``m`` with ``echo:m``
(bytes with the bytes reversed), and closes on ``bye``. ``received`` keeps what reached it;
``wait_received(n)`` waits (bounded) until ``n`` messages did.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import WSMsgType, web


class WsServer:
    def __init__(self) -> None:
        self.received: list[str | bytes] = []
        self._arrived = threading.Condition()
        self._open: set[web.WebSocketResponse] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the WebSocket test server did not start within 10 s")
        self.url = f"ws://127.0.0.1:{self.port}/ws"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/ws", self._socket)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self._loop.run_forever()

    def _note(self, data: str | bytes) -> None:
        with self._arrived:
            self.received.append(data)
            self._arrived.notify_all()

    def wait_received(self, count: int, timeout: float = 5.0) -> list[str | bytes]:
        """What reached the server once ``count`` messages did, or after ``timeout`` seconds."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._open.add(ws)
        await ws.send_str("hello")
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                self._note(msg.data)
                if msg.data == "bye":
                    await ws.close()
                    break
                await ws.send_str("echo:" + msg.data)
            elif msg.type == WSMsgType.BINARY:
                self._note(msg.data)
                await ws.send_bytes(msg.data[::-1])
        self._open.discard(ws)
        return ws

    def close(self) -> None:
        async def stop() -> None:
            for ws in list(self._open):  # a page's socket left open must not hold the shutdown
                await asyncio.wait_for(ws.close(), 5)
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@contextmanager
def ws_serving() -> Iterator[WsServer]:
    server = WsServer()
    try:
        yield server
    finally:
        server.close()
