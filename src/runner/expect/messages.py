"""How assertion messages show things: a shortened repr of any value, elements by their
description (``<li.user#u1>``, at most :data:`MAX_LISTED` of a set), articles and plurals."""

from __future__ import annotations

import re
import reprlib
from typing import Any

from .subjects import DomSubject, ElementSnapshot

__all__ = ["MAX_LISTED", "regex_text", "short", "describe", "describe_elements", "article", "plural", "a_type"]

_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlist = 8
_repr.maxtuple = 8
_repr.maxdict = 8
_repr.maxset = 8
_repr.maxfrozenset = 8
_repr.maxlevel = 3
_repr.maxlong = 40

#: How many elements a message lists before "... N more".
MAX_LISTED = 5
_MAX_REPR = 120


def regex_text(pattern: re.Pattern[Any]) -> str:
    """A pattern as the original writes a regex, its flags after it (``/^on/i``): a message that
    left out ``re.IGNORECASE`` would name a stricter check than the one that ran."""
    flags = ""
    if pattern.flags & re.IGNORECASE:
        flags += "i"
    if pattern.flags & re.MULTILINE:
        flags += "m"
    if pattern.flags & re.DOTALL:
        flags += "s"
    return f"/{pattern.pattern}/{flags}"


def short(value: Any) -> str:
    """A readable, shortened repr of any value (element snapshots by their description)."""
    if isinstance(value, ElementSnapshot):
        return value.description
    if isinstance(value, DomSubject):
        return _describe_dom(value)
    if isinstance(value, re.Pattern):
        return regex_text(value)
    if callable(value) and not isinstance(value, type):
        return f"[function {getattr(value, '__name__', type(value).__name__)}]"
    try:
        text = _repr.repr(value)
    except Exception:  # a broken __repr__ must not break the message
        return f"<{type(value).__name__} object>"
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 20] + " ... " + text[-15:]
    return text


def describe_elements(elements: tuple[ElementSnapshot, ...] | list[ElementSnapshot],
                      count: int | None = None) -> str:
    count = len(elements) if count is None else count
    if count == 1:
        return elements[0].description
    shown = ", ".join(e.description for e in elements[:MAX_LISTED])
    more = count - min(len(elements), MAX_LISTED)
    if more > 0:
        shown += f", ... {more} more"
    return f"[ {shown} ]"


def _describe_dom(subject: DomSubject) -> str:
    if not subject.count:
        return f"[] matching {subject.selector!r}"
    return describe_elements(subject.elements, subject.count)


def describe(subject: Any) -> str:
    """The subject as the head of a message names it (``expected <li.user> to ...``)."""
    return _describe_dom(subject) if isinstance(subject, DomSubject) else short(subject)


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def a_type(value: Any) -> str:
    """``a str``, ``an int``: the value's Python type with its article."""
    name = type(value).__name__
    return f"{article(name)} {name}"
