"""hover and scroll_to: a real pointer move, and the page or an element scrolled to a position."""

from __future__ import annotations

import pytest
from tests.support.runner_reads import log_messages, page_value

from runner import CommandError, UsageError


def test_hover_is_a_real_pointer_move(runner, started):
    runner.visit("/pointer.html")
    runner.get("#hot").should("have.css", "background-color", "rgb(200, 200, 200)")
    runner.get("#hot").hover()
    runner.get("#hot").should("have.css", "background-color", "rgb(0, 128, 0)")  # CSS :hover
    runner.get("#hover-log").should("have.text", "mouseover,mouseenter")
    assert page_value(runner, "() => document.getElementById('hot').matches(':hover')") is True
    assert log_messages(runner, "hover") == ["get('#hot')"]
    assert [(e.name, e.subject) for e in started if e.name == "hover"] == [("hover", "get('#hot')")]


def test_a_disabled_element_is_hovered_too(runner):
    runner.visit("/pointer.html")
    runner.get("#locked").hover()  # (its tooltip is why one hovers it)
    runner.get("#locked").should("have.css", "outline-color", "rgb(255, 0, 0)")
    runner.get("#hot").hover(force=True)
    runner.get("#hot").should("have.css", "background-color", "rgb(0, 128, 0)")
    runner.get("#locked").should("have.css", "outline-style", "none")


def test_hover_waits_for_a_covered_element_then_fails_clearly(runner):
    runner.visit("/forms.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#covered").hover(timeout=300)
    assert "get('#covered').hover()" in str(caught.value)
    assert "covered by another element" in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_hover_needs_a_single_element(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError, match=r"hover\(\) can only be called on a single element.*3 elements\.\nNarrow"):
        runner.get("#nums li").hover()


def test_the_page_scrolls_to_positions_and_coordinates(runner, started):
    runner.visit("/pointer.html")
    max_y = page_value(runner, "() => document.scrollingElement.scrollHeight - innerHeight")
    max_x = page_value(runner, "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth")
    assert runner.scroll_to("bottom") == {"left": pytest.approx(max_x / 2, abs=1), "top": pytest.approx(max_y, abs=1)}
    assert page_value(runner, "() => scrollY") == pytest.approx(max_y, abs=1)
    runner.scroll_to("top_left")
    assert page_value(runner, "() => [scrollX, scrollY]") == [0, 0]
    runner.scroll_to(0, "50%")
    assert page_value(runner, "() => scrollY") == pytest.approx(max_y / 2, abs=1)
    runner.scroll_to("120px", 300)
    assert page_value(runner, "() => [scrollX, scrollY]") == [120, 300]
    assert log_messages(runner, "scroll_to") == ["window 'bottom'", "window 'top_left'", "window 0, '50%'",
                                            "window '120px', 300"]
    assert [e.args for e in started if e.name == "scroll_to"][:2] == ["'bottom'", "'top_left'"]


def test_an_element_scrolls_and_an_animated_scroll_passes_through_the_middle(runner):
    runner.visit("/pointer.html")
    runner.get("#box").scroll_to("bottomRight")
    left, top, max_x, max_y = page_value(runner, "() => { const b = document.getElementById('box'); return [b.scrollLeft,"
                                            " b.scrollTop, b.scrollWidth - b.clientWidth, b.scrollHeight - b.clientHeight]; }")
    assert (left, top) == (max_x, max_y) and max_x > 0 and max_y > 0
    runner.get("#box").scroll_to("center")
    page_value(runner, "() => { const b = document.getElementById('box'); window.seen = [];"
                  " b.addEventListener('scroll', () => window.seen.push(b.scrollTop)); }")
    runner.get("#box").scroll_to(0, 0, duration=600, easing="linear")
    top, seen = page_value(runner, "() => [document.getElementById('box').scrollTop, window.seen]")
    assert top == 0
    assert any(0 < s < 500 for s in seen), seen  # it went there by steps (from 500, the centre)
    assert log_messages(runner, "scroll_to")[-1] == "get('#box') 0, 0, duration=600, easing='linear'"


def test_a_scroll_that_is_not_possible_fails_as_the_original_does(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#flat").scroll_to("bottom", timeout=300)
    message = str(caught.value)
    assert "get('#flat').scroll_to('bottom')" in message
    assert "failed because this element is not scrollable: <div#flat>" in message
    runner.get("#flat").scroll_to("bottom", ensure_scrollable=False)  # no check: passes, nothing moves
    assert page_value(runner, "() => document.getElementById('flat').scrollTop") == 0
    runner.visit("/index.html")
    with pytest.raises(CommandError, match="not scrollable: window"):
        runner.scroll_to("bottom", timeout=300)


def test_scroll_to_misuse(runner):
    runner.visit("/pointer.html")
    with pytest.raises(UsageError, match=r"scroll_to\('middle'\): not a position"):
        runner.scroll_to("middle")
    with pytest.raises(UsageError, match="needs y as well"):
        runner.scroll_to(250)
    with pytest.raises(UsageError, match="pixels"):
        runner.scroll_to("1em", 0)
    with pytest.raises(CommandError, match="can only be called on a single element"):
        runner.get("section").scroll_to("bottom")
