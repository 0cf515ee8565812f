"""Interceptor.finish: the test's end waits, within its bound, once for its requests in flight."""

from __future__ import annotations

import time
from typing import Any

from tests.unit.net.conftest import BOUND

from runner.net.records import RequestRecord, RouteRecord

URL = "http://localhost:3000/api/users"


class Rows:
    def __init__(self) -> None:
        self.ended: list[dict[str, Any]] = []

    def route_added(self, record: RouteRecord) -> None:
        pass

    def route_aliased(self, record: RouteRecord) -> None:
        pass

    def request_ended(self, record: RequestRecord) -> None:
        self.ended.append(record.row())


def test_a_second_finish_waits_for_nothing(make_env: Any) -> None:
    # the runner fixture's teardown settles the test's requests, and end_test does again: the
    # second call must not wait out the bound a second time for a request still in flight
    rows = Rows()
    env = make_env(rows)
    env.intercept("/api/users", {"body": "late", "delay": 1500}).as_("a")
    _exchange, handled = env.start(URL, holds=True)
    env.wait("@a.request", timeout=BOUND * 1000)
    started = time.monotonic()
    env.interceptor.finish(0.5)
    first = time.monotonic() - started
    env.interceptor.finish(0.5)
    second = time.monotonic() - started - first
    assert first >= 0.5 and second < 0.25, (first, second)
    assert [(r["aliases"], r["open"]) for r in rows.ended] == [(["a"], True)]  # told once, as open
    handled.result(BOUND)  # the page still gets its answer; nothing is told of it any more
    assert len(rows.ended) == 1


def test_the_end_waits_for_a_request_being_told_as_it_ended(make_env: Any) -> None:
    # a request that ends just as the test ends: the loop thread is telling the observer (the
    # session publishes request.intercepted with the test running then) while the test thread
    # seals; the seal must wait for that, or the event is of no test while the table has it
    import threading

    entered = threading.Event()
    current = ["the test"]
    told: list[str | None] = []

    class Slow(Rows):
        def request_ended(self, record: RequestRecord) -> None:
            entered.set()
            time.sleep(0.2)  # the loop thread, slower than the test thread to read the test
            told.append(current[0])

    env = make_env(Slow())
    env.intercept("/api/users", {"body": "ok"}).as_("a")
    _exchange, handled = env.start(URL, holds=True)
    assert entered.wait(BOUND)
    env.interceptor.finish(1.0)
    current[0] = None  # the test ended
    handled.result(BOUND)
    assert told == ["the test"]
    assert [r["state"] for r in env.interceptor.requests_log()] == ["Complete"]
