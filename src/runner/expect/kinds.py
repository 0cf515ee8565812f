"""What kind a value is, as the chainers see it: the strict-ish equality that ``eq``,
``deep.equal``, ``include``, ``be.oneOf`` and ``members`` share, numbers and collections, the
chai type names of ``be.a``, and patterns."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from typing import Any

__all__ = [
    "SIZED_KINDS", "same", "is_number", "is_comparable", "is_collection", "regex",
    "CHAI_TYPES", "type_name", "type_label",
]

#: What a message names as the values that have a size.
SIZED_KINDS = "a string, list, tuple, dict or set"


def same(a: Any, b: Any) -> bool:
    """Strict-ish deep equality (see the package docstring)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if len(a) != len(b):
            return False
        return all(k in b and same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (str, bytes)) != isinstance(b, (str, bytes)):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_comparable(value: Any) -> bool:
    return is_number(value) or isinstance(value, (date, timedelta))


def is_collection(v: Any) -> bool:
    return isinstance(v, (list, tuple, set, frozenset))


def regex(pattern: Any) -> re.Pattern[str]:
    return pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)


CHAI_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda x: isinstance(x, str),
    "number": is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "undefined": lambda x: x is None,
    "array": lambda x: isinstance(x, (list, tuple)),
    "object": lambda x: type_name(x) == "object",
    "function": lambda x: type_name(x) == "function",
    "regexp": lambda x: isinstance(x, re.Pattern),
    "set": lambda x: isinstance(x, (set, frozenset)),
    "str": lambda x: isinstance(x, str),
    "int": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "float": lambda x: isinstance(x, float),
    "bool": lambda x: isinstance(x, bool),
    "dict": lambda x: isinstance(x, dict),
    "list": lambda x: isinstance(x, list),
    "tuple": lambda x: isinstance(x, tuple),
    "bytes": lambda x: isinstance(x, (bytes, bytearray)),
    "None": lambda x: x is None,
    "NoneType": lambda x: x is None,
}


def type_name(value: Any) -> str:
    """The chai-style type name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, (set, frozenset)):
        return "set"
    if isinstance(value, re.Pattern):
        return "regexp"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, Mapping):
        return "object"
    if callable(value):
        return "function"
    return "object"


def type_label(t: Any) -> str:
    """How ``be.a``'s argument reads in a message: a type's name, a tuple's names, or as given."""
    if isinstance(t, type):
        return t.__name__
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return str(t)
