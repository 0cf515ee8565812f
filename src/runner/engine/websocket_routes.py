"""The page's WebSockets to ``runner.intercept_ws``'s routes, through Playwright's
``page.route_web_socket``.

Installed once per page, when a test first defines a WebSocket route, with a predicate that
asks the interceptor: a socket no route takes is not routed at all and connects as usual.
A socket a route takes is connected to its server (unless the route says ``server=False``)
and each message, either way, goes through :meth:`WsConnection.deliver
<runner.net.websockets.WsConnection.deliver>` before it is forwarded; closing one end closes
the other. Runs on the engine's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, WebSocketRoute

if TYPE_CHECKING:
    from runner.engine.routing import RoutingTarget

__all__ = ["route_web_sockets"]


async def route_web_sockets(page: Page, target: RoutingTarget) -> None:
    """Send ``page``'s sockets that a WebSocket route matches to the interceptor."""

    def taken(url: str) -> bool:
        interceptor = target.interceptor()
        return interceptor is not None and interceptor.ws_route_for(url) is not None

    async def handle(ws: WebSocketRoute) -> None:
        interceptor = target.interceptor()
        route = interceptor.ws_route_for(ws.url) if interceptor is not None else None
        if interceptor is None or route is None:  # its route was cleared meanwhile
            ws.connect_to_server()
            return
        await _SocketBridge(ws).open(route, interceptor)

    await page.route_web_socket(taken, handle)


class _SocketBridge:
    """One routed socket: the page's end, the server's end (none under ``server=False``) and the
    interceptor's connection that every message goes through between them.

    Playwright forwards a message itself while no listener is set: the listeners are set before
    anything can arrive, and what arrives (a message, a close) while the route's handler runs
    waits for it, in order.
    """

    def __init__(self, ws: WebSocketRoute) -> None:
        self.ws = ws
        self.server: WebSocketRoute | None = None
        self.connection: Any = None
        self.early: list[tuple[str, str | bytes]] = []
        self.closed_early: list[tuple[WebSocketRoute | None, int | None, str | None]] = []

    async def open(self, route: Any, interceptor: Any) -> None:
        """Listen to both ends, run the route's handler, then pass on what waited for it."""
        from runner.net.websockets import TO_PAGE, TO_SERVER, WsTransport

        ws = self.ws
        ws.on_message(lambda data: self.relay(TO_SERVER, data))
        ws.on_close(self._closed_by(lambda: self.server))
        if route.server:
            server = self.server = ws.connect_to_server()
            server.on_message(lambda data: self.relay(TO_PAGE, data))
            server.on_close(self._closed_by(lambda: ws))
        transport = WsTransport(to_page=ws.send, to_server=self.server.send if self.server is not None else None,
                                close=self.close, loop=asyncio.get_running_loop())
        self.connection = await interceptor.ws_open(route, ws.url, transport)  # runs the route's handler
        for direction, data in self.early:
            self.relay(direction, data)
        for other, code, reason in self.closed_early[:1]:
            self._end(other, code, reason)

    def relay(self, direction: str, data: str | bytes) -> None:
        """Deliver one message through the connection, then forward what it gives."""
        if self.connection is None:
            self.early.append((direction, data))
            return
        asyncio.ensure_future(self._forward(direction, data))

    async def _forward(self, direction: str, data: str | bytes) -> None:
        from runner.net.websockets import TO_PAGE, TO_SERVER

        out = await self.connection.deliver(direction, data)
        if out is None:
            return
        try:
            if direction == TO_SERVER and self.server is not None:
                self.server.send(out)
            elif direction == TO_PAGE:
                self.ws.send(out)
        except PlaywrightError:
            pass  # that end closed meanwhile

    def _closed_by(self, other: Callable[[], WebSocketRoute | None]) -> Callable[[int | None, str | None], None]:
        """The close listener of one end: it closes ``other()``."""

        def on_close(code: int | None, reason: str | None) -> None:
            if self.connection is None:
                self.closed_early.append((other(), code, reason))
                return
            self._end(other(), code, reason)

        return on_close

    def _end(self, other: WebSocketRoute | None, code: int | None, reason: str | None) -> None:
        self.connection.ended()
        if other is not None:
            asyncio.ensure_future(_quietly(other.close(code=code, reason=reason)))

    def close(self, code: int, reason: str) -> None:
        """The route's ``close()``: both ends."""
        asyncio.ensure_future(_quietly(self.ws.close(code=code, reason=reason or None)))
        if self.server is not None:
            asyncio.ensure_future(_quietly(self.server.close(code=code, reason=reason or None)))


async def _quietly(coro: Any) -> None:
    try:
        await coro
    except (PlaywrightError, ValueError):
        pass  # already closed
