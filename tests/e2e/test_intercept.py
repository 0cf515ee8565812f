"""runner.intercept() end to end: real Chromium, real servers on 127.0.0.1, the Playwright adapter."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from tests.support.page_fetch import fetch, open_page

from runner import CommandError, InterceptError, UsageError


def test_spy_records_request_and_response(runner, server):
    open_page(runner, server)
    runner.intercept("/echo*").as_("echo")
    result = fetch(runner, "/echo?x=1", {"method": "POST", "body": json.dumps({"a": 1}),
                                         "headers": {"content-type": "application/json"}})
    assert result["status"] == 200
    interception = runner.wait("@echo")
    assert interception.request.method == "POST"
    assert interception.request.body == {"a": 1}
    assert interception.request.query == {"x": "1"}
    assert interception.response.status_code == 200
    assert interception.response.body["path"] == "/echo?x=1"
    interception.its("response.statusCode").should("eq", 200)
    # a spy lets the request through to the server, once
    assert [r["method"] for r in server.received if r["path"].startswith("/echo")] == ["POST"]


def test_static_stub_never_reaches_the_server(runner, server):
    open_page(runner, server)
    runner.intercept("GET", "**/api/users", {"fixture": "data.json"}).as_("users")
    result = fetch(runner, "/api/users")
    assert json.loads(result["text"]) == {"name": "fixture data", "items": [1, 2, 3]}
    assert result["headers"]["content-type"].startswith("application/json")
    assert runner.wait("@users").response.body == {"name": "fixture data", "items": [1, 2, 3]}
    assert not [r for r in server.received if r["path"].startswith("/api")]


def test_stub_status_body_and_headers(runner, server):
    open_page(runner, server)
    runner.intercept("/api/fail", {"statusCode": 500, "body": "boom", "headers": {"x-why": "test"}})
    result = fetch(runner, "/api/fail")
    assert (result["status"], result["text"], result["headers"]["x-why"]) == (500, "boom", "test")


def test_string_and_object_bodies(runner, server):
    open_page(runner, server)
    runner.intercept("/a", "plain text")
    runner.intercept("/b", {"list": [1, 2]} if False else [1, 2])
    assert fetch(runner, "/a")["text"] == "plain text"
    b = fetch(runner, "/b")
    assert json.loads(b["text"]) == [1, 2] and b["headers"]["content-type"].startswith("application/json")


def test_handler_modifies_the_outgoing_request(runner, server):
    open_page(runner, server)

    def handler(req):
        req.headers["x-added"] = "yes"
        req.query["extra"] = "1"

    runner.intercept("/echo*", handler).as_("echo")
    result = json.loads(fetch(runner, "/echo?x=1")["text"])
    assert result["headers"]["x-added"] == "yes"
    assert result["path"] == "/echo?x=1&extra=1"


def test_reply_from_a_handler_and_redirect(runner, server):
    open_page(runner, server)
    runner.intercept("/r1", lambda req: req.reply(201, {"ok": True}, {"x-h": "1"}))
    r1 = fetch(runner, "/r1")
    assert r1["status"] == 201 and json.loads(r1["text"]) == {"ok": True}
    runner.intercept("/r2", lambda req: req.redirect("/echo"))
    assert json.loads(fetch(runner, "/r2")["text"])["path"] == "/echo"


def test_response_modification_through_continue_callback(runner, server):
    open_page(runner, server)

    def handler(req):
        def change(res):
            res.body["injected"] = True
            res.headers["x-modified"] = "1"
        req.continue_(change)

    runner.intercept("/echo", handler).as_("echo")
    result = fetch(runner, "/echo")
    assert json.loads(result["text"])["injected"] is True
    assert result["headers"]["x-modified"] == "1"
    assert runner.wait("@echo").response.body["injected"] is True


def test_res_send_shorthand_and_event_order(runner, server):
    open_page(runner, server)
    order = []

    def handler(req):
        req.on("before:response", lambda res: order.append("before:response"))
        req.on("response", lambda res: (order.append("response"), res.send(418, "teapot")))
        req.on("after:response", lambda res: order.append("after:response"))

    runner.intercept("/echo", handler)
    result = fetch(runner, "/echo")
    assert (result["status"], result["text"]) == (418, "teapot")
    deadline = time.monotonic() + 2
    while len(order) < 3 and time.monotonic() < deadline:
        runner.wait(10)
    assert order == ["before:response", "response", "after:response"]


def test_force_network_error_and_destroy(runner, server):
    open_page(runner, server)
    runner.intercept("/down", {"forceNetworkError": True}).as_("down")
    assert "Failed to fetch" in fetch(runner, "/down")["error"]
    interception = runner.wait("@down")
    assert interception.error is not None and interception.response is None
    runner.intercept("/gone", lambda req: req.destroy())
    assert "error" in fetch(runner, "/gone")


def test_delay_and_throttle(runner, server):
    open_page(runner, server)
    runner.intercept("/slow", {"body": "x", "delay": 300})
    started = time.monotonic()
    fetch(runner, "/slow")
    assert time.monotonic() - started >= 0.3
    runner.intercept("/throttled", {"body": "y" * 4000, "throttleKbps": 100})  # 32 kbit at 100 kbps
    started = time.monotonic()
    fetch(runner, "/throttled")
    assert time.monotonic() - started >= 0.3


def test_dynamic_alias_and_waiting_on_several(runner, server):
    open_page(runner, server)

    def handler(req):
        req.alias = "first" if "n=1" in req.url else "second"

    runner.intercept("/echo*", handler)
    fetch(runner, "/echo?n=1")
    fetch(runner, "/echo?n=2")
    first, second = runner.wait(["@first", "@second"])
    assert first.request.url.endswith("n=1") and second.request.url.endswith("n=2")


def test_request_from_the_test_is_never_intercepted(runner, server):
    runner.intercept("**/echo*", {"body": "stubbed"}).as_("echo")
    assert runner.request(server.url + "/echo").body["path"] == "/echo"
    assert runner.get("@echo.all") == []


def test_cross_origin_stub_gets_cors_headers_and_preflight(runner, server):
    open_page(runner, server)
    other = f"http://localhost:{server.port}"  # another origin than 127.0.0.1
    runner.intercept("PUT", other + "/api/thing", {"body": {"ok": 1}}).as_("thing")
    result = fetch(runner, other + "/api/thing", {"method": "PUT", "headers": {"x-custom": "1",
                                                                                "content-type": "application/json"},
                                                  "body": "{}"})
    assert result.get("status") == 200, result
    assert runner.wait("@thing").response.body == {"ok": 1}


def test_handler_exception_fails_the_test_and_answers_the_request(runner, server):
    open_page(runner, server)

    def broken(req):
        raise ValueError("handler bug")

    runner.intercept("/echo", broken).as_("echo")
    result = fetch(runner, "/echo")
    assert "error" in result  # answered with a network error, never left hanging
    with pytest.raises(InterceptError) as caught:
        runner.wait("@echo")
    assert "handler bug" in str(caught.value) and "/echo" in str(caught.value)


def test_times_limits_a_route(runner, server):
    open_page(runner, server)
    runner.intercept({"url": "/echo", "times": 1}, "once")
    assert fetch(runner, "/echo")["text"] == "once"
    assert json.loads(fetch(runner, "/echo")["text"])["path"] == "/echo"


def test_newer_route_overrides_older(runner, server):
    open_page(runner, server)
    runner.intercept("/echo", "old")
    runner.intercept("/echo", "new")
    assert fetch(runner, "/echo")["text"] == "new"


def test_intercepts_do_not_leak_first(runner, server):
    runner.intercept("**/echo", "stubbed")
    open_page(runner, server)
    assert fetch(runner, "/echo")["text"] == "stubbed"


def test_intercepts_do_not_leak_second(runner, server):
    open_page(runner, server)
    assert json.loads(fetch(runner, "/echo")["text"])["path"] == "/echo"


def test_wait_timeout_message_has_the_ordinal(runner, server):
    open_page(runner, server)
    runner.intercept("/never").as_("never")
    with pytest.raises(CommandError) as caught:
        runner.wait("@never", timeout=200)
    assert "1st request" in str(caught.value) and "never" in str(caught.value)


def test_get_alias_all_and_index(runner, server):
    open_page(runner, server)
    runner.intercept("/echo*").as_("echo")
    for n in range(3):
        fetch(runner, f"/echo?n={n}")
    runner.wait("@echo")
    assert len(runner.get("@echo.all")) == 3
    assert runner.get("@echo.2").request.url.endswith("n=1")
    with pytest.raises(UsageError):
        runner.get("@echo.0")


def test_blocking_sync_handler_does_not_stall_other_requests(runner, server):
    open_page(runner, server)
    gate = threading.Event()

    def blocking(req):
        gate.wait(5)

    runner.intercept("/blocked", blocking)
    runner.intercept("/free", "free")
    runner._ctx.run(runner._ctx.browser.page.evaluate("() => { window.p = fetch('/blocked'); }"))
    started = time.monotonic()
    assert fetch(runner, "/free")["text"] == "free"
    assert time.monotonic() - started < 1
    gate.set()


def test_regex_url_and_method_glob(runner, server):
    open_page(runner, server)
    runner.intercept({"method": "P*", "url": re.compile(r"/api/\d+$")}, "matched")
    assert fetch(runner, "/api/42", {"method": "POST"})["text"] == "matched"
    assert fetch(runner, "/api/42")["status"] == 404


def test_async_handler_and_middleware_run_first(runner, server):
    open_page(runner, server)
    order = []

    async def late(req):
        order.append("normal")

    def middleware(req):
        order.append("middleware")

    runner.intercept("/echo", late)
    runner.intercept({"url": "/echo", "middleware": True}, middleware)
    fetch(runner, "/echo")
    assert order == ["middleware", "normal"]


def test_follow_redirect_gives_the_final_response(runner, server):
    open_page(runner, server)

    def handler(req):
        req.follow_redirect = True
        req.continue_(lambda res: None)

    # "/redirect*" would not match: the query holds a "/", which "*" never crosses
    runner.intercept({"pathname": "/redirect"}, handler).as_("r")
    fetch(runner, "/redirect?to=/echo")
    assert runner.wait("@r").response.status_code == 200


@pytest.mark.runner(responseTimeout=300)
def test_response_timeout_errors_the_request_and_fails_the_callback(runner, server):
    open_page(runner, server)
    runner.intercept("/slow*", lambda req: req.continue_(lambda res: None)).as_("slowpoke")
    result = fetch(runner, "/slow?ms=2000")
    assert "error" in result
    with pytest.raises(InterceptError) as caught:
        runner.wait("@slowpoke")
    assert "timed out" in str(caught.value) and "responseTimeout" in str(caught.value)


@pytest.mark.runner(defaultCommandTimeout=300)
def test_handler_that_never_finishes_times_out(runner, server):
    open_page(runner, server)

    async def stuck(req):
        import asyncio

        await asyncio.sleep(5)

    runner.intercept("/echo", stuck).as_("echo")
    assert "error" in fetch(runner, "/echo")
    with pytest.raises(InterceptError) as caught:
        runner.wait("@echo")
    assert "300ms" in str(caught.value)


@pytest.mark.runner(defaultCommandTimeout=4000)
def test_160_requests_at_once_each_with_a_1s_handler_are_all_answered(runner, server):
    """32 handlers run at a time: the last ones wait ~4 s for a thread, which is not their time."""
    open_page(runner, server)

    def slow(req):
        time.sleep(1)
        req.reply({"ok": True})

    runner.intercept("/slow*", slow)
    results = runner._ctx.run(runner._ctx.browser.page.evaluate(
        """() => Promise.all(Array.from({length: 160}, (_, i) =>
            fetch('/slow?i=' + i).then(r => r.status, e => String(e))))"""), 60_000)
    assert results == [200] * 160
    timings = [row["timings"] for row in runner._interceptor_getter().requests_log()]
    assert len(timings) == 160
    assert max(t["handler"] for t in timings) < 4000
    assert max(t["queued"] for t in timings) > 1000  # some waited for a thread


def test_completing_twice_is_an_error(runner, server):
    open_page(runner, server)

    def twice(req):
        req.reply("one")
        req.reply("two")

    runner.intercept("/echo", twice)
    fetch(runner, "/echo")
    with pytest.raises(InterceptError) as caught:
        runner.wait(50)
    assert "multiple times" in str(caught.value)


def test_spies_watch_and_only_stubs_route(runner, server):
    browser = runner._ctx.browser
    open_page(runner, server)
    assert not browser._routed and browser._observer is None  # nothing defined, nothing paid
    runner.intercept("/echo*").as_("spy")
    assert not browser._routed and browser._observer is not None
    runner.intercept("/other", "stub")
    # routed now; still watching, for the hops after a redirect (Playwright does not route them)
    assert browser._routed and browser._observer is not None and browser._revalidations is None
    fetch(runner, "/echo")
    assert runner.wait("@spy").response.status_code == 200


def test_after_response_runs_for_stubbed_replies_too(runner, server):
    open_page(runner, server)
    seen = []

    def handler(req):
        req.on("after:response", lambda res: seen.append((res.status_code, res.body)))
        req.reply(203, {"stubbed": True})

    runner.intercept("/echo", handler).as_("echo")
    assert fetch(runner, "/echo")["status"] == 203
    runner.wait("@echo")
    assert seen == [(203, {"stubbed": True})]


def test_a_spy_sees_responses_served_from_the_browser_cache(runner, server):
    server.route("/cached", lambda h: h.send(200, "fresh", headers={"Cache-Control": "max-age=3600"},
                                             content_type="text/plain"))
    open_page(runner, server)
    runner.intercept("/cached").as_("cached")
    assert fetch(runner, "/cached")["text"] == "fresh"
    assert fetch(runner, "/cached")["text"] == "fresh"
    first, second = runner.wait(["@cached", "@cached"])
    assert first.response.status_code == 200 and second.response.status_code == 200
    assert len([r for r in server.received if r["path"] == "/cached"]) == 1  # the second came from the cache


# -- headers the HTTP grammar forbids: refused at the call, and the page is still answered ---------

def bounded_fetch(runner, url, seconds=10):
    """fetch() from the page, aborted after ``seconds``: {status, text} or {error}; an error
    starting "AbortError" means the request was left pending."""
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        """async ([url, ms]) => {
            const controller = new AbortController();
            const timer = setTimeout(() => controller.abort(), ms);
            try {
                const r = await fetch(url, {signal: controller.signal});
                return {status: r.status, text: await r.text()};
            } catch (e) { return {error: e.name + ": " + e.message}; }
            finally { clearTimeout(timer); }
        }""", [url, seconds * 1000]), timeout_ms=(seconds + 5) * 1000)


def test_a_stub_with_a_bad_header_is_refused_where_it_is_defined(runner, server):
    with pytest.raises(UsageError) as caught:
        runner.intercept("/api", {"statusCode": 200, "headers": {"x bad": "1"}})
    assert "The header name 'x bad' is not a valid HTTP field name" in str(caught.value)
    with pytest.raises(UsageError, match="contains a line feed"):
        runner.intercept("/api", {"body": "x", "headers": {"x-a": "1\nSet-Cookie: a=b"}})


@pytest.mark.parametrize(
    ("headers", "fragment"),
    [
        ({"x bad": "1"}, "The header name 'x bad' is not a valid HTTP field name"),
        ({"x-a": "1\r\nSet-Cookie: a=b"}, "The value of the header `x-a` contains a carriage return"),
        ({"": "1"}, "The header name '' is not a valid HTTP field name"),
    ],
)
def test_req_reply_with_a_bad_header_answers_the_page_with_a_network_error(runner, server, headers, fragment):
    open_page(runner, server)
    runner.intercept("/echo", lambda req: req.reply(200, "stub", headers)).as_("echo")
    result = bounded_fetch(runner, "/echo")
    assert result.get("error", "").startswith("TypeError"), result  # rejected, not left pending
    with pytest.raises(InterceptError) as caught:
        runner.wait("@echo")
    assert isinstance(caught.value.__cause__, UsageError)
    assert fragment in str(caught.value.__cause__)
    assert "req.reply()" in str(caught.value.__cause__)


def test_res_send_with_a_bad_header_answers_the_page_with_a_network_error(runner, server):
    open_page(runner, server)
    runner.intercept("/echo", lambda req: req.continue_(lambda res: res.send({"headers": {"x:y": "1"}}))).as_("echo")
    result = bounded_fetch(runner, "/echo")
    assert result.get("error", "").startswith("TypeError"), result
    with pytest.raises(InterceptError) as caught:
        runner.wait("@echo")
    assert "The header name 'x:y' is not a valid HTTP field name" in str(caught.value.__cause__)
    assert "res.send()" in str(caught.value.__cause__)


def test_a_bad_header_set_on_res_or_req_headers_answers_the_page_with_a_network_error(runner, server):
    open_page(runner, server)

    def set_bad_response_header(res):
        res.headers["x-a"] = "1\x002"

    def set_bad_request_header(req):
        req.headers["x bad"] = "1"

    runner.intercept("/echo?res", lambda req: req.continue_(set_bad_response_header))
    runner.intercept("/echo?req", set_bad_request_header)
    result = bounded_fetch(runner, "/echo?res")
    assert result.get("error", "").startswith("TypeError"), result
    with pytest.raises(InterceptError, match="invalid response header. The value of the header `x-a` contains a NUL"):
        runner.wait(50)
    result = bounded_fetch(runner, "/echo?req")
    assert result.get("error", "").startswith("TypeError"), result
    with pytest.raises(InterceptError, match="invalid request header. The header name 'x bad'"):
        runner.wait(50)
    assert [r["path"] for r in server.received if r["path"].startswith("/echo")] == ["/echo?res"]


def test_request_intercepted_events_carry_the_bodies_runner_held(runner, server, request):
    from runner.events import RequestIntercepted
    from runner.plugin import _SESSION_KEY

    seen: list[RequestIntercepted] = []
    unsubscribe = request.config.stash[_SESSION_KEY].bus.subscribe(seen.append, (RequestIntercepted,))
    try:
        open_page(runner, server)
        runner.intercept("POST", "/api/save", {"body": {"saved": True}}).as_("save")
        runner.intercept("/echo*").as_("echo")  # a spy, on a routed page: not held (issue 23)
        runner.intercept("/pixel.png", {"body": b"\x89PNG\r\n\x1a\n\x00\x01", "headers": {"content-type": "image/png"}})
        assert fetch(runner, "/api/save", {"method": "POST", "body": '{"name": "ééé"}'})["status"] == 200
        assert fetch(runner, "/echo")["status"] == 200
        assert fetch(runner, "/pixel.png")["status"] == 200
        runner.wait("@save")
        runner.wait("@echo")
    finally:
        unsubscribe()
    by_url = {e.url.rsplit("/", 1)[-1]: e for e in seen}
    save = by_url["save"]
    assert save.request_body == {"size": len('{"name": "ééé"}'.encode()), "content_type": "text/plain;charset=UTF-8", "encoding": "utf-8",
                                 "data": '{"name": "ééé"}', "cut": False}
    assert save.response_body is not None and json.loads(save.response_body["data"]) == {"saved": True}
    echo = by_url["echo"]  # only spied: the body went to the page, never through runner, unread
    assert echo.request_body is None and echo.response_body is None
    pixel = by_url["pixel.png"].response_body
    assert pixel is not None and pixel["encoding"] == "base64" and pixel["data"] == "iVBORw0KGgoAAQ=="
