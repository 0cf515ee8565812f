"""Small helpers shared by the interception modules: showing values, (de)coding bodies."""

from __future__ import annotations

import json
import math
import mimetypes
import re
from collections.abc import Awaitable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from runner.expect.messages import regex_text

MISSING: Any = object()  # "key not given", distinct from an explicit None (JSON null)

_HTML_LOOKING = re.compile(r"^\s*<(?:!doctype\s+html|html|head|body|[a-z][a-z0-9-]*(?:\s[^>]*)?/?>)", re.I)


async def as_coro(awaitable: Awaitable[Any]) -> Any:
    """An awaitable (what a user's handler returned) as a coroutine, for ``asyncio.wait_for``."""
    return await awaitable


def parse_query(url: str) -> dict[str, Any]:
    """The query of ``url`` as a dict: str values, a list for a repeated key."""
    out: dict[str, Any] = {}
    for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if key in out:
            existing = out[key]
            out[key] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            out[key] = value
    return out


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


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_whole_number(value: Any) -> bool:
    """An int, or a float with no fraction (``80.0``); never infinity or NaN, which ``int()`` refuses."""
    return is_number(value) and math.isfinite(value) and int(value) == value


def is_finite_non_negative(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0


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
