"""Is a response valid HTTP/1.x? Read from the raw status line and header lines the browser
received (the DevTools protocol's ``headersText``).

Chromium is lenient where a stricter client is not: it takes ``HTTP/1.1 abc`` for a 200, keeps
a header line without a colon, and reads ``Content-Length: abc`` as no length at all. The
original runner fetches the document of a visit with Node's HTTP parser, which refuses each of
these, so its visit fails. These rules are that parser's (llhttp, strict mode), in words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["problem", "followed_redirect", "INVALID_HTTP", "REDIRECT_STATUSES"]

#: How goto's error starts when a document's response was not valid HTTP (the rest says why).
INVALID_HTTP = "invalid HTTP response: "

#: The statuses a browser (and Playwright's client) follows to the response's ``Location``; a
#: response of another status, a 3xx included, is the answer itself (a document shows its body).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


def followed_redirect(status: int | None, header_names: Iterable[str]) -> bool:
    """Whether the browser goes on from a response of ``status`` whose headers are named
    ``header_names`` to another URL: a redirect status, with a ``Location``."""
    return status in REDIRECT_STATUSES and any(name.lower() == "location" for name in header_names)


_STATUS_LINE = re.compile(r"HTTP/\d\.\d (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # controls other than tab
_SHOWN = 80


def _show(line: str) -> str:
    return repr(line if len(line) <= _SHOWN else line[:_SHOWN] + "…")


def problem(headers_text: str) -> str | None:
    """What makes the response whose head is ``headers_text`` invalid HTTP/1.x, in a sentence;
    None when it is valid."""
    text = headers_text
    if text.endswith("\r\n\r\n"):
        text = text[:-4]
    lines = text.split("\r\n")
    status = lines[0]
    if not _STATUS_LINE.fullmatch(status):
        return (f"its status line {_show(status)} is not 'HTTP/<version> <3-digit status code> "
                "<reason>'")
    lengths: set[str] = set()
    chunked = False
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            return f"its header line {_show(line)} is not 'Name: value'"
        value = value.strip(" \t")
        if _BAD_VALUE.search(value):
            return f"its header {name!r} holds a control character"
        lowered = name.lower()
        if lowered == "content-length":
            for part in value.split(","):
                if not part.strip().isdigit() or not part.strip().isascii():
                    return f"its Content-Length {value!r} is not a number"
                lengths.add(part.strip().lstrip("0") or "0")
        elif lowered == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if len(lengths) > 1:
        return f"it has different Content-Length values ({', '.join(sorted(lengths))})"
    if lengths and chunked:
        return "it has both a Content-Length and 'Transfer-Encoding: chunked'"
    return None
