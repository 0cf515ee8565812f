"""Interception details that follow the original exactly (issue 14), on a real Chromium."""

from __future__ import annotations

import json

import pytest
from tests.support.page_fetch import fetch, open_page

from runner import CommandError, InterceptError


def test_an_alias_waited_on_does_not_use_up_the_request_for_another_alias(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/**").as_("any")
    runner.intercept("/echo/users").as_("users")
    assert fetch(runner, "/echo/users")["status"] == 200
    first = runner.wait("@users")
    assert runner.wait("@any") is first  # today's second wait used to time out


def test_two_routes_sharing_an_alias_yield_requests_in_arrival_order(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/a").as_("pool")
    runner.intercept("/echo/b").as_("pool")
    for path in ("/echo/b", "/echo/a", "/echo/b"):
        fetch(runner, path)
    paths = [runner.wait("@pool").request.url.rsplit("/", 1)[1] for _ in range(3)]
    assert paths == ["b", "a", "b"]


def test_an_empty_dict_is_an_empty_200(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/empty", {}).as_("empty")
    result = fetch(runner, "/echo/empty")
    assert (result["status"], result["text"]) == (200, "")
    assert runner.wait("@empty").stubbed is True
    assert not [r for r in server.received if r["path"] == "/echo/empty"]


def test_bytes_stay_bytes(runner, server):
    open_page(runner, server)
    runner.intercept("/stub/bytes", {"body": b"\x01\x02\x03"}).as_("stub")
    seen = {}
    runner.intercept("POST", "/echo/upload", lambda req: seen.update(body=req.body)).as_("upload")
    fetch(runner, "/stub/bytes")
    assert runner.wait("@stub").response.body == b"\x01\x02\x03"
    runner._ctx.run(runner._ctx.browser.page.evaluate(
        "fetch('/echo/upload', {method: 'POST', body: new Uint8Array([0, 1, 2, 255])})"))
    assert runner.wait("@upload").request.body == b"\x00\x01\x02\xff"
    assert seen["body"] == b"\x00\x01\x02\xff"


def test_a_null_json_fixture_is_an_empty_json_string(runner, server, tmp_path):
    open_page(runner, server)
    runner.intercept("/api/null", {"fixture": "null.json"})
    result = fetch(runner, "/api/null")
    assert result["text"] == '""' and json.loads(result["text"]) == ""


def test_a_fixture_read_with_an_encoding_is_sent_as_text(runner, server):
    open_page(runner, server)
    runner.intercept("/api/latin", {"fixture": "latin1.txt,latin1"})
    runner.intercept("/api/raw", {"fixture": "latin1.txt,null"})
    assert fetch(runner, "/api/latin")["text"] == "Café crème\n"
    assert "\ufffd" in fetch(runner, "/api/raw")["text"]  # the bytes as they are: not UTF-8


def test_handlers_see_the_content_length_of_the_body_they_are_given(runner, server):
    open_page(runner, server)
    seen = {}

    def on_request(req):
        seen["request"] = req.headers.get("content-length")
        req.continue_(lambda res: seen.update(response=res.headers.get("content-length"), body=res.body))

    runner.intercept("POST", "/status/200", on_request).as_("len")
    fetch(runner, "/status/200", {"method": "POST", "body": "twelve chars"})
    runner.wait("@len")
    assert seen == {"request": "12", "response": "10", "body": "status 200"}


def test_a_relative_url_whose_query_holds_a_scheme_is_still_relative(runner):
    runner.visit("/index.html?next=http://x.test/y")
    assert runner.url().endswith("/index.html?next=http://x.test/y")
    assert runner.url().startswith("http://127.0.0.1:")


def test_wait_times_out_on_the_second_request_only(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/once").as_("once")
    fetch(runner, "/echo/once")
    runner.wait("@once")
    try:
        runner.wait("@once", timeout=200)
    except CommandError as err:
        assert "2nd request" in str(err)
    else:
        raise AssertionError("the second wait should have timed out")


def test_intercepted_requests_are_in_the_command_log_unless_log_is_false(runner, server):
    open_page(runner, server)
    runner.intercept("/echo/seen").as_("seen")
    runner.intercept("/echo/quiet", {"body": "hush", "log": False}).as_("quiet")
    fetch(runner, "/echo/seen")
    fetch(runner, "/echo/quiet")
    runner.wait(["@seen", "@quiet"])
    lines = [e.message for e in runner._ctx.log if e.name == "request"]
    assert len(lines) == 1, lines
    assert lines[0].startswith("(fetch) GET 200 http://127.0.0.1:") and lines[0].endswith("/echo/seen @seen to the server")
    # still in the requests table: only the command log leaves it out
    table = runner._interceptor_getter().requests_log()
    assert [row["log"] for row in table] == [True, False]


def test_response_timeout_cuts_a_request_going_to_the_server(runner, server):
    open_page(runner, server)
    runner.intercept("/slow*", lambda req: setattr(req, "response_timeout", 200)).as_("sluggish")
    result = fetch(runner, "/slow?ms=2000")
    assert "error" in result  # the page saw a network error
    interception = runner.wait("@sluggish")
    assert interception.state == "Errored"
    assert interception.error.message == "The server did not answer within the `responseTimeout` of `200ms`."


def test_a_request_the_page_abandons_ends_errored(runner, server):
    open_page(runner, server)
    runner.intercept("/api/late", {"body": "late", "delay": 400}).as_("late")
    runner._ctx.run(runner._ctx.browser.page.evaluate(
        """() => { const c = new AbortController();
                   fetch('/api/late', {signal: c.signal}).catch(() => {});
                   setTimeout(() => c.abort(), 50); }"""))
    interception = runner.wait("@late")
    assert interception.state == "Errored" and "abandoned" in interception.error.message


def test_a_response_from_the_server_keeps_exactly_its_headers(runner, server):
    open_page(runner, server)
    runner.intercept("/api/stub", "x")  # a stub: the page is routed, so the spy below is held
    runner.intercept("/status/200").as_("plain")
    result = fetch(runner, "/status/200", {"headers": {"x-ask": "1"}})
    assert result["status"] == 200
    headers = runner.wait("@plain").response.headers
    assert not [h for h in headers if h.startswith("access-control-")]
    assert not [h for h in result["headers"] if h.startswith("access-control-")]


def test_the_hop_after_a_redirect_is_matched_and_recorded(runner, server):
    open_page(runner, server)
    runner.intercept("/api/stub", "x")  # the page is routed
    runner.intercept({"pathname": "/redirect"}, lambda req: None).as_("hop1")  # a handler passes it on
    runner.intercept("/echo/next").as_("hop2")
    result = fetch(runner, "/redirect?to=/echo/next")
    assert result["status"] == 200 and json.loads(result["text"])["path"] == "/echo/next"
    first = runner.wait("@hop1")
    assert first.response.status_code == 302  # the server's redirect, as it sent it
    second = runner.wait("@hop2")
    assert second.request.url.endswith("/echo/next") and second.response.status_code == 200
    sent = [r["path"] for r in server.received if r["path"] not in ("/app", "/favicon.ico")]
    assert sent == ["/redirect?to=/echo/next", "/echo/next"]  # each hop reached the server once


def test_a_stub_cannot_take_over_a_redirect_hop_and_says_nothing_false(runner, server):
    open_page(runner, server)
    runner.intercept({"pathname": "/redirect"}, lambda req: None)
    runner.intercept("/echo/next", {"body": "stubbed"}).as_("next")
    result = fetch(runner, "/redirect?to=/echo/next")
    # Playwright does not route the hop after a redirect: the server answers it, and the record
    # says so (matched, not stubbed)
    assert json.loads(result["text"])["path"] == "/echo/next"
    interception = runner.wait("@next")
    assert interception.stubbed is False and interception.response.status_code == 200


def test_a_spy_records_the_304_the_server_sent(runner, server):
    def etagged(h):
        if h.headers.get("If-None-Match") == '"v1"':
            h.send(304, b"", headers={"ETag": '"v1"'})
        else:
            h.send(200, {"fresh": True}, headers={"ETag": '"v1"', "Cache-Control": "no-cache"})

    server.route("/api/etag", etagged)
    open_page(runner, server)
    runner.intercept("/api/etag").as_("etag")  # a spy only: the page is watched, its cache on
    first = fetch(runner, "/api/etag")
    second = fetch(runner, "/api/etag")
    assert (first["status"], second["status"]) == (200, 200)  # the page gets the cached copy
    assert runner.wait("@etag").response.status_code == 200
    assert runner.wait("@etag").response.status_code == 304  # what the server answered
    assert [r["headers"].get("if-none-match") for r in server.received if r["path"] == "/api/etag"] == [None, '"v1"']


def _cors_server_routes(server):
    """/cors/open allows a cross-origin PUT with x-custom; /cors/closed answers its preflight
    without any CORS header (a real browser refuses the PUT)."""
    def open_(h):
        allow = {"Access-Control-Allow-Origin": "*"}
        if h.command == "OPTIONS":
            h.send(204, b"", headers={**allow, "Access-Control-Allow-Methods": "PUT",
                                      "Access-Control-Allow-Headers": "x-custom"})
        else:
            h.send(200, "put ok", headers=allow, content_type="text/plain")

    server.route("/cors/open", open_)
    server.route("/cors/closed", lambda h: h.send(200 if h.command == "OPTIONS" else 201, "closed",
                                                  content_type="text/plain"))
    return f"http://localhost:{server.port}"  # another origin than the page's 127.0.0.1


_PUT = {"method": "PUT", "headers": {"x-custom": "1"}, "body": "x"}


def _preflights(server, path):
    return [r for r in server.received if r["method"] == "OPTIONS" and r["path"] == path]


def test_a_preflight_no_route_matches_goes_to_the_server_while_the_page_is_routed(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept("/unrelated", {"body": "stub"})  # the page is routed
    guard = runner._ctx.browser.preflights
    before = guard.preflights
    refused = fetch(runner, other + "/cors/closed", _PUT)
    assert "error" in refused, refused  # as without runner: the server's preflight answer refuses it
    assert _preflights(server, "/cors/closed")
    assert not [r for r in server.received if r["method"] == "PUT"]  # the PUT never left the browser
    allowed = fetch(runner, other + "/cors/open", _PUT)
    assert (allowed.get("status"), allowed.get("text")) == (200, "put ok")
    assert _preflights(server, "/cors/open")[0]["headers"]["access-control-request-method"] == "PUT"
    assert guard.armed and guard.preflights - before == 2


@pytest.mark.parametrize("route", ["/api/*", "{origin}/api/*", {"pathname": "/api/users"}],
                         ids=["relative-path", "absolute-same-origin", "pathname-matcher"])
def test_a_page_routed_only_for_its_own_origin_still_gets_the_servers_answer_to_a_cross_origin_preflight(
        runner, server, route):
    # Playwright answers every preflight of a routed page, allowing everything: whatever the
    # routes can match, only the guard keeps the server's refusal (issue 26 asked whether a
    # same-origin route could do without it; it cannot)
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept(route.format(origin=server.url) if isinstance(route, str) else route, {"body": "stub"})
    guard = runner._ctx.browser.preflights
    before = guard.preflights if guard is not None else 0
    refused = fetch(runner, other + "/cors/closed", _PUT)
    assert "error" in refused, refused
    assert len(_preflights(server, "/cors/closed")) == 1  # the server answered it, not Playwright
    assert not [r for r in server.received if r["method"] == "PUT"]
    assert guard is not None and guard.armed and guard.preflights - before == 1
    assert fetch(runner, "/api/users").get("text") == "stub"  # the same-origin stub, past the guard


def test_an_options_route_takes_over_the_preflight_and_can_refuse_the_request(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept("OPTIONS", other + "/cors/open", {"statusCode": 403}).as_("preflight")
    runner.intercept("PUT", other + "/cors/open", {"body": "stubbed"}).as_("put")
    result = fetch(runner, other + "/cors/open", _PUT)
    assert "error" in result, result  # the stubbed refusal is what the page gets
    preflight = runner.wait("@preflight")
    assert preflight.request.method == "OPTIONS" and preflight.response.status_code == 403
    assert preflight.request.headers["access-control-request-method"] == "PUT"
    assert runner.get("@put.all") == [] and not _preflights(server, "/cors/open")


def test_an_options_spy_records_the_servers_answer_to_the_preflight(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept("OPTIONS", other + "/cors/**").as_("preflight")
    assert fetch(runner, other + "/cors/open", _PUT).get("status") == 200
    assert runner.wait("@preflight").response.status_code == 204
    assert "error" in fetch(runner, other + "/cors/closed", _PUT)
    assert runner.wait("@preflight").response.status_code == 200  # the server's answer, no CORS headers
    assert len(_preflights(server, "/cors/open")) == len(_preflights(server, "/cors/closed")) == 1


def test_a_route_matching_the_url_answers_its_preflight_itself(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    runner.intercept("PUT", other + "/cors/closed", {"body": "stubbed"}).as_("put")
    result = fetch(runner, other + "/cors/closed", _PUT)
    assert (result.get("status"), result.get("text")) == (200, "stubbed")  # 1a.7: answered by runner
    assert runner.wait("@put").stubbed and not _preflights(server, "/cors/closed")


def test_an_unrouted_page_leaves_preflights_to_the_browser(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    assert "error" in fetch(runner, other + "/cors/closed", _PUT)
    assert runner._ctx.browser.preflights is None or not runner._ctx.browser.preflights.armed


def test_the_log_line_of_a_request_whose_handler_raised_names_the_url_first(runner, server):
    open_page(runner, server)

    def broken(req):
        raise ValueError("boom")

    runner.intercept("/echo/broken", broken).as_("broken")
    # the handler's error fails the next command (the fetch or the wait): it must, and name the error
    with pytest.raises(InterceptError, match="in a request handler passed to `runner.intercept\\(\\)`: ValueError: boom"):
        fetch(runner, "/echo/broken")
        runner.wait("@broken")
    runner._ctx.take_async_error()
    lines = [e.message for e in runner._ctx.log if e.name == "request"]
    assert len(lines) == 1, lines
    url = f"{server.url}/echo/broken"
    assert lines[0].startswith(f"(fetch) GET {url} @broken "), lines[0]
    assert lines[0].endswith(": An error was thrown in a request handler passed to `runner.intercept()`: "
                             "ValueError: boom"), lines[0]
