"""When ``runner show-trace`` opens a browser by itself."""

from __future__ import annotations

import sys

import pytest

from runner.serve.trace import display_likely


@pytest.mark.skipif(sys.platform != "linux", reason="Linux decides by its display variables")
@pytest.mark.parametrize(("env", "likely"), [
    ({}, False),
    ({"DISPLAY": ":0"}, True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, True),
    ({"DISPLAY": ":0", "CI": "true"}, False),
    ({"DISPLAY": ""}, False),
])
def test_a_browser_is_opened_only_where_one_can_be_shown(env: dict[str, str], likely: bool) -> None:
    assert display_likely(env) is likely
