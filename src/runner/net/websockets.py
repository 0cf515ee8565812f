"""WebSocket interception: routes, connections and messages (``runner.intercept_ws``).

Playwright-free: the engine's adapter (``engine/websocket_routes.py``) hands each socket of the
page to :meth:`WsRoutes.open` with a :class:`WsTransport` (how to reach the page and the
server), then every message to :meth:`WsConnection.deliver`, which runs the route's message
callbacks (in a worker thread for a plain function, on the loop for ``async def``), records
the message and says what to forward. Messages of one direction are delivered in order.

Threads: routes are added from the test thread, connections and messages live on the loop;
the registry's lock guards the records and its condition wakes ``runner.wait``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner.errors import InterceptError, UsageError
from runner.usercode.threads import Workers

from ._util import as_coro, show
from .matching import CompiledMatcher, MatchView, validate_route_matcher
from .records import RequestRecord, RouteRecord, Teller
from .route import validate_alias

__all__ = ["WsConnection", "WsHandle", "WsMessage", "WsRoute", "WsRoutes", "WsTransport"]

_ids = itertools.count(1)
_order = itertools.count(1)
# Plain-function handlers and message callbacks run here (they may block), never in the engine
# loop's own executor; a call that runs past defaultCommandTimeout is given up on.
_callbacks = Workers("runner-ws-callback", size=32)
TO_SERVER = "to_server"
TO_PAGE = "to_page"


@dataclass
class WsTransport:
    """How the adapter reaches both ends of one socket (loop thread; ``to_server`` is None for a
    socket with no server behind it)."""

    to_page: Callable[[str | bytes], None]
    to_server: Callable[[str | bytes], None] | None
    close: Callable[[int, str], None]
    loop: asyncio.AbstractEventLoop


@dataclass
class WsMessage:
    """One message of a socket, as it was delivered (``data``) and as it was sent (``original``).

    ``direction``: ``"to_server"`` (the page sent it) or ``"to_page"``. ``injected``: sent by
    a handler or the test rather than by either end. ``dropped``: a callback dropped it.
    A message callback may set ``data`` to rewrite it, or call ``drop()``.
    """

    direction: str
    data: str | bytes
    url: str
    connection_id: str
    original: str | bytes = ""
    injected: bool = False
    dropped: bool = False
    at: float = field(default_factory=time.monotonic)
    # the order messages came in, across sockets (a rewritten message keeps its place)
    order: int = field(default_factory=lambda: next(_order))

    def drop(self) -> None:
        self.dropped = True

    @property
    def json(self) -> Any:
        """The data parsed as JSON (raises ValueError when it is not JSON)."""
        import json

        return json.loads(self.data)

    def __repr__(self) -> str:
        shown = self.data if isinstance(self.data, str) else f"<{len(self.data)} bytes>"
        if isinstance(shown, str) and len(shown) > 60:
            shown = shown[:57] + "..."
        arrow = "page -> server" if self.direction == TO_SERVER else "server -> page"
        flags = (" injected" if self.injected else "") + (" dropped" if self.dropped else "")
        return f"<WsMessage {arrow} {shown!r}{flags}>"


class WsConnection:
    """One socket of the page that a route took: ``url``, ``messages`` so far, ``closed``; a
    handler (or the test) may ``send_to_page``, ``send_to_server`` and ``close``, and register
    ``on_page_message(fn)`` / ``on_server_message(fn)`` callbacks, each ``fn(message)``."""

    def __init__(self, route: WsRoute, url: str, transport: WsTransport, registry_cond: threading.Condition,
                 report: Callable[[BaseException], None], timeout_s: Callable[[], float] = lambda: 4.0) -> None:
        self.id = f"ws-{next(_ids)}"
        self.route = route
        self.url = url
        self.messages: list[WsMessage] = []
        self.closed = False
        self.opened = time.monotonic()
        self._transport = transport
        self._cond = registry_cond
        self._report = report
        self._timeout_s = timeout_s
        self._callbacks: dict[str, list[Callable[[WsMessage], Any]]] = {TO_SERVER: [], TO_PAGE: []}
        self._locks = {TO_SERVER: asyncio.Lock(), TO_PAGE: asyncio.Lock()}

    # -- what a handler or the test calls (any thread) ---------------------------------------
    def on_page_message(self, fn: Callable[[WsMessage], Any]) -> None:
        self._callbacks[TO_SERVER].append(_callable(fn, "on_page_message"))

    def on_server_message(self, fn: Callable[[WsMessage], Any]) -> None:
        self._callbacks[TO_PAGE].append(_callable(fn, "on_server_message"))

    def send_to_page(self, data: str | bytes) -> None:
        self._inject(TO_PAGE, data)

    def send_to_server(self, data: str | bytes) -> None:
        if self._transport.to_server is None:
            raise UsageError(f"{self.url}: this socket has no server (the route was defined with server=False).")
        self._inject(TO_SERVER, data)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self._soon(lambda: self._transport.close(code, reason))

    # -- the adapter (loop thread) -----------------------------------------------------------
    async def deliver(self, direction: str, data: str | bytes) -> str | bytes | None:
        """Run the callbacks on a message from one end; record it; return what to forward
        (None: nothing, it was dropped or there is no other end)."""
        async with self._locks[direction]:  # in order, one at a time per direction
            message = WsMessage(direction, data, self.url, self.id, original=data)
            for fn in list(self._callbacks[direction]):
                try:
                    await _run(fn, message, self._timeout_s())
                except Exception as err:  # noqa: BLE001 - the test fails; the message goes on as it came
                    failure = InterceptError(
                        f"A WebSocket message callback of runner.intercept_ws({self.route.describe()}) "
                        f"{_what_went_wrong(err, self._timeout_s())}\n\nMessage: {message!r}")
                    failure.__cause__ = err
                    self._report(failure)
                    message.data, message.dropped = data, False
                    break
                if message.dropped:
                    break
            if not isinstance(message.data, (str, bytes)):
                self._report(InterceptError(
                    f"runner.intercept_ws({self.route.describe()}): a callback set message.data to "
                    f"{show(message.data)}; a message is a str or bytes. The original was sent."))
                message.data = data
            self._record(message)
            if message.dropped:
                return None
            if direction == TO_SERVER and self._transport.to_server is None:
                return None
            return message.data

    def ended(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def _record(self, message: WsMessage) -> None:
        with self._cond:
            self.messages.append(message)
            self.route.messages.append(message)
            self._cond.notify_all()

    def _inject(self, direction: str, data: str | bytes) -> None:
        if not isinstance(data, (str, bytes)):
            raise UsageError(f"A WebSocket message is a str or bytes; found {show(data)}.")
        message = WsMessage(direction, data, self.url, self.id, original=data, injected=True)

        def send() -> None:
            target = self._transport.to_page if direction == TO_PAGE else self._transport.to_server
            if target is not None and not self.closed:
                target(data)
                self._record(message)

        self._soon(send)

    def _soon(self, call: Callable[[], None]) -> None:
        loop = self._transport.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            call()
        else:
            loop.call_soon_threadsafe(call)

    def __repr__(self) -> str:
        return f"<WsConnection {self.url} {len(self.messages)} messages{' closed' if self.closed else ''}>"


async def _run(fn: Callable[[Any], Any], arg: Any, timeout_s: float) -> None:
    """``fn(arg)``: ``async def`` on the loop, a plain function in a thread of its own pool; an
    awaitable it returns is awaited. Raises TimeoutError past ``timeout_s`` (the thread of a
    plain function is given up on: it no longer counts, and ends when the function returns)."""
    if inspect.iscoroutinefunction(fn):
        await asyncio.wait_for(fn(arg), timeout_s)
        return
    deadline = time.monotonic() + timeout_s
    job = _callbacks.submit(fn, arg)
    try:
        result = await asyncio.wait_for(asyncio.wrap_future(job), timeout_s)
    except BaseException:
        _callbacks.give_up(job)
        raise
    if inspect.isawaitable(result):
        await asyncio.wait_for(as_coro(result), max(deadline - time.monotonic(), 0.0))


def _what_went_wrong(err: BaseException, timeout_s: float) -> str:
    if isinstance(err, TimeoutError):
        return f"ran past defaultCommandTimeout ({round(timeout_s * 1000)}ms); it was given up on."
    return f"raised {type(err).__name__}: {err}"


def _callable(fn: Any, name: str) -> Callable[[WsMessage], Any]:
    if not callable(fn):
        raise UsageError(f"`{name}()` takes a function of the message; found {show(fn)}.")
    return fn  # type: ignore[no-any-return]


class WsRoute:
    """One ``runner.intercept_ws``: a URL matcher, whether a server is behind it, a handler."""

    def __init__(self, url: Any, handler: Callable[[WsConnection], Any] | None, server: bool) -> None:
        if not isinstance(url, (str, re.Pattern)):
            raise UsageError(f"runner.intercept_ws() takes a URL glob or a regular expression; found {show(url)}.")
        if handler is not None and not callable(handler):
            raise UsageError(f"runner.intercept_ws(): the handler is a function of the connection; found {show(handler)}.")
        if not isinstance(server, bool):
            raise UsageError(f"runner.intercept_ws(): `server` is True or False; found {show(server)}.")
        self.id = f"ws-route-{next(_ids)}"
        self.url = url
        self.matcher = CompiledMatcher(validate_route_matcher({"url": url}))
        self.handler = handler
        self.server = server
        self.alias: str | None = None
        self.connections: list[WsConnection] = []
        self.messages: list[WsMessage] = []

    def matches(self, url: str) -> bool:
        return self.matcher.match(MatchView("GET", url, {}, "websocket"))

    def describe(self) -> str:
        return show(self.url if isinstance(self.url, str) else self.url)

    def record(self) -> RouteRecord:
        """The route as the Routes table shows it (as the HTTP routes are): method ``WS``;
        stubbed when no server is behind it; ``matches`` counts the sockets it took."""
        return RouteRecord(id=self.id, method="WS", matcher=self.matcher.describe(), stubbed=not self.server,
                           handler="function" if self.handler is not None else ("spy" if self.server else "static"),
                           alias=self.alias, matches=len(self.connections), times=None, middleware=False, log=True)

    def connection_record(self, connection: WsConnection) -> RequestRecord:
        """A socket the route took, as a recorded request: its handshake (``GET``, status 101,
        resource type ``websocket``), ended when the socket opened; neither ``open`` nor
        ``late``, no bodies."""
        return RequestRecord(id=connection.id, browser_request_id="", method="GET", url=connection.url,
                             route_ids=[self.id], aliases=[self.alias] if self.alias else [], stubbed=not self.server,
                             log=True, state="Complete", status=101, error=None, duration_ms=None,
                             resource_type="websocket", request_headers={}, response_headers={},
                             request_body_size=None, response_body_size=None, timings={})


class WsHandle:
    """What ``runner.intercept_ws`` returns: ``.as_(alias)``; ``connections`` and ``messages``
    so far; ``call_count`` (connections taken)."""

    def __init__(self, route: WsRoute, lock: threading.RLock,
                 on_alias: Callable[[WsRoute], None] = lambda route: None) -> None:
        self._route = route
        self._lock = lock
        self._on_alias = on_alias

    def as_(self, alias: str) -> WsHandle:
        __tracebackhide__ = True
        validate_alias(alias, ".as_()")
        with self._lock:
            self._route.alias = alias
        self._on_alias(self._route)
        return self

    @property
    def alias(self) -> str | None:
        return self._route.alias

    @property
    def connections(self) -> list[WsConnection]:
        with self._lock:
            return list(self._route.connections)

    @property
    def messages(self) -> list[WsMessage]:
        with self._lock:
            return list(self._route.messages)

    @property
    def call_count(self) -> int:
        return len(self.connections)

    def __repr__(self) -> str:
        return f"<WsHandle {self._route.describe()}{f' as {self._route.alias!r}' if self._route.alias else ''}>"


class WsRoutes:
    """The WebSocket routes of the page and their connections (cleared with the HTTP routes)."""

    def __init__(self, lock: threading.RLock, cond: threading.Condition,
                 report: Callable[[BaseException], None], teller: Teller | None = None,
                 timeout_s: Callable[[], float] = lambda: 4.0) -> None:
        self._lock = lock
        self._cond = cond
        self._report = report
        self._timeout_s = timeout_s
        self._teller = teller or Teller(None)  # the registry's (route_added, route_aliased, request_ended)
        self.routes: list[WsRoute] = []

    def add(self, route: WsRoute) -> WsHandle:
        with self._cond:
            self.routes.append(route)
            record = route.record()
        self._teller.route_added(record)
        return WsHandle(route, self._lock, on_alias=self._aliased)

    def _aliased(self, route: WsRoute) -> None:
        with self._cond:
            record = route.record()
        self._teller.route_aliased(record)

    def routes_table(self) -> list[dict[str, Any]]:
        with self._cond:
            return [route.record().row() for route in self.routes]

    def requests_log(self) -> list[dict[str, Any]]:
        """The sockets the routes took, in the order they opened."""
        with self._cond:
            taken = [(c, r) for r in self.routes for c in r.connections]
            taken.sort(key=lambda pair: pair[0].opened)
            return [route.connection_record(connection).row() for connection, route in taken]

    def __bool__(self) -> bool:
        return bool(self.routes)

    def clear(self) -> None:
        with self._cond:
            self.routes = []

    def route_for(self, url: str) -> WsRoute | None:
        """The newest route matching ``url`` (any thread)."""
        with self._cond:
            routes = list(self.routes)
        return next((r for r in reversed(routes) if r.matches(url)), None)

    def aliases(self) -> list[str]:
        with self._cond:
            return [r.alias for r in self.routes if r.alias]

    def messages_of(self, alias: str) -> list[WsMessage]:
        """Every message of the routes named ``alias``, in the order they were delivered."""
        with self._cond:
            out = [m for r in self.routes if r.alias == alias for m in r.messages]
        out.sort(key=lambda m: m.order)
        return out

    async def open(self, route: WsRoute, url: str, transport: WsTransport) -> WsConnection:
        """A socket the route took (loop thread): its handler, if any, runs before messages flow."""
        def current() -> bool:  # not a route of an earlier test
            with self._cond:
                return route in self.routes

        def report(error: BaseException) -> None:
            if current():  # a socket of an earlier test must not fail this one
                self._report(error)

        connection = WsConnection(route, url, transport, self._cond, report, self._timeout_s)
        with self._cond:
            route.connections.append(connection)
            record = route.connection_record(connection)
            self._cond.notify_all()
        if current():
            self._teller.request_ended(record)
        if route.handler is not None:
            try:
                await _run(route.handler, connection, self._timeout_s())
            except Exception as err:  # noqa: BLE001 - the test fails; the socket goes on
                failure = InterceptError(
                    f"The handler of runner.intercept_ws({route.describe()}) "
                    f"{_what_went_wrong(err, self._timeout_s())}\n\nSocket: {url}")
                failure.__cause__ = err
                report(failure)
        return connection
