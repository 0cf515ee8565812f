"""The boundary between the interception engine and the browser adapter.

The adapter builds a :class:`RawRequest` for every request the page makes while any route exists
and calls ``await interceptor.handle(raw, exchange)``; ``exchange`` (an :class:`Exchange`) is the
adapter's narrow seam: the only four moves the engine can make with a request, and the four
capabilities it declares (which moves the engine chooses). Nothing here imports Playwright.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from .headers import Headers

__all__ = [
    "RawRequest",
    "OutgoingRequest",
    "UpstreamResponse",
    "ObservedResponse",
    "OutgoingResponse",
    "UpstreamError",
    "Exchange",
    "InterceptionState",
    "RunnerDeprecationWarning",
]


@dataclass
class RawRequest:
    """A request of the page as the browser made it (before any handler ran).

    ``id``: the browser's own request id (becomes ``Interception.browser_request_id``).
    ``method``: the HTTP method as sent (``"GET"``). ``url``: the absolute URL.
    ``headers``: request headers, names lower-cased. ``body``: the raw body, or None when the
    request has none. ``resource_type``: the browser's classification (``document``, ``fetch``,
    ``xhr``, ``script``, ``image``, ...). ``http_version``: ``"1.1"`` unless known otherwise.
    ``page_url``: the URL of the page (frame) that made the request, used to resolve a relative
    ``req.url`` assigned by a handler; None when unknown (the request URL is used instead).
    """

    id: str
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    resource_type: str
    http_version: str = "1.1"
    page_url: str | None = None


@dataclass
class OutgoingRequest:
    """The request to send upstream, after the handlers' changes were merged.

    ``headers`` is the complete header set (a header deleted by a handler is absent);
    ``body`` the bytes to send, or None for no body.
    """

    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None


@dataclass
class UpstreamResponse:
    """A response read completely from the server by :meth:`Exchange.fetch`.

    ``body`` is decoded from any content-encoding (gzip, br, ...); ``url`` is the final URL
    (after redirects when they were followed).
    """

    status: int
    status_text: str
    headers: dict[str, str]
    body: bytes
    url: str


@dataclass
class ObservedResponse:
    """The response of a request sent with :meth:`Exchange.pass_through` (body not moved).

    ``load_body``, when not None, reads the body on demand (a coroutine function to run on the
    engine's loop); the engine calls it at most once, only when a test reads ``response.body``.
    """

    status: int
    status_text: str
    headers: dict[str, str]
    url: str
    load_body: Callable[[], Awaitable[bytes]] | None = None


@dataclass
class OutgoingResponse:
    """The response the page receives when the engine answers a request itself.

    ``throttle_kbps``: send the body at this rate, the page reading it as it arrives. An
    exchange that can stream says so (:attr:`Exchange.streams_body`); for any other the engine
    waits as long as the body would take, then answers at once (see :class:`~runner.net.guard.Guard`).
    """

    status: int
    status_text: str
    headers: dict[str, str]
    body: bytes
    throttle_kbps: float | None = None

    def header_lines(self) -> list[tuple[str, str]]:
        """The headers as sent, one ``(name, value)`` a line (see :meth:`Headers.lines`)."""
        return Headers(self.headers).lines()


class UpstreamError(Exception):
    """The request could not be completed upstream.

    ``message``: what happened (first line of the transport error); ``timed_out``: True when the
    server did not answer within the request's ``response_timeout``.
    """

    def __init__(self, message: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.timed_out = timed_out


class Exchange(Protocol):
    """The four moves the engine can make with one routed request (implemented by the adapter),
    and the capabilities that decide which moves the engine makes.

    Exactly one of ``pass_through``, ``fulfill`` or ``fail`` answers the request; ``fetch``
    may come before ``fulfill`` (or ``fail``) when the response must be read or modified.
    """

    @property
    def holds_request(self) -> bool:
        """The page's request is held until answered, so the engine sends even an unchanged
        request through ``fetch`` and ``fulfill``: then ``responseTimeout`` can cut it (the page
        sees a network error) and the record sees the response the server sent. An exchange that
        only watches a request in flight says False."""
        ...

    @property
    def sends_itself(self) -> bool:
        """``pass_through`` sends the request through ``fetch`` and ``fulfill`` anyway (runner
        sends it, not the browser). Otherwise a request only spies watch goes by
        ``pass_through`` (a spy never changes what the page gets)."""
        ...

    @property
    def watch_only(self) -> bool:
        """Nothing can change the request (it is already on its way, e.g. the hop after a
        redirect): its routes record it, no handler or stub runs."""
        ...

    @property
    def streams_body(self) -> bool:
        """``fulfill`` sends a throttled body at its rate, the page reading it as it arrives.
        Otherwise the engine waits as long as the body would take, then answers at once."""
        ...

    async def pass_through(self, request: OutgoingRequest | None) -> ObservedResponse | UpstreamError:
        """Let the request go to the server, modified as given (None: unchanged), without moving
        the body through the engine; return the response's head, or the error it ended with."""
        ...

    async def fetch(
        self, request: OutgoingRequest, *, follow_redirect: bool, timeout_ms: float
    ) -> UpstreamResponse:
        """Send ``request`` to the server and read the whole response (the page does not see it
        yet). Redirects are followed only when ``follow_redirect``. Raises :class:`UpstreamError`."""
        ...

    async def fulfill(self, response: OutgoingResponse) -> str | None:
        """Answer the page's request with ``response``. Returns None once the page has it, or why
        it never will (the page abandoned the request: an AbortController, a navigation)."""
        ...

    async def fail(self, reason: str) -> None:
        """Answer the page's request with a network error."""
        ...


class InterceptionState(enum.StrEnum):
    """The explicit state machine of one intercepted request.

    ``Received`` -> ``Intercepted`` (request handlers done, or a stub was sent) ->
    ``ResponseReceived`` -> ``ResponseIntercepted`` (response handlers done) -> ``Complete``;
    or ``Errored`` from any state.
    """

    RECEIVED = "Received"
    INTERCEPTED = "Intercepted"
    RESPONSE_RECEIVED = "ResponseReceived"
    RESPONSE_INTERCEPTED = "ResponseIntercepted"
    COMPLETE = "Complete"
    ERRORED = "Errored"

    @property
    def done(self) -> bool:
        """Whether a ``wait`` for the response may yield the interception in this state: only
        once it ended, so what it yields has its duration and total (the original yields at
        ``ResponseIntercepted``, before the page has the response)."""
        return self in (InterceptionState.COMPLETE, InterceptionState.ERRORED)


class RunnerDeprecationWarning(UserWarning):
    """A deprecated interception feature was used (it still works)."""

