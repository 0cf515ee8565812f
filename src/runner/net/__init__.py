"""runner's network interception engine: pure Python on asyncio, no Playwright.

The browser adapter hands every routed request of the page to :meth:`Interceptor.handle` with an
:class:`Exchange` (its four moves: ``pass_through``, ``fetch``, ``fulfill``, ``fail``). Tests
define routes with ``runner.intercept(...)`` (:meth:`Interceptor.intercept`) and read them with
``runner.wait("@alias")`` / ``runner.get("@alias")``. See docs/interception.md.

The package: ``interceptor`` (the facade) over ``registry`` (routes and records), ``chain`` (one
routed request's handlers), ``responder`` (its response side), ``handlers`` (the user's handlers
run), ``guard`` (the page always answered) and ``aliases`` / ``alias_names``; a route is parsed by
``route``, matched by ``matching/`` and answered by ``static_response``; the user's code sees
``req``, ``res`` and ``interception``; what crosses the boundary is ``types`` (the Exchange),
``messages`` (the one request and response), ``headers`` and ``records`` (what the observer
hears); beside them ``bodies``, ``cors``, ``probes``, ``har``, ``websockets`` and ``_util``.
"""

from __future__ import annotations

from .headers import Headers, header_get, header_has
from .interception import Interception, RequestError, RequestSnapshot, ResponseSnapshot
from .interceptor import Interceptor
from .messages import HttpRequest, HttpResponse
from .req import Req
from .res import Res
from .route import HTTP_METHODS, RouteHandle
from .types import Exchange, InterceptionState, RunnerDeprecationWarning, UpstreamError

__all__ = [
    "Interceptor",
    "RouteHandle",
    "Interception",
    "InterceptionState",
    "RequestSnapshot",
    "ResponseSnapshot",
    "RequestError",
    "Req",
    "Res",
    "HTTP_METHODS",
    "HttpRequest",
    "HttpResponse",
    "UpstreamError",
    "Exchange",
    "RunnerDeprecationWarning",
    "Headers",
    "header_get",
    "header_has",
]
