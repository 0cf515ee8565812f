"""Matching a request by its body: the ``json`` and ``graphql`` fields of a RouteMatcher.

A *pattern* is compared with a JSON value (runner's own rule, documented in interception.md):

- a dict matches a dict holding at least its keys, each value matching (a subset: other keys
  are ignored, at every depth);
- a list matches a list of the same length, item by item;
- a string matches a string: equal, or as a glob (minimatch, without ``matchBase``);
- an ``re.Pattern`` matches a string it finds (``search``);
- a number matches an equal number, a boolean the same boolean, None only null.

``graphql`` matches the operations of a GraphQL request (:func:`.view.graphql_operations`).
Its keys: ``operationName`` (a string glob or a regex), ``query`` (a string the query contains,
whitespace-insensitively, or a regex), ``variables`` (a pattern).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from runner.match.braces import expansion_problem

from .base import Field, MatcherProblem
from .text import check_text
from .view import NO_BODY, MatchView

__all__ = ["GRAPHQL_KEYS", "JsonField", "GraphqlField", "pattern_problem", "compile_pattern_value"]

GRAPHQL_KEYS = ("operationName", "query", "variables")
_SPACES = re.compile(r"\s+")


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


class JsonField(Field):
    """``json``: the request body, parsed as JSON, matches the pattern."""

    key = "json"
    reads_body = True  # never a preflight's: it has no body

    @classmethod
    def validate(cls, value: Any) -> Any:
        problem = pattern_problem(value, "json")
        if problem:
            raise MatcherProblem(f"{problem}.")
        return value

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self.test = compile_pattern_value(value)

    def match(self, view: MatchView) -> bool:
        body = view.json_body
        return body is not NO_BODY and self.test(body)


class GraphqlField(Field):
    """``graphql``: one of the request's GraphQL operations matches every key given."""

    key = "graphql"
    reads_body = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not isinstance(value, Mapping) or not value:
            raise MatcherProblem("`graphql` must be a dict of `operationName`, `query` and/or `variables`.")
        for key, sub in value.items():
            if key not in GRAPHQL_KEYS:
                raise MatcherProblem(f"`graphql.{key}` is not a GraphQL key: use {', '.join(GRAPHQL_KEYS)}.")
            if key in ("operationName", "query"):
                check_text(f"graphql.{key}", sub)
            if key == "variables" and not isinstance(sub, Mapping):
                raise MatcherProblem("`graphql.variables` must be a dict (the variables it must hold).")
        problem = None
        if isinstance(value.get("operationName"), str):
            problem = pattern_problem(value["operationName"], "graphql.operationName")
        if problem is None and "variables" in value:
            problem = pattern_problem(value["variables"], "graphql.variables")
        if problem:
            raise MatcherProblem(f"{problem}.")
        return value

    def __init__(self, value: Mapping[str, Any]) -> None:
        super().__init__(value)
        tests: list[Callable[[dict[str, Any]], bool]] = []
        if "operationName" in value:
            name = compile_pattern_value(value["operationName"])
            tests.append(lambda op: name(op["operationName"]))
        if "query" in value:
            tests.append(_query_test(value["query"]))
        if "variables" in value:
            variables = compile_pattern_value(value["variables"])
            tests.append(lambda op: variables(op["variables"]))
        self.tests = tuple(tests)

    def match(self, view: MatchView) -> bool:
        for operation in view.graphql_operations:
            if all(test(operation) for test in self.tests):
                return True
        return False


def _query_test(query: str | re.Pattern[str]) -> Callable[[dict[str, Any]], bool]:
    if isinstance(query, re.Pattern):
        regex = query
        return lambda op: regex.search(op["query"]) is not None
    wanted = _SPACES.sub(" ", query).strip()
    return lambda op: wanted in _SPACES.sub(" ", op["query"])
