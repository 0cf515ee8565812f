"""Timings, body sizes and the wider requests_log() rows of interceptions, and the observer that
hears of every route added and every request ended (for the run-event stream)."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest

from runner.net import HttpResponse, UpstreamError
from runner.net.records import RequestRecord, RouteRecord

BOUND = 5.0  # seconds: the upper bound of every wait in these tests
URL = "http://localhost:3000/api/users"
ROUTE_KEYS = {"id", "method", "matcher", "stubbed", "handler", "alias", "matches", "times", "middleware", "log", "server"}
REQUEST_KEYS = {
    "id", "browser_request_id", "method", "url", "route_ids", "aliases", "stubbed", "state", "status",
    "error", "duration_ms", "resource_type", "request_headers", "response_headers", "request_body_size",
    "response_body_size", "timings", "log", "open", "late", "server",
}
NAP = 0.05  # seconds a handler or the server spends, to be seen in the timings


def _free(lock: Any) -> bool:
    """Whether another thread can take ``lock`` now (so the caller does not hold it)."""
    got: list[bool] = []

    def take() -> None:
        ok = lock.acquire(timeout=BOUND)
        got.append(ok)
        if ok:
            lock.release()

    thread = threading.Thread(target=take)
    thread.start()
    thread.join(BOUND * 2)
    return got == [True]


class Recorder:
    """An observer that records its calls, the thread of each and whether the lock was free."""

    def __init__(self) -> None:
        self.lock: Any = None
        self.routes: list[dict[str, Any]] = []
        self.ended: list[dict[str, Any]] = []
        self.threads: list[tuple[str, int]] = []
        self.lock_free: list[bool] = []

    def route_added(self, record: RouteRecord) -> None:
        self.routes.append(record.row())
        self.threads.append(("route_added", threading.get_ident()))
        self.lock_free.append(_free(self.lock))

    def route_aliased(self, record: RouteRecord) -> None:
        pass  # not what these tests watch (an observer without it was not told)

    def request_ended(self, record: RequestRecord) -> None:
        # the record as a requests_log() row, with the bodies the observer alone is given
        self.ended.append({**record.row(), "request_body": record.request_body,
                           "response_body": record.response_body})
        self.threads.append(("request_ended", threading.get_ident()))
        self.lock_free.append(_free(self.lock))


class Raising:
    def route_added(self, record: RouteRecord) -> None:
        raise RuntimeError("observer bug")

    def route_aliased(self, record: RouteRecord) -> None:
        raise RuntimeError("observer bug")

    def request_ended(self, record: RequestRecord) -> None:
        raise RuntimeError("observer bug")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def watched(make_env: Any, recorder: Recorder) -> Any:
    e = make_env(recorder)
    recorder.lock = e.interceptor._registry.lock
    return e


# -- timings ---------------------------------------------------------------------------------

def test_a_request_handler_that_sleeps_counts_in_handler(env: Any) -> None:
    env.intercept("/api/users", lambda req: time.sleep(NAP)).as_("a")
    env.send(URL)
    timings = env.get("@a").timings
    assert set(timings) == {"queued", "handler", "upstream", "total"}
    assert timings["handler"] >= NAP * 1000
    assert 0 <= timings["queued"] <= timings["total"]
    assert timings["total"] >= timings["handler"] + timings["upstream"] - 0.2  # each rounded to 0.1
    assert timings["total"] == env.get("@a").duration_ms


def test_request_and_response_handlers_are_summed(env: Any) -> None:
    async def before(res: Any) -> None:
        time.sleep(NAP)  # holds the loop on purpose: an async handler's time counts too

    def handler(req: Any) -> None:
        time.sleep(NAP)
        req.on("before:response", before)
        req.continue_(lambda res: time.sleep(NAP))

    env.intercept("/api/users", handler).as_("a")
    env.send(URL)
    assert env.get("@a").timings["handler"] >= 3 * NAP * 1000


def test_a_stub_waits_for_no_server(env: Any) -> None:
    env.intercept("/api/users", {"body": "stubbed"}).as_("a")
    env.send(URL)
    ic = env.get("@a")
    assert ic.timings["upstream"] == 0.0 and ic.timings["handler"] == 0.0
    assert ic.timings["queued"] is not None and ic.timings["total"] is not None
    assert ic.response_body_size == len(b"stubbed")


def _slow_server(env: Any, body: bytes = b"from server") -> None:
    def answer(req: Any) -> Any:
        time.sleep(NAP)  # the server is slow
        return HttpResponse(200, "OK", {"content-type": "text/plain"}, body, req.url)

    env.upstream.script = answer


@pytest.mark.parametrize("handler", [None, lambda req: req.continue_(lambda res: None)],
                         ids=["spy (pass_through)", "response handler (fetch)"])
def test_waiting_for_the_server_counts_in_upstream(env: Any, handler: Any) -> None:
    _slow_server(env)
    if handler is None:
        env.intercept("/api/users").as_("a")
    else:
        env.intercept("/api/users", handler).as_("a")
    env.send(URL)
    timings = env.get("@a").timings
    assert timings["upstream"] >= NAP * 1000
    assert timings["handler"] < NAP * 1000
    assert timings["total"] >= timings["upstream"]


def test_an_upstream_error_still_has_timings(env: Any) -> None:
    env.server(error=UpstreamError("connection refused"))
    env.intercept("/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    env.send(URL)
    ic = env.get("@a")
    assert ic.state == "Errored" and ic.timings["total"] is not None and ic.timings["queued"] is not None
    assert ic.response_body_size is None


# -- body sizes --------------------------------------------------------------------------------

def test_body_sizes(env: Any) -> None:
    env.server(200, b"0123456789", {"content-type": "text/plain"})
    env.intercept("/api/users", lambda req: req.continue_(lambda res: setattr(res, "body", "abc"))).as_("a")
    env.send(URL, method="POST", body="hello")
    ic = env.get("@a")
    assert ic.request_body_size == 5
    assert ic.response_body_size == 3  # the body the page received, after the handler


def test_a_request_without_body_has_size_zero(env: Any) -> None:
    env.intercept("/api/users", "x").as_("a")
    env.send(URL)
    assert env.get("@a").request_body_size == 0


def test_a_passed_through_body_is_unknown_until_read(env: Any) -> None:
    env.server(200, b"0123456789", {"content-type": "text/plain"})
    env.intercept("/api/users").as_("a")
    env.send(URL)
    ic = env.get("@a")
    assert ic.response_body_size is None and env.interceptor.requests_log()[0]["response_body_size"] is None
    assert ic.response.body == "0123456789"
    assert ic.response_body_size == 10 and env.interceptor.requests_log()[0]["response_body_size"] == 10


# -- rows --------------------------------------------------------------------------------------

def test_requests_log_rows_have_headers_sizes_and_timings(env: Any) -> None:
    env.intercept("/api/users", {"body": "ok", "headers": {"x-stub": "1"}}).as_("a")
    env.send(URL, method="POST", body="hi", headers={"content-type": "text/plain", "origin": "http://a.test"},
             resource_type="fetch")
    [row] = env.interceptor.requests_log()
    assert set(row) == REQUEST_KEYS
    assert row["resource_type"] == "fetch"
    assert row["request_headers"] == {"content-type": "text/plain", "origin": "http://a.test"}
    assert row["response_headers"]["x-stub"] == "1"
    assert row["response_headers"]["access-control-allow-origin"] == "http://a.test"
    assert row["request_body_size"] == 2 and row["response_body_size"] == 2
    assert row["timings"] == env.get("@a").timings and row["timings"]["total"] == row["duration_ms"]


def test_a_row_without_response_has_no_response_headers(env: Any) -> None:
    env.intercept("/api/users", {"forceNetworkError": True}).as_("a")
    env.send(URL)
    [row] = env.interceptor.requests_log()
    assert row["state"] == "Errored" and row["response_headers"] == {} and row["response_body_size"] is None


def test_rows_are_copies(env: Any) -> None:
    env.intercept("/api/users", "x")
    env.send(URL, headers={"a": "1"})
    env.interceptor.requests_log()[0]["request_headers"]["a"] = "changed"
    env.interceptor.requests_log()[0]["timings"]["total"] = -1
    row = env.interceptor.requests_log()[0]
    assert row["request_headers"] == {"a": "1"} and row["timings"]["total"] != -1


# -- the observer ------------------------------------------------------------------------------

def test_route_added_on_the_test_thread_outside_the_lock(watched: Any, recorder: Recorder) -> None:
    watched.intercept("GET", "/api/users", {"body": "x"})
    watched.intercept("/api/*", lambda req: None)
    assert recorder.routes == watched.interceptor.routes_table()
    assert all(set(row) == ROUTE_KEYS for row in recorder.routes)
    assert recorder.threads == [("route_added", threading.get_ident())] * 2
    assert recorder.lock_free == [True, True]


def test_request_ended_once_on_the_loop_thread_outside_the_lock(watched: Any, recorder: Recorder,
                                                                 loop_thread: Any) -> None:
    watched.intercept("/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    watched.intercept("/api/users", lambda req: req.on("after:response", lambda res: None))
    watched.send(URL)
    [row] = recorder.ended
    # the observer's row is the requests_log() row plus the bodies runner held, as bytes
    assert row.pop("request_body") is None and row.pop("response_body") == b"from server"
    assert recorder.ended == watched.interceptor.requests_log()
    assert set(row) == REQUEST_KEYS and row["state"] == "Complete" and row["aliases"] == ["a"]
    assert row["timings"]["total"] is not None
    assert recorder.threads[-1] == ("request_ended", loop_thread.thread.ident)
    assert recorder.lock_free[-1] is True


@pytest.mark.parametrize("setup", [
    lambda e: e.server(error=UpstreamError("connection refused")),
    lambda e: e.intercept("/api/users", {"forceNetworkError": True}),
    lambda e: e.intercept("/api/users", lambda req: 1 / 0),
], ids=["upstream error", "forceNetworkError", "handler error"])
def test_request_ended_for_an_errored_request(watched: Any, recorder: Recorder, setup: Any) -> None:
    watched.intercept("/api/users").as_("a")
    setup(watched)
    watched.send(URL)
    [row] = recorder.ended
    assert row["state"] == "Errored" and row["error"]
    row.pop("request_body"), row.pop("response_body")
    assert row == watched.interceptor.requests_log()[0]


def test_every_request_ends_once(watched: Any, recorder: Recorder) -> None:
    watched.intercept("/api/users").as_("a")
    for _ in range(3):
        watched.send(URL)
    assert [row["id"] for row in recorder.ended] == [row["id"] for row in watched.interceptor.requests_log()]
    assert len({row["id"] for row in recorder.ended}) == 3


def test_no_request_ended_after_clear(watched: Any, recorder: Recorder) -> None:
    started = threading.Event()
    release = threading.Event()

    def slow(req: Any) -> None:
        started.set()
        release.wait(BOUND)

    watched.intercept("/api/users", slow).as_("a")
    ex, future = watched.start(URL)
    assert started.wait(BOUND)
    watched.interceptor.clear()  # the next test begins
    release.set()
    future.result(BOUND)
    assert ex.answered.is_set()
    assert recorder.ended == []


def test_a_request_not_recorded_is_not_reported(watched: Any, recorder: Recorder) -> None:
    watched.intercept("/api/other")
    watched.send(URL)
    assert recorder.ended == [] and len(recorder.routes) == 1


def test_an_observer_that_raises_breaks_nothing(make_env: Any) -> None:
    e = make_env(Raising())
    e.intercept("/api/users", "stubbed").as_("a")
    ex = e.send(URL)
    assert ex.response.body == b"stubbed"
    assert e.get("@a").state == "Complete"
    assert e.errors == []


def test_waiting_for_a_free_handler_thread_is_not_handler_time(env):
    """96 requests at once on 32 handler threads: three rounds of 0.3 s, each handler well within
    its 500 ms; the last round waited 0.6 s for a thread, which counts as queued."""
    env.config["defaultCommandTimeout"] = 500

    def slow(req):
        time.sleep(0.3)
        req.reply({"ok": True})

    env.intercept("/api/slow*", slow)
    started = [env.start(f"http://localhost:3000/api/slow?i={i}") for i in range(96)]
    for _, future in started:
        future.result(BOUND)
    assert not env.messages
    assert [ex.response.status for ex, _ in started] == [200] * 96
    timings = [row["timings"] for row in env.interceptor.requests_log()]
    assert max(t["handler"] for t in timings) < 500
    assert max(t["queued"] for t in timings) >= 500


def test_a_handler_that_fails_after_its_timeout_leaves_no_unread_error(env: Any) -> None:
    """The request failed at the timeout; what the handler raised later is nobody's to read, and
    asyncio says nothing of it (a future left holding it unread is reported when collected)."""
    env.config["defaultCommandTimeout"] = 100
    release, finished = threading.Event(), threading.Event()
    reported: list[str] = []

    def late(req: Any) -> None:
        release.wait(5)
        finished.set()
        raise ValueError("too late")

    async def settled() -> None:  # a turn of the loop: the worker's end has reached it
        return None

    env.lt.loop.set_exception_handler(lambda loop, context: reported.append(str(context.get("message"))))
    try:
        env.intercept("/api/late*", late)
        env.send("http://localhost:3000/api/late")
        assert any("timed out" in m for m in env.messages)
        env.errors.clear()  # the timeout error (and the record it fails) hold the call's frames
        env.interceptor.clear()
        release.set()
        assert finished.wait(5)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and not reported:
            env.lt.run(settled())
            gc.collect()
            time.sleep(0.05)
    finally:
        env.lt.loop.set_exception_handler(None)
    assert reported == []
