"""A chain that times out says "Timed out retrying after Nms:" once, then what it expected, and
names every argument of an ``invoke`` in its error, command log line and trace step."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from runner import CommandError

SHORT = 300  # ms: the should's own timeout, well under the site's defaultCommandTimeout (2000)


def wait_its(runner: Any) -> None:
    runner.intercept("/index.html").as_("page")
    runner.visit("/index.html")
    runner.wait("@page").its("response.statusCode").should("eq", 599)


def requests_its(runner: Any) -> None:
    runner.intercept("/index.html").as_("page")
    runner.visit("/index.html")
    runner.requests("@page").its("0.response.statusCode").should("eq", 599, timeout=SHORT)


CHAINS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "get should": (lambda r: r.get("#nowhere").should("have.text", "x", timeout=SHORT),
                   "expected to find element \"get('#nowhere')\", but never found it"),
    "get its should": (lambda r: r.get("#nowhere").its("id").should("eq", "x", timeout=SHORT),
                       "get('#nowhere').its('id').should('eq', 'x'): expected to find element get('#nowhere'), "
                       "but never found it"),
    "get its length should": (lambda r: r.get("#nowhere").its("length").should("eq", 3, timeout=SHORT),
                              "expected 0 to equal 3"),
    "get invoke(read) should": (
        lambda r: r.get("#nowhere").invoke("attr", "id").should("eq", "x", timeout=SHORT),
        None),  # invoke waits for its subject first: its own timeout, said once
    "wrap its should": (lambda r: r.wrap({"a": 1}).its("a").should("eq", 3, timeout=SHORT),
                        "wrap({'a': 1}).its('a').should('eq', 3): expected 1 to equal 3"),
    "wrap subject its should": (
        lambda r: r.wrap(r.get("#nowhere")).its("text").should("eq", "x", timeout=SHORT),
        "expected to find element get('#nowhere'), but never found it"),
    "requests its should": (requests_its, "requests('@page').its('0.response.statusCode').should('eq', 599): expected "),
}


@pytest.mark.parametrize("chain", list(CHAINS))
def test_a_chain_that_times_out_says_so_once(runner, chain):
    run, expected = CHAINS[chain]
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        run(runner)
    message = str(caught.value)
    assert message.count("Timed out retrying") == 1, message
    assert message.startswith("Timed out retrying after "), message
    if expected is not None:
        assert expected in message
    waited = int(re.match(r"Timed out retrying after (\d+)ms", message).group(1))  # type: ignore[union-attr]
    if chain != "get invoke(read) should":  # the should's timeout is the one that counts
        assert waited < 2000, f"waited for defaultCommandTimeout, not the should's {SHORT}ms: {message}"
    failed = [e.message for e in runner._ctx.log if e.name == "failed"]
    assert len(failed) == 1, failed


def test_a_dom_methods_result_is_asserted_once_without_a_timeout(runner):
    # what getAttribute returned is a copy taken once: it cannot change, so nothing is retried
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#title").invoke("getAttribute", "id").should("eq", "x", timeout=SHORT)
    assert str(caught.value) == (
        "Asserted once, not retried (the value was read once and cannot change): "
        "get('#title').invoke('getAttribute', 'id').should('eq', 'x'): expected 'title' to equal 'x'")
    failed = [e.message for e in runner._ctx.log if e.name == "failed"]
    assert len(failed) == 1, failed


def test_an_interception_its_should_says_what_it_expected_without_a_timeout(runner):
    with pytest.raises(CommandError) as caught:
        wait_its(runner)
    # no retry (the interception is over): no timeout to tell (a 304 when the page was cached)
    assert re.fullmatch(r"expected (200|304) to equal 599", str(caught.value)), str(caught.value)


def test_invoke_shows_its_arguments_in_the_error_log_and_step(runner, started):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#title").invoke("getAttribute", "id").should("eq", "x", timeout=SHORT)
    assert "get('#title').invoke('getAttribute', 'id').should('eq', 'x')" in str(caught.value)
    assert "invoke: get('#title').invoke('getAttribute', 'id')" in [f"{e.name}: {e.message}" for e in runner._ctx.log]
    should = [e for e in started if e.name == "should"]
    assert [e.subject for e in should] == ["get('#title').invoke('getAttribute', 'id')"]


def test_invoke_on_a_missing_element_names_its_arguments(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#nowhere").invoke("foo", 1, 2, timeout=SHORT)
    message = str(caught.value)
    assert message.count("Timed out retrying") == 1
    assert "get('#nowhere').invoke('foo', 1, 2) (to exist)" in message


def test_a_value_invoke_shows_its_arguments(runner):
    with pytest.raises(CommandError) as caught:
        runner.wrap("a,b").invoke("split", ",").should("have.length", 3, timeout=SHORT)
    assert "wrap('a,b').invoke('split', ',').should('have.length', 3)" in str(caught.value)
