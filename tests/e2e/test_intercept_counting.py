"""Counting and absence: runner.wait(count=N), runner.requests("@a"), runner.assert_no_request."""

from __future__ import annotations

import time

import pytest

from runner import CommandError, UsageError


def open_page(runner, server):
    server.route("/api/n", lambda h: h.send(200, {"ok": True}))
    server.route("/track", lambda h: h.send(204))
    runner.visit(server.page("/app", "<html><body><h1>app</h1></body></html>"))


def later(runner, script, delay_ms=100):
    """Run ``script`` in the page after ``delay_ms`` (the test goes on meanwhile)."""
    runner._ctx.run(runner._ctx.browser.page.evaluate(f"setTimeout(() => {{ {script} }}, {delay_ms})"))


def fetches(n, path="/api/n", step_ms=40):
    return " ".join(f"setTimeout(() => fetch('{path}?i={i}'), {i * step_ms});" for i in range(1, n + 1))


def test_wait_count_returns_the_next_n_requests_in_order(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    later(runner, fetches(3))
    batch = runner.wait("@n", count=3)
    assert [ic.request.query["i"] for ic in batch] == ["1", "2", "3"]
    assert all(ic.response.status_code == 200 for ic in batch)
    # the requests were consumed: the next count starts after them
    later(runner, fetches(1).replace("i=1", "i=4"))
    with pytest.raises(CommandError) as caught:
        runner.wait("@n", count=2, timeout=600)
    message = str(caught.value)
    assert "timed out waiting 600ms for the 5th request to the route: `n`" in message
    assert "runner.wait(count=2) had 1 of the 2." in message
    assert "No further request occurred." in message and "ever occurred" not in message
    assert "Requests it already yielded (4):" in message
    assert f"GET {server.url}/api/n?i=4 (200, to the server)" in message


def test_wait_count_on_several_aliases_gives_a_list_per_alias(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    runner.intercept("/track*", {"statusCode": 201}).as_("track")
    later(runner, fetches(2) + " " + fetches(2, "/track"))
    numbers, tracks = runner.wait(["@n", "@track"], count=2)
    assert len(numbers) == 2 and len(tracks) == 2
    assert all(ic.stubbed and ic.response.status_code == 201 for ic in tracks)


@pytest.mark.parametrize("count", [0, -1, True, 1.5, "3"])
def test_wait_count_must_be_a_whole_number(runner, server, count):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    with pytest.raises(UsageError, match="`count` is how many requests to wait for"):
        runner.wait("@n", count=count)


def test_requests_retries_until_the_alias_has_the_count(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    later(runner, fetches(3), delay_ms=200)
    runner.requests("@n").should("have.length", 3)
    assert len(runner.get("@n.all")) == 3
    runner.wait("@n")  # requests() consumed nothing
    with pytest.raises(CommandError) as caught:
        runner.requests("@n").should("have.length", 5, timeout=300)
    message = str(caught.value)
    assert "to have a length of 5 but got 3" in message
    assert f"The requests of @n (3):\n  GET {server.url}/api/n?i=1 (200, to the server)" in message
    assert f"GET {server.url}/api/n?i=3 (200, to the server)" in message


def test_requests_needs_a_known_alias(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    with pytest.raises(UsageError, match="Available aliases are: `n`"):
        runner.requests("@other")
    with pytest.raises(UsageError, match="leading `@`"):
        runner.requests("n")


def test_assert_no_request_on_an_alias(runner, server):
    open_page(runner, server)
    runner.intercept("POST", "/track", {"statusCode": 204}).as_("track")
    runner.assert_no_request("@track", within=150)  # nothing came
    later(runner, "fetch('/track', {method: 'POST', body: 'x'})", delay_ms=100)
    started = time.monotonic()
    with pytest.raises(CommandError) as caught:
        runner.assert_no_request("@track", within=5000)
    assert time.monotonic() - started < 4  # failed as the request came, not at the window's end
    message = str(caught.value)
    assert "runner.assert_no_request('@track') failed: 1 request reached `track`" in message
    assert f"POST {server.url}/track (" in message and "stubbed)" in message
    # what the route recorded before the call counts too
    with pytest.raises(CommandError, match="1 request reached `track`"):
        runner.assert_no_request("@track")


def test_assert_no_request_on_a_matcher_sees_requests_no_route_matched(runner, server):
    open_page(runner, server)
    runner.assert_no_request("**/track", within=200)  # passes: nothing was sent
    later(runner, "fetch('/track', {method: 'POST'}); fetch('/api/n?i=9')", delay_ms=100)
    with pytest.raises(CommandError) as caught:
        runner.assert_no_request("POST", "**/track", within=5000)
    message = str(caught.value)
    assert "runner.assert_no_request('POST', '**/track') failed: 1 matching request within 5000ms" in message
    assert f"POST {server.url}/track (fetch, no route matched it)" in message
    assert "/api/n" not in message
    interceptor = runner._interceptor_getter()
    assert not interceptor.wants_requests()  # the page is no longer watched once it returns


def test_assert_no_request_on_a_matcher_says_when_a_route_took_it(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*", {"body": "stub"})
    later(runner, fetches(1))
    with pytest.raises(CommandError, match=r"GET .*/api/n\?i=1 \(fetch, a route matched it\)"):
        runner.assert_no_request({"method": "GET", "pathname": "/api/n"}, within=5000)


def test_assert_no_request_misuse(runner, server):
    open_page(runner, server)
    runner.intercept("/api/n*").as_("n")
    with pytest.raises(UsageError, match="needs a window to watch"):
        runner.assert_no_request("**/track")
    with pytest.raises(UsageError, match="`within` is a window in milliseconds"):
        runner.assert_no_request("@n", within=-1)
    with pytest.raises(UsageError, match="Available aliases are: `n`"):
        runner.assert_no_request("@nope")
    with pytest.raises(UsageError, match="takes an alias"):
        runner.assert_no_request(42)
    with pytest.raises(UsageError, match="`times` and `middleware` belong to routes"):
        runner.assert_no_request({"url": "/x", "times": 1}, within=10)
