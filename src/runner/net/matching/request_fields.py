"""The RouteMatcher fields read from the request line and headers: ``method``, ``headers``,
``auth`` (the Basic credentials) and ``resourceType``.

A CORS preflight is matched without ``method``, ``headers`` and ``auth`` (its own are the
browser's ``OPTIONS`` and ``access-control-request-*``), but with ``resourceType``.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from .._util import regex_text
from ..types import RunnerDeprecationWarning
from .base import MatcherProblem
from .text import TextField, TextGroupField, TextPattern, check_glob, check_text
from .view import MatchView

__all__ = ["MethodField", "HeadersField", "AuthField", "ResourceTypeField"]

_REGEX_STRING = re.compile(r"^/(.+)/([a-z]*)$", re.S)


class MethodField(TextField):
    """``method``: compared case-insensitively; a string may also be a ``"/regex/flags"``."""

    key = "method"

    @classmethod
    def validate(cls, value: Any) -> Any:
        check_text(cls.key, value)
        if isinstance(value, str):
            if _REGEX_STRING.match(value):
                _method_regex(value)  # refuses an unknown flag or a broken regex
            else:
                check_glob(cls.key, value)
        return value

    def compile(self, value: str | re.Pattern[str]) -> TextPattern:
        regex = _method_regex(value) if isinstance(value, str) else None
        if isinstance(value, re.Pattern):
            regex = re.compile(value.pattern, value.flags | re.IGNORECASE)
        return TextPattern(regex or value, lower=True)

    def read(self, view: MatchView) -> str:
        return view.method

    @property
    def text(self) -> str:
        """The method as the Routes table's method column shows it."""
        return regex_text(self.value) if isinstance(self.value, re.Pattern) else str(self.value).upper()

    @property
    def mentions_options(self) -> bool:
        """Whether the method names OPTIONS (then a CORS preflight goes to the route itself)."""
        text = regex_text(self.value) if isinstance(self.value, re.Pattern) else self.value
        return "options" in text.lower()


def _method_regex(value: str) -> re.Pattern[str] | None:
    """The regex of a ``"/regex/flags"`` string (None for another string)."""
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
            raise MatcherProblem(f"`method` has an unknown regular expression flag `{ch}`.")
    try:
        return re.compile(m.group(1), flags)
    except re.error as err:
        raise MatcherProblem(f"`method` is not a valid regular expression: {err}.") from err


class HeadersField(TextGroupField):
    """``headers``: the request's headers by name (names compared case-insensitively)."""

    key = "headers"

    @classmethod
    def validate(cls, value: Any) -> Any:
        super().validate(value)
        seen: set[str] = set()
        for name in value:
            lower = str(name).lower()
            if lower in seen:
                raise MatcherProblem(
                    f"`{name}` was specified more than once in `headers`. Header fields can only be "
                    "matched once (HTTP header field names are case-insensitive)."
                )
            seen.add(lower)
        return value

    def name_key(self, name: Any) -> Any:
        return str(name).lower()

    def read(self, view: MatchView, name: Any) -> str:
        return view.headers.get(name, "")


class AuthField(TextGroupField):
    """``auth``: the ``username`` and ``password`` of the request's Basic credentials."""

    key = "auth"

    @classmethod
    def check_name(cls, name: Any) -> None:
        if name not in ("username", "password"):
            raise MatcherProblem("`auth` may only contain `username` and `password`.")

    def read(self, view: MatchView, name: Any) -> str:
        return view.auth_username if name == "username" else view.auth_password


class ResourceTypeField(TextField):
    """``resourceType`` (or ``resource_type``): deprecated, still works; the browser's type of
    the request (``document``, ``fetch``, ``xhr``, ...)."""

    key = "resourceType"
    spellings = ("resource_type",)
    on_preflight = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        super().validate(value)
        warnings.warn(
            "The RouteMatcher property `resourceType` is deprecated (it still works). Match on the "
            "URL instead, or read `req.resource_type` in a handler.",
            RunnerDeprecationWarning,
            stacklevel=6,  # the user's runner.intercept() call, through validate_route_matcher
        )
        return value

    def read(self, view: MatchView) -> str:
        return view.resource_type
