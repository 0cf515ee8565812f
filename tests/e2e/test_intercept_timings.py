"""Where an intercepted request's time went: Interception.timings and the body sizes, end to end."""

from __future__ import annotations

import time


def test_timings_split_the_handler_the_server_and_the_total(runner, server):
    def slow(h):
        time.sleep(0.3)
        h.send(200, b"x" * 1000, content_type="text/plain")

    server.route("/api/slow", slow)
    runner.visit(server.page("/app", "<html><body>app</body></html>"))

    def handler(req):
        time.sleep(0.2)
        req.continue_()

    runner.intercept("POST", "/api/slow", handler).as_("upload")
    runner._ctx.run(runner._ctx.browser.page.evaluate(
        "fetch('/api/slow', {method: 'POST', body: 'hello'}).then(r => r.text())"))
    ic = runner.wait("@upload")
    t = ic.timings
    assert t["handler"] >= 190 and t["upstream"] >= 290, t
    assert t["total"] >= t["handler"] + t["upstream"], t
    assert 0 <= t["queued"] < t["total"], t
    assert (ic.request_body_size, ic.response_body_size) == (5, 1000)


def test_a_stub_spends_no_time_upstream(runner, server):
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/api/items", {"body": [1, 2, 3], "delay": 150}).as_("items")
    runner._ctx.run(runner._ctx.browser.page.evaluate("fetch('/api/items').then(r => r.json())"))
    ic = runner.wait("@items")
    t = ic.timings
    assert t["upstream"] == 0 and t["handler"] == 0, t
    assert t["total"] >= 140, t  # the stub's delay is part of the request's time
    assert ic.response_body_size == len(b"[1,2,3]")
