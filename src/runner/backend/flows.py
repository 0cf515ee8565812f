"""The seam between mitmproxy's flows and runner's interception engine (``runner.net``).

The proxy's addon (:class:`FlowsAddon`, on the proxy's own loop) hands each request of the app's
server to the :class:`~runner.net.Interceptor` (on the engine's loop, where the routes' handlers
run) through a :class:`FlowExchange`: the five moves of :class:`~runner.net.Exchange` made on a
mitmproxy flow, as ``engine/exchange.py`` makes them on a Playwright route. The flow is only ever
touched on the proxy's loop: the exchange asks that loop to apply each move and waits, through
thread-safe futures, for what the upstream server answered.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mitmproxy import http

from runner.net import HttpRequest, HttpResponse, UpstreamError

if TYPE_CHECKING:
    from runner.net import Interceptor

__all__ = ["FlowExchange", "FlowsAddon", "Target"]

Target = Callable[[], "tuple[Interceptor, asyncio.AbstractEventLoop] | None"]
"""The run's interceptor and the loop it serves on, or None while no test has made one."""

_KEY = "runner.held"  # the flow's metadata key for its _Held
# A response the engine answers with is sent whole: these describe the body as it came, not as sent.
_NOT_SENT = frozenset({"content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"})


class _Held:
    """One flow held by the proxy while the engine decides (proxy loop's side, plus the
    thread-safe future the engine's side reads the upstream answer from)."""

    def __init__(self, flow: http.HTTPFlow, loop: asyncio.AbstractEventLoop) -> None:
        self.flow = flow
        self.loop = loop
        self.decided: asyncio.Future[None] = loop.create_future()  # the request may go (or is answered)
        self.released: asyncio.Future[None] = loop.create_future()  # a held response may go
        self.hold_response = False  # fetch: the engine reads the response, then answers with its own
        self.upstream: concurrent.futures.Future[HttpResponse | UpstreamError] = concurrent.futures.Future()

    # -- called on the proxy's loop ------------------------------------------------------------
    def decide(self, change: Callable[[], None] | None = None) -> None:
        if not self.decided.done():
            self._change(change)
            self.decided.set_result(None)

    def release(self, change: Callable[[], None] | None = None) -> None:
        if not self.released.done():
            self._change(change)
            self.released.set_result(None)

    def _change(self, change: Callable[[], None] | None) -> None:
        """Apply the engine's move; one that cannot be made (a header mitmproxy refuses) never
        lets the request go as it was: the server's client gets a network error."""
        if change is None:
            return
        try:
            change()
        except Exception:  # noqa: BLE001 - told as the network error the app sees
            if self.flow.killable:
                self.flow.kill()

    def kill(self) -> None:
        if self.flow.killable:
            self.flow.kill()
        self.decide()
        self.release()

    def answered(self, response: HttpResponse | UpstreamError) -> None:
        if not self.upstream.done():
            self.upstream.set_result(response)

    # -- from the engine's loop ------------------------------------------------------------------
    def on_proxy(self, move: Callable[[], None]) -> None:
        self.loop.call_soon_threadsafe(move)


class FlowExchange:
    """One request of the app's server, seen through the five moves of the interception engine.

    The flow is held until answered (``holds_request``); ``pass_through`` lets mitmproxy send it
    and reports the response the server sent, ``fetch`` does the same but holds that response
    until ``fulfill`` (or ``fail``) says what the server's client gets instead. Redirects are
    never followed: the app's HTTP client sees them as the server sent them.
    """

    holds_request = True
    sends_itself = False
    watch_only = False
    streams_body = False  # a throttled body waits, then goes whole

    def __init__(self, held: _Held) -> None:
        self._held = held
        self._fetched = False

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        held = self._held
        held.on_proxy(lambda: held.decide(None if request is None else lambda: _apply(held.flow, request)))
        answer = await asyncio.wrap_future(held.upstream)
        if isinstance(answer, UpstreamError):
            return answer
        body = answer.body  # went to the app's server as it came; a test that reads it gets it

        async def load_body() -> bytes:
            return body

        return HttpResponse(status=answer.status, status_text=answer.status_text, headers=answer.headers,
                            url=answer.url, load_body=load_body)

    async def let_go(self) -> None:
        held = self._held
        held.on_proxy(held.decide)

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        held = self._held
        if self._fetched:
            raise UpstreamError("the app's server's request was already sent upstream once", timed_out=False)
        self._fetched = True
        held.hold_response = True
        held.on_proxy(lambda: held.decide(lambda: _apply(held.flow, request)))
        timeout = timeout_ms / 1000 if math.isfinite(timeout_ms) and timeout_ms >= 0 else None
        try:
            answer = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(held.upstream)), timeout)
        except TimeoutError:
            held.on_proxy(held.kill)
            raise UpstreamError(f"the server did not answer within {timeout_ms:g}ms", timed_out=True) from None
        if isinstance(answer, UpstreamError):
            raise answer
        return answer

    async def fulfill(self, response: HttpResponse) -> str | None:
        held = self._held

        def answer() -> None:
            held.flow.response = _mitm_response(response)

        held.on_proxy((lambda: held.release(answer)) if self._fetched else (lambda: held.decide(answer)))
        return None

    async def fail(self, reason: str) -> None:
        self._held.on_proxy(self._held.kill)


class FlowsAddon:
    """mitmproxy's addon of runner's proxy: every request of the app's server is offered to the
    run's interceptor while a route of ``runner.intercept_backend`` (or a probe:
    ``strictNetwork``, ``assert_no_request``) wants it; any other goes by untouched."""

    def __init__(self, target: Target, on_running: Callable[[], None]) -> None:
        self._target = target
        self._on_running = on_running

    def running(self) -> None:
        self._on_running()

    async def request(self, flow: http.HTTPFlow) -> None:
        found = self._target()
        if found is None:
            return
        interceptor, engine_loop = found
        if not interceptor.wants_server_requests() or engine_loop.is_closed():
            return
        loop = asyncio.get_running_loop()
        held = _Held(flow, loop)
        flow.metadata[_KEY] = held
        handled = asyncio.run_coroutine_threadsafe(interceptor.handle(_raw(flow), FlowExchange(held)), engine_loop)
        done = asyncio.wrap_future(handled)
        # The engine always answers; should it end without a word (a bug), the request goes on.
        await asyncio.wait({held.decided, done}, return_when=asyncio.FIRST_COMPLETED)
        if not held.decided.done():
            held.decide()
        done.add_done_callback(_quiet)

    async def response(self, flow: http.HTTPFlow) -> None:
        held = flow.metadata.get(_KEY)
        if not isinstance(held, _Held) or held.upstream.done():
            return  # not held, or answered by the engine (a stub): nothing waits for the server's response
        assert flow.response is not None
        held.answered(_runner_response(flow))
        if held.hold_response:
            await held.released

    def error(self, flow: http.HTTPFlow) -> None:
        held = flow.metadata.get(_KEY)
        if isinstance(held, _Held):
            message = flow.error.msg if flow.error is not None else "the request failed"
            held.answered(UpstreamError(message, timed_out="timeout" in message.lower()))
            held.release()


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # handle() never raises; a loop that closed under it says nothing here


def _raw(flow: http.HTTPFlow) -> HttpRequest:
    request = flow.request
    body = request.get_content(strict=False)
    return HttpRequest(
        id=flow.id, method=request.method, url=request.url,
        headers={name.lower(): value for name, value in request.headers.items()},
        body=body or None, http_version=request.http_version.removeprefix("HTTP/"), server=True)


def _apply(flow: http.HTTPFlow, request: HttpRequest) -> None:
    """The request as the routes' handlers left it, made the flow's (headers before the URL,
    so the Host header follows a new URL)."""
    out = flow.request
    out.method = request.method
    out.headers = http.Headers([(k.encode(), v.encode()) for k, v in request.headers.items()])
    if request.url != out.url:
        out.url = request.url
    body = request.body or b""
    if body != (out.get_content(strict=False) or b""):
        out.headers.pop("content-encoding", None)
        out.content = body


def _runner_response(flow: http.HTTPFlow) -> HttpResponse:
    response = flow.response
    assert response is not None
    return HttpResponse(status=response.status_code, status_text=response.reason,
                        headers={name: value for name, value in response.headers.items()},
                        body=response.get_content(strict=False) or b"", url=flow.request.url)


def _mitm_response(response: HttpResponse) -> http.Response:
    headers = [(k.encode(), v.encode()) for k, v in response.header_lines() if k.lower() not in _NOT_SENT]
    made = http.Response.make(response.status, response.body or b"", headers)
    if response.status_text:
        made.reason = response.status_text
    return made
