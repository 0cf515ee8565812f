"""Small helpers shared by the interception modules: showing values, (de)coding bodies."""

from __future__ import annotations

import json
import math
import mimetypes
import re
from collections.abc import Awaitable, Mapping
from http import HTTPStatus
from typing import Any

MISSING: Any = object()  # "key not given", distinct from an explicit None (JSON null)

# RFC 9110 5.1 and 5.6.2: a field name is a token of these characters.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# RFC 9110 5.5: CR, LF and NUL make a field value invalid (a recipient must reject it).
_FORBIDDEN_IN_VALUE = {"\r": "a carriage return (\\r)", "\n": "a line feed (\\n)", "\0": "a NUL (\\0)"}

_HTML_LOOKING = re.compile(r"^\s*<(?:!doctype\s+html|html|head|body|[a-z][a-z0-9-]*(?:\s[^>]*)?/?>)", re.I)


async def as_coro(awaitable: Awaitable[Any]) -> Any:
    """An awaitable (what a user's handler returned) as a coroutine, for ``asyncio.wait_for``."""
    return await awaitable


def show(value: Any) -> str:
    """A value as compact JSON for messages (regexes as ``/src/flags``, callables by name)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, re.Pattern):
            return regex_text(obj)
        if isinstance(obj, (bytes, bytearray, memoryview)):
            return f"<{len(bytes(obj))} bytes>"
        if callable(obj):
            return f"<function {getattr(obj, '__name__', type(obj).__name__)}>"
        if isinstance(obj, (set, frozenset, tuple)):
            return list(obj)
        return repr(obj)

    try:
        return json.dumps(value, default=default, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def regex_text(pattern: re.Pattern[Any]) -> str:
    flags = ""
    if pattern.flags & re.IGNORECASE:
        flags += "i"
    if pattern.flags & re.MULTILINE:
        flags += "m"
    if pattern.flags & re.DOTALL:
        flags += "s"
    return f"/{pattern.pattern}/{flags}"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_non_negative(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0


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
    if name.lower() == "set-cookie":
        value = value.replace("\n", "")  # several cookies, a line each (Playwright's rule)
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
    """Case-insensitive header lookup."""
    lname = name.lower()
    for key, value in headers.items():
        if key.lower() == lname:
            return value
    return None


def header_has(headers: Mapping[str, str], name: str) -> bool:
    return header_get(headers, name) is not None


def header_set(headers: dict[str, str], name: str, value: str) -> None:
    """Set ``name`` replacing any spelling of it already present."""
    lname = name.lower()
    for key in [k for k in headers if k.lower() == lname]:
        del headers[key]
    headers[name] = value


def merge_headers(base: Mapping[str, str], override: Mapping[str, str]) -> dict[str, str]:
    """``base`` updated by ``override``; names compared case-insensitively, override wins."""
    out = dict(base)
    for key, value in override.items():
        header_set(out, key, value)
    return out


def looks_like_html(text: str) -> bool:
    return bool(_HTML_LOOKING.match(text))


def guess_content_type(path: str, data: bytes) -> str:
    """The content type of a fixture: from its extension, else from its content."""
    guessed, _ = mimetypes.guess_type(path)
    if guessed:
        return guessed
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    try:
        json.loads(text)
        return "application/json"
    except ValueError:
        pass
    if looks_like_html(text):
        return "text/html"
    return "text/plain"


def reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
