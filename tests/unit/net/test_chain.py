"""The request phase: cost rule, stubs, the handler chain, req API and merge rules."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from runner.errors import InterceptError, UsageError
from runner.net import InterceptionState

URL = "http://localhost:3000/api/users"


# -- cost rule -----------------------------------------------------------------------------------

def test_unmatched_request_is_let_go_unchanged_and_is_not_recorded(env: Any) -> None:
    env.intercept("/other")
    ex = env.send(URL)
    assert ex.calls == ["let_go"] and ex.passed == [None]  # nobody asks for its response
    assert env.interceptor.requests_log() == []


def test_spy_uses_pass_through_never_fetch(env: Any) -> None:
    env.intercept("/api/users").as_("users")
    ex = env.send(URL)
    assert ex.calls == ["pass_through"] and ex.passed == [None]
    ic = env.get("@users")
    assert ic.state is InterceptionState.COMPLETE
    assert ic.response.status_code == 200
    assert ex.body_loads == 0  # the body moves only when a test reads it
    assert ic.response.body == "from server"
    assert ic.response.body == "from server"
    assert ex.body_loads == 1


def test_request_only_handler_uses_pass_through_with_changes(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.headers.update({"x-added": "1"}))
    ex = env.send(URL)
    assert ex.calls == ["pass_through"]
    assert ex.passed[0] is not None and ex.passed[0].headers["x-added"] == "1"


def test_handler_that_changes_nothing_passes_none(env: Any) -> None:
    env.intercept("/api/users", lambda req: None)
    ex = env.send(URL)
    assert ex.passed == [None]


def test_static_stub_uses_fulfill_only(env: Any) -> None:
    env.intercept("/api/users", {"body": [{"id": 1}]}).as_("users")
    ex = env.send(URL)
    assert ex.calls == ["fulfill"]
    assert ex.json == [{"id": 1}]
    assert ex.response.headers["content-type"] == "application/json"
    assert env.upstream.received == []  # never sent upstream
    ic = env.get("@users")
    assert ic.stubbed and ic.response.body == [{"id": 1}] and ic.state is InterceptionState.COMPLETE


def test_response_listener_uses_fetch_and_fulfill(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.on("response", lambda res: None))
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fulfill"]


# -- static responses ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("static", "status", "body", "content_type"),
    [
        ("hello", 200, b"hello", None),
        ({"body": "<html><body>x</body></html>"}, 200, b"<html><body>x</body></html>", "text/html"),
        ({"statusCode": 404}, 404, b"", None),
        ({"body": {"a": 1}}, 200, b'{"a":1}', "application/json"),
        ({"body": False}, 200, b"false", "application/json"),
        ({"body": None}, 200, b"null", "application/json"),
        ({"body": 0}, 200, b"0", "application/json"),
        ({"body": {"a": 1}, "headers": {"Content-Type": "application/problem+json"}}, 200, b'{"a":1}', "application/problem+json"),
        ({"body": b"\x00\x01"}, 200, b"\x00\x01", None),
        ({"statusCode": 201, "body": "x", "headers": {"x-a": "b"}}, 201, b"x", None),
    ],
)
def test_static_normalisation(env: Any, static: Any, status: int, body: bytes, content_type: str | None) -> None:
    env.intercept({"url": "/api/users"}, static)
    ex = env.send(URL)
    resp = ex.response
    assert resp.status == status and resp.body == body
    ctype = next((v for k, v in resp.headers.items() if k.lower() == "content-type"), None)
    assert ctype == content_type


@pytest.mark.parametrize(
    ("name", "data", "content_type"),
    [
        ("users.json", b'[{"id":1}]', "application/json"),
        ("page.html", b"<p>x</p>", "text/html"),
        ("note.txt", b"hi", "text/plain"),
        ("data", b'{"a": 1}', "application/json"),  # no extension: from the content
        ("data2", b"<!DOCTYPE html><html></html>", "text/html"),
        ("data3", b"plain words", "text/plain"),
    ],
)
def test_fixture_content_type(env: Any, name: str, data: bytes, content_type: str) -> None:
    env.fixtures[name] = data
    env.intercept("/api/users", {"fixture": name})
    ex = env.send(URL)
    assert ex.response.body == data
    assert ex.response.headers["content-type"] == content_type


def test_fixture_with_encoding_and_explicit_content_type(env: Any) -> None:
    env.fixtures["img.png"] = b"\x89PNG"
    env.intercept("/api/users", {"fixture": "img.png,null", "headers": {"content-type": "image/x-test"}})
    ex = env.send(URL)
    assert ex.response.body == b"\x89PNG" and ex.response.headers["content-type"] == "image/x-test"


def test_missing_fixture_fails_the_test_and_the_request(env: Any) -> None:
    env.intercept("/api/users", {"fixture": "nope.json"}).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]
    assert "nope.json" in env.messages[0]
    assert env.get("@a").state is InterceptionState.ERRORED


def test_force_network_error(env: Any) -> None:
    env.intercept("/api/users", {"forceNetworkError": True}).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]
    ic = env.get("@a")
    assert ic.state is InterceptionState.ERRORED
    assert ic.error.message == "forceNetworkError called"
    assert ic.response is None
    assert env.errors == []


def test_times_with_force_network_error(env: Any) -> None:
    env.intercept({"url": "/api/users", "times": 2}, {"forceNetworkError": True})
    calls = [env.send(URL).calls for _ in range(3)]
    assert calls == [["fail"], ["fail"], ["let_go"]]


def test_default_cors_headers(env: Any) -> None:
    env.intercept("/api/users", {"body": "x", "headers": {"x-custom": "1"}})
    ex = env.send(URL, headers={"origin": "http://app.test"})
    h = ex.response.headers
    assert h["access-control-allow-origin"] == "http://app.test"
    assert h["access-control-allow-credentials"] == "true"
    assert h["access-control-expose-headers"] == "*"


def test_default_cors_headers_only_safelisted_and_user_values_win(env: Any) -> None:
    env.intercept("/api/users", {"body": "x", "headers": {"content-type": "text/plain",
                                                          "Access-Control-Allow-Origin": "http://x"}})
    ex = env.send(URL)
    h = ex.response.headers
    assert h["Access-Control-Allow-Origin"] == "http://x"
    assert "access-control-allow-origin" not in h
    assert "access-control-expose-headers" in h  # the user's allow-origin is not safelisted


def test_cors_expose_not_added_for_safelisted_headers(env: Any) -> None:
    env.intercept("/api/users", {"body": "x", "headers": {"content-type": "text/plain"}})
    h = env.send(URL).response.headers
    assert h["access-control-allow-origin"] == "*"
    assert "access-control-expose-headers" not in h


def test_preflight_is_answered_automatically(env: Any) -> None:
    env.intercept("POST", "/api/users", {"body": "x"})
    ex = env.send(URL, method="OPTIONS", headers={
        "origin": "http://app.test", "access-control-request-method": "POST",
        "access-control-request-headers": "x-a"})
    r = ex.response
    assert r.status == 204
    assert r.headers == {
        "access-control-max-age": "-1", "access-control-allow-credentials": "true",
        "access-control-allow-origin": "http://app.test", "access-control-allow-methods": "POST",
        "access-control-allow-headers": "x-a",
    }
    assert env.interceptor.requests_log() == []


def test_preflight_left_to_a_route_that_matches_options(env: Any) -> None:
    env.intercept("OPTIONS", "/api/users", {"statusCode": 418})
    ex = env.send(URL, method="OPTIONS", headers={"access-control-request-method": "POST"})
    assert ex.response.status == 418


def test_preflight_skips_disabled_routes(env: Any) -> None:
    env.intercept({"method": "POST", "url": "/api/users", "times": 1}, {"body": "x"})
    env.send(URL, method="POST")
    ex = env.send(URL, method="OPTIONS", headers={"access-control-request-method": "POST"})
    assert ex.calls == ["let_go"]  # down the chain: no route takes it, it goes to the server


def test_delay_and_throttle(env: Any) -> None:
    env.intercept("/api/users", {"body": "x" * 1000, "delay": 50, "throttleKbps": 80})  # 8000 bits / 80000 bit/s = 0.1 s
    start = time.monotonic()
    env.send(URL)
    assert time.monotonic() - start >= 0.14


# -- the chain -------------------------------------------------------------------------------------

def test_newer_route_overrides_older(env: Any) -> None:
    env.intercept("/api/users", "old")
    env.intercept("/api/users", "new")
    assert env.send(URL).response.body == b"new"


def test_middleware_first_in_definition_order_then_newest_first(env: Any) -> None:
    order: list[str] = []
    env.intercept("/api/users", lambda req: order.append("normal-1"))
    env.intercept({"url": "/api/users", "middleware": True}, lambda req: order.append("mw-1"))
    env.intercept("/api/users", lambda req: order.append("normal-2"))
    env.intercept({"url": "/api/users", "middleware": True}, lambda req: order.append("mw-2"))
    env.send(URL)
    assert order == ["mw-1", "mw-2", "normal-2", "normal-1"]


def test_fall_through_to_static_of_an_older_route(env: Any) -> None:
    seen: list[str] = []
    env.intercept("/api/users", "static body")
    env.intercept("/api/users", lambda req: seen.append("handler"))
    ex = env.send(URL)
    assert seen == ["handler"] and ex.response.body == b"static body"


def test_reply_stops_propagation(env: Any) -> None:
    seen: list[str] = []
    env.intercept("/api/users", lambda req: seen.append("older"))
    env.intercept("/api/users", lambda req: req.reply("stub"))
    ex = env.send(URL)
    assert seen == [] and ex.response.body == b"stub"


def test_continue_stops_propagation(env: Any) -> None:
    seen: list[str] = []
    env.intercept("/api/users", lambda req: seen.append("older"))
    env.intercept("/api/users", lambda req: req.continue_())
    ex = env.send(URL)
    assert seen == [] and ex.calls == ["pass_through"]


def test_times_example_3_2_2_1(env: Any) -> None:
    calls = {"third": 0}

    def third(req: Any) -> None:
        calls["third"] += 1

    env.intercept({"url": "/api/users", "times": 3}, "first")
    env.intercept({"url": "/api/users", "times": 2}, "second")
    env.intercept({"url": "/api/users", "times": 2}, third)
    env.intercept({"url": "/api/users", "times": 1}, "fourth")
    env.server(404, "not found")
    bodies = []
    for _ in range(7):
        ex = env.send(URL)
        bodies.append(ex.response.body.decode() if ex.fulfilled else "server")
    assert bodies == ["fourth", "second", "second", "first", "first", "first", "server"]
    assert calls["third"] == 2


def test_times_counts_only_reached_routes(env: Any) -> None:
    older = env.intercept({"url": "/api/users", "times": 1}, "older")
    newer = env.intercept("/api/users", "newer")
    env.send(URL)
    env.send(URL)
    assert older.call_count == 0 and newer.call_count == 2


def test_snapshot_at_arrival(env: Any) -> None:
    release = threading.Event()
    started = threading.Event()

    def slow(req: Any) -> None:
        started.set()
        release.wait(5)

    env.intercept("/api/users", "older")
    env.intercept("/api/users", slow)
    ex, future = env.start(URL)
    assert started.wait(5)
    env.intercept("/api/users", "added later")  # must not affect the request in flight
    release.set()
    future.result(5)
    assert ex.response.body == b"older"
    assert env.send(URL).response.body == b"added later"


def test_records_read_as_they_did_whatever_the_route(env: Any) -> None:
    """A record is built in one store and parses its query when first read; a spied or stubbed
    request keeps its arrival snapshot (nothing changed it), a handled one gets the request as it
    went out: every attribute reads as before, in both spellings."""
    env.intercept("/api/spied*").as_("spied")
    env.intercept("/api/stubbed*", {"body": "ok"}).as_("stubbed")
    env.intercept("/api/handled*", lambda req: req.query.update({"added": "1"})).as_("handled")
    for name in ("spied", "stubbed", "handled"):
        env.send(f"http://localhost:3000/api/{name}?a=1&a=2&b=", headers={"x-one": "1"})
    spied, stubbed, handled = (env.get(f"@{name}") for name in ("spied", "stubbed", "handled"))
    for ic in (spied, stubbed):
        assert ic.request.query == ic.request.query == {"a": ["1", "2"], "b": ""}
        assert ic.request.headers == {"x-one": "1"} and ic.request.alias is None
    assert handled.request.query == {"a": ["1", "2"], "b": "", "added": "1"}
    assert handled.request.url == "http://localhost:3000/api/handled?a=1&a=2&b=&added=1"
    assert spied.request.responseTimeout == spied.request.response_timeout == 3000
    assert spied.request.followRedirect is False and spied.request.resourceType == "xhr"
    assert spied.browserRequestId == spied.browser_request_id and spied.routeIds == [spied.route_id]
    assert spied.response.statusCode == 200 and spied.response.status_message == "OK"
    assert spied.timings["handler"] == 0.0 and spied.requestWaited is False
    spied.request.url = "http://localhost:3000/elsewhere?c=3"  # the query is the one that went out
    assert spied.request.query == {"a": ["1", "2"], "b": ""}
    spied.request.query = {"set": "by a test"}
    assert spied.request.query == {"set": "by a test"}
    stubbed.responseWaited = True  # camelCase stores the snake_case attribute
    assert stubbed.response_waited is True and "responseWaited" not in vars(stubbed)


def test_concurrent_requests_and_a_blocking_handler(env: Any) -> None:
    release = threading.Event()

    def handler(req: Any) -> None:
        if req.url.endswith("slow"):
            release.wait(5)
        req.reply("done")

    env.intercept("/api/*", handler)
    slow_ex, slow = env.start("http://localhost:3000/api/slow")
    fast = env.send("http://localhost:3000/api/fast")  # served while the other handler blocks
    assert fast.response.body == b"done"
    assert not slow.done()
    release.set()
    slow.result(5)
    assert slow_ex.response.body == b"done"


def test_async_handler(env: Any) -> None:
    async def handler(req: Any) -> None:
        await asyncio.sleep(0.01)
        req.reply({"async": True})

    env.intercept("/api/users", handler)
    assert env.send(URL).json == {"async": True}


def test_sync_handler_returning_a_coroutine_is_awaited(env: Any) -> None:
    async def later(req: Any) -> None:
        req.reply("from coroutine")

    env.intercept("/api/users", lambda req: later(req))
    assert env.send(URL).response.body == b"from coroutine"


# -- req attributes and merge rules ---------------------------------------------------------------

def test_req_attributes(env: Any) -> None:
    seen: dict[str, Any] = {}

    def handler(req: Any) -> None:
        seen.update(
            method=req.method, url=req.url, headers=dict(req.headers), body=req.body,
            query=dict(req.query), http_version=req.httpVersion, resource_type=req.resourceType,
            response_timeout=req.responseTimeout, follow_redirect=req.followRedirect, alias=req.alias,
        )

    env.config["responseTimeout"] = 1234
    env.intercept("/api/users*", handler)
    env.send(URL + "?page=2&tag=a&tag=b", method="POST", headers={"content-type": "application/json"},
             body='{"name":"Ada"}', resource_type="fetch")
    assert seen == {
        "method": "POST", "url": URL + "?page=2&tag=a&tag=b",
        "headers": {"content-type": "application/json", "content-length": "14"},  # the body's length
        "body": {"name": "Ada"}, "query": {"page": "2", "tag": ["a", "b"]}, "http_version": "1.1",
        "resource_type": "fetch", "response_timeout": 1234, "follow_redirect": False, "alias": None,
    }


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("application/json", b'{"a":1}', {"a": 1}),
        ("application/vnd.api+json", b'{"a":1}', {"a": 1}),
        ("application/json; charset=utf-8", b"[1]", [1]),
        ("application/json", b"{not json", "{not json"),
        ("text/html", b'{"a":1}', '{"a":1}'),
        ("text/plain", b"hello", "hello"),
        ("application/octet-stream", b"\x00\xff", b"\x00\xff"),
        ("multipart/form-data; boundary=x", b"--x\r\nabc", b"--x\r\nabc"),
        (None, b"", ""),
    ],
)
def test_req_body_decoding(env: Any, content_type: str | None, body: bytes, expected: Any) -> None:
    seen: list[Any] = []
    env.intercept("/api/users", lambda req: seen.append(req.body))
    env.send(URL, method="POST", headers={"content-type": content_type} if content_type else {}, body=body or None)
    assert seen == [expected]


def test_modified_json_body_is_reserialised_and_changes_persist(env: Any) -> None:
    def first(req: Any) -> None:
        assert req.body["name"] == "Ada-2"  # changed by the newer route that ran first
        req.body["age"] = 36

    env.intercept("/api/users", first)
    env.intercept("/api/users", lambda req: req.body.update(name="Ada-2"))
    ex = env.send(URL, method="POST", headers={"content-type": "application/json", "content-length": "14"},
                  body='{"name":"Ada"}')
    sent = ex.passed[0]
    assert json.loads(sent.body) == {"name": "Ada-2", "age": 36}
    assert sent.headers["content-length"] == str(len(sent.body))


@pytest.mark.parametrize(
    ("original_headers", "new_body", "user_length", "expected"),
    [
        ({"content-length": "3"}, "", None, "0"),
        ({"content-length": "3"}, "this is only ascii", None, "18"),
        ({"content-length": "3"}, "🙃🤔", None, "8"),
        ({"content-length": "3"}, "abcdef", "99", "99"),  # the user set it: kept
        ({}, "abcdef", None, None),  # the original had none: none is added
    ],
)
def test_content_length_rules(env: Any, original_headers: dict[str, str], new_body: str,
                              user_length: str | None, expected: str | None) -> None:
    def handler(req: Any) -> None:
        req.body = new_body
        if user_length is not None:
            req.headers["content-length"] = user_length

    env.intercept("/api/users", handler)
    ex = env.send(URL, method="POST", headers={"content-type": "text/plain", **original_headers}, body="abc")
    sent = ex.passed[0]
    assert sent.body == new_body.encode()
    assert sent.headers.get("content-length") == expected


def test_deleted_headers_are_removed_and_method_changes(env: Any) -> None:
    def handler(req: Any) -> None:
        del req.headers["if-none-match"]
        req.method = "PUT"

    env.intercept("/api/users", handler)
    ex = env.send(URL, headers={"if-none-match": "abc", "accept": "*/*"})
    assert ex.passed[0].headers == {"accept": "*/*"}
    assert ex.passed[0].method == "PUT"


@pytest.mark.parametrize(
    ("assigned", "page_url", "expected"),
    [
        ("/other", None, "http://localhost:3000/other"),
        ("other", None, "http://localhost:3000/api/other"),
        ("other", "http://localhost:3000/app/index.html", "http://localhost:3000/app/other"),
        ("http://example.com/x?a=1", None, "http://example.com/x?a=1"),
    ],
)
def test_relative_url_assignment(env: Any, assigned: str, page_url: str | None, expected: str) -> None:
    seen: list[Any] = []

    def handler(req: Any) -> None:
        req.url = assigned
        seen.append(dict(req.query))

    env.intercept("/api/users", handler)
    ex = env.send(URL, page_url=page_url)
    assert ex.passed[0].url == expected
    assert seen == [{"a": "1"} if "a=1" in expected else {}]


def test_query_is_live(env: Any) -> None:
    seen: dict[str, Any] = {}

    def handler(req: Any) -> None:
        req.query["page"] = 3
        req.query["new"] = "yes"
        del req.query["drop"]
        seen["url1"] = req.url
        req.query = {"only": "this"}
        seen["url2"] = req.url
        req.url = URL + "?x=1"
        seen["query3"] = dict(req.query)
        seen["eq"] = req.query == {"x": "1"}

    env.intercept("/api/users*", handler)
    ex = env.send(URL + "?page=1&drop=1")
    assert seen["url1"] == URL + "?page=3&new=yes"
    assert seen["url2"] == URL + "?only=this"
    assert seen["query3"] == {"x": "1"} and seen["eq"]
    assert ex.passed[0].url == URL + "?x=1"


def test_read_only_and_unknown_req_attributes(env: Any) -> None:
    errors: list[str] = []

    def handler(req: Any) -> None:
        for name in ("http_version", "resourceType", "nope"):
            try:
                setattr(req, name, "x")
            except UsageError as err:
                errors.append(str(err))

    env.intercept("/api/users", handler)
    env.send(URL)
    assert errors[0] == "req.http_version is read only."
    assert errors[1] == "req.resource_type is read only."
    assert "req has no property 'nope'" in errors[2]


def test_follow_redirect_and_response_timeout_reach_fetch(env: Any) -> None:
    def handler(req: Any) -> None:
        req.follow_redirect = True
        req.responseTimeout = 777
        req.on("response", lambda res: None)

    env.intercept("/api/users", handler)
    ex = env.send(URL)
    _request, follow, timeout = ex.fetched[0]
    assert follow is True and timeout == 777


def test_default_response_timeout_reaches_fetch(env: Any) -> None:
    env.config["responseTimeout"] = 4321
    env.intercept("/api/users", lambda req: req.continue_(lambda res: None))
    ex = env.send(URL)
    assert ex.fetched[0][1] is False and ex.fetched[0][2] == 4321


# -- req methods -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("args", "kwargs", "status", "body", "headers"),
    [
        (("text",), {}, 200, b"text", {}),
        (({"a": 1},), {}, 200, b'{"a":1}', {"content-type": "application/json"}),
        (([1],), {}, 200, b"[1]", {"content-type": "application/json"}),
        (("text", {"x-a": "1"}), {}, 200, b"text", {"x-a": "1"}),
        ((404,), {}, 404, b"", {}),
        ((404, "gone"), {}, 404, b"gone", {}),
        ((404, {"e": 1}, {"x-a": "1"}), {}, 404, b'{"e":1}', {"x-a": "1", "content-type": "application/json"}),
        (({"statusCode": 201, "body": "made"},), {}, 201, b"made", {}),
        ((), {"status_code": 202, "body": "kw"}, 202, b"kw", {}),
    ],
)
def test_reply_shorthands(env: Any, args: tuple[Any, ...], kwargs: dict[str, Any], status: int,
                          body: bytes, headers: dict[str, str]) -> None:
    env.intercept("/api/users", lambda req: req.reply(*args, **kwargs))
    r = env.send(URL).response
    assert r.status == status and r.body == body
    for key, value in headers.items():
        assert r.headers[key] == value


def test_reply_without_arguments_sends_upstream_as_modified(env: Any) -> None:
    def handler(req: Any) -> None:
        req.headers["x-a"] = "1"
        req.reply()

    env.intercept("/api/users", lambda req: pytest.fail("not reached"))
    env.intercept("/api/users", handler)
    ex = env.send(URL)
    assert ex.calls == ["pass_through"] and ex.passed[0].headers["x-a"] == "1"


def test_reply_with_a_function_is_continue_with_callback(env: Any) -> None:
    seen: list[int] = []
    env.intercept("/api/users", lambda req: req.reply(lambda res: seen.append(res.status_code)))
    env.send(URL)
    assert seen == [200]


def test_redirect_and_destroy(env: Any) -> None:
    env.intercept("/api/a", lambda req: req.redirect("/elsewhere"))
    env.intercept("/api/b", lambda req: req.redirect("/elsewhere", 301))
    env.intercept("/api/c", lambda req: req.destroy())
    a = env.send("http://localhost:3000/api/a").response
    assert a.status == 302 and a.headers["location"] == "/elsewhere"
    assert env.send("http://localhost:3000/api/b").response.status == 301
    assert env.send("http://localhost:3000/api/c").calls == ["fail"]
    assert env.errors == []


def test_continue_with_non_callable(env: Any) -> None:
    errors: list[str] = []

    def handler(req: Any) -> None:
        try:
            req.continue_(5)
        except UsageError as err:
            errors.append(str(err))

    env.intercept("/api/users", handler)
    env.send(URL)
    assert errors == ["`req.continue()` requires the parameter to be a function. You passed: 5"]


def test_on_misuse(env: Any) -> None:
    errors: list[str] = []

    def handler(req: Any) -> None:
        for args in (("nope", lambda res: None), ("response", 5)):
            try:
                req.on(*args)
            except UsageError as err:
                errors.append(str(err))
        assert req.on("response", lambda res: None) is req

    env.intercept("/api/users", handler)
    env.send(URL)
    assert errors == [
        'An invalid event name was passed as the first parameter to `req.on()`. Valid event names are: '
        '["before:response", "response", "after:response"] You passed: "nope"',
        "`req.on()` requires the second parameter to be a function.",
    ]


@pytest.mark.parametrize(
    ("calls", "message"),
    [
        (("reply", "reply"), "`req.reply()` and/or `req.continue()` were called to signal request completion multiple times, but a request can only be completed once."),
        (("reply", "continue_"), "multiple times"),
        (("continue_", "continue_"), "multiple times"),
    ],
)
def test_completing_twice(env: Any, calls: tuple[str, str], message: str) -> None:
    caught: list[BaseException] = []

    def handler(req: Any) -> None:
        getattr(req, calls[0])()
        try:
            getattr(req, calls[1])()
        except InterceptError as err:
            caught.append(err)

    env.intercept("/api/users", handler)
    env.send(URL)
    assert len(caught) == 1 and message in str(caught[0])
    assert env.errors == caught  # reported too: it fails the test


def test_completing_after_the_handler_returned(env: Any) -> None:
    kept: list[Any] = []
    env.intercept("/api/users", lambda req: kept.append(req))
    env.send(URL)
    with pytest.raises(InterceptError, match=r"^`req.reply\(\)` was called after the request handler finished executing, but `req.reply\(\)` can not be called after the request has already completed.$"):
        kept[0].reply("late")
    with pytest.raises(InterceptError, match=r"`req.continue\(\)` was called after the request handler finished"):
        kept[0].continue_()
    assert len(env.errors) == 2


def test_handler_exception_fails_test_and_request(env: Any) -> None:
    def handler(req: Any) -> None:
        raise ValueError("boom")

    env.intercept("/api/users", handler).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]
    err = env.errors[0]
    assert isinstance(err, InterceptError) and isinstance(err.__cause__, ValueError)
    text = str(err)
    assert "An error was thrown in a request handler passed to `runner.intercept()`: ValueError: boom" in text
    assert 'Route: {"url": "/api/users"}' in text and f"Intercepted request: GET {URL}" in text
    assert env.get("@a").state is InterceptionState.ERRORED


def test_async_handler_exception(env: Any) -> None:
    async def handler(req: Any) -> None:
        raise KeyError("k")

    env.intercept("/api/users", handler)
    ex = env.send(URL)
    assert ex.calls == ["fail"] and isinstance(env.errors[0].__cause__, KeyError)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_handler_timeout(env: Any, kind: str) -> None:
    env.config["defaultCommandTimeout"] = 50
    release = threading.Event()

    def blocking(req: Any) -> None:
        release.wait(5)

    async def slow(req: Any) -> None:
        await asyncio.sleep(5)

    env.intercept("/api/users", blocking if kind == "sync" else slow).as_("a")
    try:
        ex = env.send(URL)
    finally:
        release.set()
    assert ex.calls == ["fail"]
    text = env.messages[0]
    assert "timed out after taking more than the `defaultCommandTimeout` of `50ms`" in text
    assert "Route: " in text and "Intercepted request: GET" in text
    assert env.get("@a").state is InterceptionState.ERRORED


def test_routes_table_and_requests_log(env: Any) -> None:
    env.intercept("GET", "/api/users", {"body": "x"}).as_("users")
    env.intercept({"url": "/api/*", "middleware": True, "times": 5}, lambda req: None)
    env.send(URL)
    table = env.interceptor.routes_table()
    assert [(r["method"], r["stubbed"], r["handler"], r["alias"], r["matches"], r["middleware"]) for r in table] == [
        ("GET", True, "static", "users", 1, False), ("*", False, "function", None, 1, True),
    ]
    assert table[0]["matcher"] == '{"method": "GET", "url": "/api/users"}'
    log = env.interceptor.requests_log()
    assert len(log) == 1
    row = log[0]
    assert row["method"] == "GET" and row["url"] == URL and row["stubbed"] is True
    assert row["status"] == 200 and row["error"] is None and row["aliases"] == ["users"]
    assert row["route_ids"] == [table[1]["id"], table[0]["id"]]
    assert row["duration_ms"] is not None


def test_invalid_reply_is_reported_with_req_reply_in_the_message(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.reply({"statusCode": 0})).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]
    text = env.messages[0]
    assert "An invalid StaticResponse was supplied to `req.reply()`. `statusCode` must be a number between 100 and 999 (inclusive). You passed: {\"statusCode\": 0}" in text
    assert isinstance(env.errors[0], InterceptError)


def test_null_json_fixture_is_served_as_an_empty_json_string(env: Any) -> None:
    env.fixtures["empty.json"] = b"null"
    env.intercept("/api/users", {"fixture": "empty.json"})
    r = env.send(URL).response
    assert r.body == b'""' and r.headers["content-type"] == "application/json"


def test_fixture_with_an_encoding_is_decoded_and_sent_as_text(env: Any) -> None:
    env.fixtures["latin.txt"] = "café".encode("latin-1")
    env.intercept("/api/a", {"fixture": "latin.txt,latin1"})
    env.intercept("/api/b", {"fixture": "latin.txt,null"})
    env.intercept("/api/c", {"fixture": "latin.txt,nonsense"})
    a = env.send("http://localhost:3000/api/a").response
    assert a.body == "café".encode() and a.headers["content-type"] == "text/plain; charset=utf-8"
    assert env.send("http://localhost:3000/api/b").response.body == "café".encode("latin-1")
    c = env.send("http://localhost:3000/api/c")
    assert c.calls == ["fail"] and "nonsense" in str(env.errors[-1])


def test_empty_static_response_is_an_empty_200_and_log_only_passes_through(env: Any) -> None:
    env.intercept("/api/a", {})
    env.intercept("/api/b", {"log": False})
    a = env.send("http://localhost:3000/api/a")
    assert a.calls == ["fulfill"] and (a.response.status, a.response.body) == (200, b"")
    assert env.send("http://localhost:3000/api/b").calls == ["pass_through"]


def test_engine_never_raises_and_always_answers(env: Any) -> None:
    class Broken:
        async def pass_through(self, request: Any) -> Any:
            raise RuntimeError("adapter bug")

        async def fail(self, reason: str) -> None:
            self.failed = reason

    from runner.net import HttpRequest

    env.intercept("/api/users").as_("a")
    broken = Broken()
    raw = HttpRequest(id="x", method="GET", url=URL, headers={}, body=None, resource_type="xhr")
    env.lt.run(env.interceptor.handle(raw, broken))
    assert broken.failed == "failed"
    assert "interception engine failed" in env.messages[0]


def test_times_race_two_requests_for_the_last_use(env: Any) -> None:
    barrier = threading.Barrier(2, timeout=5)
    env.intercept("/api/users", "fallback")
    env.intercept({"url": "/api/users", "times": 1}, "once")
    env.intercept({"url": "/api/users", "middleware": True}, lambda req: barrier.wait())
    (ex1, f1), (ex2, f2) = env.start(URL), env.start(URL)
    f1.result(5)
    f2.result(5)
    assert sorted([ex1.response.body, ex2.response.body]) == [b"fallback", b"once"]


def test_state_sequence(env: Any) -> None:
    seen: list[str] = []
    env.intercept("/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    original = env.interceptor._registry.set_state

    def spy(ic: Any, state: Any) -> None:
        seen.append(state.value)
        original(ic, state)

    env.interceptor._registry.set_state = spy
    env.send(URL)
    assert seen == ["Intercepted", "ResponseReceived", "ResponseIntercepted", "Complete"]
    assert env.get("@a").state == "Complete"
