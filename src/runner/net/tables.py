"""The rows of the Routes and requests tables, and the observer that hears of them.

One dict a route (:func:`route_row`) and one a recorded request (:func:`request_row`): what the
interactive mode's panels and the reports show, and what an :class:`Observer` is told as routes
are added and requests end (the run's events are made from these rows).
"""

from __future__ import annotations

from typing import NotRequired, Protocol, TypedDict

from .interception import Interception
from .route import Route
from .types import InterceptionState, RawRequest

__all__ = ["Observer", "RouteRow", "RequestRow", "route_row", "request_row"]

_ENDED = (InterceptionState.COMPLETE, InterceptionState.ERRORED)


class RouteRow(TypedDict):
    """One row of the Routes table (see :func:`route_row`)."""

    id: str
    method: str
    matcher: str
    stubbed: bool
    handler: str
    alias: str | None
    matches: int
    times: int | None
    middleware: bool
    log: bool


class RequestRow(TypedDict):
    """One row of the requests table (see :func:`request_row`). A WebSocket's row has neither
    ``open`` nor ``late``; the bodies are in the rows the observer hears of only."""

    id: str
    browser_request_id: str
    method: str
    url: str
    route_ids: list[str]
    aliases: list[str]
    stubbed: bool
    log: bool
    state: str
    status: int | None
    error: str | None
    duration_ms: float | None
    resource_type: str
    request_headers: dict[str, str]
    response_headers: dict[str, str]
    request_body_size: int | None
    response_body_size: int | None
    timings: dict[str, float | None]
    open: NotRequired[bool]
    late: NotRequired[bool]
    request_body: NotRequired[bytes | None]
    response_body: NotRequired[bytes | None]


class Observer(Protocol):
    """Told of routes and requests for a run-event stream, outside the engine's lock; what it
    raises is swallowed. It may also have ``route_aliased(row)``, told when ``.as_()`` names a
    route (an observer without it is not told)."""

    def route_added(self, row: RouteRow) -> None:
        """A route was added (a :func:`route_row`; on the test thread)."""
        ...

    def request_ended(self, row: RequestRow) -> None:
        """A recorded request ended, or was still in flight at the test's end (a
        :func:`request_row` with its bodies)."""
        ...


def route_row(r: Route) -> RouteRow:
    """One row of the Routes table: id, method, matcher, stubbed, handler kind, alias, matches,
    times, middleware, log."""
    return {
        "id": r.id,
        "method": r.matcher.method_text,
        "matcher": r.describe(),
        "stubbed": r.static is not None,
        "handler": r.kind,
        "alias": r.alias,
        "matches": r.matches,
        "times": r.times,
        "middleware": r.middleware,
        "log": r.log,
    }


def request_row(ic: Interception, raw: RawRequest | None, by_id: dict[str, Route], *,
                bodies: bool = False) -> RequestRow:
    """One row of the requests table for ``ic`` (``raw``: the request as the page sent it, when
    known; ``by_id``: the routes by id): id, browser_request_id, method, url, route_ids,
    aliases, stubbed (True) or went to the server (False), log (False when a route it reached
    has ``log: False``), state, status, error, duration_ms, resource_type, request_headers (as
    the page sent them), response_headers (of the recorded response; {} without one),
    request_body_size, response_body_size, timings (see :attr:`Interception.timings`),
    ``open`` (True: it had not ended, when the row was made) and ``late`` (see
    :attr:`Interception.late`). With ``bodies``, also the bodies runner held, as bytes
    (``request_body``, ``response_body``): for the observer only."""
    aliases = [alias for rid in ic.route_ids if rid in by_id and (alias := by_id[rid].alias)]
    aliases += [a for a in ic.dynamic_aliases if a not in aliases]
    row: RequestRow = {
        "id": ic.id,
        "browser_request_id": ic.browser_request_id,
        "method": raw.method if raw else ic.request.method,
        "url": raw.url if raw else ic.request.url,
        "route_ids": list(ic.route_ids),
        "aliases": aliases,
        "stubbed": ic.stubbed,
        # in the command log unless a route it reached says `log: False`
        "log": all(by_id[rid].log for rid in ic.route_ids if rid in by_id),
        "state": ic.state.value,
        "status": ic.response.status_code if ic.response is not None else None,
        "error": ic.error.message if ic.error is not None else None,
        "duration_ms": ic.duration_ms,
        "resource_type": raw.resource_type if raw else ic.request.resource_type,
        "request_headers": dict(raw.headers if raw else ic.request.headers),
        "response_headers": dict(ic.response.headers) if ic.response is not None else {},
        "request_body_size": ic.request_body_size,
        "response_body_size": ic.response_body_size,
        "timings": ic.timings,
        "open": ic.state not in _ENDED,
        "late": ic.late,
    }
    if bodies:
        row["request_body"] = ic.request_body_bytes
        # none held while it is in flight
        row["response_body"] = ic.response_body_bytes if ic.state in _ENDED else None
    return row
