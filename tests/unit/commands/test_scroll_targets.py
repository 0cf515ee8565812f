"""scroll_to's arguments: the original's positions (and their snake_case spellings), coordinates."""

from __future__ import annotations

import pytest

from runner.commands.scrolling import scroll_target
from runner.errors import UsageError


@pytest.mark.parametrize(("given", "x", "y"), [
    (("topLeft",), [0.0, "%"], [0.0, "%"]),
    (("top_left",), [0.0, "%"], [0.0, "%"]),
    (("top",), [50.0, "%"], [0.0, "%"]),
    (("right",), [100.0, "%"], [50.0, "%"]),
    (("center",), [50.0, "%"], [50.0, "%"]),
    (("bottom_right",), [100.0, "%"], [100.0, "%"]),
    (("bottomLeft",), [0.0, "%"], [100.0, "%"]),
    ((0, 250), [0.0, "px"], [250.0, "px"]),
    (("75px", "50%"), [75.0, "px"], [50.0, "%"]),
    (("10", 2.5), [10.0, "px"], [2.5, "px"]),
])
def test_targets(given, x, y):
    assert scroll_target(given[0], given[1] if len(given) > 1 else None) == (x, y)


@pytest.mark.parametrize(("given", "says"), [
    (("middle", None), "not a position"),
    ((250, None), "needs y as well"),
    (("250px", None), "needs y as well"),
    (("1em", 0), "pixels (250, '250px') or a percentage"),
    ((True, 0), "pixels"),
    ((0, None), "needs y as well"),
])
def test_misuse(given, says):
    with pytest.raises(UsageError, match=says.replace("(", r"\(").replace(")", r"\)")):
        scroll_target(*given)
