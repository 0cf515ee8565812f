"""HTTP headers in one place: the :class:`Headers` type and the rules that hold for every header
the engine reads, sets, checks or sends.

The rule of repeated headers (Playwright's, which runner follows at every edge): several values
of one header travel as ONE value, joined by a newline for ``set-cookie`` (one cookie a line)
and by ``", "`` for any other (HTTP's own rule; a newline there is an invalid value). A header
is sent as one line per newline-separated part of its value. Names compare case-insensitively.

The headers a handler sees and sets (``req.headers``, ``res.headers``, a StaticResponse's) are
the user's own dicts, kept as given; the functions below read and change them by these rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

__all__ = [
    "Headers",
    "header_get",
    "header_has",
    "header_set",
    "header_replace",
    "header_delete",
    "merge_headers",
    "header_problem",
    "headers_problem",
]

# RFC 9110 5.1 and 5.6.2: a field name is a token of these characters.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# RFC 9110 5.5: CR, LF and NUL make a field value invalid (a recipient must reject it).
_FORBIDDEN_IN_VALUE = {"\r": "a carriage return (\\r)", "\n": "a line feed (\\n)", "\0": "a NUL (\\0)"}
# The headers whose repeated values are joined by a newline (one a line) instead of ", ".
_ONE_A_LINE = frozenset(("set-cookie",))


class Headers(MutableMapping[str, str]):
    """Ordered HTTP headers whose names compare case-insensitively; a name may hold several
    values (lines). As a mapping, a name gives its values joined by the rule of repeated
    headers (see the module), and setting a name replaces every value of it; :meth:`add`
    adds a value, :meth:`lines` gives the headers as sent, one ``(name, value)`` a line."""

    __slots__ = ("_lines",)

    def __init__(self, headers: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        self._lines: list[tuple[str, str]] = []
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        for name, value in pairs:
            self.add(name, value)

    def add(self, name: str, value: Any) -> None:
        """Add ``value`` to ``name`` (after the values it has)."""
        self._lines.append((str(name), str(value)))

    def lines(self) -> list[tuple[str, str]]:
        """The headers as sent, one ``(name, value)`` a line: a value holding newlines is
        several lines (``set-cookie`` holds one cookie a line)."""
        return [(name, line) for name, value in self._lines for line in value.split("\n")]

    def to_dict(self) -> dict[str, str]:
        """One entry a name (as first spelled), its values joined by the rule of repeated headers."""
        return {name: self[name] for name in self}

    def problem(self) -> str | None:
        """Why the first header that breaks the HTTP grammar does, as a sentence, or None."""
        for name, value in self._lines:
            problem = header_problem(name, value)
            if problem is not None:
                return problem
        return None

    def __getitem__(self, name: str) -> str:
        lname = name.lower()
        values = [value for key, value in self._lines if key.lower() == lname]
        if not values:
            raise KeyError(name)
        return ("\n" if lname in _ONE_A_LINE else ", ").join(values)

    def __setitem__(self, name: str, value: Any) -> None:
        """Replace every value of ``name`` by ``value``, where its first one was (as a dict keeps
        a key's place), or add it at the end."""
        lname = name.lower()
        at = next((i for i, (key, _) in enumerate(self._lines) if key.lower() == lname), len(self._lines))
        kept = [(key, v) for key, v in self._lines if key.lower() != lname]
        kept.insert(at, (str(name), str(value)))
        self._lines = kept

    def __delitem__(self, name: str) -> None:
        lname = name.lower()
        kept = [(key, value) for key, value in self._lines if key.lower() != lname]
        if len(kept) == len(self._lines):
            raise KeyError(name)
        self._lines = kept

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(key.lower() == name.lower() for key, _ in self._lines)

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for key, _ in self._lines:
            if key.lower() not in seen:
                seen.add(key.lower())
                yield key

    def __len__(self) -> int:
        return len({key.lower() for key, _ in self._lines})

    def __repr__(self) -> str:
        return f"Headers({self._lines!r})"


def header_problem(name: str, value: str) -> str | None:
    """Why the header ``name: value`` breaks the HTTP grammar (RFC 9110), as a sentence, or None.

    A name is a token: at least one character, each a letter, a digit or one of
    ``!#$%&'*+-.^_`|~`` (so no space, colon or control character). A value may not contain CR,
    LF or NUL (a header with them would end or split the header block), but ``set-cookie`` may
    hold several cookies joined by LF, each sent as a header of its own."""
    if not _TOKEN.fullmatch(name):
        return (
            f"The header name {name!r} is not a valid HTTP field name: a name is one or more "
            "letters, digits or !#$%&'*+-.^_`|~ (no spaces, colons or control characters)."
        )
    if name.lower() in _ONE_A_LINE:
        value = value.replace("\n", "")  # several values, a line each (the rule of repeated headers)
    for char, what in _FORBIDDEN_IN_VALUE.items():
        if char in value:
            return (
                f"The value of the header `{name}` contains {what}: HTTP field values cannot "
                "contain CR, LF or NUL."
            )
    return None


def headers_problem(headers: Mapping[Any, Any]) -> str | None:
    """The problem of the first header of ``headers`` that :func:`header_problem` refuses."""
    for name, value in headers.items():
        problem = header_problem(str(name), str(value))
        if problem is not None:
            return problem
    return None


def header_get(headers: Mapping[str, str], name: str) -> str | None:
    """The value of ``name`` in the user's ``headers`` (any spelling: the first), or None."""
    lname = name.lower()
    for key, value in headers.items():
        if key.lower() == lname:
            return value
    return None


def header_has(headers: Mapping[str, str], name: str) -> bool:
    """Whether the user's ``headers`` hold ``name`` (any spelling)."""
    return header_get(headers, name) is not None


def header_set(headers: MutableMapping[str, Any], name: str, value: str) -> None:
    """Set ``name`` in the user's ``headers``, replacing any spelling of it already present."""
    header_delete(headers, name)
    headers[name] = value


def header_replace(headers: MutableMapping[str, Any], name: str, value: str) -> None:
    """Give every spelling of ``name`` in the user's ``headers`` the value ``value``, each keeping
    its spelling and place (nothing when ``name`` is absent)."""
    lname = name.lower()
    for key in [k for k in headers if k.lower() == lname]:
        headers[key] = value


def header_delete(headers: MutableMapping[str, Any], name: str) -> None:
    """Remove every spelling of ``name`` from the user's ``headers``."""
    lname = name.lower()
    for key in [k for k in headers if k.lower() == lname]:
        del headers[key]


def merge_headers(base: Mapping[str, str], override: Mapping[str, str]) -> dict[str, str]:
    """``base`` updated by ``override``; names compared case-insensitively, override wins."""
    out = dict(base)
    for key, value in override.items():
        header_set(out, key, value)
    return out
