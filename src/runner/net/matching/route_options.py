"""The RouteMatcher keys that configure the route rather than match a request: ``times`` and
``middleware``. They are left out of the matcher's description (the Routes table has columns
of their own)."""

from __future__ import annotations

from typing import Any

from .._util import is_number
from .base import Field, MatcherProblem

__all__ = ["RouteOption", "TimesField", "MiddlewareField"]


class RouteOption(Field):
    """A key of the route, given in its RouteMatcher: it matches every request."""

    matches_requests = False
    described = False


class TimesField(RouteOption):
    """``times``: after this many requests reached the route, it stops matching."""

    key = "times"

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not (is_number(value) and int(value) == value and value > 0):
            raise MatcherProblem("`times` must be a positive integer.")
        return int(value)


class MiddlewareField(RouteOption):
    """``middleware``: True, the route runs before the normal routes, in definition order."""

    key = "middleware"

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not isinstance(value, bool):
            raise MatcherProblem("`middleware` must be a boolean.")
        return value
