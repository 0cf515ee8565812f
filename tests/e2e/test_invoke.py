"""invoke runs when it is called, like every command: a DOM method is called there and then,
once; a missing subject fails it (after the usual wait); a read is read again by should()."""

from __future__ import annotations

import pytest

from runner import CommandError

LATE = ("<!doctype html><html><body><div id='out'></div><script>"
        "setTimeout(() => { const b = document.createElement('button'); b.id = 'late';"
        " b.onclick = () => document.getElementById('out').textContent += 'clicked;';"
        " document.body.appendChild(b); }, 300);</script></body></html>")


def test_a_dom_method_is_called_when_invoked_without_reading_its_value(runner):
    runner.visit("/index.html")
    runner.get("#title").invoke("setAttribute", "data-state", "set")
    runner.get("#title").should("have.attr", "data-state", "set")


def test_a_dom_method_is_called_once_however_often_its_value_is_read(runner):
    runner.visit("/forms.html")
    clicked = runner.get("#counter").invoke("click")
    runner.get("#counter").should("have.text", "clicked 1")
    assert clicked.value() is None
    clicked.should("be.null")
    runner.get("#counter").should("have.text", "clicked 1")


def test_invoke_waits_for_its_subject_to_appear(runner, server):
    runner.visit(server.page("/late", LATE))
    runner.get("#late").invoke("click")
    runner.get("#out").should("have.text", "clicked;")


@pytest.mark.parametrize("method", ["setAttribute", "text"])
def test_invoke_on_a_missing_element_fails(runner, method):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#nowhere").invoke(method, "a", "b", timeout=300)
    assert "Timed out retrying after" in str(caught.value)
    assert "expected to find element get('#nowhere')" in str(caught.value)


def test_invoke_of_a_method_the_element_lacks_fails_at_once(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError, match=r"has no method 'nope' \(it is undefined\)"):
        runner.get("#title").invoke("nope")


def test_a_method_that_throws_in_the_page_fails_with_its_error(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError, match=r"threw in the page: .*InvalidCharacterError|threw in the page: .*not a valid"):
        runner.get("#title").invoke("setAttribute", "bad name", "x")


def test_a_read_is_read_again_by_should(runner, server):
    runner.visit(server.page("/late", LATE))
    runner.get("#out").invoke("text").should("eq", "")
    text = runner.get("#out").invoke("text")
    runner.get("#late").click()
    text.should("eq", "clicked;")


def test_invoke_on_a_wrapped_value_runs_when_called(runner):
    items: list[int] = []
    runner.wrap(items).invoke("append", 1)
    assert items == [1]
    length = runner.wrap(items).invoke("__len__")
    items.append(2)
    length.should("eq", 1)  # what the call returned when it ran, not a later call's
    with pytest.raises(CommandError, match="has no method 'nope'"):
        runner.wrap(items).invoke("nope")
