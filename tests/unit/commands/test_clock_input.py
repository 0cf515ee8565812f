"""``runner.clock(now=...)`` and ``set_time``'s values: epoch ms, a datetime or an ISO 8601 string,
read exactly; anything else refused with a message that names the call and shows the value."""

from __future__ import annotations

import datetime as dt

import pytest

from runner.commands.clock import epoch_ms
from runner.engine.clock_verbs import iso_ms
from runner.errors import UsageError

UTC = dt.UTC


@pytest.mark.parametrize(("value", "expected"), [
    (0, 0),
    (1577836800123, 1577836800123),
    (1.6, 2),
    ("2020-01-01T00:00:00Z", 1577836800000),
    ("2020-01-01T01:00:00.250+01:00", 1577836800250),
    (dt.datetime(2020, 1, 1, tzinfo=UTC), 1577836800000),
    (dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC), -1000),
])
def test_values_are_read_exactly(value: object, expected: int) -> None:
    assert epoch_ms(value, "runner.clock(now=...)") == expected


def test_a_naive_datetime_is_local_time() -> None:
    naive = dt.datetime(2020, 6, 1, 12, 0, 0)
    assert epoch_ms(naive, "x") == round(naive.timestamp() * 1000)
    assert epoch_ms("2020-06-01T12:00:00", "x") == round(naive.timestamp() * 1000)


@pytest.mark.parametrize(("value", "said"), [
    ("yesterday", "'yesterday', which is not an ISO 8601 date"),
    (True, "found True (bool)"),
    (None, "found None (NoneType)"),
    (float("nan"), "found nan"),
    ([2020], "found [2020] (list)"),
    (10**17, "outside the dates runner can set"),
])
def test_bad_values_are_told(value: object, said: str) -> None:
    with pytest.raises(UsageError) as err:
        epoch_ms(value, "runner.clock(now=...)")
    assert str(err.value).startswith("runner.clock(now=...)") and said in str(err.value)


@pytest.mark.parametrize(("ms", "iso"), [
    (0, "1970-01-01T00:00:00.000Z"),
    (1577836800123, "2020-01-01T00:00:00.123Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
])
def test_times_go_to_playwright_as_exact_iso_strings(ms: int, iso: str) -> None:
    assert iso_ms(ms) == iso
