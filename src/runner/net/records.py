"""The records of routes and requests that leave net/: frozen, built here, told to the observer.

One :class:`RouteRecord` a route (:func:`route_record`) and one :class:`RequestRecord` a
recorded request (:func:`request_record`), WebSockets' included. An :class:`Observer` hears of
them as routes are added and requests end (the run's events are made from them, field by
field); the Routes and requests tables (the interactive mode's panels, the reports) are their
:meth:`~RouteRecord.row` dicts, plain and JSON-ready.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .interception import Interception
from .messages import HttpRequest
from .route import Route
from .types import InterceptionState

__all__ = ["Observer", "Teller", "RouteRecord", "RequestRecord", "route_record", "request_record"]

_ENDED = (InterceptionState.COMPLETE, InterceptionState.ERRORED)


@dataclass(frozen=True)
class RouteRecord:
    """A route as the Routes table shows it: id, method, matcher (described), stubbed, handler
    kind, alias, matches, times, middleware, log."""

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
    server: bool = False  # runner.intercept_backend's: it takes the app's server's requests

    def row(self) -> dict[str, Any]:
        """The row of the Routes table (a new dict each time)."""
        return {"id": self.id, "method": self.method, "matcher": self.matcher, "stubbed": self.stubbed,
                "handler": self.handler, "alias": self.alias, "matches": self.matches, "times": self.times,
                "middleware": self.middleware, "log": self.log, "server": self.server}


@dataclass(frozen=True)
class RequestRecord:
    """A recorded request (see :func:`request_record`). ``open`` and ``late`` are None for a
    WebSocket's handshake (its row has neither); the bodies, as bytes, are the observer's only
    (the tables' rows leave them out)."""

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
    open: bool | None = None
    late: bool | None = None
    server: bool = False  # the app's server made it (through runner's proxy), not the page
    request_body: bytes | None = field(default=None, repr=False)
    response_body: bytes | None = field(default=None, repr=False)

    def row(self) -> dict[str, Any]:
        """The row of the requests table, without the bodies (a new dict each time, its
        headers, lists and timings copies)."""
        row: dict[str, Any] = {
            "id": self.id, "browser_request_id": self.browser_request_id, "method": self.method, "url": self.url,
            "route_ids": list(self.route_ids), "aliases": list(self.aliases), "stubbed": self.stubbed,
            "log": self.log, "state": self.state, "status": self.status, "error": self.error,
            "duration_ms": self.duration_ms, "resource_type": self.resource_type,
            "request_headers": dict(self.request_headers), "response_headers": dict(self.response_headers),
            "request_body_size": self.request_body_size, "response_body_size": self.response_body_size,
            "timings": dict(self.timings), "server": self.server,
        }
        if self.open is not None:
            row["open"] = self.open
        if self.late is not None:
            row["late"] = self.late
        return row


class Observer(Protocol):
    """Told of routes and requests for a run-event stream, outside the engine's lock; what it
    raises is swallowed."""

    def route_added(self, record: RouteRecord) -> None:
        """A route was added (on the test thread)."""
        ...

    def route_aliased(self, record: RouteRecord) -> None:
        """``.as_()`` named a route (its record has the alias)."""
        ...

    def request_ended(self, record: RequestRecord) -> None:
        """A recorded request ended, or was still in flight at the test's end (its record says
        ``open``)."""
        ...


_Record = TypeVar("_Record", RouteRecord, RequestRecord)


class Teller:
    """The observer as the HTTP routes and the WebSocket routes tell it: never under the
    engine's lock (the caller's business), whatever it raises swallowed, since watching must
    never break request handling; no observer, nothing told."""

    def __init__(self, observer: Observer | None) -> None:
        self._observer = observer

    @property
    def listening(self) -> bool:
        """Whether anyone hears: records for the observer are built only then."""
        return self._observer is not None

    def route_added(self, record: RouteRecord) -> None:
        if self._observer is not None:
            self._tell(self._observer.route_added, record)

    def route_aliased(self, record: RouteRecord) -> None:
        if self._observer is not None:
            self._tell(self._observer.route_aliased, record)

    def request_ended(self, record: RequestRecord) -> None:
        if self._observer is not None:
            self._tell(self._observer.request_ended, record)

    @staticmethod
    def _tell(tell: Callable[[_Record], None], record: _Record) -> None:
        try:
            tell(record)
        except Exception:  # noqa: BLE001 - an observer's bug must not break the engine
            pass


def route_record(r: Route) -> RouteRecord:
    """The record of route ``r`` as it is now."""
    return RouteRecord(id=r.id, method=r.matcher.method_text, matcher=r.describe(), stubbed=r.static is not None,
                       handler=r.kind, alias=r.alias, matches=r.matches, times=r.times, middleware=r.middleware,
                       log=r.log, server=r.server)


def request_record(ic: Interception, raw: HttpRequest | None, by_id: dict[str, Route]) -> RequestRecord:
    """The record of ``ic`` as it is now (``raw``: the request as the page sent it, when known;
    ``by_id``: the routes by id): id, browser_request_id, method, url, route_ids, aliases,
    stubbed (True) or went to the server (False), log (False when a route it reached has
    ``log: False``), state, status, error, duration_ms, resource_type, request_headers (as the
    page sent them), response_headers (of the recorded response; {} without one),
    request_body_size, response_body_size, timings (see :attr:`Interception.timings`), ``open``
    (True: it had not ended yet) and ``late`` (see :attr:`Interception.late`), and the bodies
    runner held (``response_body`` None while it is in flight)."""
    aliases = [alias for rid in ic.route_ids if rid in by_id and (alias := by_id[rid].alias)]
    aliases += [a for a in ic.dynamic_aliases if a not in aliases]
    ended = ic.state in _ENDED
    return RequestRecord(
        id=ic.id,
        browser_request_id=ic.browser_request_id,
        method=raw.method if raw else ic.request.method,
        url=raw.url if raw else ic.request.url,
        route_ids=list(ic.route_ids),
        aliases=aliases,
        stubbed=ic.stubbed,
        # in the command log unless a route it reached says `log: False`
        log=all(by_id[rid].log for rid in ic.route_ids if rid in by_id),
        state=ic.state.value,
        status=ic.response.status_code if ic.response is not None else None,
        error=ic.error.message if ic.error is not None else None,
        duration_ms=ic.duration_ms,
        resource_type=raw.resource_type if raw else ic.request.resource_type,
        request_headers=dict(raw.headers if raw else ic.request.headers),
        response_headers=dict(ic.response.headers) if ic.response is not None else {},
        request_body_size=ic.request_body_size,
        response_body_size=ic.response_body_size,
        timings=ic.timings,
        open=not ended,
        late=ic.late,
        server=raw.server if raw else False,
        request_body=ic.request_body_bytes,
        response_body=ic.response_body_bytes if ended else None,  # none held while it is in flight
    )
