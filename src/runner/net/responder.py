"""The response side of one routed request: recording the response of a request sent on
unchanged, answering with a static response, fetching the server's response through the
response handlers (``req.continue_(callback)``, ``req.on(...)``) before the page gets it, and
telling the ``after:response`` listeners once it has."""

from __future__ import annotations

import asyncio
import copy
import functools
import threading
import time
from collections.abc import Callable
from typing import Any

from runner.errors import InterceptError
from runner.net.bodies import decode_body

from ._util import reason_phrase
from .cors import add_cors_headers
from .guard import Failed, Failures, Guard, describe, was_reported
from .handlers import HandlerRunner
from .headers import header_get, headers_problem
from .interception import Interception, ResponseSnapshot, lazy_loader
from .messages import HttpRequest, HttpResponse
from .registry import Registry
from .req import RequestData, Subscription
from .res import Res, ResponseData
from .static_response import StaticResponse, render
from .types import InterceptionState, UpstreamError

__all__ = ["Responder"]

_S = InterceptionState


class Responder:
    """Answers one page's routed requests once their request handlers are done.

    ``config(name)`` gives the current test's ``defaultCommandTimeout`` and ``responseTimeout``;
    ``load_fixture(spec)`` the bytes of a fixture.
    """

    def __init__(self, *, loop: asyncio.AbstractEventLoop, config: Callable[[str], Any],
                 load_fixture: Callable[[str], bytes], registry: Registry, failures: Failures,
                 handlers: HandlerRunner) -> None:
        self._loop = loop
        self._config = config
        self._load_fixture = load_fixture
        self._registry = registry
        self._failures = failures
        self._handlers = handlers

    async def pass_through(self, outgoing: HttpRequest | None, ic: Interception, exchange: Guard,
                           timeout_ms: float) -> None:
        """A request only watched on its way, recorded as the page gets it. The page's own
        request is not held, so ``timeout_ms`` cannot cut it: a response that comes later is
        still the one the page got, recorded ``Complete`` and ``late`` (never ``Errored``
        beside a page that got its 200)."""
        sent = time.monotonic()
        result = await exchange.pass_through(outgoing)
        upstream_s = time.monotonic() - sent
        ic.upstream_took(upstream_s)
        if isinstance(result, UpstreamError):
            self._registry.error(ic, result.message, result)  # recorded only: no response callback waits
            return
        ctype = header_get(result.headers, "content-type")
        loader = None
        if result.load_body is not None:
            timeout_s = float(self._config("responseTimeout")) / 1000

            def decode(body: bytes) -> Any:
                # known only once the test reads the body
                self._registry.set_response_body(ic, None, len(body))
                return decode_body(body, ctype)[0]

            loader = lazy_loader(result.load_body, self._loop, timeout_s, decode)
        self._registry.set_response(ic, ResponseSnapshot(
            status_code=result.status, status_message=result.status_text,
            headers=dict(result.headers), url=result.url, body="", loader=loader,
        ), late=upstream_s * 1000 > timeout_ms)
        self._registry.set_state(ic, _S.RESPONSE_RECEIVED)
        self._registry.set_state(ic, _S.COMPLETE)

    async def send_static(self, static: StaticResponse, raw: HttpRequest, ic: Interception,
                          exchange: Guard, gen: int, data: RequestData | None = None) -> None:
        """Answer with ``static`` (a stub), then tell the ``after:response`` listeners."""
        self._registry.set_stubbed(ic)
        if static.force_network_error:
            await exchange.fail("failed")
            self._registry.error(ic, "forceNetworkError called")
            return
        try:
            if static.fixture:  # file I/O: off the loop
                rendered = await self._handlers.in_thread(functools.partial(render, static, self._load_fixture), None)
            else:  # pure and cheap: no thread hop on the hot path of a stub
                rendered = render(static, self._load_fixture)
        except Exception as err:  # noqa: BLE001 - a missing or unreadable fixture
            error = InterceptError(
                f"The fixture {static.fixture!r} of a StaticResponse could not be loaded: {err}\n\n"
                f"Intercepted request: {raw.method} {raw.url}"
            )
            error.__cause__ = err
            await self._failures.fail_request(error, ic, exchange, gen)
        headers = add_cors_headers(rendered.headers, raw.headers)
        await _pause(rendered.delay)
        answer = HttpResponse(status=rendered.status, status_text=reason_phrase(rendered.status), headers=headers,
                              body=rendered.body, url=raw.url, throttle_kbps=rendered.throttle_kbps or None)
        abandoned = await exchange.fulfill(answer)
        self._registry.set_response(ic, ResponseSnapshot(
            status_code=rendered.status, status_message=reason_phrase(rendered.status),
            headers=dict(headers), url=raw.url,
            body=(rendered.body if isinstance(rendered.body_value, (bytes, bytearray)) and not static.fixture
                  else decode_body(rendered.body, header_get(headers, "content-type"))[0]),
            delay=rendered.delay, throttle_kbps=rendered.throttle_kbps,
        ), body=rendered.body)
        if abandoned:
            self._registry.error(ic, abandoned)
            return
        subs = sorted(data.subscriptions, key=lambda sub: sub.order) if data is not None else []
        if data is not None and any(sub.event == "after:response" for sub in subs):
            # the after:response listeners read the response the page got (ResponseData copies its headers)
            await self._after_response(subs, ResponseData(answer, raw.method), data, ic, exchange, gen)
        self._registry.set_state(ic, _S.COMPLETE)

    async def fetch_and_answer(self, data: RequestData, outgoing: HttpRequest, ic: Interception,
                               exchange: Guard, gen: int) -> None:
        """Send ``outgoing`` to the server, run the response handlers on its answer, give the
        page the result, then tell the ``after:response`` listeners."""
        subs = sorted(data.subscriptions, key=lambda s: s.order)
        rdata = await self._fetch(data, outgoing, subs, ic, exchange, gen)
        if rdata is None:
            return
        if self._registry.is_current(gen):
            await self._run_response_handlers(subs, rdata, data, ic, exchange, gen)
        if rdata.force_network_error:
            await exchange.fail("failed")
            self._registry.error(ic, "forceNetworkError called")
            return
        self._registry.set_response(ic, rdata.snapshot())
        self._registry.set_state(ic, _S.RESPONSE_INTERCEPTED)
        answer = rdata.final()
        problem = headers_problem(answer.headers)
        if problem is not None:  # set on `res.headers`: the browser would refuse it
            error = InterceptError(
                f"A response handler set an invalid response header. {problem}"
                + describe(subs[0].route, data) + f"\n\nIntercepted response: {rdata.describe()}"
            )
            await self._failures.fail_response(error, ic, exchange, gen)
        self._registry.set_response_body(ic, answer.body, len(answer.body))
        # no default CORS headers here: a response from the server keeps exactly its headers (1a.8)
        await _pause(rdata.delay)
        abandoned = await exchange.fulfill(answer)
        if abandoned:
            self._registry.error(ic, abandoned)
            return
        await self._after_response(subs, rdata, data, ic, exchange, gen)
        self._registry.set_state(ic, _S.COMPLETE)

    async def _fetch(self, data: RequestData, outgoing: HttpRequest, subs: list[Subscription],
                     ic: Interception, exchange: Guard, gen: int) -> ResponseData | None:
        """The server's response to ``outgoing``, or None when there is none (recorded, the
        response handlers that waited for it told, the page given a network error)."""
        timeout_ms = float(data.response_timeout)
        sent = time.monotonic()
        try:
            upstream = await exchange.fetch(outgoing, follow_redirect=data.follow_redirect, timeout_ms=timeout_ms)
        except UpstreamError as err:
            ic.upstream_took(time.monotonic() - sent)
            self._registry.error(ic, _timed_out_text(timeout_ms) if err.timed_out else err.message, err)
            waiting = [s for s in subs if s.event != "after:response"]
            if waiting:
                if err.timed_out:
                    text = f"the request timed out after the `responseTimeout` of `{timeout_ms:g}ms`."
                else:
                    text = f"a network error occurred while making the request:\n\n{err.message}"
                error = InterceptError(
                    f"A callback was provided to intercept the upstream response, but {text}"
                    + describe(waiting[0].route, data)
                )
                error.__cause__ = err
                self._failures.report(error, gen)
            await exchange.fail("failed")
            return None
        ic.upstream_took(time.monotonic() - sent)
        self._registry.set_state(ic, _S.RESPONSE_RECEIVED)
        return ResponseData(upstream, outgoing.method)

    async def _run_response_handlers(self, subs: list[Subscription], rdata: ResponseData, data: RequestData,
                                     ic: Interception, exchange: Guard, gen: int) -> None:
        """The response handlers in their phases' order, until one sends the response."""
        for event in ("before:response", "response:callback", "response"):
            for sub in [s for s in subs if s.event == event]:
                await self._run_response_handler(sub, rdata, data, ic, exchange, gen)
                if rdata.sent or not self._registry.is_current(gen):
                    return
            if rdata.sent or not self._registry.is_current(gen):
                return

    async def _after_response(self, subs: list[Subscription], rdata: ResponseData, data: RequestData,
                              ic: Interception, exchange: Guard, gen: int) -> None:
        """Tell the ``after:response`` listeners (the page already has its answer)."""
        for sub in [s for s in subs if s.event == "after:response"]:
            if not self._registry.is_current(gen):
                break
            final = copy.copy(rdata)
            final.headers = dict(rdata.headers)
            final.body = copy.deepcopy(rdata.body)
            final.lock = threading.Lock()
            try:
                await self._run_response_handler(sub, final, data, ic, exchange, gen, can_send=False)
            except Failed:
                break

    async def _run_response_handler(self, sub: Subscription, rdata: ResponseData, data: RequestData,
                                    ic: Interception, exchange: Guard, gen: int, *, can_send: bool = True) -> None:
        res = Res(rdata, lambda e: self._failures.report(e, gen), self._load_fixture, can_send=can_send)
        error: BaseException
        timeout_ms = float(self._config("defaultCommandTimeout"))
        where = f"\n\nIntercepted response: {rdata.describe()}"
        try:
            await self._handlers.call(sub.handler, res, timeout_ms, ic)
        except TimeoutError as err:
            res._finish()
            error = InterceptError(
                f"A response handler ({sub.event}) timed out after taking more than the "
                f"`defaultCommandTimeout` of `{timeout_ms:g}ms` to finish."
                + describe(sub.route, data) + where
            )
            error.__cause__ = err
            await self._failures.fail_response(error, ic, exchange, gen)
        except Exception as err:  # noqa: BLE001 - the user's handler failed
            res._finish()
            if was_reported(err):
                error = err
            else:
                error = InterceptError(
                    f"An error was thrown in a response handler ({sub.event}): {type(err).__name__}: {err}"
                    + describe(sub.route, data) + where
                )
                error.__cause__ = err
            await self._failures.fail_response(error, ic, exchange, gen)
        res._finish()


def _timed_out_text(timeout_ms: float) -> str:
    return f"The server did not answer within the `responseTimeout` of `{timeout_ms:g}ms`."


async def _pause(delay_ms: float | None) -> None:
    if (delay_ms or 0) > 0:
        await asyncio.sleep((delay_ms or 0) / 1000)
