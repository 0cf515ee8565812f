"""RouteMatcher: validation, compilation into small field matchers, and the matchable request view.

A RouteMatcher dict is validated once (:func:`validate_route_matcher`, messages of the original
runner adapted to ``runner.intercept()``) and compiled once (:class:`CompiledMatcher`) into one
small matcher per field, respx-style. Matching a request is then cheap and pure: build one
:class:`MatchView` per request, ask each route's compiled matcher.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from runner.errors import UsageError
from runner.match.braces import expansion_problem

from ._util import is_number, regex_text, show
from .body_match import (
    GRAPHQL_KEYS,
    GraphqlMatcher,
    JsonMatcher,
    graphql_operations,
    parse_json_body,
    pattern_problem,
)
from .types import RunnerDeprecationWarning

__all__ = [
    "ROUTE_MATCHER_KEYS",
    "MatchView",
    "CompiledMatcher",
    "validate_route_matcher",
    "is_route_matcher_dict",
]

# Canonical (camelCase) RouteMatcher keys, in the order the valid-keys list shows them.
ROUTE_MATCHER_KEYS = (
    "auth",
    "graphql",
    "headers",
    "hostname",
    "https",
    "json",
    "method",
    "middleware",
    "path",
    "pathname",
    "port",
    "query",
    "resourceType",
    "times",
    "url",
)
_SNAKE_KEYS = {"resource_type": "resourceType"}
_STRING_FIELDS = ("url", "path", "pathname", "hostname", "method", "resourceType")
_PREFIX = "An invalid RouteMatcher was supplied to `runner.intercept()`."
_REGEX_STRING = re.compile(r"^/(.+)/([a-z]*)$", re.S)
_HOST_LABEL = re.compile(r"^[\w*?{}\[\]!(),+@|-]+$", re.U)
_IPV6ISH = re.compile(r"^\[?[0-9a-fA-F:.*?]+\]?$")


def canonical_key(key: Any) -> Any:
    return _SNAKE_KEYS.get(key, key) if isinstance(key, str) else key


def is_route_matcher_dict(value: Any) -> bool:
    """Whether ``value`` is a non-empty dict whose keys are all RouteMatcher keys (1a.10, rule 1)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(canonical_key(k) in ROUTE_MATCHER_KEYS for k in value)
    )


def _error(message: str, matcher: Any) -> UsageError:
    return UsageError(f"{_PREFIX} {message} You passed: {show(matcher)}")


def _is_str_or_regex(value: Any) -> bool:
    return isinstance(value, (str, re.Pattern))


def _valid_hostname(host: str) -> bool:
    if not host or len(host) > 253:
        return False
    if ":" in host:
        return bool(_IPV6ISH.match(host))
    return all(label and _HOST_LABEL.match(label) for label in host.split("."))


def validate_route_matcher(matcher: Any, shown: Any = None) -> dict[str, Any]:
    """Validate a RouteMatcher dict; return it with canonical (camelCase) keys.

    Raises :class:`UsageError` with the messages of the original runner, each ending with
    ``You passed: <json>``. ``shown`` is what the message shows (defaults to ``matcher``).
    """
    shown = matcher if shown is None else shown
    if not isinstance(matcher, dict):
        raise _error("The RouteMatcher must be a dict (or pass a URL string or `re.Pattern`).", shown)
    if not matcher:
        raise _error("The RouteMatcher does not contain any keys. You must pass something to match on.", shown)
    if "matchUrlAgainstPath" in matcher or "match_url_against_path" in matcher:
        raise _error(
            "`matchUrlAgainstPath` is not a RouteMatcher property in runner: remove it. Your tests will "
            "run the same without it: URL globs are always tried against the path as well.",
            shown,
        )
    out: dict[str, Any] = {}
    for key, value in matcher.items():
        canon = canonical_key(key)
        if canon not in ROUTE_MATCHER_KEYS:
            raise _error(
                f"An unknown `RouteMatcher` property was passed: `{key}`. "
                f"Valid properties are: {', '.join(ROUTE_MATCHER_KEYS)}.",
                shown,
            )
        out[canon] = value

    for name in _STRING_FIELDS:
        if name in out and not _is_str_or_regex(out[name]):
            raise _error(f"`{name}` must be a string or a regular expression.", shown)
    for group in ("auth", "headers", "query"):
        if group not in out:
            continue
        value = out[group]
        if not isinstance(value, Mapping):
            raise _error(f"`{group}` must be a dict of names to strings or regular expressions.", shown)
        for sub, subvalue in value.items():
            if group == "auth" and sub not in ("username", "password"):
                raise _error("`auth` may only contain `username` and `password`.", shown)
            if not _is_str_or_regex(subvalue):
                raise _error(f"`{group}.{sub}` must be a string or a regular expression.", shown)
    for name, glob in _globs(out):
        problem = expansion_problem(glob)
        if problem is None and name == "url" and not glob.startswith("/"):
            problem = expansion_problem("/" + glob)  # a URL glob is also tried with a leading "/"
        if problem is not None:
            raise _error(
                f"`{name}` {problem}. Use fewer brace groups, a regular expression, or several routes.",
                shown,
            )
    if "json" in out:
        problem = pattern_problem(out["json"], "json")
        if problem:
            raise _error(f"{problem}.", shown)
    if "graphql" in out:
        _check_graphql(out["graphql"], shown)
    for name in ("https", "middleware"):
        if name in out and not isinstance(out[name], bool):
            raise _error(f"`{name}` must be a boolean.", shown)
    if isinstance(out.get("hostname"), str) and not _valid_hostname(out["hostname"]):
        raise _error("`hostname` must be a valid host name or domain name.", shown)
    if "port" in out:
        port = out["port"]
        ports = port if isinstance(port, list) else [port]
        if not (isinstance(port, (list, int, float)) and not isinstance(port, bool)) or not all(
            is_number(p) and int(p) == p for p in ports
        ):
            raise _error("`port` must be a number or a list of numbers.", shown)
        out["port"] = [int(p) for p in port] if isinstance(port, list) else int(port)
    if "times" in out:
        times = out["times"]
        if not (is_number(times) and int(times) == times and times > 0):
            raise _error("`times` must be a positive integer.", shown)
        out["times"] = int(times)
    if "headers" in out:
        seen: set[str] = set()
        for name in out["headers"]:
            lower = str(name).lower()
            if lower in seen:
                raise _error(
                    f"`{name}` was specified more than once in `headers`. Header fields can only be "
                    "matched once (HTTP header field names are case-insensitive).",
                    shown,
                )
            seen.add(lower)
    if isinstance(out.get("method"), str):
        _method_regex(out["method"], shown)  # validates a "/regex/flags" string
    if "resourceType" in out:
        warnings.warn(
            "The RouteMatcher property `resourceType` is deprecated (it still works). Match on the "
            "URL instead, or read `req.resource_type` in a handler.",
            RunnerDeprecationWarning,
            stacklevel=5,
        )
    return out


def _check_graphql(spec: Any, shown: Any) -> None:
    if not isinstance(spec, Mapping) or not spec:
        raise _error("`graphql` must be a dict of `operationName`, `query` and/or `variables`.", shown)
    for key, value in spec.items():
        if key not in GRAPHQL_KEYS:
            raise _error(f"`graphql.{key}` is not a GraphQL key: use {', '.join(GRAPHQL_KEYS)}.", shown)
        if key in ("operationName", "query") and not _is_str_or_regex(value):
            raise _error(f"`graphql.{key}` must be a string or a regular expression.", shown)
        if key == "variables" and not isinstance(value, Mapping):
            raise _error("`graphql.variables` must be a dict (the variables it must hold).", shown)
    problem = None
    if isinstance(spec.get("operationName"), str):
        problem = pattern_problem(spec["operationName"], "graphql.operationName")
    if problem is None and "variables" in spec:
        problem = pattern_problem(spec["variables"], "graphql.variables")
    if problem:
        raise _error(f"{problem}.", shown)


def _globs(matcher: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The glob strings of a checked RouteMatcher, by field (``url``, ``headers.x-id``, ...).

    A glob past the brace limits is refused here, where the route is defined: compiling it
    would take seconds to minutes (a lazily compiled variant would fail on a request)."""
    out = [(name, matcher[name]) for name in _STRING_FIELDS if isinstance(matcher.get(name), str)]
    out = [(name, glob) for name, glob in out if name != "method" or not _REGEX_STRING.match(glob)]
    for group in ("auth", "headers", "query"):
        for sub, value in (matcher.get(group) or {}).items():
            if isinstance(value, str):
                out.append((f"{group}.{sub}", value))
    return out


def _method_regex(value: str, shown: Any) -> re.Pattern[str] | None:
    m = _REGEX_STRING.match(value)
    if not m:
        return None
    flags = re.IGNORECASE  # methods compare case-insensitively, for regexes too
    for ch in m.group(2):
        if ch == "m":
            flags |= re.MULTILINE
        elif ch == "s":
            flags |= re.DOTALL
        elif ch not in "igyu":
            raise _error(f"`method` has an unknown regular expression flag `{ch}`.", shown)
    try:
        return re.compile(m.group(1), flags)
    except re.error as err:
        raise _error(f"`method` is not a valid regular expression: {err}.", shown) from err


# -- the matchable view ---------------------------------------------------------------------


class MatchView:
    """What each RouteMatcher field is compared with, built once per request (1a.2)."""

    __slots__ = (
        "method", "headers", "auth_username", "auth_password", "url", "hostname", "path",
        "pathname", "query", "port", "https", "resource_type", "body", "_json", "_graphql",
    )

    def __init__(self, method: str, url: str, headers: Mapping[str, str], resource_type: str,
                 body: bytes | None = None) -> None:
        self.body = body
        self._json: Any = _UNREAD
        self._graphql: list[dict[str, Any]] | None = None
        self.method = method
        self.url = url
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.resource_type = resource_type or ""
        parts = urlsplit(url)
        self.hostname = parts.hostname or ""
        self.pathname = parts.path or "/"
        self.path = self.pathname + (f"?{parts.query}" if parts.query else "")
        self.https = parts.scheme.lower().startswith("https")
        try:
            port = parts.port
        except ValueError:
            port = None
        self.port = port if port is not None else (443 if self.https else 80)
        query: dict[str, list[str]] = {}
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            query.setdefault(key, []).append(value)
        # a repeated key is compared as its values joined with "," (as the original coerces arrays)
        self.query = {k: ",".join(v) for k, v in query.items()}
        self.auth_username, self.auth_password = _basic_auth(self.headers.get("authorization"))

    @property
    def json_body(self) -> Any:
        """The body parsed as JSON (once, when a ``json`` or ``graphql`` key first asks)."""
        if self._json is _UNREAD:
            self._json = parse_json_body(self.body)
        return self._json

    @property
    def graphql_operations(self) -> list[dict[str, Any]]:
        if self._graphql is None:
            self._graphql = graphql_operations(self.method, self.url, self.json_body)
        return self._graphql


_UNREAD: Any = object()


def _basic_auth(header: str | None) -> tuple[str, str]:
    if not header:
        return "", ""
    scheme, _, creds = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return "", ""
    try:
        decoded = base64.b64decode(creds.strip(), validate=False).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return "", ""
    # split at the FIRST colon only: a password may contain ':' (the original truncated it)
    user, _, password = decoded.partition(":")
    return user, password


# -- compiled field matchers ----------------------------------------------------------------


def _glob(pattern: str) -> Callable[[str], bool]:
    from runner.match import compile_pattern

    return compile_pattern(pattern, {"matchBase": True})


class _StringMatcher:
    """One string field: a regex (``search``) or a glob (equality, then minimatch with matchBase)."""

    __slots__ = ("key", "getter", "regex", "pattern", "_glob", "_slash_glob", "lower")

    def __init__(self, key: str, getter: Callable[[MatchView], str], value: str | re.Pattern[str],
                 *, lower: bool = False) -> None:
        self.key = key
        self.getter = getter
        self.lower = lower
        self.regex: re.Pattern[str] | None = value if isinstance(value, re.Pattern) else None
        text = "" if isinstance(value, re.Pattern) else value
        self.pattern: str = text.lower() if lower else text
        # compiled once, when the route is defined (the leading-slash variant only if needed)
        self._glob: Callable[[str], bool] | None = _glob(self.pattern) if self.regex is None else None
        self._slash_glob: Callable[[str], bool] | None = None

    def test(self, value: str) -> bool:
        if self.regex is not None:
            return self.regex.search(value) is not None
        if self.lower:
            value = value.lower()
        if value == self.pattern:
            return True
        if self._glob is None:
            self._glob = _glob(self.pattern)
        return self._glob(value)

    def match(self, view: MatchView) -> bool:
        return self.test(self.getter(view))


class _UrlMatcher(_StringMatcher):
    """``url``: the full URL, then the path (path plus query); a glob also gets a leading slash."""

    def test_glob_slash(self, value: str) -> bool:
        if self.regex is not None or not value.startswith("/") or self.pattern.startswith("/"):
            return False
        if self._slash_glob is None:
            self._slash_glob = _glob("/" + self.pattern)
        return self._slash_glob(value)

    def match(self, view: MatchView) -> bool:
        return (
            self.test(view.url)
            or self.test_glob_slash(view.url)
            or self.test(view.path)
            or self.test_glob_slash(view.path)
        )


class _HttpsMatcher:
    __slots__ = ("key", "value")

    def __init__(self, value: bool) -> None:
        self.key = "https"
        self.value = value

    def match(self, view: MatchView) -> bool:
        return view.https is self.value


class _PortMatcher:
    __slots__ = ("key", "ports")

    def __init__(self, value: int | list[int]) -> None:
        self.key = "port"
        self.ports = frozenset(value if isinstance(value, list) else [value])

    def match(self, view: MatchView) -> bool:
        return view.port in self.ports


_FieldMatcher = _StringMatcher | _HttpsMatcher | _PortMatcher | JsonMatcher | GraphqlMatcher

_GETTERS: dict[str, Callable[[MatchView], str]] = {
    "path": lambda v: v.path,
    "pathname": lambda v: v.pathname,
    "hostname": lambda v: v.hostname,
    "method": lambda v: v.method,
    "resourceType": lambda v: v.resource_type,
}


def _header_getter(name: str) -> Callable[[MatchView], str]:
    return lambda v: v.headers.get(name, "")


def _query_getter(name: str) -> Callable[[MatchView], str]:
    return lambda v: v.query.get(name, "")


class CompiledMatcher:
    """A validated RouteMatcher compiled into field matchers (all must match)."""

    __slots__ = ("source", "fields", "preflight_fields", "times", "middleware", "method_mentions_options")

    def __init__(self, matcher: Mapping[str, Any]) -> None:
        """``matcher``: the canonical dict returned by :func:`validate_route_matcher`."""
        self.source = dict(matcher)
        fields: list[_FieldMatcher] = []
        body_fields: list[_FieldMatcher] = []
        preflight: list[_FieldMatcher] = []
        for key, value in matcher.items():
            if key == "url":
                fields.append(_UrlMatcher("url", lambda v: v.url, value))
                preflight.append(fields[-1])
            elif key == "method":
                regex = _method_regex(value, matcher) if isinstance(value, str) else None
                if isinstance(value, re.Pattern):
                    regex = re.compile(value.pattern, value.flags | re.IGNORECASE)
                fields.append(_StringMatcher("method", _GETTERS["method"], regex or value, lower=True))
            elif key in _GETTERS:
                fields.append(_StringMatcher(key, _GETTERS[key], value))
                preflight.append(fields[-1])
            elif key == "headers":
                for name, sub in value.items():
                    lname = str(name).lower()
                    fields.append(_StringMatcher(f"headers.{lname}", _header_getter(lname), sub))
            elif key == "query":
                for name, sub in value.items():
                    fields.append(_StringMatcher(f"query.{name}", _query_getter(name), sub))
                    preflight.append(fields[-1])
            elif key == "auth":
                if "username" in value:
                    fields.append(_StringMatcher("auth.username", lambda v: v.auth_username, value["username"]))
                if "password" in value:
                    fields.append(_StringMatcher("auth.password", lambda v: v.auth_password, value["password"]))
            elif key == "https":
                fields.append(_HttpsMatcher(value))
                preflight.append(fields[-1])
            elif key == "port":
                fields.append(_PortMatcher(value))
                preflight.append(fields[-1])
            elif key == "json":
                body_fields.append(JsonMatcher(value))  # never a preflight's: it has no body
            elif key == "graphql":
                body_fields.append(GraphqlMatcher(value))
        self.fields = tuple(fields + body_fields)  # the body is parsed only once the rest matched
        self.preflight_fields = tuple(preflight)
        self.times: int | None = matcher.get("times")
        self.middleware: bool = bool(matcher.get("middleware", False))
        method = matcher.get("method")
        if isinstance(method, re.Pattern):
            method = regex_text(method)
        self.method_mentions_options = isinstance(method, str) and "options" in method.lower()

    def match(self, view: MatchView) -> bool:
        for field in self.fields:
            if not field.match(view):
                return False
        return True

    def match_preflight(self, view: MatchView) -> bool:
        """The match used for CORS preflights: without ``method``, ``headers`` and ``auth``."""
        for field in self.preflight_fields:
            if not field.match(view):
                return False
        return True

    def describe(self) -> str:
        """The matcher as readable text (for the routes table and messages)."""
        shown = {k: v for k, v in self.source.items() if k not in ("times", "middleware")}
        return show(shown)

    @property
    def method_text(self) -> str:
        method = self.source.get("method")
        if method is None:
            return "*"
        return regex_text(method) if isinstance(method, re.Pattern) else str(method).upper()
