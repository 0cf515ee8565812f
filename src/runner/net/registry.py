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

from .interception import Interception, RequestError
from .route import Route
from .types import InterceptionState, RawRequest

__all__ = ["Registry"]

_S = InterceptionState


class Registry:
    """Routes, records and the generation counter of one page (one test at a time).

    ``generation`` grows on every :meth:`clear`: a request remembers the generation it arrived
    in, and once that is no longer current it is no longer recorded, reported or run through
    the old routes.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.routes: list[Route] = []
        self.records: list[Interception] = []
        self.raw: dict[str, RawRequest] = {}
        self.generation = 0
        self._ids = itertools.count(1)

    # -- routes (test thread) ------------------------------------------------------------------
    def add_route(self, route: Route) -> None:
        with self.lock:
            self.routes.append(route)

    def has_routes(self) -> bool:
        return bool(self.routes)

    def needs_routing(self) -> bool:
        """True when some route may change a request (a handler or a static response)."""
        with self.lock:
            return any(r.handler is not None or r.static is not None for r in self.routes)

    def clear(self) -> bool:
        """Start a new generation without routes or records; return whether routes existed.

        The caller holds :attr:`cond` when it clears other state with it, and notifies."""
        with self.cond:
            had = bool(self.routes)
            self.generation += 1
            self.routes = []
            self.records = []
            self.raw = {}
            return had

    # -- records (loop thread) -----------------------------------------------------------------
    def next_id(self) -> str:
        return f"interceptedRequest{next(self._ids)}"

    def add_record(self, ic: Interception, raw: RawRequest, gen: int) -> None:
        """Record ``ic`` unless its generation ended while it was being built."""
        with self.lock:
            if gen == self.generation:
                self.records.append(ic)
                self.raw[ic.id] = raw

    def set_state(self, ic: Interception, state: InterceptionState) -> None:
        with self.cond:
            ic.state = state
            if state in (_S.COMPLETE, _S.ERRORED):
                ic.duration_ms = round((time.monotonic() - ic.started) * 1000, 1)
            self.cond.notify_all()

    def error(self, ic: Interception, message: str, cause: BaseException | None = None) -> None:
        with self.cond:
            ic.error = RequestError(message, cause=cause)
        self.set_state(ic, _S.ERRORED)

    # -- tables (any thread) -------------------------------------------------------------------
    def routes_table(self) -> list[dict[str, Any]]:
        """One row per route, oldest first: id, method, matcher, stubbed, handler kind, alias,
        matches, times, middleware, log (the Routes panel)."""
        with self.lock:
            return [
                {
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
                for r in self.routes
            ]

    def requests_log(self) -> list[dict[str, Any]]:
        """One row per intercepted request, in arrival order: id, method, url, route ids,
        aliases, stubbed (True) or went to the server (False), state, status, error, duration_ms."""
        with self.lock:
            rows = []
            by_id = {r.id: r for r in self.routes}
            for ic in self.records:
                raw = self.raw.get(ic.id)
                aliases = [by_id[rid].alias for rid in ic.route_ids if rid in by_id and by_id[rid].alias]
                aliases += [a for a in ic.dynamic_aliases if a not in aliases]
                rows.append({
                    "id": ic.id,
                    "browser_request_id": ic.browser_request_id,
                    "method": raw.method if raw else ic.request.method,
                    "url": raw.url if raw else ic.request.url,
                    "route_ids": list(ic.route_ids),
                    "aliases": aliases,
                    "stubbed": ic.stubbed,
                    "state": ic.state.value,
                    "status": ic.response.status_code if ic.response is not None else None,
                    "error": ic.error.message if ic.error is not None else None,
                    "duration_ms": ic.duration_ms,
                })
            return rows
