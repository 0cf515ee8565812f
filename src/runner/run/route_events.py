"""Route events: what the interception engine did, told on the run's bus as the running test's.

The interceptor of ``runner/net`` calls its observer with its frozen records (a route added or
aliased, a request ended); :class:`RouteEvents` makes them ``route.added``, ``route.aliased`` and
``request.intercepted`` events of the test running then, and logs a request the test asked to see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from runner.commands.context import TestContext
from runner.events import Event, RequestIntercepted, RouteAdded, RouteAliased
from runner.net.bodies import body_record
from runner.net.headers import header_get

if TYPE_CHECKING:
    from runner.net.records import RequestRecord, RouteRecord

__all__ = ["RouteEvents"]


class RouteEvents:
    """Tells the run's bus what the interception engine did, as events of the running test."""

    def __init__(self, publish: Callable[[Event], None], current: Callable[[], TestContext | None]) -> None:
        self._publish = publish
        self._current = current

    def _test(self) -> tuple[str, int] | None:
        """The running test, or None: what happens between tests belongs to no test (an
        event without one would make the report count a test that never ran)."""
        ctx = self._current()
        return (ctx.nodeid, ctx.attempt) if ctx is not None else None

    def route_added(self, route: RouteRecord) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        self._publish(RouteAdded(
            nodeid=nodeid, attempt=attempt, route_id=route.id, method=route.method, matcher=route.matcher,
            stubbed=route.stubbed, handler=route.handler, alias=route.alias, times=route.times,
            middleware=route.middleware, server=route.server))

    def route_aliased(self, route: RouteRecord) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        alias = route.alias
        assert alias is not None  # told only once `.as_()` named the route
        self._publish(RouteAliased(nodeid=nodeid, attempt=attempt, route_id=route.id, alias=alias))

    def request_ended(self, request: RequestRecord) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        event = RequestIntercepted(
            nodeid=nodeid, attempt=attempt, id=request.id, method=request.method, url=request.url,
            route_ids=list(request.route_ids), aliases=list(request.aliases), stubbed=request.stubbed,
            state=request.state, status=request.status, error=request.error, resource_type=request.resource_type,
            request_headers=dict(request.request_headers), response_headers=dict(request.response_headers),
            request_body_size=request.request_body_size, response_body_size=request.response_body_size,
            timings=dict(request.timings),
            request_body=body_record(request.request_body, header_get(request.request_headers, "content-type")),
            response_body=body_record(request.response_body, header_get(request.response_headers, "content-type")),
            # a WebSocket's handshake is neither open nor late (None)
            log=request.log, open=bool(request.open), late=bool(request.late), server=request.server)
        self._publish(event)
        ctx = self._current()
        if ctx is not None and event.log:
            ctx.add_log("request", event.log_line())
