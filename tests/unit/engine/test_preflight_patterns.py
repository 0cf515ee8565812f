"""The preflight guard's Fetch patterns (engine/preflights.py): "every request but the page's own
origin's" spelt with ``*`` and ``?``, checked here against Chromium's pattern rules (``*`` any run
of characters, ``?`` one, backslash escapes) on URLs of the origin and of every kind of neighbour."""

from __future__ import annotations

import re

import pytest

from runner.engine.preflights import _patterns, origin_scope, sandboxes

_ORIGIN = "http://127.0.0.1:8000/"


def _regex(pattern: str) -> re.Pattern[str]:
    out, escaped = [], False
    for c in pattern:
        if escaped:
            out.append(re.escape(c))
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.DOTALL)


def _paused(scope: str, url: str) -> bool:
    return any(_regex(p["urlPattern"]).fullmatch(url) for p in _patterns(scope, False) if p["resourceType"] == "XHR")


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/", "http://127.0.0.1:8000/api/items?x=1", "http://127.0.0.1:8000/a*b?c\\d",
    "http://127.0.0.1:8000//double",
])
def test_the_origins_own_requests_are_not_paused(url):
    assert not _paused(_ORIGIN, url)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8001/api", "http://127.0.0.1:800/api", "http://127.0.0.1:80000/api", "http://127.0.0.1/api",
    "https://127.0.0.1:8000/api", "http://127.0.0.10:8000/api", "http://localhost:8000/api", "http://[::1]:8000/",
    "http://user@127.0.0.1:8000/api", "http://UsEr:PaSs@evil.test/", "http://127.0.0.1:8000",
    "http://127.0.0.1:8000?x", "http://127.0.0.1.example.test:8000/", "http://a/", "https://a/",
])
def test_every_other_origins_requests_are_paused(url):
    assert _paused(_ORIGIN, url)


@pytest.mark.parametrize("url", ["https://shop.test:8443/", "http://shop.test/", "https://shop.test/", "https://shop.tes/"])
def test_an_https_origin_is_left_by_every_other_url(url):
    assert _paused("https://shop.test/", url) is (url != "https://shop.test/")


def test_only_http_requests_are_paused_since_only_they_can_be_preflighted():
    assert not _paused(_ORIGIN, "blob:http://127.0.0.1:8000/x") and not _paused(_ORIGIN, "ws://127.0.0.1:8000/")
    assert len(_patterns(_ORIGIN, False)) < 1500


def test_every_request_is_paused_while_the_scope_is_every_request():
    assert _paused("*", "http://127.0.0.1:8000/api") and _paused("*", "http://localhost/")


def test_document_responses_are_paused_when_asked():
    assert {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"} in _patterns(_ORIGIN, True)
    assert all(p["resourceType"] == "XHR" for p in _patterns(_ORIGIN, False))


@pytest.mark.parametrize(("url", "security_origin", "scope"), [
    ("http://127.0.0.1:8000/app?x#y", "http://127.0.0.1:8000", "http://127.0.0.1:8000/"),
    ("https://shop.test/", "https://shop.test", "https://shop.test/"),
    ("http://[::1]:8000/", "http://[::1]:8000", "http://[::1]:8000/"),
    ("http://user:pw@127.0.0.1:8000/", "http://127.0.0.1:8000", "http://127.0.0.1:8000/"),
    ("http://127.0.0.1:8000/", "null", None),  # an opaque origin (sandboxed)
    ("data:text/html,hi", "null", None),
    ("about:blank", "", None),
    ("file:///tmp/x.html", "file://", None),
])
def test_a_documents_scope_is_its_own_http_origin(url, security_origin, scope):
    assert origin_scope(url, security_origin) == scope


@pytest.mark.parametrize(("headers", "opaque"), [
    ([{"name": "Content-Security-Policy", "value": "sandbox allow-scripts"}], True),
    ([{"name": "content-security-policy", "value": "default-src 'self'; SANDBOX"}], True),
    ([{"name": "Content-Security-Policy", "value": "sandbox allow-scripts allow-same-origin"}], False),
    ([{"name": "Content-Security-Policy", "value": "default-src 'self'\nsandbox allow-forms"}], True),
    ([{"name": "Content-Security-Policy", "value": "img-src *, sandbox"}], True),
    ([{"name": "Content-Security-Policy-Report-Only", "value": "sandbox"}], False),
    ([{"name": "Content-Security-Policy", "value": "script-src 'sandbox'"}], False),
    ([], False),
    (None, False),
])
def test_a_sandbox_directive_without_allow_same_origin_makes_the_origin_opaque(headers, opaque):
    assert sandboxes(headers) is opaque
