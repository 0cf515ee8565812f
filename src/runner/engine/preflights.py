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
every preflight of a routed page, whatever URLs its routes name.

What the guard pauses depends on the document, not on the routes. A preflight is sent only for a
request to another origin than its initiator's, so while the page is routed and its document is
the only one of the page (no frame in it) and has an ``http(s)`` origin of its own, the guard
pauses only the fetch and XHR requests whose URL does not start with that origin: the page's
calls to its own server (``"/api/*"``, the common case) pass the guard without a pause. A Fetch
pattern knows ``*`` and ``?``, not "not this origin", so "not this origin" is spelt as every way
an ``http(s)`` URL can leave the origin's prefix (see ``_patterns``: about 1,400 patterns for a
local origin). Chromium tries them all on each request of the page: about 0.1 ms a request
(bench/intercept.py's "stub" and "stub, guard off" rows differ by that), far less than a pause.

The guard pauses every fetch and XHR again (``"*"``) whenever another sender could preflight a
request to the page's own origin, and follows the page's documents without a race:

* each document's response is paused at the response stage, before the document exists. A
  response of the page whose document is not of the origin the guard is narrowed to (another
  origin, after redirects too; an opaque one: ``Content-Security-Policy: sandbox`` without
  ``allow-same-origin``) makes the guard pause every request before the response goes on; once
  the new document commits the guard narrows to its origin. A document of the same origin
  changes nothing (a test's second visit costs no new patterns);
* a document that comes without a response of its own when runner navigates (``data:``,
  ``about:blank``, also when the history brings one back) widens the guard before runner
  navigates;
* while the page has a frame (attached, or its document asked for: a frame of another origin, a
  sandboxed or ``data:`` frame with an opaque origin) the guard pauses every request;
* a document that commits unseen (a navigation a service worker answers) of another origin than
  the guard's leaves the guard pausing every request until the next document it sees coming.

The guard learns the page's frames from a ``Page`` domain of its own session (a few events per
navigation, none per request). On a page not routed (a route mentions ``OPTIONS``) it always
pauses every fetch and XHR: no response of that page's documents is paused. Left: a frame the
page adds without a request of its own (a sandboxed ``srcdoc`` or a ``data:`` iframe) is seen a
moment after it is attached, and a preflighted request it sends to the page's origin within that
moment is not paused; nor one the page sends to another document's origin between a navigation
a service worker answers and the guard hearing of it.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from runner.engine.devtools import listen_now, quietly, send_now
from runner.engine.direct_fetch import DirectClient
from runner.engine.exchange import BLOCKED_HEADER, abandoned_message, send_and_answer
from runner.engine.raw_http import followed_redirect
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

_EVERY = "*"  # the scope that pauses every fetch and XHR of the page
_URL_CHARACTERS = [chr(code) for code in range(0x21, 0x7F)]  # a URL as the browser sends it is ASCII


# A document's response, paused before it commits: its headers say whether its origin is opaque
_DOCUMENTS = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}


def _patterns(scope: str, documents: bool) -> list[dict[str, str]]:
    """Fetch patterns pausing the fetch and XHR requests of ``scope``: every one (``"*"``), or
    every ``http(s)`` one whose URL does not start with ``scope`` (an origin's
    ``scheme://host[:port]/``); with ``documents``, the responses of documents too.

    Only ``http(s)`` requests can have a preflight, and every such URL starts with ``http`` and
    has ``://`` after its scheme: the scheme part is left by the other scheme alone (``https`` for
    an ``http`` origin, ``http:`` for an ``https`` one); the authority by every other printable
    ASCII character at each of its positions. Chromium tries every pattern on every request of
    the page, so fewer patterns cost less (about 1,400 for ``http://127.0.0.1:8000/``)."""
    patterns = [_DOCUMENTS] if documents else []
    if scope == _EVERY:
        return [*patterns, {"urlPattern": "*", "resourceType": "XHR"}]
    scheme, _, _rest = scope.partition("://")
    other = "http:*" if scheme == "https" else "https*"
    patterns.append({"urlPattern": other, "resourceType": "XHR"})
    for at in range(len(scheme) + 3, len(scope)):
        head = "".join(_escaped(c) for c in scope[:at])
        patterns += [{"urlPattern": f"{head}{_escaped(c)}*", "resourceType": "XHR"}
                     for c in _URL_CHARACTERS if c != scope[at]]
        # a URL that ends inside the authority (the browser never sends one: cheap to be sure)
        patterns.append({"urlPattern": head, "resourceType": "XHR"})
    return patterns


def _escaped(character: str) -> str:
    return "\\" + character if character in "*?\\" else character


def origin_scope(url: str, security_origin: str | None = None) -> str | None:
    """The prefix every same-origin request URL of a document starts with (``scheme://host[:port]/``),
    or None when the document's origin is opaque or not ``http(s)``. ``security_origin``, the
    origin the browser gave the document, must be its URL's own (a sandboxed document's is not);
    None: the URL's own origin is taken as the document's (its response said it is not opaque)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    own = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    return own + "/" if security_origin in (None, own) else None


def sandboxes(headers: list[dict[str, str]] | None) -> bool:
    """Whether a document with these response headers gets an opaque origin: its
    ``Content-Security-Policy`` has a ``sandbox`` directive without ``allow-same-origin``."""
    for header in headers or []:
        if str(header.get("name", "")).lower() != "content-security-policy":
            continue
        for policy in str(header.get("value", "")).replace("\n", ",").split(","):
            for directive in policy.split(";"):
                tokens = directive.lower().split()
                if tokens and tokens[0] == "sandbox" and "allow-same-origin" not in tokens[1:]:
                    return True
    return False

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

    ``page_url`` gives the page's URL now; ``preflights`` counts the preflights it handled,
    ``paused`` every request it paused (preflights included) and ``changes`` how often it told
    Chromium what to pause.
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
        self.paused = 0
        self.changes = 0  # how often Chromium was told what to pause
        self._narrows = False  # the page is routed: its navigations are seen coming (see the module)
        self._document: str | None = None  # the document's own scope (origin_scope), None: opaque or unknown
        self._frames: set[str] = set()  # the document's frames (ids), or a frame's navigation seen coming
        self._navigating = False  # a navigation of the page is on its way
        self._frame_events = 0  # frame events heard: a frame tree read meanwhile may be stale
        self._applied: str | None = None  # the scope Chromium pauses now (None: nothing)
        self._main: str | None = None  # the page's own frame (its id)
        self._opaque_next = False  # the page's next document has an opaque origin (its response said)
        self._lock = asyncio.Lock()

    @property
    def scope(self) -> str | None:
        """What the guard pauses now: ``"*"`` (every fetch and XHR), an origin's prefix (every one
        but that origin's), or None (nothing: disarmed)."""
        return self._applied

    async def arm(self, *, narrows: bool = False) -> None:
        """Pause the page's fetch and XHR requests: all of them, or with ``narrows`` (the page is
        routed) only those that can be preflights (see the module)."""
        self._narrows = narrows
        if self._cdp is None:
            self._cdp = await self._context.new_cdp_session(self._page)
            listen_now(self._cdp, "Fetch.requestPaused", self._paused)
            for event, heard in (("Page.frameAttached", self._frame_attached),
                                 ("Page.frameDetached", self._frame_detached),
                                 ("Page.frameNavigated", self._frame_navigated)):
                listen_now(self._cdp, event, heard)
            await self._cdp.send("Page.enable")
            await self._read_frames()
        self.armed = True
        await self._apply()

    async def disarm(self) -> None:
        """Stop pausing; requests paused meanwhile go on (Chromium lets them through)."""
        if self.armed and self._cdp is not None:
            self.armed = False
            async with self._lock:
                self._applied = None
                await quietly(self._cdp.send("Fetch.disable"))

    async def before_navigation(self, *, main: bool) -> None:
        """A navigation of the page (``main``) or of one of its frames is about to go: from now on
        until the new document commits, every fetch and XHR is paused (its origin is not known)."""
        if main:
            self._navigating = True
        else:
            self._frames.add("")  # a frame is loading: until the page's next document
        if self.armed:
            # after any change still on its way (a narrowing decided before this navigation)
            await quietly(self._apply())  # a session that failed: the page is going away

    async def before_history(self, steps: int) -> None:
        """The page is about to go ``steps`` through its history: a document the history holds
        that is not http(s) (``data:``, ``about:blank``) comes without a response, so the guard
        pauses every fetch and XHR until it commits; an http(s) one tells the guard by its
        response (the cache is off while the page is routed)."""
        if not self.armed or self._cdp is None:
            return
        try:
            history = await self._cdp.send("Page.getNavigationHistory")
            entries = history["entries"]
            url = str(entries[int(history["currentIndex"]) + steps]["url"])
        except Exception:  # noqa: BLE001 - no such entry, or the page is going away: to be safe
            url = ""
        if not url.startswith(("http:", "https:")):
            await self.before_navigation(main=True)

    async def _read_frames(self) -> None:
        heard = self._frame_events
        try:
            tree = (await self._cdp.send("Page.getFrameTree"))["frameTree"]
        except Exception:  # noqa: BLE001 - the page is going away: nothing to narrow
            return
        if heard != self._frame_events:
            return  # a frame event came meanwhile: the tree may be older; wait for the next document
        frame = tree.get("frame") or {}
        self._main = str(frame.get("id", "")) or None
        self._document = origin_scope(str(frame.get("url", "")), str(frame.get("securityOrigin", "")))
        self._frames = {str((child.get("frame") or {}).get("id", "")) for child in tree.get("childFrames") or []}

    def _wanted(self) -> str:
        if not self._narrows or self._navigating or self._frames or self._document is None:
            return _EVERY
        return self._document

    async def _apply(self) -> None:
        """Make Chromium pause what the page's state calls for (see the module). Every change of
        that state is followed by a call: the last one to take the lock applies the latest state."""
        async with self._lock:
            if not self.armed or self._cdp is None:
                return
            wanted = self._wanted()
            if wanted == self._applied:
                return
            await self._cdp.send("Fetch.enable", {"patterns": _patterns(wanted, self._narrows)})
            self._applied = wanted
            self.changes += 1

    def _frame_attached(self, event: dict[str, Any]) -> None:
        self._frame_events += 1
        self._frames.add(str(event.get("frameId", "")))
        if self.armed:
            asyncio.ensure_future(quietly(self._apply()))

    def _frame_detached(self, event: dict[str, Any]) -> None:
        self._frame_events += 1
        self._frames.discard(str(event.get("frameId", "")))

    def _frame_navigated(self, event: dict[str, Any]) -> None:
        self._frame_events += 1
        frame = event.get("frame") or {}
        if frame.get("parentId"):
            self._frames.add(str(frame.get("id", "")))
            return
        # The page's new document: the old one's frames went with it. The guard narrows to it only
        # when it knew the document was coming: it paused every request while the document came,
        # or the document is of the origin it was narrowed to (its response said so).
        seen_coming = self._navigating or self._applied in (None, _EVERY)
        self._navigating = False
        self._frames.clear()
        document = origin_scope(str(frame.get("url", "")), str(frame.get("securityOrigin", "")))
        if self._opaque_next:  # the browser still names the URL's origin: the response said otherwise
            document, self._opaque_next = None, False
        self._document = document if seen_coming or document == self._document else None
        if self.armed:
            asyncio.ensure_future(quietly(self._apply()))

    def _paused(self, event: dict[str, Any]) -> None:
        if "responseStatusCode" in event or "responseErrorReason" in event:
            self._document_response(event)
            return
        request = event.get("request") or {}
        self.paused += 1
        if is_preflight(str(request.get("method", "")), request.get("headers") or {}):
            asyncio.ensure_future(self._preflight(event))
        else:
            send_now(self._cdp, "Fetch.continueRequest", {"requestId": event["requestId"]})

    def _document_response(self, event: dict[str, Any]) -> None:
        """A document's response, before the document commits: a document of the page that is not
        of the origin the guard is narrowed to widens it first (see the module)."""
        going_on = {"requestId": event["requestId"]}
        status = int(event.get("responseStatusCode") or 0)
        headers = event.get("responseHeaders") or []
        redirect = followed_redirect(status, (str(h.get("name", "")) for h in headers))
        if (self._main is not None and event.get("frameId") != self._main) or redirect:
            # a frame's (the guard pauses every request while the page has one), or a redirect
            # (its next hop's response is paused in turn; a response the browser does not follow,
            # a 3xx without a Location or a 300, is a document)
            send_now(self._cdp, "Fetch.continueRequest", going_on)
            return
        url = str((event.get("request") or {}).get("url", ""))
        self._opaque_next = sandboxes(headers)
        coming = None if self._opaque_next else origin_scope(url)
        if coming is not None and coming == self._applied:
            send_now(self._cdp, "Fetch.continueRequest", going_on)  # the same origin: nothing changes
            return
        self._navigating = True
        asyncio.ensure_future(self._widen_then(going_on))

    async def _widen_then(self, going_on: dict[str, Any]) -> None:
        try:
            await quietly(self._apply())
        finally:
            send_now(self._cdp, "Fetch.continueRequest", going_on)

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
