"""The boundary between the interception engine and the browser adapter.

The adapter builds an :class:`~runner.net.messages.HttpRequest` for every request the page makes while any route exists
and calls ``await interceptor.handle(raw, exchange)``; ``exchange`` (an :class:`Exchange`) is the
adapter's narrow seam: the only five moves the engine can make with a request, and the four
capabilities it declares (which moves the engine chooses). Nothing here imports Playwright.
"""

from __future__ import annotations

import enum
from typing import Protocol

from .messages import HttpRequest, HttpResponse

__all__ = [
    "UpstreamError",
    "Exchange",
    "InterceptionState",
    "RunnerDeprecationWarning",
]


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
    """The moves the engine can make with one routed request (implemented by the adapter),
    and the capabilities that decide which moves the engine makes.

    Exactly one of ``pass_through``, ``let_go``, ``fulfill`` or ``fail`` answers the request; ``fetch``
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

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        """Let the request go to the server, modified as given (None: unchanged), without moving
        the body through the engine; return the response's head, or the error it ended with."""
        ...

    async def let_go(self) -> None:
        """Let the request go on unchanged when nothing waits for its response (no route
        matched it): as ``pass_through(None)``, but the engine needs no response, so an adapter
        need not ask for it."""
        ...

    async def fetch(
        self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float
    ) -> HttpResponse:
        """Send ``request`` to the server and read the whole response (the page does not see it
        yet). Redirects are followed only when ``follow_redirect``. Raises :class:`UpstreamError`."""
        ...

    async def fulfill(self, response: HttpResponse) -> str | None:
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

