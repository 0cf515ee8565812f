"""RouteMatcher `json` and `graphql`: body patterns, GraphQL operations, validation."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest

from runner.errors import UsageError
from runner.net.matching import CompiledMatcher, MatchView, validate_route_matcher

URL = "http://localhost:3000/graphql"


def view(body: Any = None, method: str = "POST", url: str = URL) -> MatchView:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    return MatchView(method, url, {"content-type": "application/json"}, "fetch", data)


def matches(matcher: dict[str, Any], v: MatchView) -> bool:
    return CompiledMatcher(validate_route_matcher(matcher)).match(v)


@pytest.mark.parametrize(("pattern", "body", "expected"), [
    ({"user": {"id": 1}}, {"user": {"id": 1, "name": "a"}, "x": 2}, True),  # a subset, at every depth
    ({"user": {"id": 1}}, {"user": {"id": 2}}, False),
    ({"user": {"id": 1}}, {"user": {"id": True}}, False),  # True is not 1
    ({"id": "1"}, {"id": 1}, False),  # a string matches only a string
    ({"email": "*@example.com"}, {"email": "ann@example.com"}, True),  # a glob
    ({"email": "*@example.com"}, {"email": "ann@example.org"}, False),
    ({"email": re.compile(r"^a.n@")}, {"email": "ann@x"}, True),  # a regex
    ({"tags": ["a", "b*"]}, {"tags": ["a", "bee"]}, True),  # a list: same length, item by item
    ({"tags": ["a"]}, {"tags": ["a", "b"]}, False),
    ({"gone": None}, {"gone": None}, True),
    ({"gone": None}, {}, False),  # a key must be there
    ([1, {"a": 1}], [1, {"a": 1, "b": 2}], True),
    ({"state": "!draft"}, {"state": "published"}, False),  # not a negation: the characters "!draft"
    ({"state": "!draft"}, {"state": "!draft"}, True),
    ({"tag": "#*"}, {"tag": "#news"}, True),  # not a comment
])
def test_json_patterns(pattern: Any, body: Any, expected: bool) -> None:
    assert matches({"url": "/graphql", "json": pattern}, view(body)) is expected


def test_json_needs_a_json_body() -> None:
    assert not matches({"json": {"a": 1}}, view(b"a=1"))
    assert not matches({"json": {"a": 1}}, view(None, method="GET"))
    assert not matches({"json": {}}, view(b"\xff\xfe"))
    assert matches({"json": {}}, view({"anything": 1}))


QUERY = "query GetUser($id: ID!) {\n  user(id: $id) { name }\n}"


def test_graphql_by_operation_name_variables_and_query() -> None:
    body = {"operationName": "GetUser", "query": QUERY, "variables": {"id": "7", "full": True}}
    assert matches({"graphql": {"operationName": "GetUser"}}, view(body))
    assert matches({"graphql": {"operationName": "Get*"}}, view(body))
    assert matches({"graphql": {"operationName": re.compile("User$")}}, view(body))
    assert not matches({"graphql": {"operationName": "AddUser"}}, view(body))
    assert matches({"graphql": {"variables": {"id": "7"}}}, view(body))
    assert not matches({"graphql": {"operationName": "GetUser", "variables": {"id": "8"}}}, view(body))
    assert matches({"graphql": {"query": "user(id: $id)   { name }"}}, view(body))  # spaces do not count
    assert matches({"graphql": {"query": re.compile(r"user\(id")}}, view(body))
    assert not matches({"graphql": {"query": "mutation"}}, view(body))


def test_graphql_operation_name_from_the_query_a_batch_and_a_get() -> None:
    assert matches({"graphql": {"operationName": "GetUser"}}, view({"query": QUERY}))  # no operationName
    batch = [{"query": "query A { a }"}, {"query": "mutation AddUser { add }", "variables": {"n": 1}}]
    assert matches({"graphql": {"operationName": "AddUser", "variables": {"n": 1}}}, view(batch))
    assert not matches({"graphql": {"operationName": "B"}}, view(batch))
    get = URL + "?" + urlencode({"query": QUERY, "variables": json.dumps({"id": "7"})})
    assert matches({"graphql": {"operationName": "GetUser", "variables": {"id": "7"}}}, view(None, "GET", get))
    assert not matches({"graphql": {"operationName": "GetUser"}}, view(None, "GET", URL))
    assert not matches({"graphql": {"operationName": "GetUser"}}, view({"not": "graphql"}))


@pytest.mark.parametrize(("matcher", "message"), [
    ({"json": {"a": object()}}, "`json.a` must be a dict, a list, a string (glob), a regular expression"),
    ({"json": {"a": ["{" + ",".join("ab" * 3) + "}" * 1, {"b": 1j}]}}, "`json.a[1].b` must be"),
    ({"graphql": {}}, "`graphql` must be a dict of `operationName`, `query` and/or `variables`."),
    ({"graphql": "GetUser"}, "`graphql` must be a dict"),
    ({"graphql": {"operation": "GetUser"}}, "`graphql.operation` is not a GraphQL key: use operationName, query, variables."),
    ({"graphql": {"operationName": 1}}, "`graphql.operationName` must be a string or a regular expression."),
    ({"graphql": {"variables": [1]}}, "`graphql.variables` must be a dict"),
])
def test_body_matcher_misuse(matcher: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        validate_route_matcher(matcher)
    assert message in str(caught.value)
    assert str(caught.value).startswith("An invalid RouteMatcher was supplied to `runner.intercept()`.")


def test_a_preflight_ignores_the_body_keys() -> None:
    compiled = CompiledMatcher(validate_route_matcher({"url": "/graphql", "graphql": {"operationName": "A"}}))
    options = MatchView("OPTIONS", URL, {"access-control-request-method": "POST"}, "preflight")
    assert compiled.match_preflight(options) and not compiled.match(options)


def test_the_body_is_parsed_only_once_the_rest_matched() -> None:
    compiled = CompiledMatcher(validate_route_matcher({"json": {"a": 1}, "url": "/other"}))
    v = view({"a": 1})
    assert not compiled.match(v)
    assert v._json is not None and v._graphql is None
    from runner.net.matching.view import _UNREAD
    assert v._json is _UNREAD  # the url did not match: the body was never read
    assert compiled.fields[-1].key == "json"
