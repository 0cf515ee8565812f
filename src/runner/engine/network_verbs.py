"""The verbs of the network: the page routed or watched, and HTTP sent by the test itself.

The page's requests routed to the routing target or only watched (``set_routing``,
``set_watching``, ``route_web_sockets``); ``fetch`` sends the test's own request with the
context's cookies, never routed.

Routing turns the browser's HTTP cache off, so the page is routed only while a route needs it;
spies only watch. What a routed request meets is ``exchange.py`` (imported on the first one).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Route

from runner.engine.devtools import quietly
from runner.engine.holder import BrowserHolder, PageError

__all__ = ["NetworkVerbs", "BodyRefusedError", "FetchedResponse"]


class BodyRefusedError(PageError):
    """:meth:`NetworkVerbs.fetch` got an answer whose body runner refused to read (too large)."""


class FetchedResponse(TypedDict):
    """The answer to :meth:`NetworkVerbs.fetch`."""

    status: int
    status_text: str
    headers: dict[str, str]
    body: bytes
    url: str


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class NetworkVerbs(BrowserHolder):
    """The page's requests routed or watched, and the test's own requests."""

    _direct: Any  # runner's own HTTP client (context_fetch.py), made on first use
    _agent: str | None  # the browser's user agent, once asked
    _observer: Any  # what stops the request listener while watching
    _observer_quiet: bool  # the listener hears only what the driver sends anyway (while routed)
    _ends: Any  # the ends of the context's requests (request_events.py), made on first use
    _revalidations: Any  # while watching: which responses were the server's 304
    _routed: bool
    _ws_page: Page | None  # the page whose WebSockets go to the routes (once set)

    def set_watching(self, on: bool, *, revalidations: bool = True, routed: bool = False) -> None:
        """Show every request the page makes to the routing target, without intercepting it.

        Watching costs next to nothing, unlike routing: spies use it (see net's cost rule).
        ``revalidations``: also learn which responses were the server's 304 (only worth it while
        the page is not routed: routing turns the HTTP cache off). ``routed``: the page is
        routed already, so only the hops after a redirect are watched, and the driver sends
        those without being asked (request_events.py): the listener subscribes to nothing.
        """
        page = self.page
        if page is None:
            return
        quiet = on and routed
        if self._observer is not None and (not on or quiet != self._observer_quiet):
            self._observer()
            self._observer = None
        if on and self._observer is None:
            from runner.engine.request_events import listen

            self._observer = listen(page, "request", self._on_request, subscribe=not quiet)
            self._observer_quiet = quiet
        if self.popups is not None:
            self.popups.watch(on, quiet=quiet)
        if on and revalidations and self._revalidations is None and self.cdp is not None:
            from runner.engine.revalidations import Revalidations

            self._revalidations = Revalidations(self.cdp)  # listens once a response can be revalidated
            if page.url not in ("", "about:blank"):
                # the page loaded something in this test: a response it cached before the spies
                # watched can be revalidated by the very next request, so listen at once
                self._revalidations.begin()
        elif (not on or not revalidations) and self._revalidations is not None:
            stopped, self._revalidations = self._revalidations, None
            asyncio.ensure_future(quietly(stopped.stop()))

    async def watching_ready(self) -> None:
        """Wait until what :meth:`set_watching` started listens (the next request is seen)."""
        if self._revalidations is not None:
            await self._revalidations.ready()

    def _on_request(self, request: Any) -> None:
        # While routed, the route handler sees every request but the hops after a redirect
        # (Playwright does not route those): they are watched here, the rest there.
        if self._routing is not None and (not self._routed or request.redirected_from is not None):
            from runner.engine.exchange import observe_request

            observe_request(self._routing, request, self.page_url, self._revalidations, self.request_ends())

    def request_ends(self) -> Any:
        """The ends of the context's requests (``request_events.RequestEnds``), made on first use."""
        if self._ends is None:
            from runner.engine.request_events import RequestEnds

            self._ends = RequestEnds(self.context)
        return self._ends

    async def _on_route(self, route: Route, request: Request) -> None:
        if self._routing is None:
            await route.fallback()
            return
        if self.preflights is not None and request.is_navigation_request():
            # a frame's document is about to be asked for: the guard pauses every fetch and XHR
            # while the page has a frame (the page's own documents tell it by their response)
            try:
                main = request.frame.parent_frame is None
            except PlaywrightError:
                main = False  # no frame to ask: to be safe, as a frame's
            if not main:
                await self.preflights.before_navigation(main=False)
        # Imported on the first routed request: the interception engine loads only when used.
        from runner.engine.exchange import handle_route

        await handle_route(self._routing, route, request, self.page_url, self._direct_client(), self.request_ends())

    async def route_web_sockets(self) -> None:
        """Send the page's WebSockets that a WebSocket route matches to the routing target
        (installed once per page; a socket no route takes connects as usual)."""
        if self.page is None or self._routing is None or self._ws_page is self.page:
            return
        from runner.engine.websocket_routes import route_web_sockets

        await route_web_sockets(self.page, self._routing)
        self._ws_page = self.page

    async def set_routing(self, on: bool, *, preflights: bool = False) -> None:
        """Route the page's requests to the routing target (``on``) or let them go. CORS
        preflights reach the routes while routed (Playwright would answer them itself) and, with
        ``preflights``, while not (a route's method mentions OPTIONS)."""
        if self.page is None:
            return
        guard = on or preflights
        if guard and self._routing is not None:
            await self._preflight_guard().arm(narrows=on)
        if on != self._routed:
            # Routing turns the browser cache off for the context, so route only while needed.
            if on:
                await self.page.route("**/*", self._on_route)
            else:
                await self.page.unroute_all(behavior="ignoreErrors")
            self._routed = on
        if self.popups is not None:
            await self.popups.route(on)
        if not guard and self.preflights is not None:
            await self.preflights.disarm()

    def _preflight_guard(self) -> Any:
        if self.preflights is None:
            from runner.engine.preflights import PreflightGuard

            assert self._routing is not None and self.context is not None
            self.preflights = PreflightGuard(self.context, self.page, self._routing, lambda: self.page_url)
        return self.preflights

    async def fetch(self, url: str, *, method: str, headers: dict[str, str], timeout_ms: float,
                    max_redirects: int, params: dict[str, Any] | None = None,
                    form: dict[str, str | float | bool] | None = None,
                    data: str | bytes | None = None) -> FetchedResponse:
        """Send a request with the context's cookies, outside the page (so never routed).

        Sent by runner's own client (``context_fetch.py``): the body is read within
        ``MAX_READ_BODY_BYTES`` once decompressed. A 4xx/5xx status is an answer, not an error.
        Raises :class:`PageError` when no answer came (connection refused, timeout: the message
        then contains ``Timeout``) or the body was refused.
        """
        from urllib.parse import urlencode, urlsplit, urlunsplit

        from runner.engine.context_fetch import fetch_in_context
        from runner.engine.direct_fetch import BodyTooLarge
        from runner.net import UpstreamError

        sent = dict(headers)
        have = {k.lower() for k in sent}
        if "user-agent" not in have:
            sent["user-agent"] = await self._user_agent()
        if params:
            parts = urlsplit(url)
            extra = urlencode([(k, _param_text(v)) for k, v in params.items()])
            url = urlunsplit(parts._replace(query=f"{parts.query}&{extra}" if parts.query else extra))
        body: bytes | None = None
        if form is not None:
            body = urlencode([(k, _param_text(v)) for k, v in form.items()]).encode("utf-8")
            if "content-type" not in have:
                sent["content-type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = data.encode("utf-8") if isinstance(data, str) else data
        try:
            response = await fetch_in_context(self._direct_client(), self._live_context(), method, url, sent, body,
                                              timeout_ms, max_redirects=max_redirects)
        except BodyTooLarge as err:
            raise BodyRefusedError(err.message) from err
        except UpstreamError as err:
            raise PageError(f"Timeout: {err.message}" if err.timed_out else err.message) from err
        return FetchedResponse(status=response.status, status_text=response.status_text,
                               headers=dict(response.headers), body=response.body, url=response.url)

    def _direct_client(self) -> Any:
        """runner's own HTTP client (direct_fetch.py), made on first use, closed with the browser."""
        client = self._direct
        if client is None:
            from runner.engine.direct_fetch import DirectClient

            client = DirectClient(False)  # like the browser: a server's certificate is not checked
            self._direct = client
        return client

    async def _user_agent(self) -> str:
        """The context's user agent (the ``userAgent`` option, else the browser's own), asked of
        the browser once, not of the page (a page busy in JavaScript must not stop a request)."""
        agent = self._agent
        if agent is None:
            agent = self.options.user_agent
            if not agent:
                info = await asyncio.wait_for(self.cdp.send("Browser.getVersion"), 5)
                agent = str(info.get("userAgent") or "runner")
            self._agent = agent
        return agent
