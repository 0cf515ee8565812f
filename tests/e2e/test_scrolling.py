"""scrollBehavior and waitForAnimations decide how actions bring an element into view."""

from __future__ import annotations

import pytest

TALL = ("<html><body style='margin:0'><div style='height:3000px'></div>"
        "<button id='b' style='height:40px'>far</button><div style='height:3000px'></div></body></html>")


def _button_top(runner) -> float:
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        "() => document.getElementById('b').getBoundingClientRect().top"))


def test_default_scrolls_the_element_to_the_top(runner, server):
    runner.visit(server.page("/tall", TALL))
    runner.get("#b").click()
    assert abs(_button_top(runner)) < 2


@pytest.mark.runner(scrollBehavior="center")
def test_center(runner, server):
    runner.visit(server.page("/tall", TALL))
    runner.get("#b").click()
    assert abs(_button_top(runner) - (660 - 40) / 2) < 3


@pytest.mark.runner(scrollBehavior="bottom")
def test_bottom(runner, server):
    runner.visit(server.page("/tall", TALL))
    runner.get("#b").click()
    assert abs(_button_top(runner) - (660 - 40)) < 3
