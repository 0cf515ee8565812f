"""Matching a request by its body: the ``json`` and ``graphql`` keys of a RouteMatcher.

A *pattern* is compared with a JSON value (runner's own rule, documented in interception.md):

- a dict matches a dict holding at least its keys, each value matching (a subset: other keys
  are ignored, at every depth);
- a list matches a list of the same length, item by item;
- a string matches a string: equal, or as a glob (minimatch, without ``matchBase``);
- an ``re.Pattern`` matches a string it finds (``search``);
- a number matches an equal number, a boolean the same boolean, None only null.

``graphql`` matches the operations of a GraphQL request: the JSON body (one operation, or a
batch where any one may match) or, for a GET, the ``query``, ``operationName`` and
``variables`` parameters of the URL. ``operationName`` falls back on the first named operation
of the query text. Its keys: ``operationName`` (a string glob or a regex), ``query`` (a string
the query contains, whitespace-insensitively, or a regex), ``variables`` (a pattern).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from runner.match.braces import expansion_problem

__all__ = ["GRAPHQL_KEYS", "pattern_problem", "compile_pattern_value", "graphql_operations", "JsonMatcher",
           "GraphqlMatcher", "parse_json_body"]

GRAPHQL_KEYS = ("operationName", "query", "variables")
_OPERATION = re.compile(r"\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)")
_SPACES = re.compile(r"\s+")
_NO_BODY: Any = object()


def pattern_problem(pattern: Any, where: str) -> str | None:
    """Why ``pattern`` cannot be a body pattern (naming the place), or None."""
    if isinstance(pattern, Mapping):
        for key, value in pattern.items():
            if not isinstance(key, str):
                return f"`{where}` has a key that is not a string: {key!r}"
            problem = pattern_problem(value, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(pattern, (list, tuple)):
        for index, value in enumerate(pattern):
            problem = pattern_problem(value, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if isinstance(pattern, str):
        problem = expansion_problem(pattern)
        return f"`{where}` {problem}" if problem else None
    if pattern is None or isinstance(pattern, (bool, int, float, re.Pattern)):
        return None
    return (f"`{where}` must be a dict, a list, a string (glob), a regular expression, a number, "
            f"a boolean or None; found {type(pattern).__name__}")


def compile_pattern_value(pattern: Any) -> Callable[[Any], bool]:
    """A predicate on JSON values, compiled once (see the module's rule)."""
    if isinstance(pattern, Mapping):
        parts = [(key, compile_pattern_value(value)) for key, value in pattern.items()]
        return lambda value: isinstance(value, dict) and all(k in value and test(value[k]) for k, test in parts)
    if isinstance(pattern, (list, tuple)):
        items = [compile_pattern_value(value) for value in pattern]
        return lambda value: (isinstance(value, list) and len(value) == len(items)
                              and all(test(v) for test, v in zip(items, value, strict=True)))
    if isinstance(pattern, re.Pattern):
        regex = pattern
        return lambda value: isinstance(value, str) and regex.search(value) is not None
    if isinstance(pattern, str):
        from runner.match import compile_pattern

        # a value is not a list of patterns: "!draft" and "#tag" are globs of those characters
        glob = compile_pattern(pattern, {"nonegate": True, "nocomment": True})
        text = pattern
        return lambda value: isinstance(value, str) and (value == text or glob(value))
    if isinstance(pattern, bool) or pattern is None:
        same = pattern
        return lambda value: value is same
    number = pattern
    return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool) and value == number


def parse_json_body(body: bytes | None) -> Any:
    """The body as JSON, or a sentinel (never equal to a JSON value) when it is not JSON."""
    if not body:
        return _NO_BODY
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _NO_BODY


def graphql_operations(method: str, url: str, body: Any) -> list[dict[str, Any]]:
    """The GraphQL operations a request carries (``body``: as :func:`parse_json_body` gave it)."""
    raw: list[Any]
    if isinstance(body, dict):
        raw = [body]
    elif isinstance(body, list):
        raw = body
    elif method.upper() == "GET":
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        if "query" not in params:
            return []
        variables: Any = params.get("variables")
        if variables:
            try:
                variables = json.loads(variables)
            except ValueError:
                variables = None
        raw = [{"query": params["query"], "operationName": params.get("operationName"), "variables": variables}]
    else:
        return []
    operations = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("query", ""), str):
            continue
        query = item.get("query") or ""
        name = item.get("operationName")
        if not isinstance(name, str) or not name:
            found = _OPERATION.search(query)
            name = found.group(1) if found else ""
        variables = item.get("variables")
        operations.append({"operationName": name, "query": query,
                           "variables": variables if isinstance(variables, dict) else {}})
    return operations


class JsonMatcher:
    """``json``: the request body, parsed as JSON, matches the pattern."""

    __slots__ = ("key", "test")

    def __init__(self, pattern: Any) -> None:
        self.key = "json"
        self.test = compile_pattern_value(pattern)

    def match(self, view: Any) -> bool:
        body = view.json_body
        return body is not _NO_BODY and self.test(body)


class GraphqlMatcher:
    """``graphql``: one of the request's GraphQL operations matches every key given."""

    __slots__ = ("key", "tests")

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.key = "graphql"
        tests: list[Callable[[dict[str, Any]], bool]] = []
        if "operationName" in spec:
            name = compile_pattern_value(spec["operationName"])
            tests.append(lambda op: name(op["operationName"]))
        if "query" in spec:
            query = spec["query"]
            if isinstance(query, re.Pattern):
                regex = query
                tests.append(lambda op: regex.search(op["query"]) is not None)
            else:
                wanted = _SPACES.sub(" ", query).strip()
                tests.append(lambda op: wanted in _SPACES.sub(" ", op["query"]))
        if "variables" in spec:
            variables = compile_pattern_value(spec["variables"])
            tests.append(lambda op: variables(op["variables"]))
        self.tests = tuple(tests)

    def match(self, view: Any) -> bool:
        for operation in view.graphql_operations:
            if all(test(operation) for test in self.tests):
                return True
        return False
