"""within, each, spread and unpacking: queries narrowed to an element, and a subject's elements one by one."""

from __future__ import annotations

import pytest
from tests.support.runner_reads import log_messages

from runner import CommandError, UsageError


def test_within_narrows_get_and_contains(runner, started):
    runner.visit("/pointer.html")
    with runner.within(runner.get("#second")) as section:
        runner.get(".name").should("have.length", 2)  # beta and gamma, not alpha
        runner.get("button.act").click()
        runner.contains("gamma").should("have.class", "name")
        assert runner.get("h2").text() == "Second"
        with pytest.raises(CommandError):
            runner.contains("alpha", timeout=200).should("exist", timeout=200)
        section.should("have.id", "second")
    runner.get("#second button").should("have.text", "done second")
    runner.get("#first button").should("have.text", "go")  # the click stayed inside
    runner.get(".name").should("have.length", 3)  # leaving restores the page
    assert log_messages(runner, "within") == ["get('#second')"]
    assert log_messages(runner, "click") == ["within(get('#second')).get('button.act')"]
    assert [(e.name, e.args) for e in started if e.name == "within"] == [("within", "<Subject get('#second')>")]


def test_within_nests_and_each_block_gives_back_its_scope(runner):
    runner.visit("/pointer.html")
    with runner.within(runner.get("#second")):
        with runner.within(runner.get(".inner")):
            runner.get(".name").should("have.length", 1).and_("have.text", "gamma")
            runner.get("h2").should("not.exist")
            with pytest.raises(CommandError) as caught:
                runner.get("h2", timeout=200).click()
        runner.get(".name").should("have.length", 2)
    runner.get(".name").should("have.length", 3)
    assert ("expected to find element within(within(get('#second')).get('.inner')).get('h2'), but never found it"
            in str(caught.value))


def test_within_gives_back_its_scope_when_its_block_raises(runner):
    runner.visit("/pointer.html")
    with pytest.raises(ZeroDivisionError):
        with runner.within(runner.get("#first")):
            1 / 0  # noqa: B018
    runner.get(".name").should("have.length", 3)


def test_within_a_subject_that_does_not_exist(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError) as caught:
        with runner.within(runner.get("#nowhere", timeout=300)):
            pytest.fail("the block ran")
    message = str(caught.value)
    assert message.startswith("Timed out retrying after")
    assert "get('#nowhere') for within(): expected to find element get('#nowhere'), but never found it" in message
    with pytest.raises(CommandError, match=r"within\(\) can only be called on a single element.*2 elements"):
        runner.within(runner.get("section"))
    with pytest.raises(UsageError, match="takes a DOM subject"):
        runner.within(runner.wrap([1]))


def test_each_calls_fn_with_each_element_and_its_index_in_order(runner, started):
    runner.visit("/pointer.html")
    seen = []
    runner.get("#nums li").each(lambda li, i: seen.append((i, li.text())))
    assert seen == [(0, "one"), (1, "two"), (2, "three")]
    texts = []
    runner.get("#nums li").each(lambda li: texts.append(li.text()) or (len(texts) < 2))  # False stops
    assert texts == ["one", "two"]
    runner.get("section").each(lambda section, i: section.find("button").click())
    runner.get("button.act").should("have.text", "done firstdone second")
    assert log_messages(runner, "each") == ["get('#nums li') (3 elements)", "get('#nums li') (3 elements)",
                                      "get('section') (2 elements)"]
    names = [e.name for e in started]
    last = len(names) - 1 - names[::-1].index("each")  # fn's commands are started after the each line
    assert [(e.name, e.subject) for e in started[last:last + 3]] == [
        ("each", "get('section')"), ("click", "get('section').eq(0).find('button')"),
        ("click", "get('section').eq(1).find('button')")]


def test_each_waits_for_elements_and_fails_clearly(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError, match=r"get\('li.none'\) to each: expected to find element"):
        runner.get("li.none").each(lambda li, i: None, timeout=200)
    with pytest.raises(UsageError, match=r"each\(\) takes a function"):
        runner.get("li").each("nope")
    with pytest.raises(UsageError, match=r"spread\(\) takes a function"):
        runner.get("li").spread(3)
    with pytest.raises(UsageError, match=r"spread\(\) takes a function"):
        runner.wrap([1]).spread(3)


def test_a_subject_unpacks_into_its_elements(runner, started):
    runner.visit("/pointer.html")
    one, two, three = runner.get("#nums li").should("have.length", 3)
    assert (one.text(), two.text(), three.text()) == ("one", "two", "three")
    assert repr(two) == "<Subject get('#nums li').eq(1)>"
    first, second = runner.get("section").spread()
    second.find("button").click()
    runner.get("#second button").should("have.text", "done second")
    assert runner.get("#nums li").spread(lambda *items: len(items)) == 3
    with pytest.raises(ValueError, match="too many values to unpack"):
        a, b = runner.get("#nums li")
    assert log_messages(runner, "spread")[0] == "get('#nums li') (3 elements)"


def test_a_value_spreads_its_items(runner):
    a, b = runner.wrap([1, 2]).spread()
    assert (a, b) == (1, 2)
    assert runner.wrap(("x", "y", "z")).spread(lambda *items: "".join(items)) == "xyz"
    with pytest.raises(CommandError, match=r"spread\(\) needs a list or tuple; the value is 5"):
        runner.wrap(5).spread()
