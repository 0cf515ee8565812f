"""An action whose element's centre is outside the viewport acts (runner scrolls it into view)
or fails with the original's words; it never returns without acting. Each test reads the
page's own record of the events it got (#log of below-fold.html)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from runner import CommandError

HIDDEN = "the center of this element is hidden from view"

# (name, action on the runner fixture, the event the page gets when it happens)
ACTIONS: list[tuple[str, Callable[[Any], Any], str]] = [
    ("click", lambda r: r.get("#button").click(timeout=400), "click:button"),
    ("dblclick", lambda r: r.get("#button").dblclick(timeout=400), "dblclick:button"),
    ("rightclick", lambda r: r.get("#button").rightclick(timeout=400), "contextmenu:button"),
    ("check", lambda r: r.get("#box").check(timeout=400), "change:box"),
    ("uncheck", lambda r: r.get("#ticked").uncheck(timeout=400), "change:ticked"),
    ("select", lambda r: r.get("#choice").select("b", timeout=400), "change:choice"),
    ("type", lambda r: r.get("#field").type("x", timeout=400), "input:field"),
    ("clear", lambda r: r.get("#filled").clear(timeout=400), "input:filled"),
    ("trigger", lambda r: r.get("#button").trigger("mouseover"), "mouseover:button"),
]


def _log(runner: Any) -> str:
    return runner.get("#log").invoke("text").value()


@pytest.mark.runner(scrollBehavior=False)
@pytest.mark.parametrize(("name", "act", "event"), ACTIONS, ids=[a[0] for a in ACTIONS])
def test_without_scrolling_an_action_below_the_fold_fails_and_the_page_gets_nothing(runner, name, act, event):
    runner.visit("/below-fold.html")
    with pytest.raises(CommandError) as caught:
        act(runner)
    assert HIDDEN in str(caught.value)
    assert "outside the 1000x660 viewport" in str(caught.value)
    assert _log(runner) == ""


@pytest.mark.parametrize(("name", "act", "event"), ACTIONS, ids=[a[0] for a in ACTIONS])
def test_with_scrolling_an_action_below_the_fold_reaches_the_page(runner, name, act, event):
    runner.visit("/below-fold.html")
    act(runner)
    runner.get("#log").should("contain", event)


@pytest.mark.runner(scrollBehavior=False)
def test_an_element_whose_animation_ends_below_the_fold_is_not_clicked(runner):
    runner.visit("/below-fold.html")
    with pytest.raises(CommandError, match=HIDDEN):
        runner.get("#sinker").click(timeout=1000)
    assert _log(runner) == ""


def test_an_element_whose_animation_ends_below_the_fold_is_scrolled_to_and_clicked(runner):
    runner.visit("/below-fold.html")
    runner.get("#sinker").click(timeout=1000)
    runner.get("#log").should("contain", "click:sinker")


def test_an_element_taller_than_the_viewport_is_scrolled_until_its_centre_shows(runner):
    runner.visit("/below-fold.html")
    runner.get("#tower").click()
    runner.get("#log").should("contain", "click:tower")


@pytest.mark.runner(scrollBehavior=False)
def test_the_page_body_is_always_in_view(runner):
    runner.visit("/below-fold.html")
    runner.get("body").type("k")
    runner.get("#log").should("contain", "keydown:page")


@pytest.mark.runner(scrollBehavior=False)
def test_without_scrolling_an_element_in_view_is_still_clicked(runner):
    runner.visit("/below-fold.html")
    runner.get("#button").scroll_into_view().click()
    runner.get("#log").should("contain", "click:button")


@pytest.mark.runner(scrollBehavior=False)
def test_force_acts_without_the_check(runner):
    runner.visit("/below-fold.html")
    runner.get("#button").click(force=True)
    runner.get("#log").should("contain", "click:button")


def test_an_element_scrolled_under_a_sticky_header_is_scrolled_again_and_clicked(runner):
    # scrollBehavior "top" puts the button under the header; the original gives up ("covered")
    runner.visit("/sticky.html")
    runner.get("#below").click(timeout=1000)
    runner.get("#log").should("contain", "click:below")


def test_an_element_covered_at_every_alignment_is_still_covered(runner):
    runner.visit("/sticky.html#overlay")
    with pytest.raises(CommandError, match="is being covered by another element: <div#overlay>"):
        runner.get("#below").click(timeout=300)
    assert "click:below" not in _log(runner)
