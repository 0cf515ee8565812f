"""The one dotted-path walker: each field of PathRules, read by its() (ITS) and by chai's property
chainers (CHAI), on the value where the two differ."""

from __future__ import annotations

from typing import Any

import pytest

from runner.expect.walker import CHAI, ITS, PathMissing, walk_path

MISSING = "<missing>"


class Thing:
    status_code = 200

    @property
    def broken(self) -> Any:
        raise RuntimeError("the page went away")


class Items(list[int]):
    total = 7


def _walk(value: Any, path: str, rules: Any) -> Any:
    try:
        return walk_path(value, path, rules=rules)
    except PathMissing:
        return MISSING


@pytest.mark.parametrize(("value", "path", "by_its", "by_chai"), [
    ({"a": [1, {"c": 2}]}, "a[1].c", MISSING, 2),                  # brackets
    ({"a.b": 1}, "a\\.b", MISSING, 1),                             # escapes
    ({"a": {"b": 1}}, "a..b", 1, MISSING),                         # empty segments
    ({"status_code": 1}, "statusCode", 1, MISSING),                # spellings
    (Thing(), "statusCode", 200, MISSING),
    ({0: "zero"}, "0", MISSING, "zero"),                           # digit keys
    ([5, 6], "+1", MISSING, 6),                                    # loose index
    (Items([1]), "total", 7, MISSING),                             # attributes of sequences
])  # fmt: skip
def test_rules_differ_where_their_fields_say(value: Any, path: str, by_its: Any, by_chai: Any) -> None:
    assert _walk(value, path, ITS) == by_its
    assert _walk(value, path, CHAI) == by_chai


def test_a_raising_property_propagates_for_its_and_is_missing_for_chai() -> None:
    with pytest.raises(RuntimeError, match="the page went away"):
        walk_path(Thing(), "broken", rules=ITS)
    assert _walk(Thing(), "broken", CHAI) == MISSING
