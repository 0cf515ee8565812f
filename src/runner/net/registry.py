"""The routes of one page and what they recorded: interception records, the page's raw requests,
the generation that :meth:`Registry.clear` starts, and the Routes/requests tables.

Threads: routes are added and cleared from the test thread; records are added and change state
on the engine's loop. One re-entrant lock guards this state (and the aliases' state, see
``aliases.py``); its condition wakes ``wait`` whenever an interception changes.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from .interception import Interception, RequestError, RequestSnapshot, ResponseSnapshot
from .matching import MatchView
from .messages import HttpRequest
from .probes import Probe
from .records import RequestRecord, Teller, request_record, route_record
from .route import Route
from .types import InterceptionState

__all__ = ["Registry"]

_S = InterceptionState
_ENDED = (_S.COMPLETE, _S.ERRORED)
# The longest the test's end waits for the observer to hear of requests that just ended.
_TELLING_WAIT_S = 2.0


class Registry:
    """Routes, records and the generation counter of one page (one test at a time).

    ``generation`` grows on every :meth:`clear`: a request remembers the generation it arrived
    in, and once that is no longer current it is no longer recorded, reported or run through
    the old routes.

    ``teller`` (:class:`~runner.net.records.Teller`) tells the observer, if any, of what
    happens, outside the lock: ``route_added`` for every route added (on the test thread) and
    ``request_ended`` (on the loop thread) once per recorded interception of the current
    generation that reaches ``Complete`` or ``Errored`` before :meth:`seal`, and at
    :meth:`seal` for each one still in flight.
    """

    def __init__(self, teller: Teller | None = None) -> None:
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.routes: list[Route] = []
        self.records: list[Interception] = []
        self.raw: dict[str, HttpRequest] = {}  # by interception id: this generation's records
        self.probes: list[Probe] = []
        self.generation = 0
        # The test's end (see :meth:`close` and :meth:`seal`): closed, requests are served but no
        # longer recorded; sealed, the observer has heard of every record and hears no more.
        self.closed = False
        self.sealed: list[RequestRecord] | None = None  # the requests table when sealed
        self._telling = 0  # requests that ended and whose observer call is under way
        self._ids = itertools.count(1)
        self._teller = teller or Teller(None)

    # -- routes (test thread) ------------------------------------------------------------------
    def add_route(self, route: Route) -> None:
        with self.lock:
            self.routes.append(route)
            record = route_record(route)
        self._teller.route_added(record)

    def route_aliased(self, route: Route) -> None:
        """``.as_()`` named ``route``: the observer hears ``route_aliased(record)``."""
        with self.lock:
            record = route_record(route)
        self._teller.route_aliased(record)

    def needs_routing(self) -> bool:
        """True when some route may change a request (a handler or a static response)."""
        with self.lock:
            return any(r.handler is not None or r.static is not None for r in self.routes if not r.server)

    def takes_preflights(self) -> bool:
        """True when some route's ``method`` mentions OPTIONS: CORS preflights must reach the
        routes even while no route changes a request (behaviour.md 1a.7)."""
        with self.lock:
            return any(r.matcher.method_mentions_options for r in self.routes if not r.server)

    def has_routes(self, *, server: bool) -> bool:
        """True when a route of ``runner.intercept_backend`` (``server``), else of
        ``runner.intercept`` (the page's), exists."""
        with self.lock:
            return any(r.server == server for r in self.routes)

    def clear(self) -> bool:
        """Start a new generation without routes or records; return whether routes existed.

        The caller holds :attr:`cond` when it clears other state with it, and notifies."""
        with self.cond:
            had = bool(self.routes)
            self.generation += 1
            self.routes = []
            self.records = []
            self.raw = {}
            self.probes = []
            self.closed = False
            self.sealed = None
            return had

    # -- the test's end (test thread) ------------------------------------------------------------
    def close(self) -> None:
        """The test's last command returned: requests that come from now on belong to no test
        (they are still served by the routes, but neither recorded nor counted)."""
        with self.cond:
            self.closed = True

    def settle(self, timeout_s: float) -> None:
        """Wait, at most ``timeout_s``, until every record of this generation has ended; not at
        all once sealed (the test's end waited already: its table is what it recorded)."""
        deadline = time.monotonic() + max(timeout_s, 0.0)
        with self.cond:
            if self.sealed is not None:
                return
            while any(ic.state not in _ENDED for ic in self.records):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self.cond.wait(remaining)

    def seal(self) -> None:
        """Tell the observer of every record still in flight (it says ``open``) and freeze the
        requests table as it is now: what ends later is neither told nor changes the table, so
        the test's records, its events and its table say the same."""
        with self.cond:
            if self.sealed is not None:
                return
            # a request that ended as the test ended is being told on the loop thread: its event
            # is of this test too (bounded: an observer only publishes)
            deadline = time.monotonic() + _TELLING_WAIT_S
            while self._telling and (remaining := deadline - time.monotonic()) > 0:
                self.cond.wait(remaining)
            by_id = {r.id: r for r in self.routes}
            self.sealed = [request_record(ic, self.raw.get(ic.id), by_id) for ic in self.records]
        for record in self.sealed:
            if record.open:
                self._teller.request_ended(record)

    # -- probes ----------------------------------------------------------------------------------
    def add_probe(self, probe: Probe) -> None:
        with self.lock:
            self.probes.append(probe)

    def remove_probe(self, probe: Probe) -> None:
        with self.lock:
            if probe in self.probes:
                self.probes.remove(probe)

    def saw(self, view: MatchView, routed: bool, gen: int, *, server: bool = False) -> None:
        """Offer a request of generation ``gen`` to every probe (loop thread); ``server``: the
        app's server made it."""
        with self.cond:
            if gen != self.generation:
                return
            took = False
            for probe in self.probes:
                took = probe.offer(view, routed, server=server) or took
            if took:
                self.cond.notify_all()

    # -- records (loop thread) -----------------------------------------------------------------
    def is_current(self, gen: int) -> bool:
        """Whether generation ``gen`` is still the current test's (no :meth:`clear` since)."""
        return gen == self.generation

    def routes_of(self, gen: int) -> list[Route]:
        """The routes as they are now, oldest first; none once generation ``gen`` ended."""
        with self.lock:
            return list(self.routes) if gen == self.generation else []

    def open_record(self, raw: HttpRequest, request: RequestSnapshot, arrival: float,
                    gen: int) -> tuple[Interception, bool]:
        """The record of ``raw`` (arrived at ``arrival``, ``time.monotonic()``) and whether it
        was recorded: not when its generation ended while it was being built or the test's end
        closed it (:meth:`close`); such a request is still served, counted in no test."""
        ic = Interception(id=f"interceptedRequest{next(self._ids)}", browser_request_id=raw.id, request=request)
        ic.started = arrival
        ic.server = raw.server
        ic.request_body_size = len(raw.body) if raw.body is not None else 0
        ic.request_body_bytes = raw.body
        with self.lock:
            if gen != self.generation or self.closed:
                return ic, False
            self.records.append(ic)
            self.raw[ic.id] = raw
            return ic, True

    def reach(self, route: Route, ic: Interception, recorded: bool) -> bool:
        """``ic`` reached ``route`` in its chain: counted and recorded there when ``recorded``.
        False when the route is used up (another request took its last ``times`` since this
        one arrived): the request goes on to the next route."""
        with self.cond:
            if route.disabled:
                return False
            if recorded:
                route.matches += 1
                route.interceptions.append(ic)
                ic.route_ids.append(route.id)
                if ic.route_id is None:
                    ic.route_id = route.id
                self.cond.notify_all()
            return True

    def set_request(self, ic: Interception, request: RequestSnapshot) -> None:
        """The request as it finally goes out (after the handlers' changes)."""
        with self.cond:
            ic.request = request

    def set_stubbed(self, ic: Interception) -> None:
        """The engine answers ``ic`` itself (a static response), not the server."""
        with self.cond:
            ic.stubbed = True

    def set_response(self, ic: Interception, response: ResponseSnapshot, *, late: bool | None = None,
                     body: bytes | None = None) -> None:
        """The response of ``ic`` as recorded; ``late``, when given: it came after
        ``responseTimeout``; ``body``, when given: the bytes the page received."""
        with self.cond:
            ic.response = response
            if late is not None:
                ic.late = late
            if body is not None:
                ic.response_body_size = len(body)
                ic.response_body_bytes = body

    def set_response_body(self, ic: Interception, body: bytes | None, size: int) -> None:
        """The body the page received (``size`` bytes; ``body`` None: not held by runner)."""
        with self.cond:
            ic.response_body_size = size
            if body is not None:
                ic.response_body_bytes = body

    def set_state(self, ic: Interception, state: InterceptionState) -> None:
        record = None
        with self.cond:
            ended_before = ic.state in _ENDED
            ic.state = state
            if state in _ENDED:
                ic.duration_ms = round((time.monotonic() - ic.started) * 1000, 1)
                if self._teller.listening and not ended_before and ic.id in self.raw and self.sealed is None:
                    record = request_record(ic, self.raw.get(ic.id), {r.id: r for r in self.routes})
                    self._telling += 1
        if record is not None:
            try:
                self._teller.request_ended(record)
            finally:
                with self.cond:
                    self._telling -= 1
                    self.cond.notify_all()

    def error(self, ic: Interception, message: str, cause: BaseException | None = None) -> None:
        with self.cond:
            ic.error = RequestError(message, cause=cause)
        self.set_state(ic, _S.ERRORED)

    # -- tables (any thread) -------------------------------------------------------------------
    def routes_table(self) -> list[dict[str, Any]]:
        """One row per route, oldest first (:meth:`RouteRecord.row
        <runner.net.records.RouteRecord.row>`: the Routes panel)."""
        with self.lock:
            return [route_record(r).row() for r in self.routes]

    def requests_log(self) -> list[dict[str, Any]]:
        """One row per intercepted request, in arrival order (:meth:`RequestRecord.row
        <runner.net.records.RequestRecord.row>`). Once sealed (:meth:`seal`), the table as it
        was then."""
        with self.lock:
            if self.sealed is not None:
                return [record.row() for record in self.sealed]
            by_id = {r.id: r for r in self.routes}
            return [request_record(ic, self.raw.get(ic.id), by_id).row() for ic in self.records]
