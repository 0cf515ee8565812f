"""The Interceptor: the interception engine of one page, as one object.

It composes three parts, one job each: the :class:`~runner.net.registry.Registry` (routes,
records and the tables), the :class:`~runner.net.chain.Chain` (serving a routed request through
its handlers) and :class:`~runner.net.aliases.Aliases` (``wait`` and ``get``).

Threads: ``intercept``, ``wait``, ``get``, ``clear`` and the tables are called from the test
thread; ``handle`` runs on the engine's event loop, one task per request. Shared state is guarded
by the registry's re-entrant lock, whose condition wakes ``wait`` whenever an interception
changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from runner.errors import CommandError, UsageError

from ._util import show
from .aliases import Aliases
from .chain import Chain
from .interception import Interception
from .messages import HttpRequest
from .probes import StrictNetwork, matching
from .records import Observer, Teller
from .registry import Registry
from .route import RouteHandle, build_route, compile_matcher, parse_intercept_args
from .static_response import mistaken_keys, mistaken_static_warning
from .types import Exchange
from .websockets import WsConnection, WsHandle, WsRoute, WsRoutes, WsTransport

__all__ = ["Interceptor"]


class Interceptor:
    """The interception engine of one browser page (cleared before each test).

    ``config(name)`` gives the current test's ``defaultCommandTimeout``, ``requestTimeout`` and
    ``responseTimeout``; ``load_fixture(spec)`` the bytes of a fixture (``"a.json"`` or
    ``"img.png,null"``); ``report_error(err)`` fails the current test (any thread);
    ``on_change()`` tells the adapter that routes were added or cleared.

    ``observer``, when given, is told of routes and requests for a run-event stream:
    ``observer.route_added(record)`` (a :class:`~runner.net.records.RouteRecord`, a
    :meth:`routes_table` row's record) on the test thread when :meth:`intercept` adds a route,
    ``observer.route_aliased(record)`` when ``.as_()`` names it, and
    ``observer.request_ended(record)`` (a :class:`~runner.net.records.RequestRecord`, a
    :meth:`requests_log` row's record with the bodies runner held) on the loop thread once per
    interception of the current test that reaches ``Complete`` or ``Errored``, or on the test
    thread at :meth:`finish` for one still in flight (its record says ``open``). They are called
    outside the engine's lock; what they raise is swallowed.
    """

    def __init__(self, *, loop: asyncio.AbstractEventLoop, config: Callable[[str], Any],
                 load_fixture: Callable[[str], bytes], report_error: Callable[[BaseException], None],
                 on_change: Callable[[], None] | None = None, observer: Observer | None = None) -> None:
        self._on_change = on_change
        self._warned: set[str] = set()  # the misspelled StaticResponse keys told of (stub_warning)
        teller = Teller(observer)
        self._registry = Registry(teller)
        self._ws = WsRoutes(self._registry.lock, self._registry.cond, report_error, teller,
                            timeout_s=lambda: max(float(config("defaultCommandTimeout")), 0.0) / 1000)
        self._aliases = Aliases(self._registry, config, self._ws)
        self._chain = Chain(loop=loop, config=config, load_fixture=load_fixture, report_error=report_error,
                            registry=self._registry, aliases=self._aliases.names)

    # -- definition (test thread) ------------------------------------------------------------
    def intercept(self, *args: Any) -> RouteHandle:
        """Register a route from any form of ``runner.intercept()``; return its handle.

        Raises UsageError (with the original runner's messages) for invalid arguments.
        """
        __tracebackhide__ = True
        route = build_route(args)
        self._registry.add_route(route)
        if self._on_change is not None:
            self._on_change()
        return RouteHandle(route, self._registry.lock, on_alias=self._registry.route_aliased)

    def intercept_backend(self, *args: Any) -> RouteHandle:
        """Register a route for the requests the app's server makes (they reach :meth:`handle`
        with ``raw.server``), from any form of ``runner.intercept()``; return its handle. The
        page's routing is not touched: these routes never see the page's requests."""
        __tracebackhide__ = True
        route = build_route(args, server=True)
        self._registry.add_route(route)
        return RouteHandle(route, self._registry.lock, on_alias=self._registry.route_aliased)

    def stub_warning(self, args: tuple[Any, ...]) -> str | None:
        """What to tell of ``runner.intercept(*args)`` (a route already added) whose dict is sent
        as the JSON body but reads as a mistaken StaticResponse (``{"status": 500}``): the
        warning the first time in this run a key is misspelled so, else None."""
        _matcher, handler = parse_intercept_args(args)
        keys = mistaken_keys(handler)
        if not keys or set(keys) <= self._warned:
            return None
        self._warned.update(keys)
        return mistaken_static_warning(handler, keys)

    def has_routes(self) -> bool:
        """True when a route of the page (``runner.intercept``'s) exists."""
        return self._registry.has_routes(server=False)

    # -- WebSockets ----------------------------------------------------------------------------
    def intercept_ws(self, url: Any, handler: Any = None, *, server: bool = True) -> WsHandle:
        """Take the page's WebSockets whose URL matches ``url`` (a glob or regex): record every
        message both ways, run ``handler(connection)`` for each socket (it may register message
        callbacks that rewrite or drop, and send), connect to the server unless ``server`` is
        False. Raises UsageError for bad arguments."""
        __tracebackhide__ = True
        handle = self._ws.add(WsRoute(url, handler, server))
        if self._on_change is not None:
            self._on_change()
        return handle

    def has_ws_routes(self) -> bool:
        return bool(self._ws)

    def ws_route_for(self, url: str) -> WsRoute | None:
        return self._ws.route_for(url)

    async def ws_open(self, route: WsRoute, url: str, transport: WsTransport) -> WsConnection:
        return await self._ws.open(route, url, transport)

    def needs_routing(self) -> bool:
        """True when some route may change a request (a handler or a static response).

        While every route is a spy, the adapter need not intercept at all: it can hand the
        requests it observes to :meth:`handle` with an exchange that only watches, because a
        chain of spies only ever calls ``pass_through(None)`` (the cost rule).
        """
        return self._registry.needs_routing()

    def wants_requests(self) -> bool:
        """True when the page's requests must reach :meth:`handle`: a route or a probe exists."""
        with self._registry.lock:
            return self._registry.has_routes(server=False) or bool(self._registry.probes)

    def wants_server_requests(self) -> bool:
        """True when the app's server's requests (runner's proxy) must reach :meth:`handle`:
        a route of :meth:`intercept_backend` or a probe exists. Otherwise they go by untouched."""
        with self._registry.lock:
            return self._registry.has_routes(server=True) or bool(self._registry.probes)

    def takes_preflights(self) -> bool:
        """True when some route's ``method`` mentions OPTIONS: the adapter must hand the page's
        CORS preflights to :meth:`handle` even while every route is a spy."""
        return self._registry.takes_preflights()

    def clear(self) -> None:
        """Drop routes, aliases and records for a new test. Requests still in flight finish
        quietly: no more old handlers run, nothing fails the new test or is recorded in it."""
        cond = self._registry.cond
        with cond:
            had = self._registry.clear() or bool(self._ws)
            self._ws.clear()
            self._aliases.clear()
            cond.notify_all()
        if had and self._on_change is not None:
            self._on_change()

    def finish(self, timeout_s: float) -> None:
        """The test's last command returned (test thread): the requests its routes took are
        given up to ``timeout_s`` to end, then the observer hears of each one still in flight
        (``open``) and the requests table is frozen. Requests that come from now on belong to
        no test: the routes still serve them, nothing records or counts them. :meth:`clear`
        starts the next test. A second call does nothing."""
        self._registry.close()
        self._registry.settle(timeout_s)
        self._registry.seal()

    # -- handling (loop thread) --------------------------------------------------------------
    def handle(self, raw: HttpRequest, exchange: Exchange) -> Coroutine[Any, Any, None]:
        """Serve one routed request (await the coroutine returned, on the engine's loop). Never
        raises; always answers the page's request."""
        # The chain's own coroutine, not a wrapper: no extra await on every request.
        return self._chain.handle(raw, exchange)

    # -- aliases (test thread) ---------------------------------------------------------------
    def wait(self, aliases: str | list[str], *, timeout: float | None = None,
             request_timeout: float | None = None, response_timeout: float | None = None,
             **options: Any) -> Interception | list[Interception]:
        """Wait for the next request (``@a.request``) or response (``@a``, ``@a.response``) of
        each alias not yielded by an earlier wait; return one interception, or a list in the
        order given. Timeouts in ms: ``request_timeout`` (else ``timeout``, else
        ``requestTimeout``) then ``response_timeout`` (else ``timeout``, else ``responseTimeout``).
        The camelCase option names are accepted too (``requestTimeout=...``).

        Raises UsageError for misuse and CommandError on timeout.
        """
        __tracebackhide__ = True
        return self._aliases.wait(aliases, timeout=timeout, request_timeout=request_timeout,
                                  response_timeout=response_timeout, **options)

    def assert_no_request(self, *target: Any, within: float = 0) -> None:
        """Fail unless no request matches ``target`` for ``within`` ms (failing as soon as one
        does). ``target``: an alias (``"@name"``, or a list of them; the requests it recorded
        before the call count too), or a request matcher in the forms of ``intercept`` without
        a handler (only the requests made during the window are seen; ``within`` > 0 needed).

        Raises UsageError for misuse, CommandError listing the requests that matched.
        """
        __tracebackhide__ = True
        label = f"runner.assert_no_request({', '.join(repr(t) for t in target)})"
        if isinstance(within, bool) or not isinstance(within, (int, float)) or not 0 <= within < float("inf"):
            raise UsageError(f"{label}: `within` is a window in milliseconds, a number >= 0; found {show(within)}.")
        first = target[0] if len(target) == 1 else None
        aliases = [first] if isinstance(first, str) and first.startswith("@") else first \
            if isinstance(first, list) and first and all(isinstance(a, str) for a in first) else None
        if aliases is not None:
            if not all(a.startswith("@") and len(a) > 1 for a in aliases):
                raise UsageError(f"{label}: aliases are written with a leading `@`, e.g. `'@users'`.")
            self._aliases.assert_none([a[1:] for a in aliases], float(within), label)
            return
        matcher = compile_matcher(target, "runner.assert_no_request()")
        if not within:
            raise UsageError(
                f"{label}: a request matcher needs a window to watch, e.g. `within=1000` (ms): "
                "requests that no route recorded are only seen while runner watches. An alias "
                "(`'@name'`) also counts what its route recorded before the call."
            )
        probe = matching(matcher)
        self._registry.add_probe(probe)
        if self._on_change is not None:
            self._on_change()
        try:
            cond = self._registry.cond
            deadline = time.monotonic() + within / 1000
            with cond:
                while not probe.seen:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return
                    cond.wait(remaining)
                seen = list(probe.seen)
            lines = "\n".join(r.line() for r in seen)
            raise CommandError(
                f"{label} failed: {len(seen)} matching request{'s' if len(seen) != 1 else ''} within "
                f"{within:g}ms:\n{lines}"
            )
        finally:
            self._registry.remove_probe(probe)
            if self._on_change is not None:
                self._on_change()

    def strict_network(self, setting: Any) -> StrictNetwork:
        """Start ``strictNetwork`` for the current test (``setting``: the option's value, not
        false): every request no route matches and nothing allows is kept until :meth:`clear`."""
        strict = StrictNetwork(setting)
        self._registry.add_probe(strict.probe)
        if self._on_change is not None:
            self._on_change()
        return strict

    def get(self, alias: str) -> Interception | list[Interception] | None:
        """Read what an alias recorded, without waiting: ``"@a"`` (the most recent or None),
        ``"@a.all"`` (a list), ``"@a.N"`` (1-based, or None). Raises UsageError for an unknown
        alias or ``"@a.0"``."""
        __tracebackhide__ = True
        return self._aliases.get(alias)

    # -- tables ------------------------------------------------------------------------------
    def routes_table(self) -> list[dict[str, Any]]:
        """One row per route, oldest first: id, method, matcher, stubbed, handler kind, alias,
        matches, times, middleware, log (the Routes panel)."""
        return self._registry.routes_table() + self._ws.routes_table()

    def requests_log(self) -> list[dict[str, Any]]:
        """One row per intercepted request, in arrival order: id, browser_request_id, method,
        url, route_ids, aliases, stubbed (True) or went to the server (False), state, status,
        error, duration_ms, resource_type, request_headers, response_headers,
        request_body_size, response_body_size, timings (see :meth:`Registry.requests_log
        <runner.net.registry.Registry.requests_log>`)."""
        return self._registry.requests_log() + self._ws.requests_log()
