"""match.screenshot's options checked before any capture: each misuse named with what it takes."""

from __future__ import annotations

import pytest

from runner.commands.snapshots import _screenshot_options
from runner.errors import UsageError


@pytest.mark.parametrize(("options", "said"), [
    ({"mask": "#clock"}, "mask takes a list of CSS selectors; found '#clock'"),
    ({"mask": ["#a", ""]}, "mask takes a list of CSS selectors"),
    ({"threshold": 1.5}, "threshold takes a number from 0 to 1"),
    ({"threshold": True}, "threshold takes a number from 0 to 1"),
    ({"max_diff_pixels": -1}, "max_diff_pixels takes a whole number, 0 or more; found -1"),
    ({"max_diff_pixels": 2.5}, "max_diff_pixels takes a whole number"),
    ({"max_diff_pixel_ratio": 2}, "max_diff_pixel_ratio takes a number from 0 to 1; found 2"),
    ({"full_page": "yes"}, "full_page takes True or False"),
])
def test_a_bad_option_is_named(options: dict, said: str) -> None:
    with pytest.raises(UsageError, match=said.replace("(", r"\(").replace(")", r"\)")):
        _screenshot_options(options)


def test_the_defaults() -> None:
    assert _screenshot_options({}) == {"mask": [], "threshold": 0.2, "max_diff_pixels": None,
                                       "max_diff_pixel_ratio": None, "full_page": False}
