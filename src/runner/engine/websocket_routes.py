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
    connection: Any = None
    early: list[tuple[str, str | bytes]] = []
    closed_early: list[tuple[WebSocketRoute | None, int | None, str | None]] = []
    server: WebSocketRoute | None = None

    def relay(direction: str, data: str | bytes) -> None:
        if connection is None:
            early.append((direction, data))
            return

        async def go() -> None:
            out = await connection.deliver(direction, data)
            if out is None:
                return
            try:
                if direction == TO_SERVER and server is not None:
                    server.send(out)
                elif direction == TO_PAGE:
                    ws.send(out)
            except PlaywrightError:
                pass  # that end closed meanwhile

        asyncio.ensure_future(go())

    def closed_by(other: Any) -> Any:
        def on_close(code: int | None, reason: str | None) -> None:
            if connection is None:
                closed_early.append((other(), code, reason))
                return
            end(other(), code, reason)

        return on_close

    def end(other: WebSocketRoute | None, code: int | None, reason: str | None) -> None:
        connection.ended()
        if other is not None:
            asyncio.ensure_future(_quietly(other.close(code=code, reason=reason)))

    ws.on_message(lambda data: relay(TO_SERVER, data))
    ws.on_close(closed_by(lambda: server))
    if route.server:
        server = ws.connect_to_server()
        server.on_message(lambda data: relay(TO_PAGE, data))
        server.on_close(closed_by(lambda: ws))

    def close(code: int, reason: str) -> None:
        asyncio.ensure_future(_quietly(ws.close(code=code, reason=reason or None)))
        if server is not None:
            asyncio.ensure_future(_quietly(server.close(code=code, reason=reason or None)))

    transport = WsTransport(to_page=ws.send, to_server=server.send if server is not None else None,
                            close=close, loop=loop)
    connection = await interceptor.ws_open(route, ws.url, transport)  # runs the route's handler
    for direction, data in early:
        relay(direction, data)
    for other, code, reason in closed_early[:1]:
        end(other, code, reason)


async def _quietly(coro: Any) -> None:
    try:
        await coro
    except (PlaywrightError, ValueError):
        pass  # already closed
