"""Probes: every request a matcher takes, routed or not (runner.assert_no_request's matcher form)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from runner.errors import CommandError
from runner.net.probes import Probe, matching
from runner.net.route import compile_matcher

URL = "http://localhost:3000/api/users"


def test_a_probe_sees_requests_no_route_matched_and_says_which_a_route_took(env: Any) -> None:
    env.intercept("/api/users").as_("users")
    probe = matching(compile_matcher(("**/api/**",), "test"))
    env.interceptor._registry.add_probe(probe)
    assert env.interceptor.wants_requests()
    env.send(URL)
    env.send("http://localhost:3000/api/other")
    env.send("http://localhost:3000/index.css")
    assert [(r.url, r.routed) for r in probe.seen] == [(URL, True), ("http://localhost:3000/api/other", False)]
    assert probe.seen[1].line() == "  GET http://localhost:3000/api/other (xhr, no route matched it)"


def test_preflights_and_cleared_probes_see_nothing(env: Any) -> None:
    probe = Probe(lambda view, routed: True)
    env.interceptor._registry.add_probe(probe)
    env.send(URL, method="OPTIONS", headers={"access-control-request-method": "PUT", "origin": "http://a"})
    assert probe.seen == []
    env.interceptor.clear()  # a new test: probes are the old test's
    assert not env.interceptor.wants_requests()


def test_assert_no_request_turns_watching_on_for_its_window_only(env: Any) -> None:
    before = env.changes
    env.interceptor.assert_no_request("**/never", within=20)
    assert env.changes == before + 2  # on, then off again
    assert not env.interceptor.wants_requests()


def test_assert_no_request_fails_as_soon_as_a_request_matches(env: Any) -> None:
    timer = threading.Timer(0.05, lambda: env.send("http://localhost:3000/api/track", method="POST"))
    timer.start()
    try:
        with pytest.raises(CommandError) as caught:
            env.interceptor.assert_no_request("POST", "**/track", within=5000)
    finally:
        timer.join()
    assert str(caught.value) == (
        "runner.assert_no_request('POST', '**/track') failed: 1 matching request within 5000ms:\n"
        "  POST http://localhost:3000/api/track (xhr, no route matched it)"
    )


def test_strict_network_keeps_what_no_route_matched_and_nothing_allows(env: Any) -> None:
    env.intercept("/api/users")
    strict = env.interceptor.strict_network({"allow": ["**/health"]})
    assert env.interceptor.wants_requests()
    env.send(URL)  # routed
    env.send("http://localhost:3000/api/health")  # allowed by a glob
    env.send("http://localhost:3000/app.css", resource_type="stylesheet")  # a static asset
    env.send("http://localhost:3000/api/other", method="DELETE", resource_type="fetch")
    error = strict.failure()
    assert error is not None and str(error).splitlines()[:2] == [
        "strictNetwork: the page made 1 request that no route matched:",
        "  DELETE http://localhost:3000/api/other (fetch)",
    ]


def test_strict_network_with_no_allowed_type_checks_the_assets_and_passes_when_all_routed(env: Any) -> None:
    strict = env.interceptor.strict_network({"allowTypes": []})
    env.send("http://localhost:3000/app.css", resource_type="stylesheet")
    assert "GET http://localhost:3000/app.css (stylesheet)" in str(strict.failure())
    env.interceptor.clear()
    env.intercept("**/*")
    strict = env.interceptor.strict_network(True)
    env.send("http://localhost:3000/api/anything")
    assert strict.failure() is None
