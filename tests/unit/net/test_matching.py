"""RouteMatcher matching as truth tables (behaviour 1a.2-1a.4): no loop, no browser."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from runner.net.matching import CompiledMatcher, MatchView, validate_route_matcher


def matches(matcher: dict[str, Any], url: str, method: str = "GET", headers: dict[str, str] | None = None,
            resource_type: str = "xhr") -> bool:
    compiled = CompiledMatcher(validate_route_matcher(matcher))
    return compiled.match(MatchView(method, url, headers or {}, resource_type))


BASE = "http://localhost:3000"


@pytest.mark.parametrize(
    ("pattern", "url", "expected"),
    [
        # exact equality first
        (f"{BASE}/api/users", f"{BASE}/api/users", True),
        # minimatch on the full URL
        (f"{BASE}/api/*", f"{BASE}/api/users", True),
        (f"{BASE}/**", f"{BASE}/api/users/1", True),
        (f"{BASE}/api/*", f"{BASE}/api/users/1", False),
        # path fallback (path includes the query)
        ("/api/users", f"{BASE}/api/users", True),
        ("/api/users*", f"{BASE}/api/users?page=1", True),
        ("/api/users", f"{BASE}/api/users?page=1", False),
        ("/api/users\\?page=1", f"{BASE}/api/users?page=1", True),
        ("/api/users?page=1", f"{BASE}/api/users?page=1", True),  # ? is a wildcard, matches the literal
        ("/api/users?page=1", f"{BASE}/api/usersXpage=1", True),
        # leading-slash retry
        ("api/users/*", f"{BASE}/api/users/1", True),
        # no substring matching
        ("users", f"{BASE}/api/users/1", False),
        # matchBase: a pattern with no slash matches the basename
        ("*.png", f"{BASE}/a/b/c.png", True),
        ("*.png", f"{BASE}/a/b/c.jpg", False),
        ("users", f"{BASE}/api/users", True),
        # braces and globstar
        ("/api/{users,posts}", f"{BASE}/api/posts", True),
        ("**/users", f"{BASE}/api/v2/users", True),
        ("/api/**", f"{BASE}/api/v2/users?x=1", True),
        # hosts
        ("http://*.example.com/**", "http://api.example.com/x", True),
        ("http://*.example.com/**", "http://example.org/x", False),
    ],
)
def test_url_glob(pattern: str, url: str, expected: bool) -> None:
    assert matches({"url": pattern}, url) is expected


@pytest.mark.parametrize(
    ("regex", "url", "expected"),
    [
        (re.compile(r"/api/users$"), f"{BASE}/api/users", True),
        (re.compile(r"^/api/users"), f"{BASE}/api/users", True),  # tried against the path as well
        (re.compile(r"^http://localhost:3000/api"), f"{BASE}/api/users", True),
        (re.compile(r"users/\d+"), f"{BASE}/api/users/12", True),
        (re.compile(r"users/\d+"), f"{BASE}/api/users/ab", False),
        (re.compile(r"page=2"), f"{BASE}/api/users?page=2", True),
        (re.compile(r"USERS", re.I), f"{BASE}/api/users", True),
    ],
)
def test_url_regex(regex: re.Pattern[str], url: str, expected: bool) -> None:
    assert matches({"url": regex}, url) is expected


@pytest.mark.parametrize(
    ("method_matcher", "method", "expected"),
    [
        ("GET", "GET", True),
        ("get", "GET", True),
        ("Post", "POST", True),
        ("POST", "GET", False),
        ("P*", "PUT", True),
        ("P*", "GET", False),
        ("{PUT,PATCH}", "PATCH", True),
        ("{PUT,PATCH}", "POST", False),
        ("/^(put|patch)$/", "PUT", True),
        ("/^(put|patch)$/i", "DELETE", False),
        (re.compile("^GET$"), "GET", True),
        (re.compile("^get$"), "GET", True),  # methods compare case-insensitively, regexes too
    ],
)
def test_method(method_matcher: Any, method: str, expected: bool) -> None:
    assert matches({"method": method_matcher}, f"{BASE}/x", method) is expected


@pytest.mark.parametrize(
    ("field", "value", "url", "expected"),
    [
        ("hostname", "localhost", f"{BASE}/x", True),
        ("hostname", "*.example.com", "https://api.example.com/x", True),
        ("hostname", "example.com", "https://api.example.com/x", False),
        ("hostname", re.compile(r"example\.com$"), "https://api.example.com/x", True),
        ("path", "/api/users?page=1", f"{BASE}/api/users?page=1", True),
        ("path", "/api/users", f"{BASE}/api/users?page=1", False),
        ("pathname", "/api/users", f"{BASE}/api/users?page=1", True),
        ("pathname", "/api/*", f"{BASE}/api/users?page=1", True),
        ("pathname", "/", f"{BASE}", True),
        ("https", True, "https://example.com/", True),
        ("https", True, "http://example.com/", False),
        ("https", False, "http://example.com/", True),
        ("port", 3000, f"{BASE}/x", True),
        ("port", 80, "http://example.com/x", True),
        ("port", 443, "https://example.com/x", True),
        ("port", 80, "https://example.com/x", False),
        ("port", [8080, 3000], f"{BASE}/x", True),
        ("port", [8080, 443], f"{BASE}/x", False),
        ("query", {"page": "1"}, f"{BASE}/x?page=1", True),
        ("query", {"page": "2"}, f"{BASE}/x?page=1", False),
        ("query", {"page": "*"}, f"{BASE}/x?page=17", True),
        ("query", {"page": re.compile(r"^\d+$")}, f"{BASE}/x?page=17", True),
        ("query", {"a": "1,2"}, f"{BASE}/x?a=1&a=2", True),  # repeated keys compare as "a,b"
        ("query", {"missing": ""}, f"{BASE}/x?a=1", True),  # missing values are ""
        ("query", {"missing": "x"}, f"{BASE}/x?a=1", False),
        ("query", {"q": "hello world"}, f"{BASE}/x?q=hello%20world", True),
        ("resourceType", "xhr", f"{BASE}/x", True),
        ("resourceType", "fetch", f"{BASE}/x", False),
    ],
)
def test_fields(field: str, value: Any, url: str, expected: bool) -> None:
    with pytest.warns(Warning) if field == "resourceType" else _nothing():
        assert matches({field: value}, url) is expected


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@pytest.mark.parametrize(
    ("header_matcher", "headers", "expected"),
    [
        ({"x-foo": "bar"}, {"x-foo": "bar"}, True),
        ({"X-Foo": "bar"}, {"x-foo": "bar"}, True),  # names are case-insensitive
        ({"x-foo": "b*"}, {"x-foo": "baz"}, True),
        ({"x-foo": "bar"}, {"x-foo": "baz"}, False),
        ({"x-foo": "bar"}, {}, False),
        ({"x-foo": re.compile(".*")}, {}, True),  # a missing header is "", which /.*/ matches
        ({"x-a": "1", "x-b": "2"}, {"x-a": "1", "x-b": "2"}, True),
        ({"x-a": "1", "x-b": "2"}, {"x-a": "1"}, False),
    ],
)
def test_headers(header_matcher: dict[str, Any], headers: dict[str, str], expected: bool) -> None:
    assert matches({"headers": header_matcher}, f"{BASE}/x", headers=headers) is expected


def _basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"authorization": f"Basic {token}"}


@pytest.mark.parametrize(
    ("auth", "headers", "expected"),
    [
        ({"username": "ada", "password": "s3cret"}, _basic("ada", "s3cret"), True),
        ({"username": "ada"}, _basic("ada", "x"), True),
        ({"username": "bob"}, _basic("ada", "x"), False),
        ({"password": "a:b:c"}, _basic("ada", "a:b:c"), True),  # split at the FIRST colon
        ({"password": "a"}, _basic("ada", "a:b:c"), False),
        ({"username": "a*"}, _basic("ada", "x"), True),
        ({"username": ""}, {}, True),  # no Basic auth: both values are ""
        ({"username": "ada"}, {"authorization": "Bearer abc"}, False),
        ({"username": "ada"}, {"authorization": "basic " + base64.b64encode(b"ada:x").decode()}, True),
    ],
)
def test_auth(auth: dict[str, Any], headers: dict[str, str], expected: bool) -> None:
    assert matches({"auth": auth}, f"{BASE}/x", headers=headers) is expected


def test_all_fields_must_match() -> None:
    matcher = {"method": "POST", "url": "/api/*", "headers": {"x-a": "1"}}
    assert matches(matcher, f"{BASE}/api/users", "POST", {"x-a": "1"})
    assert not matches(matcher, f"{BASE}/api/users", "GET", {"x-a": "1"})
    assert not matches(matcher, f"{BASE}/api/users", "POST", {"x-a": "2"})


def test_globs_compile_once() -> None:
    compiled = CompiledMatcher(validate_route_matcher({"url": "/api/*"}))
    view = MatchView("GET", f"{BASE}/api/users", {}, "xhr")
    assert compiled.match(view)
    field = compiled.fields[0]
    first = field.pattern._glob  # type: ignore[attr-defined]
    assert first is not None
    assert compiled.match(MatchView("GET", f"{BASE}/api/posts", {}, "xhr"))
    assert field.pattern._glob is first  # type: ignore[attr-defined]


def test_preflight_match_ignores_method_headers_auth() -> None:
    compiled = CompiledMatcher(validate_route_matcher({"method": "POST", "url": "/api/*", "headers": {"x": "1"}}))
    view = MatchView("OPTIONS", f"{BASE}/api/users", {"access-control-request-method": "POST"}, "preflight")
    assert not compiled.match(view)
    assert compiled.match_preflight(view)
    assert not compiled.method_mentions_options
    assert CompiledMatcher(validate_route_matcher({"method": "OPTIONS"})).method_mentions_options
