"""get, contains, find, its, invoke, should: retrying queries and their failure messages."""

from __future__ import annotations

import re
import time

import pytest

from runner import CommandError, UsageError


def test_get_and_should_have_length(runner):
    runner.visit("/index.html")
    runner.get("li.item").should("have.length", 3).and_("contain", "two")
    assert runner.get("li.item").count() == 3


def test_should_retries_until_the_page_catches_up(runner):
    runner.visit("/index.html")
    started = time.monotonic()
    runner.get("#late").should("be.visible").and_("have.text", "late text")
    assert time.monotonic() - started < 2


def test_failure_message_says_expected_found_and_waited(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("li.item").should("have.length", 5, timeout=300)
    message = str(caught.value)
    assert message.startswith("Timed out retrying after 3")
    assert "length of 5" in message and "got 3" in message


def test_not_exist_and_hidden(runner):
    runner.visit("/index.html")
    runner.get("#nothing-here").should("not.exist")
    runner.get("#hidden-box").should("not.be.visible").and_("exist")


def test_contains_finds_the_deepest_element(runner):
    runner.visit("/index.html")
    runner.contains("three").should("have.class", "special")
    runner.contains(re.compile(r"^tw")).should("have.text", "two")
    runner.get("#list").contains("one").should("match", re.compile("one"))


def test_traversal_first_last_eq_find_parent(runner):
    runner.visit("/index.html")
    runner.get("li.item").first().should("have.text", "one")
    runner.get("li.item").last().should("have.text", "three")
    runner.get("li.item").eq(1).should("have.text", "two")
    runner.get("#list").find(".special").should("have.length", 1)
    runner.get(".special").parent().should("have.id", "list")
    runner.get("#list").children().should("have.length", 3)


def test_reads_text_attr_and_value(runner):
    runner.visit("/forms.html")
    assert runner.get("#send").text() == "Send"
    assert runner.get("#agree").attr("value") == "yes"
    runner.get("#name").type("Ada")
    assert runner.get("#name").value() == "Ada"


def test_its_and_invoke(runner):
    runner.visit("/index.html")
    runner.get("li.item").its("length").should("eq", 3)
    runner.get("#title").invoke("text").should("eq", "Welcome")
    runner.get("#to-forms").invoke("attr", "href").should("eq", "forms.html")
    assert runner.get("#title").its("tagName").value() == "H1"


def test_wrap_its_and_callable_should(runner):
    value = runner.wrap({"user": {"name": "Ada", "tags": ["a", "b"]}})
    value.its("user.name").should("eq", "Ada")
    value.its("user.tags").should("have.length", 2)
    value.should(lambda v: v["user"]["name"].startswith("A"))
    with pytest.raises(CommandError):
        value.its("user.age").should("exist", timeout=100)


def test_unknown_assertion_is_a_usage_error_at_once(runner):
    runner.visit("/index.html")
    started = time.monotonic()
    with pytest.raises(UsageError) as caught:
        runner.get("li").should("have.lenght", 3)
    assert "have.length" in str(caught.value)
    assert time.monotonic() - started < 1


def test_shadow_dom_is_not_pierced_by_default(runner):
    runner.visit("/shadow.html")
    runner.get(".inside").should("not.exist")
    runner.get(".inside", include_shadow_dom=True).should("have.text", "in the shadow")


@pytest.mark.runner(includeShadowDom=True)
def test_include_shadow_dom_from_the_mark(runner):
    runner.visit("/shadow.html")
    runner.get(".inside-btn").click().should("have.text", "pressed")


def test_dom_alias(runner):
    runner.visit("/index.html")
    runner.get("li.item").as_("items")
    runner.get("@items").should("have.length", 3)


def test_contains_takes_the_originals_order_and_keywords(runner):
    runner.visit("/index.html")
    runner.contains("li", "two").should("have.text", "two")
    runner.contains("#list", "two").should("have.id", "list")  # the element matching the selector
    runner.contains("li", content="three").should("have.class", "special")
    runner.contains(selector="a", content="Forms").should("have.id", "to-forms")
    runner.contains(content=re.compile("^ON", re.I)).should("have.text", "one")
    runner.get("body").contains("ul", "one").should("have.id", "list")
    runner.get("#list").contains("TWO", match_case=False).should("have.text", "two")
    with pytest.raises(UsageError, match="twice"):
        runner.contains("li", "two", content="three")


def test_contains_shows_every_argument_in_the_error_and_the_log(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.contains("li", "four").should("exist", timeout=200)
    assert "contains('li', 'four')" in str(caught.value)
    assert runner._ctx.log[-1].name == "failed" and "contains('li', 'four')" in runner._ctx.log[-1].message
    runner.get("#list").contains("h1", re.compile("one"), match_case=False).should("not.exist")
    assert runner._ctx.log[-1].message == (
        "get('#list').contains('h1', /one/, match_case=False) should not.exist"
    )
    runner.contains("li", re.compile("^TW", re.I)).should("have.text", "two")  # its flags too
    assert runner._ctx.log[-1].message == "contains('li', /^TW/i) should have.text 'two'"


FILTERS = ("<!doctype html><html><body><footer><ul id='filters'><li><a href='#/'>All</a></li>"
           "<li><a href='#/active'>Active</a></li></ul></footer></body></html>")
HINT = "did you mean contains('#filters a', 'All')? (the selector comes first, as in the original)"


def test_contains_in_the_old_order_says_which_order_it_takes(runner, server):
    runner.visit(server.page("/filters", FILTERS))
    with pytest.raises(CommandError) as caught:  # an action's wait
        runner.contains("All", "#filters a").click(timeout=300)
    assert str(caught.value).splitlines()[-1] == HINT
    assert "but never found it" in str(caught.value)
    with pytest.raises(CommandError) as caught:  # an assertion, on a subject's contains
        runner.get("footer").contains("All", "#filters a").should("have.text", "All", timeout=300)
    assert str(caught.value).splitlines()[-1] == HINT
    # no hint where the selector finds elements, or the content finds none as a selector
    for query in (lambda: runner.contains("#filters a", "Nope"), lambda: runner.contains("li", "Completed now")):
        with pytest.raises(CommandError) as caught:
            query().should("exist", timeout=300)
        assert "did you mean" not in str(caught.value)
    runner.contains("#filters a", "All").click()  # the order it takes
    assert runner._ctx.run(runner._ctx.browser.page.evaluate("location.hash")) == "#/"


def test_contains_whose_content_is_no_selector_fails_with_its_own_timeout(runner, server):
    # the hint asks the page whether the content is a selector: text the browser cannot read as
    # one ("Hello world!") is no hint, not the query's failure (nor a "failed" line of the log)
    runner.visit(server.page("/filters", FILTERS))
    with pytest.raises(CommandError) as caught:
        runner.contains("#filters button", "Hello world!").should("exist", timeout=300)
    assert str(caught.value).startswith("Timed out retrying after"), str(caught.value)
    assert "did you mean" not in str(caught.value)
    failed = [e.message for e in runner._ctx.log if e.name == "failed"]
    assert len(failed) == 1 and "selector" not in failed[0].replace("#filters button", ""), failed
