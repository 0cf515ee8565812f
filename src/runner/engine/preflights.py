"""CORS preflights through runner's routes while the page is routed.

Playwright answers every preflight of a routed page itself, permissively (204: the page's origin,
the requested method and headers allowed), before any route sees it: a cross-origin request that
the real server would refuse succeeds under test. The :class:`PreflightGuard` is a DevTools
session of its own whose Fetch domain pauses the page's fetch and XHR requests at the request
stage, ahead of Playwright's session. A preflight (``OPTIONS`` with
``Access-Control-Request-Method``) goes to runner's interception engine like any request:

* a route whose method mentions ``OPTIONS`` takes it over (a spy on it records what the server
  said; a stub or a handler answers it, and so may refuse the cross-origin request);
* a route that can answer or change a request (a handler or a StaticResponse) and matches its URL
  (ignoring ``method``, ``headers`` and ``auth``), where no matching route mentions ``OPTIONS``,
  gets the automatic answer (behaviour.md 1a.7; a spy never changes what the page gets, so a
  preflight only spies match is the server's business);
* a preflight no route matches is sent to the server by runner itself (``direct_fetch.py``, or the
  ``clientCertificates`` entry its URL matches) and the server's answer goes to the page, so the
  page is refused exactly when it would be without runner.

Every other request is let through at once, on to Playwright's route: from the event's own
callback, as a call internal to Playwright's driver (``devtools.send_now``). Chromium's Fetch
domain files fetch() and XHR requests alike as ``XHR`` and cannot pick out preflights, so each
fetch or XHR of a routed page pauses once more: one more round trip through the driver to runner
(bench/intercept.py prints the stub with and without the guard; Chromium 156 refuses a
``Preflight`` resource type in a Fetch pattern).

The guard is armed while the page is routed, or a route mentions ``OPTIONS``, and only then: an
unrouted page's preflights are the browser's own business already, and a preflight that only
spies match goes to the server on a routed page too (``net/chain.py``), so the answer never
depends on an unrelated route. What the routes can match does not matter: Playwright answers
every preflight of a routed page, whatever URLs its routes name, so a page routed only for its
own origin (``"/api/*"``, an absolute URL of the page's origin) needs the guard as much, or a
cross-origin request that the server's preflight would refuse is allowed and reaches the server.
A URL pattern cannot pause only other origins' requests (Fetch patterns know ``*`` and ``?``,
not "not this origin"), nor can a request that passed unpaused be stopped once it turns out to
have had a preflight.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from runner.engine.devtools import listen_now, quietly, send_now
from runner.engine.direct_fetch import DirectClient
from runner.engine.exchange import BLOCKED_HEADER, abandoned_message, send_and_answer
from runner.net import (
    HttpRequest,
    HttpResponse,
    UpstreamError,
    header_has,
)
from runner.usercode.tracebacks import first_line

if TYPE_CHECKING:
    from runner.engine.routing import RoutingTarget

__all__ = ["PreflightGuard", "PreflightExchange", "is_preflight"]

_PATTERNS = [{"urlPattern": "*", "resourceType": "XHR", "requestStage": "Request"}]

Send = Callable[..., Awaitable[HttpResponse]]


def is_preflight(method: str, headers: Mapping[str, str]) -> bool:
    """A CORS preflight: ``OPTIONS`` with an ``Access-Control-Request-Method`` header."""
    return method.upper() == "OPTIONS" and header_has(headers, "access-control-request-method")


class PreflightExchange:
    """One paused preflight, answered through the guard's DevTools session."""

    holds_request = True  # the page waits until this exchange answers
    sends_itself = True  # pass_through is fetch + fulfill: runner sends the preflight itself
    watch_only = False
    streams_body = False  # fulfilled by DevTools in one piece: a throttled body waits, then goes whole

    def __init__(self, cdp: Any, request_id: str, request: HttpRequest, send: Send, timeout_ms: float,
                 warn: Callable[[str], None]) -> None:
        self._cdp = cdp
        self._id = request_id
        self._request = request
        self._send = send
        self._timeout_ms = timeout_ms
        self._warn = warn

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        return await send_and_answer(self, request or self._request, self._timeout_ms, self._warn)

    async def let_go(self) -> None:
        await self.pass_through(None)  # runner sends the preflight itself: the server answers the page

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        return await self._send(request.method, request.url, request.headers, request.body, timeout_ms,
                                follow_redirect=follow_redirect)

    async def fulfill(self, response: HttpResponse) -> str | None:
        headers = [{"name": name, "value": line} for name, line in response.header_lines()]
        params: dict[str, Any] = {"requestId": self._id, "responseCode": response.status, "responseHeaders": headers,
                                  "body": base64.b64encode(response.body).decode("ascii")}
        if response.status_text:
            params["responsePhrase"] = response.status_text
        try:
            await self._cdp.send("Fetch.fulfillRequest", params)
        except Exception as err:  # noqa: BLE001 - the page went away, or abandoned the request
            return abandoned_message(first_line(err))
        return None

    async def fail(self, reason: str) -> None:
        await quietly(self._cdp.send("Fetch.failRequest", {"requestId": self._id, "errorReason": "Failed"}))


class PreflightGuard:
    """Sends a routed page's preflights through runner's routes (see the module).

    ``page_url`` gives the page's URL now; ``preflights`` counts the preflights it handled.
    """

    def __init__(self, context: Any, page: Any, target: RoutingTarget, page_url: Callable[[], str | None]) -> None:
        self._context = context
        self._page = page
        self._target = target
        self._page_url = page_url
        self._cdp: Any = None
        self._client = DirectClient(False)  # like the page: a server's certificate is not checked
        self.armed = False
        self.preflights = 0

    async def arm(self) -> None:
        if self.armed:
            return
        if self._cdp is None:
            self._cdp = await self._context.new_cdp_session(self._page)
            listen_now(self._cdp, "Fetch.requestPaused", self._paused)
        await self._cdp.send("Fetch.enable", {"patterns": _PATTERNS})
        self.armed = True

    async def disarm(self) -> None:
        """Stop pausing; requests paused meanwhile go on (Chromium lets them through)."""
        if self.armed and self._cdp is not None:
            self.armed = False
            await quietly(self._cdp.send("Fetch.disable"))

    def _paused(self, event: dict[str, Any]) -> None:
        request = event.get("request") or {}
        if is_preflight(str(request.get("method", "")), request.get("headers") or {}):
            asyncio.ensure_future(self._preflight(event))
        else:
            send_now(self._cdp, "Fetch.continueRequest", {"requestId": event["requestId"]})

    async def _preflight(self, event: dict[str, Any]) -> None:
        request = event["request"]
        url = str(request["url"])
        headers = {str(k).lower(): str(v) for k, v in (request.get("headers") or {}).items()}
        target = self._target
        certificate = target.certificate(url)
        exchange = PreflightExchange(
            self._cdp, event["requestId"], HttpRequest(method="OPTIONS", url=url, headers=headers, body=None),
            certificate.fetch if certificate is not None else self._client.fetch,
            target.response_timeout_ms(), target.warn)
        self.preflights += 1
        try:
            if target.blocked(url):
                await exchange.fulfill(HttpResponse(status=503, status_text="", headers={BLOCKED_HEADER: url},
                                                        body=b""))
                return
            interceptor = target.interceptor()
            if interceptor is None or not interceptor.has_routes():
                await exchange.pass_through(None)
                return
            raw = HttpRequest(id=str(event.get("networkId") or event["requestId"]), method="OPTIONS", url=url,
                             headers=headers, body=None, resource_type="other", page_url=self._page_url())
            await interceptor.handle(raw, exchange)  # answers the request, whatever happens
        except Exception:  # noqa: BLE001 - never leave the page's request paused
            await exchange.fail("failed")

    async def stop(self) -> None:
        cdp, self._cdp = self._cdp, None
        self.armed = False
        if cdp is not None:
            await quietly(asyncio.wait_for(cdp.detach(), 5))
        await quietly(self._client.close())
