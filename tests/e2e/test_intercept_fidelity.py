"""Interception that is true to the page and the server (issue 23): a spy never changes what the
page gets, a changed body is told by its content-length, a revalidation is recorded as the 304
the server sent, preflights are answered by the routes that match them, bad bodies are refused
when given, and runner never reads an unbounded body. Real Chromium, real servers on 127.0.0.1."""

from __future__ import annotations

import threading

import pytest
from tests.e2e.test_intercept import fetch, open_page
from tests.e2e.test_intercept_details import _PUT, _cors_server_routes, _preflights

_BIG = 50 * 1024 * 1024


def _page_fetch(runner, url, timeout_ms=30000):
    """fetch() from the page, reading the whole body: {status, size} or {error}."""
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        """async (url) => {
            try { const r = await fetch(url); const b = await r.arrayBuffer(); return {status: r.status, size: b.byteLength}; }
            catch (e) { return {error: String(e)}; }
        }""", url), timeout_ms)


@pytest.mark.slow
def test_a_spy_on_a_routed_page_lets_a_50_mb_response_reach_the_page_whole(runner, server):
    body = b"x" * _BIG
    server.route("/big", lambda h: h.send(200, body, content_type="application/octet-stream"))
    open_page(runner, server)
    runner.intercept("/big").as_("big")
    runner.intercept("/unrelated", {"body": "stub"})  # the page is routed
    assert _page_fetch(runner, "/big", 60000) == {"status": 200, "size": _BIG}
    assert runner.wait("@big").response.status_code == 200


@pytest.mark.runner(responseTimeout=500)
def test_a_spy_waits_for_a_late_server_as_long_as_the_page_does(runner, server):
    release = threading.Event()

    def late(h):
        release.wait(2.0)  # four times responseTimeout: without runner the page would wait
        h.send(200, "late but whole", content_type="text/plain")

    server.route("/late", late)
    open_page(runner, server)
    runner.intercept("/late").as_("late")
    runner.intercept("/unrelated", {"body": "stub"})  # the page is routed
    try:
        assert _page_fetch(runner, "/late", 10000) == {"status": 200, "size": len("late but whole")}
    finally:
        release.set()


@pytest.mark.parametrize("unrelated_stub", [False, True], ids=["spies-only", "with-an-unrelated-stub"])
def test_a_spied_cross_origin_requests_preflight_is_the_servers_whatever_the_other_routes(runner, server,
                                                                                          unrelated_stub):
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept(other + "/cors/closed")  # no method: they would match the preflights too
    runner.intercept(other + "/cors/open").as_("open")
    if unrelated_stub:
        runner.intercept("/unrelated", {"body": "stub"})  # the page is routed
    refused = fetch(runner, other + "/cors/closed", _PUT)
    assert "error" in refused, refused  # as without runner: the server's preflight answer refuses it
    assert len(_preflights(server, "/cors/closed")) == 1
    assert not [r for r in server.received if r["method"] == "PUT" and r["path"] == "/cors/closed"]
    allowed = fetch(runner, other + "/cors/open", _PUT)
    assert (allowed.get("status"), allowed.get("text")) == (200, "put ok"), allowed
    assert len(_preflights(server, "/cors/open")) == 1
    put = runner.wait("@open")
    assert (put.request.method, put.response.status_code) == ("PUT", 200)
    assert [ic.request.method for ic in runner.get("@open.all")] == ["PUT"]  # never the browser's preflight
