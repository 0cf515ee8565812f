"""The response phase: event order, res API, send merge rules, errors (3.2, 1c.3-1c.5, 6.1)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from runner.errors import InterceptError, UsageError
from runner.net import InterceptionState, UpstreamError

URL = "http://localhost:3000/api/users"


def test_observed_event_order(env: Any) -> None:
    order: list[str] = []

    def middleware(req: Any) -> None:
        order.append("mw request")
        req.on("before:response", lambda res: order.append("mw before:response"))
        req.on("response", lambda res: order.append("mw response"))
        req.on("after:response", lambda res: order.append("mw after:response"))

    def normal(req: Any) -> None:
        order.append("normal request")
        req.reply(lambda res: order.append("normal callback"))

    env.intercept({"url": "/api/users", "middleware": True}, middleware)
    env.intercept("/api/users", normal)
    env.send(URL)
    assert order == ["mw request", "normal request", "mw before:response", "normal callback",
                     "mw response", "mw after:response"]


def test_per_event_routes_in_chain_order_and_registration_order(env: Any) -> None:
    order: list[str] = []

    def older(req: Any) -> None:
        req.on("response", lambda res: order.append("older response"))
        req.on("before:response", lambda res: order.append("older before 1"))
        req.on("before:response", lambda res: order.append("older before 2"))

    def newer(req: Any) -> None:
        req.on("response", lambda res: order.append("newer response"))
        req.on("before:response", lambda res: order.append("newer before"))

    env.intercept("/api/users", older)
    env.intercept("/api/users", newer)
    env.send(URL)
    assert order == ["newer before", "older before 1", "older before 2", "newer response", "older response"]


def test_send_stops_all_remaining_events(env: Any) -> None:
    order: list[str] = []

    def handler(req: Any) -> None:
        req.on("before:response", lambda res: (order.append("before"), res.send("sent")))
        req.on("response", lambda res: order.append("response"))
        req.on("after:response", lambda res: order.append("after"))
        req.continue_(lambda res: order.append("callback"))

    env.intercept("/api/users", handler)
    ex = env.send(URL)
    assert order == ["before", "after"]  # after:response still runs: the response was sent
    assert ex.response.body == b"sent"


def test_res_attributes_and_modification(env: Any) -> None:
    seen: dict[str, Any] = {}

    def callback(res: Any) -> None:
        seen.update(status=res.statusCode, message=res.status_message, body=dict(res.body),
                    headers=dict(res.headers), url=res.url)
        res.status_code = 201
        res.headers["x-added"] = "1"
        res.body["extra"] = True

    env.server(200, {"a": 1}, {"x-orig": "o"})
    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    ex = env.send(URL)
    assert seen == {"status": 200, "message": "OK", "body": {"a": 1},
                    "headers": {"content-type": "application/json", "x-orig": "o", "content-length": "8"}, "url": URL}
    assert ex.response.status == 201
    assert json.loads(ex.response.body) == {"a": 1, "extra": True}
    assert ex.response.headers["x-added"] == "1" and ex.response.headers["x-orig"] == "o"
    ic = env.get("@a")
    assert ic.response.body == {"a": 1, "extra": True} and ic.response.status_code == 201
    assert ic.state is InterceptionState.COMPLETE


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"content-type": "application/json"}, b'{"a":1}', {"a": 1}),
        ({"content-type": "application/hal+json"}, b'{"a":1}', {"a": 1}),
        ({"content-type": "application/json"}, b"{bad", "{bad"),
        ({}, b'{"a":1}', '{"a":1}'),  # no content-type: a string even if it is JSON
        ({"content-type": "image/png"}, b"\x89PNG\x00", b"\x89PNG\x00"),
    ],
)
def test_res_body_decoding(env: Any, headers: dict[str, str], body: bytes, expected: Any) -> None:
    seen: list[Any] = []
    env.server(200, body, headers)
    env.intercept("/api/users", lambda req: req.continue_(lambda res: seen.append(res.body)))
    ex = env.send(URL)
    assert seen == [expected]
    assert ex.response.body == body  # unchanged: the original bytes go to the page


def test_head_and_304_have_no_body(env: Any) -> None:
    seen: list[Any] = []
    env.server(304, b"ignored", {"etag": "x"})
    env.intercept("/api/users", lambda req: req.continue_(lambda res: seen.append(res.body)))
    ex = env.send(URL)
    assert seen == [""] and ex.response.body == b""


@pytest.mark.parametrize(
    ("args", "status", "body", "headers"),
    [
        ((), 200, b'{"orig": 1}', {"x-foo": "bar", "content-type": "application/json"}),
        ((777,), 777, b'{"orig": 1}', {"x-foo": "bar", "content-type": "application/json"}),
        ((777, {"bar": "baz"}, {"x-quux": "quuz"}), 777, b'{"bar":"baz"}',
         {"x-foo": "bar", "x-quux": "quuz", "content-type": "application/json"}),
        (("text",), 200, b"text", {"x-foo": "bar"}),
        (({"statusCode": 500, "headers": {"x-foo": "user"}},), 500, b'{"orig": 1}', {"x-foo": "user"}),
    ],
)
def test_send_merges_with_the_real_response(env: Any, args: tuple[Any, ...], status: int, body: bytes,
                                             headers: dict[str, str]) -> None:
    env.server(200, {"orig": 1}, {"x-foo": "bar"})
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.send(*args)))
    r = env.send(URL).response
    assert r.status == status and r.body == body
    for key, value in headers.items():
        assert r.headers[key] == value


def test_send_object_body_sets_json_content_type(env: Any) -> None:
    env.server(200, "<xml/>", {"content-type": "application/xml"})
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.send({"body": {"a": 1}})))
    r = env.send(URL).response
    assert r.headers["content-type"] == "application/json" and r.body == b'{"a":1}'


def test_send_fixture_keeps_the_original_content_type(env: Any) -> None:
    env.fixtures["data.json"] = b'{"f":1}'
    env.server(200, "<xml/>", {"content-type": "application/xml"})
    env.intercept("/api/a", lambda req: req.continue_(lambda res: res.send({"fixture": "data.json"})))
    env.intercept("/api/b", lambda req: req.continue_(
        lambda res: res.send({"fixture": "data.json", "headers": {"content-type": "application/json"}})))
    a = env.send("http://localhost:3000/api/a").response
    assert a.headers["content-type"] == "application/xml" and a.body == b'{"f":1}'
    b = env.send("http://localhost:3000/api/b").response
    assert b.headers["content-type"] == "application/json"


def test_deleting_content_type(env: Any) -> None:
    env.server(200, "x", {"content-type": "text/plain"})
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.headers.pop("content-type")))
    assert "content-type" not in env.send(URL).response.headers


def test_content_encoding_dropped_and_length_recomputed(env: Any) -> None:
    env.server(200, "short", {"content-type": "text/plain", "content-encoding": "gzip", "content-length": "5"})

    def callback(res: Any) -> None:
        res.body = "a longer body"

    env.intercept("/api/users", lambda req: req.continue_(callback))
    h = env.send(URL).response.headers
    assert "content-encoding" not in h and h["content-length"] == "13"


def test_set_delay_and_throttle_chainable(env: Any) -> None:
    seen: list[Any] = []

    def callback(res: Any) -> None:
        assert res.set_delay(10).setThrottle(1000) is res
        seen.append((res.delay, res.throttleKbps))
        for bad in (lambda: res.set_delay(-1), lambda: res.set_throttle(float("inf"))):
            try:
                bad()
            except UsageError:
                seen.append("error")

    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    env.send(URL)
    assert seen == [(10, 1000), "error", "error"]
    assert env.get("@a").response.delay == 10


def test_send_values_win_over_set_delay(env: Any) -> None:
    def callback(res: Any) -> None:
        res.set_delay(1000)
        res.send({"delay": 0})

    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    env.send(URL)
    assert env.get("@a").response.delay == 0


def test_after_response_modifications_ignored_and_no_send(env: Any) -> None:
    errors: list[str] = []

    def after(res: Any) -> None:
        res.body = "changed"
        try:
            res.send("x")
        except UsageError as err:
            errors.append(str(err))

    env.server(200, "orig", {"content-type": "text/plain"})
    env.intercept("/api/users", lambda req: req.on("after:response", after)).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fulfill"]
    assert ex.response.body == b"orig"
    assert env.get("@a").response.body == "orig"
    assert errors and "not available in an `after:response` handler" in errors[0]


def test_send_twice_and_after_return(env: Any) -> None:
    kept: list[Any] = []
    caught: list[str] = []

    def callback(res: Any) -> None:
        kept.append(res)
        res.send()
        try:
            res.send()
        except InterceptError as err:
            caught.append(str(err))

    env.intercept("/api/users", lambda req: req.continue_(callback))
    env.send(URL)
    assert caught[0].startswith("`res.send()` was called multiple times in a response handler, but the response can only be sent once. Response: 200 ")
    with pytest.raises(InterceptError, match=r"`res.send\(\)` was called after the response handler finished executing, but `res.send\(\)` can not be called after the response has been passed on."):
        kept[0].send()
    assert len(env.errors) == 2


def test_response_handler_exception(env: Any) -> None:
    def callback(res: Any) -> None:
        raise RuntimeError("bad")

    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert "An error was thrown in a response handler (response:callback): RuntimeError: bad" in env.messages[0]
    assert isinstance(env.errors[0].__cause__, RuntimeError)
    assert env.get("@a").state is InterceptionState.ERRORED


def test_response_handler_timeout(env: Any) -> None:
    env.config["defaultCommandTimeout"] = 50

    async def slow(res: Any) -> None:
        await asyncio.sleep(5)

    env.intercept("/api/users", lambda req: req.on("response", slow))
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert "A response handler (response) timed out after taking more than the `defaultCommandTimeout` of `50ms`" in env.messages[0]
    assert "Intercepted response: 200 " in env.messages[0]


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (UpstreamError("net::ERR_CONNECTION_REFUSED"),
         "A callback was provided to intercept the upstream response, but a network error occurred while making the request:\n\nnet::ERR_CONNECTION_REFUSED"),
        (UpstreamError("Timeout 100ms exceeded", timed_out=True),
         "A callback was provided to intercept the upstream response, but the request timed out after the `responseTimeout` of `3000ms`."),
    ],
)
def test_upstream_error_with_a_response_callback(env: Any, error: UpstreamError, fragment: str) -> None:
    env.server(error=error)
    env.intercept("/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert fragment in env.messages[0]
    assert "Route: " in env.messages[0]
    ic = env.get("@a")
    assert ic.state is InterceptionState.ERRORED and ic.response is None
    assert ic.error.message == ("The server did not answer within the `responseTimeout` of `3000ms`."
                                if error.timed_out else error.message)


def test_upstream_error_without_callback_is_only_recorded(env: Any) -> None:
    env.server(error=UpstreamError("net::ERR_CONNECTION_REFUSED"))
    env.intercept("/api/users").as_("a")
    ex = env.send(URL)
    assert ex.calls == ["pass_through"]
    assert env.errors == []
    ic = env.wait("@a")
    assert ic.state is InterceptionState.ERRORED and ic.error.message == "net::ERR_CONNECTION_REFUSED"


def test_upstream_error_with_only_after_response_is_only_recorded(env: Any) -> None:
    env.server(error=UpstreamError("refused"))
    env.intercept("/api/users", lambda req: req.on("after:response", lambda res: None))
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"] and env.errors == []


def test_async_response_handler_and_blocking_sync_one(env: Any) -> None:
    release = threading.Event()

    async def modify(res: Any) -> None:
        await asyncio.sleep(0.01)
        res.body = "async changed"

    def blocking(res: Any) -> None:
        release.wait(5)

    env.intercept("/api/a", lambda req: req.continue_(modify))
    env.intercept("/api/b", lambda req: req.continue_(blocking))
    slow_ex, slow = env.start("http://localhost:3000/api/b")
    assert env.send("http://localhost:3000/api/a").response.body == b"async changed"
    release.set()
    slow.result(5)
    assert slow_ex.calls == ["fetch", "fulfill"]


def test_invalid_send_names_res_send(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.send({"delay": -1})))
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert "An invalid StaticResponse was supplied to `res.send()`. `delay` must be a finite, positive number. You passed: {\"delay\": -1}" in env.messages[0]


def test_send_keyword_form_and_status_message(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.send(status_code=404, body="no")))
    env.intercept("/api/users", lambda req: None).as_("a")
    r = env.send(URL).response
    assert r.status == 404 and r.body == b"no" and r.status_text == "Not Found"


def test_send_force_network_error(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.continue_(lambda res: res.send({"forceNetworkError": True}))).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    ic = env.get("@a")
    assert ic.state is InterceptionState.ERRORED and ic.error.message == "forceNetworkError called"
    assert env.errors == []


def test_log_is_refused_in_reply(env: Any) -> None:
    errors: list[str] = []

    def handler(req: Any) -> None:
        try:
            req.reply({"body": "x", "log": False})
        except UsageError as err:
            errors.append(str(err))

    env.intercept("/api/users", handler)
    env.send(URL)
    assert "`log` can only be given when defining the route with `runner.intercept()`, not in `req.reply()`" in errors[0]


# -- headers the HTTP grammar forbids: refused at the call, the page still answered ------------------

BAD_HEADERS = [
    ({"x bad": "1"}, "The header name 'x bad' is not a valid HTTP field name"),
    ({"x-a": "1\r\nset-cookie: a=b"}, "The value of the header `x-a` contains a carriage return"),
    ({"": "1"}, "The header name '' is not a valid HTTP field name"),
]


@pytest.mark.parametrize(("headers", "fragment"), BAD_HEADERS)
def test_req_reply_with_a_bad_header_is_a_usage_error_and_a_network_error(
    env: Any, headers: dict[str, str], fragment: str
) -> None:
    raised: list[BaseException] = []

    def handler(req: Any) -> None:
        try:
            req.reply(200, "body", headers)
        except UsageError as err:
            raised.append(err)
            raise

    env.intercept("/api/users", handler).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]  # answered with a network error, not left waiting
    assert len(raised) == 1 and fragment in str(raised[0])
    assert str(raised[0]).startswith("An invalid StaticResponse was supplied to `req.reply()`.")
    assert env.errors[0].__cause__ is raised[0]  # the test fails with it
    assert env.get("@a").state is InterceptionState.ERRORED


@pytest.mark.parametrize(("headers", "fragment"), BAD_HEADERS)
def test_res_send_with_a_bad_header_is_a_usage_error_and_a_network_error(
    env: Any, headers: dict[str, str], fragment: str
) -> None:
    raised: list[BaseException] = []

    def callback(res: Any) -> None:
        try:
            res.send({"headers": headers})
        except UsageError as err:
            raised.append(err)
            raise

    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert len(raised) == 1 and fragment in str(raised[0])
    assert str(raised[0]).startswith("An invalid StaticResponse was supplied to `res.send()`.")
    assert env.errors[0].__cause__ is raised[0]


def test_req_redirect_to_a_location_with_a_newline_is_refused(env: Any) -> None:
    env.intercept("/api/users", lambda req: req.redirect("/next\r\nx-injected: 1")).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]
    assert "The value of the header `location` contains a carriage return" in env.messages[0]


def test_a_bad_header_set_on_res_headers_fails_the_request(env: Any) -> None:
    def callback(res: Any) -> None:
        res.headers["x bad"] = "1"

    env.intercept("/api/users", lambda req: req.continue_(callback)).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fetch", "fail"]
    assert "A response handler set an invalid response header. The header name 'x bad'" in env.messages[0]
    assert env.get("@a").state is InterceptionState.ERRORED


def test_a_bad_header_set_on_req_headers_fails_the_request(env: Any) -> None:
    def handler(req: Any) -> None:
        req.headers["x-a"] = "1\nx-b: 2"

    env.intercept("/api/users", handler).as_("a")
    ex = env.send(URL)
    assert ex.calls == ["fail"]  # never sent upstream
    assert env.upstream.received == []
    assert "set an invalid request header. The value of the header `x-a` contains a line feed" in env.messages[0]
