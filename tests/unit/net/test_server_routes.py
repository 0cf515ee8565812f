"""runner.intercept_backend's routes in the interception engine: they take the app's server's
requests (``raw.server``) and only those, the page's routes never see them, and the records, the
probes and the page's routing say whose a request was."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from runner.errors import CommandError

API = "http://127.0.0.1:9000/forecast?city=Lisbon"


def test_server_routes_and_page_routes_never_mix(env: Any) -> None:
    env.server(200, {"summary": "Sunny"})
    env.intercept("GET", "**/forecast*", {"body": {"summary": "page"}}).as_("page")
    env.interceptor.intercept_backend("GET", "**/forecast*", {"body": {"summary": "server"}}).as_("server")
    from_server = env.send(API, server=True, resource_type="")
    from_page = env.send(API)
    assert from_server.json == {"summary": "server"} and from_page.json == {"summary": "page"}
    assert [ic.request.url for ic in env.get("@server.all")] == [API]
    assert [ic.request.url for ic in env.get("@page.all")] == [API]
    rows = env.interceptor.requests_log()
    assert [(r["server"], r["aliases"]) for r in rows] == [(True, ["server"]), (False, ["page"])]
    routes = env.interceptor.routes_table()
    assert [(r["alias"], r["server"]) for r in routes] == [("page", False), ("server", True)]


def test_a_server_request_that_went_on_is_told_as_going_to_the_service(env: Any) -> None:
    # "to the server" beside a request the app's server made read as if it went back to that server
    env.server(200, {"summary": "Sunny"})
    env.interceptor.intercept_backend("GET", "**/forecast*").as_("server")
    env.intercept("GET", "**/forecast*").as_("page")
    env.send(API, server=True, resource_type="")
    env.send(API)
    env.wait("@server")
    with pytest.raises(CommandError) as caught:
        env.wait("@server", timeout=20)
    assert str(caught.value).endswith(f"Requests it already yielded (1):\n  (server) GET {API} (200, to the service)")
    env.wait("@page")
    with pytest.raises(CommandError) as caught:
        env.wait("@page", timeout=20)
    assert str(caught.value).endswith(f"Requests it already yielded (1):\n  GET {API} (200, to the server)")


def test_a_server_route_alone_leaves_the_page_unrouted(env: Any) -> None:
    env.interceptor.intercept_backend("**/forecast*", {"body": "stub"})
    assert not env.interceptor.needs_routing() and not env.interceptor.wants_requests()
    assert not env.interceptor.has_routes()
    assert env.interceptor.wants_server_requests()
    env.interceptor.clear()
    assert not env.interceptor.wants_server_requests()  # the routes end with their test


def test_an_unrouted_server_request_goes_by_and_is_recorded_nowhere(env: Any) -> None:
    env.server(200, b"real")
    env.interceptor.intercept_backend("**/other")
    ex = env.send(API, server=True, resource_type="")
    assert ex.calls == ["let_go"] and ex.fulfilled == []
    assert env.interceptor.requests_log() == []


def test_strict_network_names_the_servers_requests(env: Any) -> None:
    strict = env.interceptor.strict_network(True)
    assert env.interceptor.wants_server_requests()
    env.send(API, server=True, resource_type="")
    error = str(strict.failure())
    assert error.splitlines()[:2] == [
        "strictNetwork: the app's server made 1 request that no route matched:",
        f"  GET {API} (made by the app's server)",
    ]
    assert "runner.intercept_backend() (the app's server's)" in error
    env.send("http://127.0.0.1:9000/api/x", resource_type="fetch")
    assert str(strict.failure()).startswith("strictNetwork: the page and the app's server made 2 requests")


def test_assert_no_request_with_a_matcher_sees_the_servers_requests(env: Any) -> None:
    def server_call() -> None:
        # the proxy offers a request only while something wants it: the probe does
        if env.interceptor.wants_server_requests():
            env.send("http://127.0.0.1:9000/charge", method="POST", server=True, resource_type="")

    timer = threading.Timer(0.05, server_call)
    timer.start()
    try:
        with pytest.raises(CommandError) as caught:
            env.interceptor.assert_no_request("POST", "**/charge", within=5000)
    finally:
        timer.join()
    assert str(caught.value).endswith("  POST http://127.0.0.1:9000/charge (made by the app's server, no route matched it)")
