"""The narrow seam between Playwright's routes and runner's interception engine (``runner.net``).

``handle_route`` is the page's one route handler. It answers blocked hosts itself and hands every
other request to the :class:`~runner.net.Interceptor` through a :class:`PlaywrightExchange`, which
is the only code that turns the engine's decisions into Playwright calls. Both it and
``observe_request`` learn about the run only through the :class:`~runner.engine.routing.RoutingTarget`
the browser session was given, and the page's URL from the browser session.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Request, Route
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from runner.net import (
    Exchange,
    HttpRequest,
    HttpResponse,
    UpstreamError,
    header_has,
)
from runner.usercode.tracebacks import first_line

_STREAM_CONNECT_S = 300.0  # the browser asks runner's stream server for a throttled body within this

if TYPE_CHECKING:
    from runner.engine.client_certs import ClientCertificate
    from runner.engine.direct_fetch import DirectClient
    from runner.engine.request_events import RequestEnds
    from runner.engine.revalidations import Revalidations
    from runner.engine.routing import RoutingTarget

__all__ = ["handle_route", "observe_request", "send_and_answer", "abandoned_message", "BLOCKED_HEADER",
           "CertificateExchange", "PlaywrightExchange", "WatchingExchange", "fetched_from_server"]

BLOCKED_HEADER = "x-runner-matched-blocked-host"

# The page's requests whose answer runner fetched from the server itself (a route's handler let
# them through, or a client certificate): fulfilled like a stub, they are told from a route's own
# answer by this (har_recorder.py). Written only here; weak: a request is forgotten with its page.
_FETCHED: weakref.WeakSet[Request] = weakref.WeakSet()


def fetched_from_server(request: Request) -> bool:
    """Whether runner fetched ``request``'s answer from the server (see ``_FETCHED``)."""
    return request in _FETCHED


class PlaywrightExchange:
    """One routed request, seen through the five moves the interception engine can make."""

    holds_request = True  # nothing reaches the page until this exchange answers it
    sends_itself = False  # pass_through lets the browser send it
    watch_only = False

    def __init__(self, route: Route, request: Request, client: DirectClient | None = None,
                 ends: RequestEnds | None = None) -> None:
        self._route = route
        self._request = request
        self._client = client
        self._ends = ends

    def _overrides(self, request: HttpRequest | None) -> dict[str, Any]:
        if request is None:
            return {}
        out: dict[str, Any] = {"method": request.method, "headers": request.headers}
        if request.url != self._request.url:
            out["url"] = request.url
        if request.body is not None:
            out["post_data"] = request.body
        return out

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        try:
            await self._route.continue_(**self._overrides(request))
        except PlaywrightError as err:
            return UpstreamError(first_line(err), timed_out=False)
        return await _observed(self._request, self._ends)

    async def let_go(self) -> None:
        try:
            await self._route.continue_()
        except PlaywrightError:
            pass  # the page went away (navigation, test end): nobody waits for this request

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        if self._client is not None:
            # runner's own client: the body is read within MAX_READ_BODY_BYTES once decompressed
            # (Playwright's route.fetch inflates a whole gzip bomb in its driver), with the
            # context's cookies both ways as route.fetch shares them (context_fetch.py)
            from runner.engine.context_fetch import fetch_in_context

            try:
                context = self._request.frame.page.context
                fetched = await fetch_in_context(self._client, context, request.method, request.url, request.headers,
                                                 request.body, timeout_ms, max_redirects=20 if follow_redirect else 0)
            except PlaywrightError as err:  # the context's cookies could not be read: the page went away
                raise UpstreamError(first_line(err), timed_out=False) from err
            _FETCHED.add(self._request)
            return fetched
        kwargs = self._overrides(request)
        kwargs["url"] = request.url
        try:
            response = await self._route.fetch(
                max_redirects=20 if follow_redirect else 0, timeout=timeout_ms, **kwargs
            )
            body = await response.body()
        except PlaywrightTimeoutError as err:
            raise UpstreamError(first_line(err), timed_out=True) from err
        except PlaywrightError as err:
            text = first_line(err)
            raise UpstreamError(text, timed_out="Timeout" in text) from err
        _FETCHED.add(self._request)
        return HttpResponse(
            status=response.status,
            status_text=response.status_text,
            headers=dict(response.headers),
            body=body,
            url=response.url,
        )

    @property
    def streams_body(self) -> bool:
        """A throttled body is streamed to the page (see body_stream.py): ``http:`` requests."""
        return self._request.url.startswith("http:")

    async def _stream(self, response: HttpResponse) -> str | None:
        from runner.engine.body_stream import streams

        hub = streams()
        url, body = await hub.register(response)
        try:
            await self._route.continue_(url=url)
        except PlaywrightError as err:
            hub.forget(url)
            return abandoned_message(first_line(err))
        # Chromium opens at most 6 connections to one host: more streams at once wait their turn,
        # as they would on a slow server. Waiting ends when the page gives the request up.
        deadline = asyncio.get_running_loop().time() + _STREAM_CONNECT_S
        while not body.connected.is_set():
            remaining = deadline - asyncio.get_running_loop().time()
            if self._request.failure is not None or remaining <= 0:
                hub.forget(url)
                return abandoned_message(self._request.failure or "the page never asked for the body")
            try:
                await asyncio.wait_for(body.connected.wait(), min(1.0, remaining))
            except TimeoutError:
                continue
        said = await body.done
        return abandoned_message(said) if said is not None else None

    async def fulfill(self, response: HttpResponse) -> str | None:
        if response.throttle_kbps and self.streams_body:
            return await self._stream(response)
        try:
            await self._route.fulfill(status=response.status, headers=response.headers, body=response.body)
            # Playwright fulfils a request the page already abandoned without a word; its
            # `requestfailed` event has arrived by then (no round trip to ask).
            if self._request.failure is not None:
                return abandoned_message(self._request.failure)
        except PlaywrightError as err:
            return abandoned_message(first_line(err))  # the page went away (navigation, test end)
        return None

    async def fail(self, reason: str) -> None:
        try:
            await self._route.abort("failed")
        except PlaywrightError:
            pass


class CertificateExchange(PlaywrightExchange):
    """A routed request that a ``clientCertificates`` entry matches: runner sends it to the server
    itself, with the entry's certificate, verifying the server with the entry's ``ca``."""

    sends_itself = True  # pass_through is fetch + fulfill: runner sends it, not the browser

    @property
    def streams_body(self) -> bool:
        return False  # answered by fulfill: a throttled body waits, then goes whole

    def __init__(self, route: Route, request: Request, certificate: ClientCertificate,
                 timeout_ms: float, warn: Callable[[str], None]) -> None:
        super().__init__(route, request)
        self._certificate = certificate
        self._timeout_ms = timeout_ms
        self._warn = warn

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        headers = dict(request.headers)
        if not header_has(headers, "cookie"):
            try:
                cookies = await self._request.frame.page.context.cookies(request.url)
            except PlaywrightError:
                cookies = []
            if cookies:
                headers["cookie"] = "; ".join(f"{c['name']}={c['value']}" for c in cookies)
        fetched = await self._certificate.fetch(request.method, request.url, headers, request.body, timeout_ms,
                                                follow_redirect=follow_redirect)
        _FETCHED.add(self._request)
        return fetched

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        sent = request or HttpRequest(method=self._request.method, url=self._request.url,
                                          headers=dict(self._request.headers), body=self._request.post_data_buffer)
        return await send_and_answer(self, sent, self._timeout_ms, self._warn)

    async def let_go(self) -> None:
        await self.pass_through(None)  # runner sends it with the certificate: there is no cheaper way


async def send_and_answer(exchange: Exchange, sent: HttpRequest, timeout_ms: float,
                          warn: Callable[[str], None]) -> HttpResponse | UpstreamError:
    """``pass_through`` for an exchange whose requests runner sends itself: ``sent`` goes to the
    server by ``exchange.fetch`` and its answer to the page by ``exchange.fulfill``. A request
    that fails gives the page a network error, and the test's output says why (the page only
    sees net::ERR_FAILED)."""
    try:
        response = await exchange.fetch(sent, follow_redirect=False, timeout_ms=timeout_ms)
    except UpstreamError as err:
        warn(f"{sent.method} {sent.url} failed: {err.message}")
        await exchange.fail("failed")
        return err
    gone = await exchange.fulfill(HttpResponse(status=response.status, status_text=response.status_text,
                                                   headers=response.headers, body=response.body))
    if gone:
        return UpstreamError(gone, timed_out=False)

    async def load_body() -> bytes:
        return response.body

    return HttpResponse(status=response.status, status_text=response.status_text,
                            headers=dict(response.headers), url=response.url, load_body=load_body)


class WatchingExchange:
    """An exchange for a request that is only watched (every matching route is a spy).

    The request is not held: it goes to the server as the page sent it, and ``pass_through``
    reports the response Playwright saw. The moves that would change the request cannot happen
    here; should a route that needs them appear mid-flight, they do nothing and the request
    carries on unchanged.
    """

    holds_request = False  # the request is already on its way
    sends_itself = False
    watch_only = True  # no handler or stub can act on it: its routes only record it
    streams_body = False  # fulfill is never used: nothing answers a watched request

    def __init__(self, request: Any, revalidations: Revalidations | None = None,
                 ends: RequestEnds | None = None) -> None:
        self._request = request  # Playwright's request, public or its own object (request_events.py)
        self._revalidations = revalidations
        self._ends = ends

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        observed = await _observed(self._request, self._ends)
        if self._revalidations is not None and isinstance(observed, HttpResponse) and observed.status == 200:
            self._revalidations.arm({k.lower(): v for k, v in observed.headers.items()})
            if await self._revalidations.take(self._request.url):
                # the cache answered the page with its 200; the server said 304 (the spy's record)
                observed.status, observed.status_text = 304, "Not Modified"
        return observed

    async def let_go(self) -> None:
        # The request is already on its way; its response is still read, as for one a spy
        # matched: the revalidations learn from it (a validator arms them, and a 304 the server
        # sent for this URL is taken here, not left for a later request of it to take).
        await self.pass_through(None)

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        raise UpstreamError("this request was only watched, not intercepted", timed_out=False)

    async def fulfill(self, response: HttpResponse) -> str | None:
        return None

    async def fail(self, reason: str) -> None:
        pass


def abandoned_message(why: str | None) -> str:
    return f"The page abandoned the request before it got its response ({why or 'it went away'})."


def observe_request(target: RoutingTarget, request: Any, page_url: str | None,
                    revalidations: Revalidations | None = None, ends: RequestEnds | None = None) -> None:
    """The page's request listener while every route is a spy (runs on the engine loop).
    ``request`` is Playwright's, public or its own object (request_events.py);
    ``revalidations`` tells which responses were the server's 304 (see revalidations.py);
    ``ends`` when it got its response, without asking the driver."""
    interceptor = target.interceptor()
    if interceptor is None or not interceptor.wants_requests():
        return
    try:
        raw = _raw_request(request, page_url)
    except PlaywrightError:
        return
    asyncio.ensure_future(interceptor.handle(raw, WatchingExchange(request, revalidations, ends)))


def _raw_request(request: Any, page_url: str | None) -> HttpRequest:
    return HttpRequest(
        id=str(id(request)),
        method=request.method,
        url=request.url,
        headers={k.lower(): v for k, v in request.headers.items()},
        body=request.post_data_buffer,
        resource_type=request.resource_type,
        page_url=page_url,
    )


async def _observed(request: Any, ends: RequestEnds | None = None) -> HttpResponse | UpstreamError:
    """The response Playwright saw for ``request`` (its body is read only if asked for), learnt
    from the events ``ends`` hears when given, else asked of the driver."""
    try:
        response = await (ends.response(request) if ends is not None else request.response())
    except PlaywrightError as err:
        return UpstreamError(first_line(err), timed_out=False)
    if response is None:
        failure = request.failure or "the request failed"
        if "ERR_ABORTED" in failure.upper():
            return UpstreamError(abandoned_message(failure), timed_out=False)
        return UpstreamError(failure, timed_out="TIMED_OUT" in failure.upper())

    async def load_body() -> bytes:
        return await response.body()

    return HttpResponse(status=response.status, status_text=response.status_text,
                            headers=dict(response.headers), url=response.url, load_body=load_body)



async def handle_route(target: RoutingTarget, route: Route, request: Request, page_url: str | None,
                       client: DirectClient | None = None, ends: RequestEnds | None = None) -> None:
    """The page's route handler: blocked hosts first, then the interception engine. ``client``
    sends the requests whose response runner reads (see :meth:`PlaywrightExchange.fetch`);
    ``ends`` tells when a request sent on got its response."""
    url = request.url
    try:
        if target.blocked(url):
            await route.fulfill(status=503, headers={BLOCKED_HEADER: url}, body="")
            return
        certificate = target.certificate(url)
        exchange = (PlaywrightExchange(route, request, client, ends) if certificate is None
                    else CertificateExchange(route, request, certificate, target.response_timeout_ms(), target.warn))
        interceptor = target.interceptor()
        if interceptor is None or not interceptor.wants_requests():
            if certificate is None:
                await route.fallback()
            else:
                await exchange.pass_through(None)
            return
        raw = _raw_request(request, page_url)
    except PlaywrightError:
        return  # the request is gone (the page navigated away)
    await interceptor.handle(raw, exchange)
