"""``runner.intercept(url, {"status": 500})`` sends that dict as the JSON body of a 200, as the
original does; runner tells once a run that it reads like a mistaken StaticResponse."""

from __future__ import annotations

import json

from tests.support.page_fetch import fetch, open_page
from tests.support.runner_reads import log_messages


def _forget_warnings(runner) -> None:
    # a warning is told once a run: this process's earlier tests may have told it already
    runner._interceptor_getter()._warned.clear()


def test_a_mistaken_static_response_is_sent_as_the_body_and_told_once(runner, server):
    _forget_warnings(runner)
    open_page(runner, server)
    runner.intercept("/echo/fail", {"status": 500}).as_("fail")
    runner.intercept("/echo/again", {"status": 503}).as_("again")  # the same misspelling: not told again
    first, second = fetch(runner, "/echo/fail"), fetch(runner, "/echo/again")
    assert (first["status"], json.loads(first["text"])) == (200, {"status": 500})
    assert (second["status"], json.loads(second["text"])) == (200, {"status": 503})
    assert runner.wait("@fail").response.status_code == 200
    warnings = log_messages(runner, "warning")
    assert len(warnings) == 1, warnings
    assert "Did you mean `statusCode` for `status`?" in warnings[0]
    assert '{"body": {"status": 500}}' in warnings[0]
    # on the terminal when the test ends: the test's closers return what is printed
    assert [said for close in runner._ctx.closers if (said := close()) and "statusCode" in said] == warnings


def test_another_misspelling_is_told_too(runner, server):
    _forget_warnings(runner)
    open_page(runner, server)
    runner.intercept("/echo/a", {"status": 500})
    runner.intercept("/echo/b", {"delay_ms": 10})
    assert [w.split("Did you mean ")[1].split("?")[0] for w in log_messages(runner, "warning")] == [
        "`statusCode` for `status`", "`delay` for `delay_ms`"]


def test_a_body_that_only_looks_like_one_is_sent_without_a_word(runner, server):
    _forget_warnings(runner)
    open_page(runner, server)
    runner.intercept("/echo/ok", {"status": "ok"})
    runner.intercept("/echo/data", {"status": 200, "data": [1]})
    runner.intercept("/echo/meant", {"body": {"status": 500}})  # the way to say "this is the body"
    assert json.loads(fetch(runner, "/echo/ok")["text"]) == {"status": "ok"}
    meant = fetch(runner, "/echo/meant")
    assert (meant["status"], json.loads(meant["text"])) == (200, {"status": 500})
    assert log_messages(runner, "warning") == []
