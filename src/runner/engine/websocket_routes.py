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
        await _serve(ws, route, interceptor)

    await page.route_web_socket(taken, handle)


async def _serve(ws: WebSocketRoute, route: Any, interceptor: Any) -> None:
    from runner.net.websockets import TO_PAGE, TO_SERVER, WsTransport

    loop = asyncio.get_running_loop()
    # Playwright forwards a message itself while no listener is set: the listeners are set before
    # anything can arrive, and what arrives while the route's handler runs waits for it, in order.
    relay = _Relay(ws)
    ws.on_message(lambda data: relay.relay(TO_SERVER, data))
    ws.on_close(relay.closed_by(lambda: relay.server))
    if route.server:
        server = relay.server = ws.connect_to_server()
        server.on_message(lambda data: relay.relay(TO_PAGE, data))
        server.on_close(relay.closed_by(lambda: ws))
    transport = WsTransport(to_page=ws.send, to_server=relay.server.send if relay.server is not None else None,
                            close=relay.close, loop=loop)
    relay.opened(await interceptor.ws_open(route, ws.url, transport))  # runs the route's handler


class _Relay:
    """One routed socket between the page and its server (none when the route says
    ``server=False``): each message through the route's connection before it is forwarded, the
    close of one end closing the other. Until the route's handler has run (:meth:`opened`),
    what arrives is kept, and handled after, in order."""

    def __init__(self, ws: WebSocketRoute) -> None:
        self.ws = ws
        self.server: WebSocketRoute | None = None
        self.connection: Any = None  # the interceptor's WsConnection, once the handler ran
        self.early: list[tuple[str, str | bytes]] = []
        self.closed_early: list[tuple[WebSocketRoute | None, int | None, str | None]] = []

    def relay(self, direction: str, data: str | bytes) -> None:
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

    def closed_by(self, other: Callable[[], WebSocketRoute | None]) -> Callable[[int | None, str | None], None]:
        """The listener of one end's close: ``other()`` is the end to close with it."""
        def on_close(code: int | None, reason: str | None) -> None:
            if self.connection is None:
                self.closed_early.append((other(), code, reason))
                return
            self.end(other(), code, reason)

        return on_close

    def end(self, other: WebSocketRoute | None, code: int | None, reason: str | None) -> None:
        self.connection.ended()
        if other is not None:
            asyncio.ensure_future(_quietly(other.close(code=code, reason=reason)))

    def close(self, code: int, reason: str) -> None:
        """Close both ends (the route's handler closed the socket)."""
        asyncio.ensure_future(_quietly(self.ws.close(code=code, reason=reason or None)))
        if self.server is not None:
            asyncio.ensure_future(_quietly(self.server.close(code=code, reason=reason or None)))

    def opened(self, connection: Any) -> None:
        """The route's handler ran: what arrived meanwhile is handled now."""
        self.connection = connection
        for direction, data in self.early:
            self.relay(direction, data)
        for other, code, reason in self.closed_early[:1]:
            self.end(other, code, reason)


async def _quietly(coro: Any) -> None:
    try:
        await coro
    except (PlaywrightError, ValueError):
        pass  # already closed
