"""A spy only watches, and what it records is exactly what the page did (issue 26): the requests'
ends are learnt from the events Playwright's driver sends anyway (engine/request_events.py), and
on a routed page the hops after a redirect are heard without subscribing to every request. A real
server counts what reached it; real Chromium on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time

from tests.support.page_fetch import fetch, open_page

_POSTS = """async (n) => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch('/api/items?i=' + i, {method: 'POST', headers: {'content-type': 'application/json'},
                                                 body: JSON.stringify({n: i})});
    out.push(await r.json());
  }
  return out;
}"""


def _items_server(server):
    def items(h):
        sent = json.loads(h.request_body)
        h.send(201 if sent["n"] % 2 else 200, {"got": sent["n"], "seen": len(_hits(server))})

    server.route("/api/items", items)


def _json_post(n):
    return {"method": "POST", "headers": {"content-type": "application/json"}, "body": json.dumps({"n": n})}


def _hits(server, path="/api/items"):
    return [r for r in server.received if r["path"].split("?")[0] == path]


def _check_records(records, server, n):
    assert len(_hits(server)) == n  # watching added no request and lost none
    assert [r.request.url.split("?")[1] for r in records] == [f"i={i}" for i in range(n)]
    assert [r.request.body for r in records] == [{"n": i} for i in range(n)]
    assert [r.response.status_code for r in records] == [201 if i % 2 else 200 for i in range(n)]
    assert [r.response.body["got"] for r in records] == list(range(n))
    assert all(r.state == "Complete" and r.error is None for r in records)


def test_a_spy_defined_before_the_visit_records_each_request_the_page_made_once(runner, server):
    _items_server(server)
    spy = runner.intercept("POST", "/api/items*").as_("items")
    open_page(runner, server)
    page = runner._ctx.browser.page
    answers = runner._ctx.run(page.evaluate(_POSTS, 6))
    records = runner.wait("@items", count=6)
    _check_records(records, server, 6)
    assert [a["got"] for a in answers] == list(range(6))
    assert spy.call_count == 6
    runner.requests("@items").should("have.length", 6)
    runner.assert_no_request("GET", "**/api/items*", within=200)  # the spy saw POSTs only


def test_a_spy_defined_once_the_page_loaded_records_each_request_the_page_made_once(runner, server):
    _items_server(server)
    open_page(runner, server)
    spy = runner.intercept("POST", "/api/items*").as_("items")
    runner._ctx.run(runner._ctx.browser.page.evaluate(_POSTS, 5))
    _check_records(runner.wait("@items", count=5), server, 5)
    assert spy.call_count == 5
    assert len(runner.get("@items.all")) == 5


def test_a_later_stub_on_a_spied_url_answers_and_nothing_reaches_the_server(runner, server):
    _items_server(server)
    open_page(runner, server)
    runner.intercept("POST", "/api/items*").as_("spied")
    before = fetch(runner, "/api/items?i=0", _json_post(0))
    assert before["status"] == 200 and json.loads(before["text"])["got"] == 0
    runner.intercept("POST", "/api/items*", {"statusCode": 202, "body": {"stubbed": True}}).as_("stub")
    after = fetch(runner, "/api/items?i=1", _json_post(1))
    assert after["status"] == 202 and json.loads(after["text"]) == {"stubbed": True}
    assert len(_hits(server)) == 1  # only the request made before the stub
    # the newer stub answers: the older spy is never reached for the second request
    assert [r.response.status_code for r in runner.get("@spied.all")] == [200]
    stubbed = runner.wait("@stub")
    assert stubbed.response.status_code == 202 and stubbed.request.body == {"n": 1}


def test_a_spy_defined_after_a_stub_records_the_stubbed_answer(runner, server):
    _items_server(server)
    open_page(runner, server)
    runner.intercept("POST", "/api/items*", {"statusCode": 202, "body": {"stubbed": True}})
    runner.intercept("POST", "/api/items*").as_("spy")  # newer: reached first, then the stub answers
    got = fetch(runner, "/api/items?i=3", _json_post(3))
    assert got["status"] == 202
    seen = runner.wait("@spy")
    assert seen.request.body == {"n": 3}
    assert seen.response.status_code == 202 and seen.response.body == {"stubbed": True}
    assert _hits(server) == []


def test_the_hop_after_a_redirect_is_recorded_on_a_routed_page(runner, server):
    server.route("/old", lambda h: h.send(302, b"", headers={"Location": "/new?x=1"}))
    server.route("/new", lambda h: h.send(200, {"moved": True}))
    open_page(runner, server)
    runner.intercept("/new*").as_("new")
    runner.intercept("/elsewhere", {"body": "stub"})  # the page is routed: the hop is only heard
    got = fetch(runner, "/old")
    assert got["status"] == 200 and json.loads(got["text"]) == {"moved": True}
    hop = runner.wait("@new")
    assert hop.request.url.endswith("/new?x=1")
    assert hop.response.status_code == 200 and hop.response.body == {"moved": True}
    assert len(_hits(server, "/new")) == 1 and len(_hits(server, "/old")) == 1


def test_a_watched_request_the_server_drops_ends_errored_as_the_page_saw_it(runner, server):
    def drop(h):
        h.close_connection = True
        h.wfile.flush()
        h.connection.shutdown(2)

    server.route("/drop", drop)
    open_page(runner, server)
    runner.intercept("/drop").as_("drop")
    got = fetch(runner, "/drop")
    assert "error" in got
    ended = runner.wait("@drop")
    assert ended.state == "Errored" and ended.error
    assert ended.response is None or ended.response.status_code is None


def test_a_watched_request_of_a_page_that_closes_ends_and_the_wait_does_not_hang(runner, server):
    release = threading.Event()

    def held(h):
        release.wait(10)
        h.send(200, "late", content_type="text/plain")

    server.route("/held", held)
    server.page("/popup.html", "<html><body><script>fetch('/held')</script></body></html>")
    open_page(runner, server)
    runner.intercept("/held").as_("held")
    page = runner._ctx.browser.page
    try:
        runner._ctx.run(page.evaluate("() => { window.w = window.open('/popup.html'); }"))
        runner.wait("@held.request")  # the popup's request was seen, its answer held by the server
        started = time.monotonic()
        runner._ctx.run(page.evaluate("() => window.w.close()"))
        ended = runner.wait("@held.response", response_timeout=5000)
        assert time.monotonic() - started < 5
        assert ended.state == "Errored" and ended.error
    finally:
        release.set()
