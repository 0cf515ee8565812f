"""The reading of ``runner.network_conditions(...)`` and of ``networkConditions``: presets, keywords
on top, what Chromium is sent, and bad values refused with a message naming the call."""

from __future__ import annotations

import pytest

from runner.config.network_conditions import NetworkConditions, read_conditions
from runner.engine.conditions_verbs import cdp_conditions
from runner.errors import UsageError

WHAT = "runner.network_conditions()"


@pytest.mark.parametrize(("value", "overrides", "expected"), [
    ("slow-3g", {}, NetworkConditions(latency=2000, download=400, upload=400, name="slow-3g")),
    ("fast-3g", {}, NetworkConditions(latency=562.5, download=1440, upload=675, name="fast-3g")),
    ("offline", {}, NetworkConditions(offline=True, name="offline")),
    ("slow-3g", {"offline": True}, NetworkConditions(offline=True, latency=2000, download=400, upload=400)),
    ("slow-3g", {"latency": 2000}, NetworkConditions(latency=2000, download=400, upload=400, name="slow-3g")),
    (None, {"download": 800}, NetworkConditions(download=800)),
    ({"latency": 300, "upload": None}, {}, NetworkConditions(latency=300)),
    (None, {}, None),
    (None, {"offline": False, "latency": 0}, None),
])
def test_presets_and_keywords(value: object, overrides: dict, expected: NetworkConditions | None) -> None:
    assert read_conditions(value, WHAT, **overrides) == expected


@pytest.mark.parametrize(("value", "overrides", "said"), [
    ("slow-4g", {}, "'slow-4g' is not a preset of network conditions; the presets are 'slow-3g', 'fast-3g', 'offline'"),
    (None, {"latency": -1}, "latency must be 0 or more milliseconds; found -1"),
    (None, {"download": 0}, "download must be more than 0 kilobits per second (leave it out for no limit); found 0"),
    (None, {"upload": "fast"}, "upload must be a number of kilobits per second; found 'fast'"),
    (None, {"latency": float("inf")}, "latency must be a number of milliseconds; found inf"),
    (None, {"offline": 1}, "offline must be True or False; found 1"),
    (None, {"speed": 3}, "does not take 'speed'; it takes offline, latency, download, upload"),
    (5, {}, "takes a preset name"),
])
def test_bad_values_are_told(value: object, overrides: dict, said: str) -> None:
    with pytest.raises(UsageError) as err:
        read_conditions(value, WHAT, **overrides)
    assert str(err.value).startswith(WHAT) and said in str(err.value)


def test_what_chromium_is_sent() -> None:
    assert cdp_conditions(read_conditions("slow-3g", WHAT)) == {
        "offline": False, "latency": 2000.0, "downloadThroughput": 50_000.0, "uploadThroughput": 50_000.0}
    assert cdp_conditions(None) == {"offline": False, "latency": 0.0, "downloadThroughput": -1, "uploadThroughput": -1}


def test_what_the_log_says() -> None:
    slow = read_conditions("slow-3g", WHAT)
    assert slow is not None and slow.describe() == "slow-3g: latency 2000ms, download 400 kbps, upload 400 kbps"
    assert read_conditions("offline", WHAT).describe() == "offline"  # type: ignore[union-attr]
    assert read_conditions(None, WHAT, latency=20).describe() == "latency 20ms"  # type: ignore[union-attr]
