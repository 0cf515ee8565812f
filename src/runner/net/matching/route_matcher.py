"""The RouteMatcher: a dict of fields, validated once and compiled once into its field classes.

:data:`FIELDS` lists the field classes, one per key (adding a key means adding a class there).
:func:`validate_route_matcher` checks a user's dict (messages of the original runner adapted to
``runner.intercept()``) and :class:`CompiledMatcher` compiles the checked dict; matching a request
is then cheap and pure: build one :class:`~.view.MatchView` per request, ask each route's
compiled matcher.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runner.errors import UsageError

from .._util import show
from .base import Field, MatcherProblem
from .body import GraphqlField, JsonField
from .request_fields import AuthField, HeadersField, MethodField, ResourceTypeField
from .route_options import MiddlewareField, TimesField
from .url_fields import (
    HostnameField,
    HttpsField,
    PathField,
    PathnameField,
    PortField,
    QueryField,
    UrlField,
)
from .view import MatchView

__all__ = ["FIELDS", "ROUTE_MATCHER_KEYS", "CompiledMatcher", "validate_route_matcher", "is_route_matcher_dict"]

#: The field classes by key, in the order a dict's fields are validated (the first problem found
#: is the one reported; ``resourceType`` last, so its deprecation warning comes with a valid dict).
FIELDS: dict[str, type[Field]] = {
    field.key: field
    for field in (
        UrlField, PathField, PathnameField, HostnameField, MethodField, AuthField, HeadersField,
        QueryField, JsonField, GraphqlField, HttpsField, MiddlewareField, PortField, TimesField,
        ResourceTypeField,
    )
}
#: Canonical (camelCase) RouteMatcher keys, in the order the valid-keys list shows them.
ROUTE_MATCHER_KEYS = tuple(sorted(FIELDS))
_SPELLINGS = {spelling: field.key for field in FIELDS.values() for spelling in field.spellings}
_PREFIX = "An invalid RouteMatcher was supplied to `runner.intercept()`."


def canonical_key(key: Any) -> Any:
    return _SPELLINGS.get(key, key) if isinstance(key, str) else key


def is_route_matcher_dict(value: Any) -> bool:
    """Whether ``value`` is a non-empty dict whose keys are all RouteMatcher keys (1a.10, rule 1)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(canonical_key(k) in ROUTE_MATCHER_KEYS for k in value)
    )


def _error(message: str, matcher: Any) -> UsageError:
    return UsageError(f"{_PREFIX} {message} You passed: {show(matcher)}")


def validate_route_matcher(matcher: Any, shown: Any = None) -> dict[str, Any]:
    """Validate a RouteMatcher dict; return it with canonical (camelCase) keys and normalised
    values (``port`` and ``times`` as ints), in the user's order.

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
    for key, field in FIELDS.items():
        if key in out:
            try:
                out[key] = field.validate(out[key])
            except MatcherProblem as problem:
                raise _error(str(problem), shown) from problem.__cause__
    return out


class CompiledMatcher:
    """A validated RouteMatcher compiled into its fields (all must match)."""

    __slots__ = ("source", "_given", "fields", "preflight_fields", "times", "middleware", "_method")

    def __init__(self, matcher: Mapping[str, Any]) -> None:
        """``matcher``: the canonical dict returned by :func:`validate_route_matcher`."""
        self.source = dict(matcher)
        self._given = tuple(FIELDS[key](value) for key, value in matcher.items())  # the user's order
        request = [field for field in self._given if field.matches_requests]
        # the body is parsed only once the rest matched
        self.fields = tuple(sorted(request, key=lambda field: field.reads_body))
        self.preflight_fields = tuple(field for field in request if field.on_preflight)
        self.times: int | None = matcher.get("times")
        self.middleware: bool = bool(matcher.get("middleware", False))
        self._method = next((field for field in self._given if isinstance(field, MethodField)), None)

    def match(self, view: MatchView) -> bool:
        for field in self.fields:
            if not field.match(view):
                return False
        return True

    def match_preflight(self, view: MatchView) -> bool:
        """The match used for CORS preflights: on the fields that say ``on_preflight`` (not
        ``method``, ``headers``, ``auth``, nor the body's)."""
        for field in self.preflight_fields:
            if not field.match(view):
                return False
        return True

    def describe(self) -> str:
        """The matcher as readable text (for the routes table and messages)."""
        return show({field.key: field.describe() for field in self._given if field.described})

    @property
    def method_mentions_options(self) -> bool:
        return self._method is not None and self._method.mentions_options

    @property
    def method_text(self) -> str:
        return self._method.text if self._method is not None else "*"
