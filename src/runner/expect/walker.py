"""The one reader of dotted paths: ``its("body.items.0.name")`` on the retrying subjects and on
interceptions, and chai's ``have.property`` / ``have.nested.property``.

The two read paths by different rules, and each rule is something a user can see, so the walk is
one and the differences are the fields of :class:`PathRules`: :data:`ITS` (the default) and
:data:`CHAI`. A segment that cannot be followed raises :class:`PathMissing`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from runner.casing import camel_to_snake, snake_to_camel

from .messages import short

__all__ = ["PathMissing", "PathRules", "ITS", "CHAI", "walk_path", "walk_parts"]


class PathMissing(LookupError):
    """A dotted path could not be followed past ``part`` (the walk's "missing" signal).

    ``walked``: the path up to and including ``part``; ``container``: the value ``part`` was
    looked up in; ``reason``: ``"key"`` (not a key of a mapping), ``"index"`` (an index outside
    a list, tuple or str), ``"none"`` (the value was None) or ``"property"`` (no attribute of
    that name). Callers turn it into their own error: a retrying subject retries, ``its`` on an
    interception fails at once.
    """

    def __init__(self, walked: str, part: str, container: Any, reason: str) -> None:
        super().__init__(f"{walked!r}: {short(container)} has no {part!r}")
        self.walked = walked
        self.part = part
        self.container = container
        self.reason = reason


@dataclass(frozen=True)
class PathRules:
    """How a walk splits a path and reads each segment: one field per rule that differs
    between ``its`` (:data:`ITS`) and chai's property chainers (:data:`CHAI`)."""

    # "a.b[0].c" and "\." escapes, empty segments kept (chai); else a split at every dot with
    # empty segments skipped ("a..b" is "a.b")
    brackets: bool
    # a name is also tried in snake_case, then camelCase (its: "statusCode" reads status_code);
    # else only as written (chai names exact properties)
    spellings: bool
    # a segment of digits also finds a mapping's int key ("0" reads {0: ...}) (chai)
    digit_keys: bool
    # an index is whatever int() takes ("+1", " 1") (chai); else only ASCII digits with an
    # optional minus (its: no one means "+1" as an index)
    loose_index: bool
    # a segment of a list, tuple or str that is no index reads an attribute ("count") (its);
    # else it is missing (chai)
    sequence_attributes: bool
    # an attribute read that raises is a missing segment (chai: "it had no such property");
    # else the error propagates (its: a body that cannot load is an error, not a retry)
    read_errors_missing: bool


#: ``its`` of the retrying subjects and of interceptions.
ITS = PathRules(brackets=False, spellings=True, digit_keys=False, loose_index=False,
                sequence_attributes=True, read_errors_missing=False)
#: chai's ``have.property`` (one segment) and ``have.nested.property``.
CHAI = PathRules(brackets=True, spellings=False, digit_keys=True, loose_index=True,
                 sequence_attributes=False, read_errors_missing=True)

_ABSENT = object()
_INDEX = re.compile(r"-?[0-9]+")


def walk_path(value: Any, path: str, *, call_accessors: bool = False,
              rules: PathRules = ITS) -> Any:
    """Follow the dotted path ``path`` (``"body.items.0.name"``) from ``value``; return the end.

    Each segment is read from the value reached so far (with the :data:`ITS` rules):

    * a mapping: the key as written, else its snake_case, else its camelCase spelling;
    * a list, tuple or str: ``length`` (its size) or an integer index (negative ones count from
      the end); any other segment is read as an attribute;
    * None: nothing can be read from it;
    * anything else: the attribute as written, else its snake_case, else its camelCase spelling.

    Empty segments are skipped (``"a..b"`` is ``"a.b"``; ``""`` yields ``value``). With
    ``call_accessors``, every callable reached (but not a class) is called without arguments and
    replaced by what it returns, unless the call raises TypeError (it needs arguments).
    :data:`CHAI` rules instead: see :class:`PathRules`.

    Raises PathMissing for the first segment that cannot be followed. Any other error of a
    property or accessor read on the way (a body that cannot load) propagates.
    """
    parts = _split_brackets(path) if rules.brackets else [p for p in path.split(".") if p]
    return walk_parts(value, parts, rules=rules, call_accessors=call_accessors)


def walk_parts(value: Any, parts: Iterable[Any], *, rules: PathRules = ITS,
               call_accessors: bool = False) -> Any:
    """:func:`walk_path` over segments already split (``have.property`` reads one, of any type)."""
    current = value
    walked: list[str] = []
    for part in parts:
        walked.append(str(part))
        current = _read(current, part, walked, rules)
        if call_accessors and callable(current) and not isinstance(current, type):
            try:
                current = current()
            except TypeError:
                pass
    return current


def _split_brackets(path: str) -> list[str]:
    """``'a.b[0].c'`` -> ``['a', 'b', '0', 'c']``; ``\\.``, ``\\[`` and ``\\]`` escape."""
    parts: list[str] = []
    current = ""
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "\\" and i + 1 < len(path):
            current += path[i + 1]
            i += 2
            continue
        if ch == ".":
            parts.append(current)
            current = ""
        elif ch == "[":
            if current:
                parts.append(current)
            end = path.find("]", i)
            if end == -1:
                end = len(path)
            parts.append(path[i + 1 : end])
            current = ""
            i = end + 1
            if i < len(path) and path[i] == ".":
                i += 1
            continue
        else:
            current += ch
        i += 1
    if current or not parts:
        parts.append(current)
    return parts


def _read(current: Any, part: Any, walked: list[str], rules: PathRules) -> Any:
    """One segment read from ``current``, or PathMissing."""
    if isinstance(current, Mapping):
        for key in _keys(part, rules):
            if key in current:
                return current[key]
        raise PathMissing(".".join(walked), part, current, "key")
    if isinstance(current, (list, tuple, str)):
        if part == "length":
            return len(current)
        index = _index(part, rules)
        if index is not None:
            if -len(current) <= index < len(current):
                return current[index]
            raise PathMissing(".".join(walked), part, current, "index")
        if not rules.sequence_attributes:
            raise PathMissing(".".join(walked), part, current, "index")
    if current is None:
        raise PathMissing(".".join(walked), part, current, "none")
    found = _attribute(current, part, rules)
    if found is _ABSENT:
        raise PathMissing(".".join(walked), part, current, "property")
    return found


def _spellings(part: str) -> tuple[str, ...]:
    """``part`` as written, then in snake_case, then in camelCase (without repeats)."""
    return tuple(dict.fromkeys((part, camel_to_snake(part), snake_to_camel(part))))


def _keys(part: Any, rules: PathRules) -> Iterator[Any]:
    # lazily: a later spelling is made only when the earlier ones are not keys
    if not isinstance(part, str):
        yield part
        return
    yield from _spellings(part) if rules.spellings else (part,)
    if rules.digit_keys and part.isdigit():
        yield int(part)


def _index(part: Any, rules: PathRules) -> int | None:
    if rules.loose_index:
        try:
            return int(part)
        except (TypeError, ValueError):
            return None
    # ASCII digits with an optional minus only: int() would also take "+1", " 1", "1_0" and
    # other scripts' digits, which no one means as an index.
    return int(part) if isinstance(part, str) and _INDEX.fullmatch(part) else None


def _attribute(current: Any, part: Any, rules: PathRules) -> Any:
    if not isinstance(part, str):
        return _ABSENT
    for name in _spellings(part) if rules.spellings else (part,):
        try:
            found = getattr(current, name, _ABSENT)
        except Exception:
            if not rules.read_errors_missing:
                raise
            found = _ABSENT
        if found is not _ABSENT:
            return found
    return _ABSENT
