"""runner's own client for bodies it reads (engine/context_fetch.py) sends what Playwright's
client sent: credentials and a given Cookie header do not follow a redirect to another origin,
a HEAD stays a HEAD after a 303, a redirect loop is an error, a cookie for another site is not
stored, only the encodings runner decodes are offered, an encoded URL reaches the server byte
for byte, and a header the server repeats is one value joined by ", ". Real Chromium, real servers on
127.0.0.1 (two of them: two origins)."""

from __future__ import annotations

import gzip

import pytest
from tests.support.page_fetch import fetch, open_page
from tests.support.servers import serving

from runner import CommandError


def _to(h, status=302):
    h.send(status, b"", headers={"Location": h.query["to"]})


def test_a_redirect_to_another_origin_drops_authorization_and_a_given_cookie(runner, server):
    server.route("/hop", _to)
    with serving() as other:
        away = runner.request(server.url + "/hop?to=" + other.url + "/echo", auth={"bearer": "s3cret"},
                              headers={"Cookie": "mine=1"})
        assert away.status == 200
        assert "authorization" not in away.body["headers"]  # sent to the first origin only
        assert "mine=1" not in away.body["headers"].get("cookie", "")
    assert server.received[0]["headers"]["authorization"] == "Bearer s3cret"
    assert server.received[0]["headers"]["cookie"] == "mine=1"
    home = runner.request(server.url + "/hop?to=/echo", auth={"bearer": "s3cret"})
    assert home.body["headers"]["authorization"] == "Bearer s3cret"  # same origin: kept, as browsers do


def test_a_head_stays_a_head_after_a_303_and_a_put_becomes_a_get(runner, server):
    server.route("/other", lambda h: _to(h, 303))
    assert runner.request("HEAD", server.url + "/other?to=/echo").status == 200
    assert runner.request("PUT", server.url + "/other?to=/echo", "data").body["method"] == "GET"
    assert [(r["method"], r["path"]) for r in server.received if r["path"] == "/echo"] == [("HEAD", "/echo"),
                                                                                          ("GET", "/echo")]


def test_a_redirect_loop_fails_the_request_instead_of_returning_a_redirect(runner, server):
    server.route("/loop", lambda h: h.send(302, b"", headers={"Location": "/loop"}))
    with pytest.raises(CommandError, match=r"redirected more than 20 times .*a redirect loop"):
        runner.request(server.url + "/loop")
    assert len([r for r in server.received if r["path"] == "/loop"]) == 21
    assert runner.request(server.url + "/loop", follow_redirect=False).status == 302


def test_a_set_cookie_for_another_site_is_not_stored_in_the_browser(runner, server):
    server.route("/set", lambda h: h.send(200, "ok", content_type="text/plain", headers={
        "Set-Cookie": "evil=1; Domain=example.test; Path=/"}))
    server.route("/set2", lambda h: h.send(200, "ok", content_type="text/plain", headers={
        "Set-Cookie": "good=1; Path=/"}))
    runner.request(server.url + "/set")
    runner.request(server.url + "/set2")
    names = {(c["name"], c["domain"]) for c in runner.get_all_cookies()}
    assert ("good", "127.0.0.1") in names
    assert not [n for n in names if n[0] == "evil"]


def test_only_the_encodings_runner_decodes_are_offered(runner, server):
    def answer(h):
        offered = [t.strip().split(";")[0] for t in h.headers.get("accept-encoding", "").split(",")]
        if "br" in offered or "zstd" in offered:  # a server taking the offer: runner cannot read it
            h.send(200, b"\x0b\x02\x80hi\x03", headers={"Content-Encoding": offered[-1]}, content_type="text/plain")
        else:
            h.send(200, gzip.compress(b"hi"), headers={"Content-Encoding": "gzip"}, content_type="text/plain")

    server.route("/enc", answer)
    assert runner.request(server.url + "/enc").body == "hi"
    offered = {t.strip() for t in server.received[-1]["headers"]["accept-encoding"].split(",")}
    assert offered <= {"gzip", "deflate"}


# escapes a URL normaliser would rewrite (yarl's default: %2C to ",", %3B to ";", %7E to "~")
_RAW = "/echo/a%3Bb/%7Euser?sig=a%2Cb%2F&q=%40x"


def test_an_encoded_url_reaches_the_server_byte_for_byte(runner, server):
    assert runner.request(server.url + _RAW).body["path"] == _RAW  # runner.request()
    open_page(runner, server)
    runner.intercept("/echo/**", lambda req: req.continue_(lambda res: None)).as_("held")
    assert fetch(runner, _RAW)["status"] == 200  # a held request, read by a response callback
    assert runner.wait("@held").response.body["path"] == _RAW
    assert [r["path"] for r in server.received if r["path"].startswith("/echo/")] == [_RAW, _RAW]
    spaced = runner.request(server.url + "/echo?q=a b é")  # not encoded: encoded for it
    assert spaced.body["path"] == "/echo?q=a%20b%20%C3%A9"


def _repeated(h):
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    for name, value in (("Vary", "Accept"), ("Vary", "Cookie"), ("Set-Cookie", "c1=1; Path=/"),
                        ("Set-Cookie", "c2=2; Path=/"), ("Content-Length", "2")):
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(b"ok")


def test_a_header_the_server_repeats_is_one_value_joined_by_a_comma(runner, server):
    server.route("/repeated", _repeated)
    answer = runner.request(server.url + "/repeated")
    assert answer.headers["vary"] == "Accept, Cookie"
    assert answer.headers["set-cookie"] == "c1=1; Path=/\nc2=2; Path=/"  # Playwright's rule for cookies
    open_page(runner, server)
    runner.intercept("/repeated", lambda req: req.continue_(lambda res: None)).as_("held")
    got = fetch(runner, "/repeated")  # a held response: its headers given to the page
    assert got.get("status") == 200 and got["headers"]["vary"] == "Accept, Cookie", got
    assert runner.wait("@held").response.headers["vary"] == "Accept, Cookie"
