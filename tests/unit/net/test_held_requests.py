"""Requests the page waits on (Playwright's adapter holds them): responseTimeout, abandoned
requests, and the headers a passed-through response keeps."""

from __future__ import annotations

from typing import Any

from runner.net import InterceptionState, UpstreamError

URL = "http://localhost:3000/api/users"


def test_a_held_request_only_spies_match_passes_through_unchanged(env: Any) -> None:
    """A spy never changes what the page gets (issue 23): no fetch + fulfill (which would move
    the body through runner and let responseTimeout cut the page's request)."""
    env.config["responseTimeout"] = 1234
    env.server(200, "hi", {"content-type": "text/plain", "x-server": "s"})
    env.intercept("/api/users").as_("a")
    ex = env.send(URL, holds=True, headers={"origin": "http://app.test"})
    assert ex.calls == ["pass_through"] and ex.passed == [None]  # as the page sent it
    ic = env.wait("@a")
    assert ic.state is InterceptionState.COMPLETE and ic.response.status_code == 200
    # exactly the server's headers: no default CORS headers on a response from the server (1a.8)
    assert ic.response.headers == {"content-type": "text/plain", "x-server": "s"}
    assert ic.response.body == "hi"  # read when asked for


def test_a_held_request_a_handler_saw_goes_through_fetch_with_the_response_timeout(env: Any) -> None:
    env.config["responseTimeout"] = 1234
    env.server(200, "hi", {"content-type": "text/plain", "x-server": "s"})
    env.intercept("/api/users", lambda req: None).as_("a")
    ex = env.send(URL, holds=True, headers={"origin": "http://app.test"})
    assert ex.calls == ["fetch", "fulfill"]
    assert ex.fetched[0][1:] == (False, 1234.0)  # redirects are the browser's to follow
    # exactly the server's headers: no default CORS headers on a response from the server (1a.8)
    assert ex.response.headers == {"content-type": "text/plain", "x-server": "s", "content-length": "2"}
    ic = env.wait("@a")
    assert ic.state is InterceptionState.COMPLETE and ic.response.body == "hi" and ic.response.status_code == 200


def test_req_response_timeout_bounds_a_held_request_without_listeners(env: Any) -> None:
    env.server(error=UpstreamError("Timeout 50ms exceeded", timed_out=True))
    env.intercept("/api/users", lambda req: setattr(req, "response_timeout", 50)).as_("a")
    ex = env.send(URL, holds=True)
    assert ex.calls == ["fetch", "fail"]  # the page sees a network error
    assert ex.fetched[0][2] == 50
    ic = env.get("@a")
    assert ic.state is InterceptionState.ERRORED
    assert ic.error.message == "The server did not answer within the `responseTimeout` of `50ms`."
    assert env.errors == []  # nobody waited for the response: recorded, the test goes on


def test_a_watched_request_past_the_response_timeout_is_recorded_late(env: Any) -> None:
    import asyncio

    from tests.unit.net.conftest import BOUND, FakeExchange, raw_request

    class SlowServer(FakeExchange):
        async def pass_through(self, request: Any) -> Any:
            await asyncio.sleep(0.2)  # past the response timeout: the page still gets this answer
            return await super().pass_through(request)

    env.server(200, "slow")
    env.config["responseTimeout"] = 50
    env.intercept("/api/users").as_("a")
    raw = raw_request(URL)
    ex = SlowServer(raw, env.upstream)  # watched only: the page's request is not held, so not cut
    env.lt.submit(env.interceptor.handle(raw, ex)).result(BOUND)
    assert ex.calls == ["pass_through"]
    ic = env.get("@a")
    # the record says what the page got: the response, late; never Errored beside a page's 200
    assert ic.state is InterceptionState.COMPLETE and ic.error is None
    assert ic.response.status_code == 200 and ic.late is True


def test_a_stub_the_page_abandoned_is_errored_not_complete(env: Any) -> None:
    env.intercept("/api/users", {"body": "late", "delay": 10}).as_("a")
    env.send(URL, holds=True, abandoned="The page abandoned the request before it got its response (net::ERR_ABORTED).")
    ic = env.get("@a")
    assert ic.state is InterceptionState.ERRORED and "abandoned" in ic.error.message


def test_a_passed_through_response_the_page_abandoned_is_errored(env: Any) -> None:
    env.server(200, "x")
    env.intercept("/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    env.send(URL, holds=True, abandoned="The page abandoned the request (net::ERR_ABORTED).")
    assert env.get("@a").state is InterceptionState.ERRORED


def test_static_responses_still_get_the_default_cors_headers(env: Any) -> None:
    env.intercept("/api/users", {"body": "x", "headers": {"x-a": "1"}})
    ex = env.send(URL, holds=True, headers={"origin": "http://app.test"})
    assert ex.response.headers["access-control-allow-origin"] == "http://app.test"
    assert ex.response.headers["access-control-expose-headers"] == "*"


def test_a_watch_only_request_is_recorded_by_its_routes_but_no_handler_or_stub_runs(env: Any) -> None:
    from tests.unit.net.conftest import BOUND, FakeExchange, raw_request

    ran: list[str] = []
    env.intercept("/api/users", {"body": "stub"}).as_("stub")
    env.intercept("/api/users", lambda req: ran.append("handler")).as_("handler")
    raw = raw_request(URL)
    ex = FakeExchange(raw, env.upstream)
    ex.watch_only = True
    env.lt.submit(env.interceptor.handle(raw, ex)).result(BOUND)
    assert ex.calls == ["pass_through"] and ran == []
    ic = env.get("@stub")
    assert ic is env.get("@handler") and ic.stubbed is False and ic.state is InterceptionState.COMPLETE
