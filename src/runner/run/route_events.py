"""Route events: what the interception engine did, told on the run's bus as the running test's.

The interceptor of ``runner/net`` calls its observer with plain rows (a route added or aliased, a
request ended); :class:`RouteEvents` makes them ``route.added``, ``route.aliased`` and
``request.intercepted`` events of the test running then, and logs a request the test asked to see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from runner.commands.context import TestContext
from runner.events import Event, RequestIntercepted, RouteAdded, RouteAliased
from runner.net.bodies import body_record

if TYPE_CHECKING:
    from runner.net.tables import RequestRow, RouteRow

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

    def route_added(self, row: RouteRow) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        self._publish(RouteAdded(
            nodeid=nodeid, attempt=attempt, route_id=row["id"], method=row["method"], matcher=row["matcher"],
            stubbed=row["stubbed"], handler=row["handler"], alias=row["alias"], times=row["times"],
            middleware=row["middleware"]))

    def route_aliased(self, row: RouteRow) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        alias = row["alias"]
        assert alias is not None  # told only once `.as_()` named the route
        self._publish(RouteAliased(nodeid=nodeid, attempt=attempt, route_id=row["id"], alias=alias))

    def request_ended(self, row: RequestRow) -> None:
        from runner.net import header_get  # loaded already: the interceptor tells this

        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        event = RequestIntercepted(
            nodeid=nodeid, attempt=attempt, id=row["id"], method=row["method"], url=row["url"],
            route_ids=list(row["route_ids"]), aliases=list(row["aliases"]), stubbed=row["stubbed"],
            state=row["state"], status=row["status"], error=row["error"], resource_type=row["resource_type"],
            request_headers=dict(row["request_headers"]), response_headers=dict(row["response_headers"]),
            request_body_size=row["request_body_size"], response_body_size=row["response_body_size"],
            timings=dict(row["timings"] or {}),
            request_body=body_record(row.get("request_body"), header_get(row["request_headers"], "content-type")),
            response_body=body_record(row.get("response_body"),
                                      header_get(row["response_headers"], "content-type")),
            log=bool(row["log"]), open=bool(row.get("open")), late=bool(row.get("late")))
        self._publish(event)
        ctx = self._current()
        if ctx is not None and event.log:
            ctx.add_log("request", event.log_line())
