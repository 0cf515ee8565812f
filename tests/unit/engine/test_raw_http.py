"""raw_http: the raw head of a response, judged as a strict HTTP/1.x parser would (problem), and
which responses the browser follows to another URL (followed_redirect)."""

from __future__ import annotations

import pytest

from runner.engine import raw_http
from runner.engine.raw_http import problem

VALID = [
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 12\r\n\r\n",
    "HTTP/1.1 200\r\n\r\n",  # no reason phrase: allowed
    "HTTP/1.1 200 \r\n\r\n",
    "HTTP/1.0 404 Not Found\r\nX-Tab:\tvalue\r\n\r\n",
    "HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 0, 0\r\n\r\n",  # repeated, same value
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
    "HTTP/1.1 200 Ok caf\u00e9\r\nX-Obs: caf\u00e9\r\n\r\n",  # obs-text
]

INVALID = [
    ("HTTP/1.1 abc\r\n\r\n", "status line 'HTTP/1.1 abc'"),
    ("HTTP/1.1 2000 OK\r\n\r\n", "status line"),
    ("HTTP/1.1 99 X\r\n\r\n", "status line"),
    ("HTTP/1.1  OK\r\n\r\n", "status line"),
    ("THIS IS NOT HTTP\r\n\r\n", "status line"),
    ("HTTP/1.1 200 OK\r\nBad Header Line\r\n\r\n", "header line 'Bad Header Line'"),
    ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "header line 'Bad Name: x'"),
    ("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", "Content-Length 'abc' is not a number"),
    ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "different Content-Length values (1, 2)"),
    ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "both a Content-Length"),
    ("HTTP/1.1 200 OK\r\nX-A: a\x01b\r\n\r\n", "header 'X-A' holds a control character"),
]


@pytest.mark.parametrize("head", VALID)
def test_valid_heads_pass(head: str) -> None:
    assert problem(head) is None


@pytest.mark.parametrize(("head", "said"), INVALID, ids=[h for h, _ in INVALID])
def test_invalid_heads_say_why(head: str, said: str) -> None:
    found = problem(head)
    assert found is not None and said in found, found


def test_a_long_line_is_cut_in_the_message() -> None:
    found = problem("HTTP/1.1 " + "x" * 500 + "\r\n\r\n")
    assert found is not None and len(found) < 200 and "…" in found


@pytest.mark.parametrize(("status", "names", "followed"), [
    (301, ["Location"], True), (302, ["location"], True), (303, ["LOCATION"], True), (307, ["Location"], True),
    (308, ["Location", "Content-Type"], True),
    (302, ["Content-Type"], False),  # no Location: the browser shows the body
    (300, ["Location"], False), (304, ["Location"], False), (305, ["Location"], False),  # not followed
    (200, ["Location"], False), (None, ["Location"], False),
])
def test_followed_redirect_is_what_the_browser_follows(status, names, followed):
    assert raw_http.followed_redirect(status, names) is followed
    assert raw_http.followed_redirect(status, {name: "x" for name in names}) is followed  # a header map
