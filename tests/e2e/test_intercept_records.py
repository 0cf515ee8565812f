"""What the interception records say and when: `runner.wait` yields a request once it ended,
a dynamic alias shares its route's record, and a wait's timeout message is true."""

from __future__ import annotations

import time

import pytest
from tests.support.page_fetch import fetch, open_page

from runner import CommandError


def fire(runner, url, init=None) -> None:
    """fetch() from the page without waiting for it: the test's wait is what waits."""
    runner._ctx.run(runner._ctx.browser.page.evaluate("([url, init]) => { fetch(url, init || {}); }", [url, init]))


def _ended(ic) -> None:
    assert ic.state in ("Complete", "Errored"), ic.state
    assert ic.duration_ms is not None and ic.timings["total"] == ic.duration_ms, ic.timings


def test_wait_yields_every_kind_of_route_once_it_ended(runner, server):
    server.route("/api/slow", lambda h: (time.sleep(0.1), h.send(200, b"slow", content_type="text/plain")))
    open_page(runner, server)
    runner.intercept("/echo?kind=spy").as_("spy")
    runner.intercept("/echo?kind=stub", {"body": "stubbed", "delay": 100}).as_("stub")
    runner.intercept("/echo?kind=reply", lambda req: req.reply("replied")).as_("reply")
    runner.intercept("/echo?kind=continue", lambda req: req.continue_()).as_("continued")
    # the response is delayed after the response handlers: the page has it only then
    runner.intercept("/echo?kind=late", lambda req: req.continue_(lambda res: res.set_delay(400))).as_("late")
    runner.intercept("/api/slow", lambda req: req.on("after:response", lambda res: time.sleep(0.3))).as_("after")
    runner.intercept("/echo?kind=error", {"forceNetworkError": True}).as_("error")
    for kind in ("spy", "stub", "reply", "continue", "late", "error"):
        fire(runner, f"/echo?kind={kind}")
    fire(runner, "/api/slow")
    for alias in ("spy", "stub", "reply", "continued", "late", "after", "error"):
        _ended(runner.wait(f"@{alias}"))


def test_the_docs_timings_example_has_its_total(runner, server):
    server.route("/api/upload", lambda h: h.send(200, b"ok", content_type="text/plain"))
    open_page(runner, server)
    runner.intercept("POST", "/api/upload", lambda req: req.continue_(lambda res: res.set_delay(300))).as_("upload")
    fire(runner, "/api/upload", {"method": "POST", "body": "x"})
    upload = runner.wait("@upload")
    assert upload.state == "Complete" and upload.timings["total"] >= 300, upload.timings


def test_a_dynamic_alias_takes_the_request_from_its_routes_alias(runner, server):
    open_page(runner, server)
    runner.intercept("/echo*", lambda req: setattr(req, "alias", "fromInterceptor")).as_("fromAs")
    fetch(runner, "/echo?n=1")
    first = runner.wait("@fromInterceptor")
    assert first.request.url.endswith("n=1")
    # one record: the route's alias does not yield it again (behaviour.md 1d.3)
    with pytest.raises(CommandError, match="for the 1st request to the route: `fromAs`. No further request occurred"):
        runner.wait("@fromAs", timeout=300)
    fetch(runner, "/echo?n=2")  # and the other way round
    assert runner.wait("@fromAs").request.url.endswith("n=2")
    with pytest.raises(CommandError, match="2nd request to the route: `fromInterceptor`"):
        runner.wait("@fromInterceptor", timeout=300)


def test_a_wait_after_earlier_waits_says_no_further_request(runner, server):
    open_page(runner, server)
    runner.intercept("/echo*").as_("echo")
    fetch(runner, "/echo?n=1")
    runner.wait("@echo")
    with pytest.raises(CommandError) as caught:
        runner.wait("@echo", timeout=300)
    message = str(caught.value)
    assert "for the 2nd request to the route: `echo`. No further request occurred." in message
    assert "ever occurred" not in message
    assert "Requests it already yielded (1):" in message and "/echo?n=1 (200, to the server)" in message
    with pytest.raises(CommandError) as caught:
        runner.wait("@echo.response", timeout=300)
    message = str(caught.value)
    assert "response to the route: `echo`. No further response occurred." in message, message
    assert "ever occurred" not in message


@pytest.mark.runner(responseTimeout=500)
def test_a_spied_response_after_response_timeout_is_recorded_late_not_errored(runner, server):
    open_page(runner, server)
    runner.intercept("/slow*").as_("sluggish")  # a spy only: runner watches, it holds nothing
    result = fetch(runner, "/slow?ms=1500")
    assert result["status"] == 200, result  # the page got its response, late
    ic = runner.wait("@sluggish", response_timeout=5000)
    # the record says what the page got: never Errored without a response beside a page's 200
    assert ic.state == "Complete" and ic.error is None, (ic.state, ic.error)
    assert ic.response.status_code == 200 and ic.late is True
    assert ic.timings["upstream"] >= 1400, ic.timings
    (row,) = runner._interceptor_getter().requests_log()
    assert (row["state"], row["status"], row["late"]) == ("Complete", 200, True)
