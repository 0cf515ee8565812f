"""Routes: parsing the forms of ``runner.intercept(...)`` (1a.10), the route and its handle."""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from runner.errors import UsageError

from ._util import show
from .matching import CompiledMatcher, is_route_matcher_dict, validate_route_matcher
from .static_response import StaticResponse, is_static_like, parse_static

if TYPE_CHECKING:
    from .interception import Interception

__all__ = ["Route", "RouteHandle", "HTTP_METHODS", "compile_matcher", "parse_intercept_args", "validate_alias", "RESERVED_ALIASES"]

# the methods Node's http module knows (standard and WebDAV), plus QUERY
HTTP_METHODS = frozenset(
    """ACL BIND CHECKOUT CONNECT COPY DELETE GET HEAD LINK LOCK M-SEARCH MERGE MKACTIVITY MKCALENDAR
    MKCOL MOVE NOTIFY OPTIONS PATCH POST PROPFIND PROPPATCH PURGE PUT QUERY REBIND REPORT SEARCH
    SOURCE SUBSCRIBE TRACE UNBIND UNLINK UNLOCK UNSUBSCRIBE""".split()
)
RESERVED_ALIASES = ("test", "runnable", "timeout", "slow", "skip", "inspect")
_ids = itertools.count(1)


def _is_url(value: Any) -> bool:
    return isinstance(value, (str, re.Pattern))


def validate_alias(alias: Any, where: str = ".as_()") -> str:
    """Raise UsageError unless ``alias`` is a usable alias name (1d.2)."""
    if not isinstance(alias, str):
        raise UsageError(f"`{where}` only accepts a string as the alias name. You passed: {show(alias)}")
    if not alias:
        raise UsageError(f"`{where}` cannot be passed an empty string.")
    if alias.startswith("@"):
        raise UsageError(
            f"`{alias}` cannot be named starting with the `@` symbol. Try renaming the alias to "
            f"`{alias.lstrip('@')}`, or something else that does not start with the `@` symbol."
        )
    if alias in RESERVED_ALIASES:
        raise UsageError(
            f"`{alias}` cannot be used as an alias: it is a reserved word. Reserved words are: "
            f"{', '.join(RESERVED_ALIASES)}."
        )
    return alias


class Route:
    """One registered intercept: a compiled matcher and a handler (spy, static or function)."""

    def __init__(self, matcher: CompiledMatcher, *, static: StaticResponse | None = None,
                 handler: Callable[..., Any] | None = None, log: bool = True) -> None:
        self.id = f"route-{next(_ids)}"
        self.server = False  # runner.intercept_backend's: it sees the app's server's requests, not the page's
        self.matcher = matcher
        self.static = static if static is not None and static.is_response else None
        self.handler = handler
        self.log = log
        self.alias: str | None = None
        self.matches = 0  # times the chain reached this route
        self.times = matcher.times
        self.middleware = matcher.middleware
        self.interceptions: list[Interception] = []  # guarded by the Interceptor's lock

    @property
    def disabled(self) -> bool:
        return self.times is not None and self.matches >= self.times

    @property
    def kind(self) -> str:
        if self.handler is not None:
            return "function"
        return "static" if self.static is not None else "spy"

    def describe(self) -> str:
        return self.matcher.describe()


class RouteHandle:
    """What ``runner.intercept(...)`` returns: ``.as_(alias)`` plus read-only ``alias``,
    ``call_count`` and ``calls`` (the interceptions that reached the route)."""

    def __init__(self, route: Route, lock: threading.RLock,
                 on_alias: Callable[[Route], None] | None = None) -> None:
        self._route = route
        self._lock = lock
        self._on_alias = on_alias

    def as_(self, alias: str) -> RouteHandle:
        """Name the route so ``runner.wait("@alias")`` and ``runner.get("@alias")`` find its
        requests. Raises UsageError for an invalid alias. Returns the handle."""
        __tracebackhide__ = True
        validate_alias(alias, ".as_()")
        with self._lock:
            self._route.alias = alias
        if self._on_alias is not None:
            self._on_alias(self._route)
        return self

    @property
    def id(self) -> str:
        return self._route.id

    @property
    def alias(self) -> str | None:
        return self._route.alias

    @property
    def call_count(self) -> int:
        return self._route.matches

    @property
    def calls(self) -> list[Interception]:
        with self._lock:
            return list(self._route.interceptions)

    def __repr__(self) -> str:
        alias = f" as {self._route.alias!r}" if self._route.alias else ""
        return f"<RouteHandle {self._route.id} {self._route.describe()}{alias}>"


def _extra(label: str, most: int, given: int) -> UsageError:
    return UsageError(
        f"The `runner.intercept({label})` signature accepts a maximum of {most} arguments, but "
        f"{given} arguments were passed. Please refer to the docs for all accepted signatures "
        "for `runner.intercept()`."
    )


_NOT_GIVEN: Any = object()


def parse_intercept_args(args: tuple[Any, ...]) -> tuple[dict[str, Any], Any]:
    """Split ``runner.intercept(*args)`` into (raw matcher dict, handler or _NOT_GIVEN)."""
    if not args:
        raise UsageError(
            "An invalid RouteMatcher was supplied to `runner.intercept()`. The RouteMatcher does not "
            "contain any keys. You must pass something to match on. You passed: null"
        )
    first = args[0]
    if _is_url(first) and len(args) >= 2 and is_route_matcher_dict(args[1]):
        if len(args) > 3:
            raise _extra("url, mergeRouteMatcher, handler", 3, len(args))
        if "url" in args[1]:
            raise UsageError(
                "When invoking `runner.intercept()` with a `RouteMatcher` as the second parameter, "
                "`url` can only be specified as the first parameter."
            )
        if len(args) < 3:
            raise UsageError(
                "When invoking `runner.intercept()` with a `RouteMatcher` as the second parameter, a "
                "handler (function or `StaticResponse`) must be specified as the third parameter. If "
                "you intended to stub out a response body by passing a dict as the 2nd parameter, "
                "pass a dict with a `body` key containing the desired response body instead."
            )
        return {"url": first, **args[1]}, args[2]
    if isinstance(first, str) and first.upper() in HTTP_METHODS and len(args) >= 2 and _is_url(args[1]):
        if len(args) > 3:
            raise _extra("method, url, handler?", 3, len(args))
        return {"method": first, "url": args[1]}, args[2] if len(args) > 2 else _NOT_GIVEN
    if _is_url(first):
        if len(args) > 2:
            raise _extra("url, handler?", 2, len(args))
        return {"url": first}, args[1] if len(args) > 1 else _NOT_GIVEN
    if len(args) > 2:
        raise _extra("routeMatcher, handler?", 2, len(args))
    return first, args[1] if len(args) > 1 else _NOT_GIVEN


def compile_matcher(args: tuple[Any, ...], where: str) -> CompiledMatcher:
    """A matcher alone, in the forms ``runner.intercept`` takes before its handler: a URL (glob,
    string or regex), a RouteMatcher dict, or a method and a URL. Raises UsageError."""
    if len(args) == 1 and (_is_url(args[0]) or isinstance(args[0], dict)):
        raw = {"url": args[0]} if _is_url(args[0]) else args[0]
    elif (len(args) == 2 and isinstance(args[0], str) and args[0].upper() in HTTP_METHODS
          and _is_url(args[1])):
        raw = {"method": args[0], "url": args[1]}
    else:
        shown = ", ".join(show(a) for a in args) or "nothing"
        raise UsageError(
            f"`{where}` takes an alias (`'@name'`, or a list of them) or a request matcher: a URL "
            f"(glob, string or regex), a RouteMatcher dict, or a method and a URL. You passed: {shown}"
        )
    compiled = CompiledMatcher(validate_route_matcher(raw))
    if compiled.times is not None or compiled.middleware:
        raise UsageError(f"`{where}`: `times` and `middleware` belong to routes, not to a request matcher.")
    return compiled


def build_route(args: tuple[Any, ...], *, server: bool = False) -> Route:
    """Parse and validate every form of ``runner.intercept()``; raise UsageError on misuse.
    ``server``: the route is ``runner.intercept_backend``'s (the app's server's requests)."""
    route = _build_route(args)
    route.server = server
    return route


def _build_route(args: tuple[Any, ...]) -> Route:
    raw_matcher, handler = parse_intercept_args(args)
    matcher = validate_route_matcher(raw_matcher)
    compiled = CompiledMatcher(matcher)
    if handler is _NOT_GIVEN or handler is None:
        return Route(compiled)
    if callable(handler) and not isinstance(handler, type):
        return Route(compiled, handler=handler)
    if compiled.middleware:
        raise UsageError(
            "`runner.intercept()`'s `handler` argument must be a function when `middleware` is set "
            f"to `true`. You passed: {show(handler)}"
        )
    static: StaticResponse
    if isinstance(handler, str):
        static = parse_static({"body": handler}, "runner.intercept")
    elif isinstance(handler, (bytes, bytearray)):
        static = parse_static({"body": bytes(handler)}, "runner.intercept")
    elif is_static_like(handler):
        static = parse_static(handler, "runner.intercept")
    elif isinstance(handler, (dict, list)):
        static = parse_static({"body": handler}, "runner.intercept")
    else:
        raise UsageError(
            "`runner.intercept()`'s `handler` argument must be a str, a StaticResponse dict, or a "
            f"function. You passed: {show(handler)}"
        )
    return Route(compiled, static=static, log=static.log is not False)
