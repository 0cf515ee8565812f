"""next, prev, siblings, parents, next_all, prev_all and the ..._until walks: jQuery's semantics on
a real page, retried with the command that reads them, named in the command log."""

from __future__ import annotations

from typing import Any

import pytest

from runner.events import CommandStarted


def ids(subject: Any) -> list[str]:
    """The ids of what the subject finds now (``<html>`` and ``<body>`` by their tag)."""
    return [e.attrs.get("id") or e.tag for e in subject.snapshot().elements]



def test_next_and_prev_are_the_adjacent_sibling_elements(runner):
    runner.visit("/traversal.html")
    runner.get("#b").next().should("have.id", "c")
    runner.get("#b").prev().should("have.id", "a")
    runner.get("#a").prev().should("not.exist")
    assert ids(runner.get("#b").next(".stop")) == ["c"]
    assert ids(runner.get("#a").next(".stop")) == []  # the next sibling does not match: nothing
    # one each, in the subject's order, those at the end having none
    assert ids(runner.get(".item").next()) == ["b", "c", "d", "e", "y"]


def test_siblings_are_every_other_child_of_the_parent(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("#b").siblings()) == ["a", "c", "d", "e"]
    assert ids(runner.get("#b").siblings(".stop")) == ["c"]
    # two elements' siblings: each once, in document order
    assert ids(runner.get("#a, #c").siblings()) == ["a", "b", "c", "d", "e"]


def test_parents_are_every_ancestor_nearest_first(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("#b").parents()) == ["menu", "inner", "outer", "body", "html"]
    runner.get("#b").parents(".box").should("have.length", 2).first().should("have.id", "inner")
    # several elements: each ancestor once, in reverse document order (as jQuery gives them)
    assert ids(runner.get(".item").parents()) == ["other", "menu", "inner", "outer", "body", "html"]
    assert ids(runner.get("#b").parents_until("#outer")) == ["menu", "inner"]
    assert ids(runner.get("#b").parents_until("#outer", filter="section")) == ["inner"]
    assert ids(runner.get("#b").parent(".box")) == []
    assert ids(runner.get("#menu").parent(".box")) == ["inner"]


def test_next_all_and_prev_all_keep_their_direction(runner):
    runner.visit("/traversal.html")
    assert ids(runner.get("#b").next_all()) == ["c", "d", "e"]
    assert ids(runner.get("#d").prev_all()) == ["c", "b", "a"]  # nearest first
    assert ids(runner.get("#d").prev_all(":visible")) == ["c", "b", "a"]
    assert ids(runner.get("#a").next_all(":visible")) == ["b", "c", "e"]
    assert ids(runner.get("#a").next_until(".stop")) == ["b"]
    assert ids(runner.get("#e").prev_until("#a", filter=":visible")) == ["c", "b"]
    assert ids(runner.get("#a").next_until()) == ["b", "c", "d", "e"]


def test_a_traversal_is_retried_with_the_command_that_reads_it(runner):
    runner.visit("/traversal.html")
    runner.get("#y").click()  # adds <li id="z"> after it, 200 ms later
    runner.get("#y").next().should("have.text", "zulu")
    runner.get("#x").next_all().should("have.length", 2)


def test_a_failing_traversal_names_itself_in_the_error(runner):
    from runner import CommandError

    runner.visit("/traversal.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#e").next(".item").should("exist", timeout=200)
    assert "get('#e').next('.item')" in str(caught.value)


def test_the_command_log_names_each_traversal(runner, told):
    runner.visit("/traversal.html")
    runner.get("#b").next(".stop").should("have.text", "cherries")
    runner.get("#d").prev_all().first().click(force=True)
    runner.get("#b").parents_until("#outer", filter="section").should("have.length", 1)
    assert [e.message for e in runner._ctx.log if e.name == "assert"] == [
        "get('#b').next('.stop') should have.text 'cherries'",
        "get('#b').parents_until('#outer', filter='section') should have.length 1",
    ]
    assert [e.message for e in runner._ctx.log if e.name == "click"] == ["get('#d').prev_all().first()"]
    started = [(e.subject, e.name, e.args) for e in told if isinstance(e, CommandStarted)]
    assert started[1:] == [
        ("get('#b').next('.stop')", "should", "'have.text', 'cherries'"),
        ("get('#d').prev_all().first()", "click", "force=True"),
        ("get('#b').parents_until('#outer', filter='section')", "should", "'have.length', 1"),
    ]
