"""Pieces of runner's own client for bodies it reads: Set-Cookie as Playwright cookies, and the
capped decompression (no browser: the e2e tests send real bombs)."""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

import pytest

from runner.engine.context_fetch import parse_set_cookie
from runner.engine.direct_fetch import BodyTooLarge, read_capped
from runner.net import UpstreamError

URL = "http://127.0.0.1:8080/api/login"


@pytest.mark.parametrize(("line", "expected"), [
    ("sid=abc", {"name": "sid", "value": "abc", "domain": "127.0.0.1", "path": "/api"}),
    ("sid=abc; Path=/; HttpOnly; Secure; SameSite=lax",
     {"name": "sid", "value": "abc", "domain": "127.0.0.1", "path": "/", "httpOnly": True, "secure": True,
      "sameSite": "Lax"}),
])
def test_a_set_cookie_line_becomes_a_playwright_cookie(line: str, expected: dict[str, Any]) -> None:
    assert parse_set_cookie(line, URL) == expected


@pytest.mark.parametrize(("line", "url", "domain"), [
    ("a=1; Domain=.example.test; Path=/x", "http://example.test/", ".example.test"),
    ("a=1; Domain=Example.TEST", "http://app.example.test/", ".example.test"),  # subdomains too, as Playwright
    ("a=1; Domain=localhost", "http://localhost:8080/", "localhost"),
    ("a=1; Domain=example.test", "http://127.0.0.1:8080/", None),  # another site's: dropped
    ("a=1; Domain=app.example.test", "http://example.test/", None),  # a child's, from its parent: dropped
])
def test_a_cookie_domain_follows_playwrights_rules(line: str, url: str, domain: str | None) -> None:
    cookie = parse_set_cookie(line, url)
    assert (cookie and cookie["domain"]) == domain


def test_an_expired_cookie_is_marked_for_deletion_and_junk_is_ignored() -> None:
    assert parse_set_cookie("sid=; Max-Age=0", URL)["_expired"] is True  # type: ignore[index]
    assert parse_set_cookie("sid=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", URL)["_expired"] is True  # type: ignore[index]
    assert parse_set_cookie("no equals sign", URL) is None
    assert 0 < parse_set_cookie("sid=x; Max-Age=60", URL)["expires"] - __import__("time").time() <= 60  # type: ignore[index]


class _Content:
    def __init__(self, data: bytes) -> None:
        self._data = data

    async def iter_chunked(self, size: int) -> Any:
        for start in range(0, len(self._data), size):
            yield self._data[start:start + size]


class _Response:
    def __init__(self, data: bytes, encoding: str) -> None:
        self.headers = {"content-encoding": encoding} if encoding else {}
        self.content = _Content(data)


def _read(data: bytes, encoding: str, limit: int) -> bytes:
    return asyncio.run(read_capped(_Response(data, encoding), "GET", URL, limit))


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def test_bodies_are_decompressed_up_to_the_limit() -> None:
    text = b"hello " * 1000
    raw_deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    assert _read(_gzip(text), "gzip", len(text)) == text
    assert _read(zlib.compress(text), "deflate", len(text)) == text
    assert _read(raw_deflate.compress(text) + raw_deflate.flush(), "deflate", len(text)) == text
    assert _read(text, "", len(text)) == text


def test_a_body_past_the_limit_is_refused_without_inflating_it_whole() -> None:
    bomb = _gzip(bytes(64 * 1024 * 1024))
    with pytest.raises(BodyTooLarge, match=r"larger than 1024 bytes once decompressed \(content-encoding gzip\)"):
        _read(bomb, "gzip", 1024)
    with pytest.raises(BodyTooLarge):
        _read(b"x" * 2048, "", 1024)


def test_an_unknown_or_broken_encoding_is_an_upstream_error() -> None:
    with pytest.raises(UpstreamError, match="content-encoding 'br', which runner cannot decode"):
        _read(b"\x00", "br", 1024)
    with pytest.raises(UpstreamError, match="is not valid gzip"):
        _read(b"not gzip at all", "gzip", 1024)
