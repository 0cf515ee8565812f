"""Interception that is true to the page and the server (issue 23): a spy never changes what the
page gets, a changed body is told by its content-length, a revalidation is recorded as the 304
the server sent, preflights are answered by the routes that match them, bad bodies are refused
when given, and runner never reads an unbounded body. Real Chromium, real servers on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import threading
import time
import zlib
from decimal import Decimal

import pytest
from tests.e2e.test_intercept_details import _PUT, _cors_server_routes, _preflights
from tests.support.page_fetch import fetch, open_page

from runner import CommandError, InterceptError, UsageError
from runner.net.bodies import MAX_READ_BODY_BYTES

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


@pytest.mark.parametrize(("new_body", "length"), [("", "0"), ("eighteen ascii chr", "18"), ("\U0001F600\U0001F680", "8")],
                         ids=["empty", "18-ascii", "two-4-byte-emoji"])
def test_a_changed_request_body_is_told_by_its_content_length_to_the_next_handler_and_the_server(
        runner, server, new_body, length):
    open_page(runner, server)
    seen = {}
    runner.intercept("POST", "/echo/length", lambda req: seen.update(length=req.headers.get("content-length")))
    runner.intercept("POST", "/echo/length", lambda req: setattr(req, "body", new_body))  # runs first (newest)
    result = fetch(runner, "/echo/length", {"method": "POST", "body": "the original body, 31 bytes!!!",
                                            "headers": {"content-type": "text/plain"}})
    assert result.get("status") == 200, result
    assert seen == {"length": length}
    received = [r for r in server.received if r["path"] == "/echo/length"]
    assert [(r["body"], r["headers"].get("content-length", "0")) for r in received] == [(new_body, length)]


def _circular():
    items: list = [1]
    items.append(items)
    return items


_BAD_BODIES = [
    ({1, 2}, "{1, 2} is of type set"),
    (object(), "is of type object"),
    ((n for n in range(2)), "is of type generator"),
    (float("nan"), "the float nan is not JSON"),
    (_circular(), "the list at [1] contains itself"),
    (Decimal("1.5"), "Decimal('1.5') is of type Decimal"),
    ({"rows": [{"price": Decimal("2")}]}, "Decimal('2') at ['rows'][0]['price'] is of type Decimal"),
]


@pytest.mark.parametrize(("body", "named"), _BAD_BODIES,
                         ids=["set", "object", "generator", "nan", "circular-list", "decimal", "nested-decimal"])
def test_a_stub_body_that_cannot_be_sent_is_refused_by_intercept_itself(runner, server, body, named):
    with pytest.raises(UsageError) as caught:
        runner.intercept("/api/bad", {"body": body})
    message = str(caught.value)
    assert named in message and "must be str, bytes, or JSON data" in message, message
    assert not runner._interceptor_getter().has_routes()  # nothing was registered


def test_a_reply_body_that_cannot_be_sent_fails_the_test_with_a_clear_message(runner, server):
    open_page(runner, server)
    runner.intercept("/api/bad", lambda req: req.reply({"total": Decimal("9.99")})).as_("bad")
    assert "error" in fetch(runner, "/api/bad")  # the page gets a network error, never a hang
    with pytest.raises(InterceptError) as caught:
        runner.wait("@bad")
    message = str(caught.value)
    assert "`req.reply()`" in message and "Decimal('9.99') at ['total'] is of type Decimal" in message, message


def test_a_request_body_a_handler_sets_that_cannot_be_sent_fails_the_test_with_a_clear_message(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/bad", lambda req: setattr(req, "body", {"tags": {"a"}})).as_("bad")
    assert "error" in fetch(runner, "/echo/bad")
    with pytest.raises(InterceptError) as caught:
        runner.wait("@bad")
    message = str(caught.value)
    assert "req.body must be" in message and "{'a'} at ['tags'] is of type set" in message, message
    assert not [r for r in server.received if r["path"] == "/echo/bad"]


_PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def test_a_spied_image_the_browser_revalidates_is_recorded_as_the_servers_304(runner, server):
    def image(h):
        headers = {"ETag": '"v1"', "Cache-Control": "no-cache"}
        if h.headers.get("if-none-match") == '"v1"':
            h.send(304, b"", headers=headers)
        else:
            h.send(200, _PIXEL, headers=headers, content_type="image/png")

    server.route("/logo.png", image)
    runner.visit(server.page("/gallery", "<html><body><img src='/logo.png'></body></html>"))  # cached now
    runner.intercept("/logo.png").as_("logo")  # a spy only: the page keeps its cache
    again = fetch(runner, "/logo.png")  # the app reads the image again: the browser revalidates it
    assert again.get("status") == 200  # the page gets its cached copy
    assert [r["headers"].get("if-none-match") for r in server.received if r["path"] == "/logo.png"] == [None, '"v1"']
    assert runner.wait("@logo").response.status_code == 304  # what the server answered


_BOMB_MIB = 1024  # decompressed; about 1 MB on the wire


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1024 * 1024)
    return b"".join([*(packer.compress(zeros) for _ in range(_BOMB_MIB)), packer.flush()])


def _serve_bomb(server, bomb):
    server.route("/bomb", lambda h: h.send(200, bomb, headers={"Content-Encoding": "gzip"},
                                           content_type="application/json"))


def test_runner_request_refuses_a_gzip_bomb_and_the_test_goes_on(runner, server, gzip_bomb):
    assert len(gzip_bomb) < 2 * 1024 * 1024
    _serve_bomb(server, gzip_bomb)
    started = time.monotonic()
    with pytest.raises(CommandError) as caught:
        runner.request(server.url + "/bomb")
    message = str(caught.value)
    assert f"is larger than {MAX_READ_BODY_BYTES // 2**20} MiB once decompressed (content-encoding gzip)" in message
    assert time.monotonic() - started < 20
    assert runner.request(server.url + "/echo/after").status == 200  # the session is fine


def test_a_response_handler_cannot_read_a_gzip_bomb_and_the_test_goes_on(runner, server, gzip_bomb):
    _serve_bomb(server, gzip_bomb)
    open_page(runner, server)
    read = []
    runner.intercept("/bomb", lambda req: req.continue_(lambda res: read.append(len(res.body)))).as_("bomb")
    assert "error" in fetch(runner, "/bomb")  # the page gets a network error, never a hang
    with pytest.raises(InterceptError) as caught:
        runner.wait("@bomb")
    assert "runner reads at most" in str(caught.value) and read == []
    assert fetch(runner, "/echo/after").get("status") == 200


def test_a_handler_route_still_shares_the_contexts_cookies_both_ways(runner, server):
    open_page(runner, server)
    runner.intercept("/cookie", lambda req: req.continue_(lambda res: None))
    first = fetch(runner, "/cookie")  # the server sets fromServer=yes through runner's client
    second = fetch(runner, "/cookie")
    assert json.loads(first["text"])["cookie"] == "" and json.loads(second["text"])["cookie"] == "fromServer=yes"
    assert runner.get_cookie("fromServer").value == "yes"
