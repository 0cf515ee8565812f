"""Selectors on a real page: jQuery's extensions as the original runs them, CSS as written, and
one clear error for a selector that is neither (the command in the log, failed)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from runner import UsageError
from runner.events import CommandEnded


def ids(subject: Any) -> list[str]:
    return [e.attrs.get("id") or e.tag for e in subject.snapshot().elements]



def test_positions_apply_to_what_the_selector_matched_so_far(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("li:first")) == ["a"]
    assert ids(runner.get("li:last")) == ["y"]
    assert ids(runner.get("li:eq(2)")) == ["c"]
    assert ids(runner.get("li:eq(-1)")) == ["y"]
    assert ids(runner.get("li:gt(4)")) == ["x", "y"]
    assert ids(runner.get("#menu li:lt(2)")) == ["a", "b"]
    assert ids(runner.get("#menu li:even")) == ["a", "c", "e"]
    assert ids(runner.get("#menu li:odd")) == ["b", "d"]
    assert ids(runner.get("ul li:first, ol li:first")) == ["a", "x"]
    assert ids(runner.get("section:first ol > li:last")) == ["y"]
    assert ids(runner.get("li:not(:first):not(:last)")) == ["b", "c", "d", "e", "x"]


def test_visible_hidden_and_contains(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("#menu li:visible")) == ["a", "b", "c", "e"]
    assert ids(runner.get("#menu li:hidden")) == ["d"]
    assert ids(runner.get('li:contains("figs")')) == ["e"]
    assert ids(runner.get("li:contains(x-ray)")) == ["x"]
    runner.get("#menu li:visible:last").should("have.text", 'elderberries, "figs"')


def test_extensions_work_in_every_query_that_takes_a_selector(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("#menu").find("> li:odd")) == ["b", "d"]
    assert ids(runner.get("li").filter(":even")) == ["a", "c", "e", "y"]
    assert ids(runner.get("li").not_(":hidden")) == ["a", "b", "c", "e", "x", "y"]
    assert ids(runner.get("#menu").children(":visible:first")) == ["a"]
    assert ids(runner.get("#b").closest(".box:first")) == ["outer"]
    assert ids(runner.get("#b").siblings(":hidden")) == ["d"]
    assert ids(runner.get("#b").parents(":first")) == ["menu"]
    runner.contains("li:visible", "dates").should("not.exist")  # hidden <li id="d"> holds it
    runner.contains("#menu li:last", "figs").should("have.id", "e")


def test_a_valid_css_selector_is_run_as_written(runner):
    runner.visit("/traversal.html")
    runner.get('p[title=":first"]').should("have.id", "quoted")
    runner.get('p:not([title=":first"])').should("have.id", "later")
    runner.get("ul:has(> li.stop) > li:first-child").should("have.id", "a")


def test_an_invalid_selector_fails_at_once_with_one_message_and_a_log_line(runner, told):
    runner.visit("/traversal.html")
    started = time.monotonic()
    with pytest.raises(UsageError) as caught:
        runner.get("div[").should("exist")
    assert time.monotonic() - started < 2  # not retried until the timeout
    message = str(caught.value)
    assert message.startswith("runner.get('div[').should(): 'div[' is not a valid selector.\n")
    assert "Playwright" not in message and "SyntaxError" not in message and "querySelector" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert runner._ctx.log[-1].name == "failed" and runner._ctx.log[-1].message == message
    should = [e for e in told if e.name == "should"]
    assert [type(e).__name__ for e in should] == ["CommandStarted", "CommandEnded"]
    assert should[0].subject == "get('div[')" and should[1].state == "failed"


def test_an_invalid_part_of_a_selector_with_extensions_is_named(runner):
    runner.visit("/traversal.html")
    with pytest.raises(UsageError) as caught:
        runner.get("#nothing").find("li:first, a[").click()  # no element to look in: still refused
    assert str(caught.value).startswith(
        "runner.get('#nothing').find('li:first, a[').click(): 'li:first, a[' is not a valid selector "
        "(the browser refused its part 'a[')."
    )


def test_an_unsupported_extension_names_its_equivalent_and_is_logged(runner, told):
    runner.visit("/traversal.html")
    with pytest.raises(UsageError) as caught:
        runner.get("#menu").children(":header")
    assert str(caught.value).startswith(
        "runner.get('#menu').children(':header'): ':header' uses :header, which is not CSS"
    )
    assert "use the CSS selector 'h1, h2, h3, h4, h5, h6' instead" in str(caught.value)
    assert runner._ctx.log[-1].name == "failed"
    ended = [e for e in told if isinstance(e, CommandEnded) and e.name == "children"]
    assert len(ended) == 1 and ended[0].state == "failed" and "h1, h2" in (ended[0].error or "")
    with pytest.raises(UsageError, match="chain find"):
        runner.get("ul >> li")


def test_every_read_and_action_of_the_subject_names_itself(runner):
    runner.visit("/traversal.html")
    calls = {
        "invoke()": lambda q: q.invoke("focus"),
        "text()": lambda q: q.text(),
        "its('length').should()": lambda q: q.its("length").should("eq", 0),
        "type()": lambda q: q.type("x"),
        "trigger()": lambda q: q.trigger("click"),
        "click()": lambda q: q.click(force=True),
    }
    for name, call in calls.items():
        with pytest.raises(UsageError) as caught:
            call(runner.get("li:first, div["))
        assert str(caught.value).startswith(f"runner.get('li:first, div[').{name}: 'li:first, div[' is not a valid")
    with pytest.raises(UsageError) as caught:
        runner.get("div[").count()  # a read that is no command: named by its query
    assert str(caught.value).startswith("runner.get('div['): 'div[' is not a valid selector.")


def test_extensions_and_contains_inside_within(runner):
    runner.visit("/traversal.html")
    with runner.within(runner.get("#other")):
        runner.get("li:first").should("have.id", "x")
        runner.contains("li", "yankee").should("have.id", "y")
        runner.get("li:contains(x-ray)").next().should("have.id", "y")
