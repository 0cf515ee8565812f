"""runner's own Python work for each spied request, without a browser: the CPU microseconds of it.

bench/intercept.py measures a route on a real page, where Playwright's driver messages, objects
and events take most of runner's process time, and a busy machine moves the figures by more than
runner's own part. This bench runs only that part, as the engine does it for a request that a
spy (an aliased route, defined before the request) sees: the match, the record (opened, reached,
its states), the response recorded, and at its end the run's ``request.intercepted`` event built,
redacted by the run's secrets (two env values here) on the bus, and its command-log line. It
prints the best of ``--repeats`` passes of ``--requests`` requests, and the cost of redacting one
such event alone.

Usage: ``.venv/bin/python bench/intercept_engine.py [--requests 3000] [--repeats 5]``
(with ``PYTHONPATH=<another tree>/src`` it measures that tree's code, for a before/after).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from runner.events import EventBus, RequestIntercepted
from runner.net.chain import _routes_for
from runner.net.interception import ResponseSnapshot
from runner.net.matching import MatchView
from runner.net.messages import HttpRequest
from runner.net.records import Teller
from runner.net.registry import Registry
from runner.net.req import RequestData
from runner.net.route import build_route
from runner.net.types import InterceptionState
from runner.redaction import Redactor, redact_event
from runner.run.route_events import RouteEvents

HEADERS = {"accept": "*/*", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156",
           "referer": "http://127.0.0.1:5555/app", "sec-ch-ua": '"Chromium";v="156"', "sec-ch-ua-mobile": "?0",
           "sec-ch-ua-platform": '"Linux"'}
RESPONSE_HEADERS = {"server": "BaseHTTP/0.6 Python/3.11", "date": "Fri, 27 Nov 2026 06:00:00 GMT",
                    "content-type": "application/json", "content-length": "33"}


class _Test:
    """The running test as RouteEvents sees it: its id, attempt and command log."""

    nodeid = "tests/test_app.py::test_items"
    attempt = 1

    def __init__(self, redactor: Redactor) -> None:
        self.log: list[tuple[str, str]] = []
        self._redactor = redactor

    def add_log(self, name: str, message: str) -> None:
        self.log.append((name, self._redactor.text(message)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    redactor = Redactor(values=["hunter2-secret", "token-value-99"], env_names=["password", "token"])
    bus = EventBus()
    bus.transform = lambda event: redact_event(redactor, event)
    told: list[Any] = []
    bus.subscribe(told.append)
    test = _Test(redactor)
    registry = Registry(Teller(RouteEvents(bus.publish, lambda: test)))  # type: ignore[arg-type,return-value]
    route = build_route(("/small*",))
    route.alias = "small"

    def one(i: int) -> None:
        raw = HttpRequest(method="GET", url=f"http://127.0.0.1:5555/small?i={i}", headers=HEADERS, body=None,
                          id=f"request-{i}", resource_type="fetch")
        gen = registry.generation
        chain = _routes_for(MatchView.of(raw), [r for r in registry.routes_of(gen) if r.server == raw.server])
        data = RequestData(raw, 30000.0)
        ic, recorded = registry.open_record(raw, data.snapshot(), time.monotonic(), gen)
        for reached in chain:
            registry.reach(reached, ic, recorded)
        ic.queued_until(time.monotonic())
        registry.set_state(ic, InterceptionState.INTERCEPTED)
        data.outgoing()
        ic.upstream_took(0.001)
        registry.set_response(ic, ResponseSnapshot(status_code=200, status_message="OK", headers=dict(RESPONSE_HEADERS),
                                                   url=raw.url, body="", loader=lambda: b""), late=False)
        registry.set_state(ic, InterceptionState.RESPONSE_RECEIVED)
        registry.set_state(ic, InterceptionState.COMPLETE)

    best = float("inf")
    for _ in range(args.repeats):
        registry.clear()
        registry.add_route(route)
        told.clear()
        test.log.clear()
        started = time.process_time()
        for i in range(args.requests):
            one(i)
        best = min(best, (time.process_time() - started) / args.requests * 1e6)
    assert len([e for e in told if isinstance(e, RequestIntercepted)]) == args.requests

    event = next(e for e in told if isinstance(e, RequestIntercepted))
    redact_best = float("inf")
    for _ in range(args.repeats):
        started = time.process_time()
        for _ in range(args.requests):
            redact_event(redactor, event)
        redact_best = min(redact_best, (time.process_time() - started) / args.requests * 1e6)
    print(f"runner's own work per spied request: {best:.1f} us CPU (best of {args.repeats} passes of "
          f"{args.requests}); of which redacting its event: {redact_best:.1f} us")


if __name__ == "__main__":
    main()
