"""``lookup_path``: the retrying subjects' reading of ``its("a.b.0")`` (on the shared walker)."""

from __future__ import annotations

from typing import Any

import pytest

from runner.commands.values import _Missing, lookup_path


class _Item:
    def __init__(self) -> None:
        self.labelText = "Ada"

    def text(self) -> str:
        return "hi"


@pytest.mark.parametrize(("value", "path", "expected"), [
    ({"user": {"name": "Ada"}}, "user.name", "Ada"),
    ({"user": {"first_name": "Ada"}}, "user.firstName", "Ada"),
    ([10, 20], "-1", 20),
    ("abc", "length", 3),
    (_Item(), "label_text", "Ada"),
    (_Item(), "text", "hi"),  # a zero-argument accessor reads through
    ({"f": lambda: [1, 2]}, "f.length", 2),
    ({"a": 1}, "", {"a": 1}),
])
def test_lookup_path(value: Any, path: str, expected: Any) -> None:
    assert lookup_path(value, path) == expected


@pytest.mark.parametrize(("value", "path", "message"), [
    ({"a": 1}, "b", "{'a': 1} has no property 'b'"),
    ({"a": None}, "a.b", "None has no property 'b'"),
    ([1], "3", "list index out of range"),
    ((1,), "-2", "tuple index out of range"),
    ("ab", "5", "string index out of range"),
    ([1], "nope", "[1] has no property 'nope'"),
    (_Item(), "nope", None),
])
def test_lookup_path_missing_is_retried(value: Any, path: str, message: str | None) -> None:
    with pytest.raises(_Missing) as caught:
        lookup_path(value, path)
    if message is not None:
        assert str(caught.value) == message
    else:
        assert str(caught.value).endswith("has no property 'nope'")
