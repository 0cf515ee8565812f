"""The handler chain of one routed request: the request phase (the matching routes' handlers
and static responses), the response phase (``req.continue_(callback)`` and ``req.on(...)``),
the automatic CORS preflight answer and the default CORS headers, running the user's handlers
(``async def`` on the loop, plain functions in a worker pool) and reporting their errors.

Everything here runs on the engine's event loop, one task per request; the records it writes
live in the :class:`~runner.net.registry.Registry` and are changed under its lock.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import dataclasses
import functools
import inspect
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from runner.bodies import decode_body
from runner.errors import InterceptError
from runner.workers import Workers

from ._util import as_coro, header_get, header_has, headers_problem, reason_phrase
from .aliases import Aliases
from .interception import Interception, ResponseSnapshot, lazy_loader
from .matcher import MatchView
from .registry import Registry
from .req import Completion, Req, RequestData, Subscription
from .res import Res, ResponseData
from .route import Route
from .static import StaticResponse, render, throttle_seconds
from .types import (
    Exchange,
    InterceptionState,
    ObservedResponse,
    OutgoingRequest,
    OutgoingResponse,
    RawRequest,
    UpstreamError,
    UpstreamResponse,
)

__all__ = ["Chain", "add_cors_headers", "preflight_response"]

_SAFELISTED = frozenset(
    ("cache-control", "content-language", "content-type", "expires", "last-modified", "pragma")
)
_S = InterceptionState


class _Failed(Exception):
    """The request was already answered with a network error (a handler failed)."""


class _Guard:
    """Wraps the adapter's exchange to know whether the page's request was answered."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.answered = False

    @property
    def holds_request(self) -> bool:
        return self.exchange.holds_request

    @property
    def watch_only(self) -> bool:
        return self.exchange.watch_only

    @property
    def sends_itself(self) -> bool:
        return self.exchange.sends_itself

    async def pass_through(self, request: OutgoingRequest | None) -> ObservedResponse | UpstreamError:
        result = await self.exchange.pass_through(request)  # if it raises, handle() fails the request
        self.answered = True
        return result

    async def fetch(self, request: OutgoingRequest, *, follow_redirect: bool, timeout_ms: float) -> Any:
        return await self.exchange.fetch(request, follow_redirect=follow_redirect, timeout_ms=timeout_ms)

    async def fulfill(self, response: OutgoingResponse) -> str | None:
        if response.throttle_kbps and not self.exchange.streams_body:
            await asyncio.sleep(throttle_seconds(len(response.body), response.throttle_kbps))
            response = dataclasses.replace(response, throttle_kbps=None)
        abandoned = await self.exchange.fulfill(response)
        self.answered = True
        return abandoned

    async def fail(self, reason: str = "failed") -> None:
        if not self.answered:
            self.answered = True
            await self.exchange.fail(reason)


def _mark_reported(err: BaseException) -> BaseException:
    err._runner_reported = True  # type: ignore[attr-defined]
    return err


def add_cors_headers(headers: dict[str, str], request_headers: dict[str, str]) -> dict[str, str]:
    """The default CORS headers of every response the engine gives the page (1a.8)."""
    non_safelisted = any(k.lower() not in _SAFELISTED for k in headers)
    if not header_has(headers, "access-control-allow-origin"):
        headers["access-control-allow-origin"] = request_headers.get("origin") or "*"
    if not header_has(headers, "access-control-allow-credentials"):
        headers["access-control-allow-credentials"] = "true"
    if non_safelisted and not header_has(headers, "access-control-expose-headers"):
        headers["access-control-expose-headers"] = "*"
    return headers


def preflight_response(raw: RawRequest) -> OutgoingResponse:
    """The automatic answer to a CORS preflight (1a.7)."""
    h = raw.headers
    return OutgoingResponse(
        status=204,
        status_text="No Content",
        headers={
            "access-control-max-age": "-1",
            "access-control-allow-credentials": "true",
            "access-control-allow-origin": h.get("origin") or "*",
            "access-control-allow-methods": h.get("access-control-request-method") or "*",
            "access-control-allow-headers": h.get("access-control-request-headers") or "*",
        },
        body=b"",
    )


class Chain:
    """Serves the routed requests of one page through the routes of the registry.

    ``config(name)`` gives the current test's ``defaultCommandTimeout`` and ``responseTimeout``;
    ``load_fixture(spec)`` the bytes of a fixture; ``report_error(err)`` fails the current test
    (only errors of the current generation reach it).
    """

    def __init__(self, *, loop: asyncio.AbstractEventLoop, config: Callable[[str], Any],
                 load_fixture: Callable[[str], bytes], report_error: Callable[[BaseException], None],
                 registry: Registry, aliases: Aliases) -> None:
        self._loop = loop
        self._config = config
        self._load_fixture = load_fixture
        self._report_error = report_error
        self._registry = registry
        self._aliases = aliases
        self._workers = Workers("runner-route-handler", size=32)

    def _report(self, err: BaseException, gen: int) -> None:
        if gen != self._registry.generation:
            return  # a request of an earlier test: it must not fail this one
        _mark_reported(err)
        try:
            self._report_error(err)
        except Exception:  # noqa: BLE001 - reporting must never break request handling
            pass

    # -- handling ----------------------------------------------------------------------------
    async def handle(self, raw: RawRequest, exchange: Exchange) -> None:
        """Serve one routed request. Never raises; always answers the page's request."""
        arrival = time.monotonic()
        guard = _Guard(exchange)
        gen = self._registry.generation
        try:
            await self._handle(raw, guard, gen, arrival)
        except asyncio.CancelledError:
            await _quietly(guard.fail("failed"))
            raise
        except _Failed:
            await _quietly(guard.fail("failed"))
        except BaseException as err:  # noqa: BLE001 - a bug here must not hang the page
            if not getattr(err, "_runner_reported", False):
                wrapped = InterceptError(f"runner's interception engine failed on {raw.method} {raw.url}: {err!r}")
                wrapped.__cause__ = err
                self._report(wrapped, gen)
            await _quietly(guard.fail("failed"))
        finally:
            if not guard.answered:
                await _quietly(guard.fail("failed"))

    def _routes_for(self, view: MatchView, routes: list[Route]) -> list[Route]:
        middleware = [r for r in routes if r.middleware and not r.disabled and r.matcher.match(view)]
        others = [r for r in reversed(routes) if not r.middleware and not r.disabled and r.matcher.match(view)]
        return middleware + others

    async def _handle(self, raw: RawRequest, exchange: _Guard, gen: int, arrival: float) -> None:
        with self._registry.lock:
            routes = list(self._registry.routes) if gen == self._registry.generation else []
        view = MatchView(raw.method, raw.url, raw.headers, raw.resource_type, raw.body)
        is_preflight = raw.method.upper() == "OPTIONS" and "access-control-request-method" in raw.headers
        if is_preflight:
            preflight = [r for r in routes if not r.disabled and r.matcher.match_preflight(view)]
            if preflight and not any(r.matcher.method_mentions_options for r in preflight):
                if any(r.handler is not None or r.static is not None for r in preflight):
                    await exchange.fulfill(preflight_response(raw))
                else:
                    # Only spies match it: a spy never changes what the page gets, and the
                    # server answers exactly as it does while nothing routes the page (where
                    # the browser sends its preflights itself, unseen by the routes).
                    await exchange.pass_through(None)
                return
        chain = self._routes_for(view, routes)
        if self._registry.probes and not is_preflight:  # the browser's, not the app's
            self._registry.saw(view, bool(chain), gen)
        if not chain:
            await exchange.pass_through(None)
            return

        data = RequestData(raw, float(self._config("responseTimeout")))
        ic = Interception(id=self._registry.next_id(), browser_request_id=raw.id, request=data.snapshot())
        ic.started = arrival
        ic.request_body_size = len(raw.body) if raw.body is not None else 0
        ic.request_body_bytes = raw.body
        recorded = self._registry.add_record(ic, raw, gen)

        completion: Completion | None = None
        completed_by: tuple[Route, int] | None = None
        acted = False  # a handler ran or a stub answered: the request is no longer only spied on
        for order, route in enumerate(chain):
            if gen != self._registry.generation:
                await exchange.pass_through(None)  # cleared: the old routes no longer exist
                return
            with self._registry.cond:
                if route.disabled:
                    continue  # another request used up its `times` since this one arrived
                if recorded:  # one that came after the test's end is served, counted in no test
                    route.matches += 1
                    route.interceptions.append(ic)
                    ic.route_ids.append(route.id)
                    if ic.route_id is None:
                        ic.route_id = route.id
                    self._registry.cond.notify_all()
            if exchange.watch_only:
                continue  # a request in flight (a redirect's next hop): matched and recorded only
            if route.handler is not None:
                acted = True
                if ic._queued is None:
                    ic._queued = time.monotonic() - arrival
                completion = await self._run_request_handler(route, order, data, ic, exchange, gen)
                if completion is not None:
                    completed_by = (route, order)
                    break
            elif route.static is not None:
                acted = True
                if ic._queued is None:
                    ic._queued = time.monotonic() - arrival
                completion = Completion("reply", static=route.static)
                break
        if ic._queued is None:  # every route reached is a spy: the request is sent on now
            ic._queued = time.monotonic() - arrival

        if gen != self._registry.generation:
            await exchange.pass_through(None)
            return
        with self._registry.cond:
            ic.request = data.snapshot(ic.request.alias)
        self._registry.set_state(ic, _S.INTERCEPTED)
        if completion is not None and completion.kind == "reply" and completion.static is not None:
            await self._send_static(completion.static, raw, ic, exchange, gen, data)
            return
        if completion is not None and completion.callback is not None and completed_by is not None:
            with data.lock:
                data.subscriptions.append(
                    Subscription(completed_by[0], completed_by[1], "response:callback", completion.callback)
                )
        outgoing, changed = data.outgoing()
        problem = headers_problem(outgoing.headers) if changed else None
        if problem is not None:  # the browser would refuse it and leave the page waiting
            error = InterceptError(
                f"A request handler passed to `runner.intercept()` set an invalid request header. {problem}"
                f"\n\nIntercepted request: {raw.method} {raw.url}"
            )
            await self._fail_request(error, ic, exchange, gen)
        if (not acted and not exchange.sends_itself) or (not data.has_response_listeners()
                                                         and not exchange.holds_request):
            # A spy never changes what the page gets: the request goes on as the page sent it,
            # its response streams to the page whole, as late as the server sends it.
            await self._pass_through(outgoing if changed else None, ic, exchange, float(data.response_timeout))
            return
        # A held request that a handler saw goes to the server through the engine even when
        # nobody listens for the response: so `responseTimeout` cuts it, and the record has the
        # status the server sent.
        await self._response_phase(raw, data, outgoing, ic, exchange, gen)

    async def _pass_through(self, outgoing: OutgoingRequest | None, ic: Interception, exchange: _Guard,
                            timeout_ms: float) -> None:
        """A request only watched on its way, recorded as the page gets it. The page's own
        request is not held, so ``timeout_ms`` cannot cut it: a response that comes later is
        still the one the page got, recorded ``Complete`` and ``late`` (never ``Errored``
        beside a page that got its 200)."""
        sent = time.monotonic()
        result = await exchange.pass_through(outgoing)
        ic._upstream = time.monotonic() - sent
        if isinstance(result, UpstreamError):
            self._registry.error(ic, result.message, result)  # recorded only: no response callback waits
            return
        ctype = header_get(result.headers, "content-type")
        loader = None
        if result.load_body is not None:
            timeout_s = float(self._config("responseTimeout")) / 1000

            def decode(body: bytes) -> Any:
                ic.response_body_size = len(body)  # known only once the test reads the body
                return decode_body(body, ctype)[0]

            loader = lazy_loader(result.load_body, self._loop, timeout_s, decode)
        with self._registry.cond:
            ic.response = ResponseSnapshot(
                status_code=result.status, status_message=result.status_text,
                headers=dict(result.headers), url=result.url, body="", loader=loader,
            )
            ic.late = ic._upstream * 1000 > timeout_ms
        self._registry.set_state(ic, _S.RESPONSE_RECEIVED)
        self._registry.set_state(ic, _S.COMPLETE)

    # -- user code ---------------------------------------------------------------------------
    async def _call_user(self, fn: Callable[..., Any], arg: Any, timeout_ms: float, ic: Interception) -> None:
        """Run a handler: ``async def`` on the loop, a plain function in a worker thread (so it
        may block); an awaitable it returns is awaited. The time it runs counts in ``ic``'s
        ``handler`` timing, waiting for a free thread in ``queued``. Raises TimeoutError when it
        runs past ``timeout_ms``, and what the handler raises."""
        timeout = max(float(timeout_ms), 0.0) / 1000
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):  # noqa: B004
            started = time.monotonic()
            try:
                await asyncio.wait_for(fn(arg), timeout)
            finally:
                ic._handler += time.monotonic() - started
            return
        submitted = time.monotonic()
        began: list[float] = []
        try:
            result = await self._in_thread(functools.partial(fn, arg), timeout, began)
            if inspect.isawaitable(result):
                remaining = began[0] + timeout - time.monotonic()
                await asyncio.wait_for(as_coro(result), max(remaining, 0.0))
        finally:
            start = began[0] if began else time.monotonic()
            ic._queued = (ic._queued or 0.0) + (start - submitted)
            ic._handler += time.monotonic() - start

    async def _in_thread(self, call: Callable[[], Any], timeout: float | None,
                         began: list[float] | None = None) -> Any:
        """``call()`` in a worker thread. ``timeout`` (seconds) counts from when it starts:
        waiting for a free thread is not its time. ``began`` gets the moment it started."""
        loop = self._loop
        started: asyncio.Future[float] = loop.create_future()
        done: asyncio.Future[Any] = loop.create_future()

        def on_start() -> None:
            _settle_soon(loop, started, time.monotonic())

        job = self._workers.submit(call, on_start=on_start)
        job.add_done_callback(lambda f: _settle_soon(loop, done, f))
        try:
            start = await started
            if began is not None:
                began.append(start)
            return await asyncio.wait_for(done, timeout)
        except BaseException:  # its timeout, or the request's task was cancelled
            self._workers.give_up(job)
            raise

    def _describe(self, route: Route, data_or_raw: Any) -> str:
        return f"\n\nRoute: {route.describe()}\n\nIntercepted request: {data_or_raw.method} {data_or_raw.url}"

    async def _run_request_handler(self, route: Route, order: int, data: RequestData, ic: Interception,
                                   exchange: _Guard, gen: int) -> Completion | None:
        req = Req(data, route, order, lambda e: self._report(e, gen))
        error: BaseException
        timeout_ms = float(self._config("defaultCommandTimeout"))
        assert route.handler is not None
        length_before = header_get(data.headers, "content-length")
        try:
            await self._call_user(route.handler, req, timeout_ms, ic)
            data.sync_length(length_before)
        except TimeoutError as err:
            req._finish()
            error = InterceptError(
                "A request handler passed to `runner.intercept()` timed out after taking more than the "
                f"`defaultCommandTimeout` of `{timeout_ms:g}ms` to finish." + self._describe(route, data)
            )
            error.__cause__ = err
            await self._fail_request(error, ic, exchange, gen)
        except Exception as err:  # noqa: BLE001 - the user's handler failed
            req._finish()
            if getattr(err, "_runner_reported", False):
                error = err  # a completion error, already reported where it was raised
            else:
                error = InterceptError(
                    "An error was thrown in a request handler passed to `runner.intercept()`: "
                    f"{type(err).__name__}: {err}" + self._describe(route, data)
                )
                error.__cause__ = err
            await self._fail_request(error, ic, exchange, gen)
        completion = req._finish()
        alias = req.alias
        if alias and gen == self._registry.generation:
            with self._registry.cond:
                self._aliases.add(alias, ic, route.id)
                ic.request = data.snapshot(alias)
                self._registry.cond.notify_all()
        return completion

    async def _fail_request(self, error: BaseException, ic: Interception, exchange: _Guard, gen: int) -> None:
        if not getattr(error, "_runner_reported", False):
            self._report(error, gen)
        self._registry.error(ic, str(error).split("\n", 1)[0], error)
        await exchange.fail("failed")
        raise _Failed()

    # -- answering ---------------------------------------------------------------------------
    async def _send_static(self, static: StaticResponse, raw: RawRequest, ic: Interception,
                           exchange: _Guard, gen: int, data: RequestData | None = None) -> None:
        with self._registry.cond:
            ic.stubbed = True
        if static.force_network_error:
            await exchange.fail("failed")
            self._registry.error(ic, "forceNetworkError called")
            return
        try:
            if static.fixture:  # file I/O: off the loop
                rendered = await self._in_thread(functools.partial(render, static, self._load_fixture), None)
            else:  # pure and cheap: no thread hop on the hot path of a stub
                rendered = render(static, self._load_fixture)
        except Exception as err:  # noqa: BLE001 - a missing or unreadable fixture
            error = InterceptError(
                f"The fixture {static.fixture!r} of a StaticResponse could not be loaded: {err}\n\n"
                f"Intercepted request: {raw.method} {raw.url}"
            )
            error.__cause__ = err
            await self._fail_request(error, ic, exchange, gen)
            return
        headers = add_cors_headers(rendered.headers, raw.headers)
        await _pause(rendered.delay, 0)
        abandoned = await exchange.fulfill(OutgoingResponse(
            status=rendered.status, status_text=reason_phrase(rendered.status),
            headers=headers, body=rendered.body, throttle_kbps=rendered.throttle_kbps or None,
        ))
        with self._registry.cond:
            ic.response_body_size = len(rendered.body)
            ic.response_body_bytes = rendered.body
            ic.response = ResponseSnapshot(
                status_code=rendered.status, status_message=reason_phrase(rendered.status),
                headers=dict(headers), url=raw.url,
                body=(rendered.body if isinstance(rendered.body_value, (bytes, bytearray)) and not static.fixture
                      else decode_body(rendered.body, header_get(headers, "content-type"))[0]),
                delay=rendered.delay, throttle_kbps=rendered.throttle_kbps,
            )
        if abandoned:
            self._registry.error(ic, abandoned)
            return
        subs = sorted(data.subscriptions, key=lambda sub: sub.order) if data is not None else []
        if data is not None and any(sub.event == "after:response" for sub in subs):
            answered = UpstreamResponse(status=rendered.status, status_text=reason_phrase(rendered.status),
                                        headers=dict(headers), body=rendered.body, url=raw.url)
            await self._after_response(subs, ResponseData(answered, raw.method), data, ic, exchange, gen)
        self._registry.set_state(ic, _S.COMPLETE)

    async def _response_phase(self, raw: RawRequest, data: RequestData, outgoing: OutgoingRequest,
                              ic: Interception, exchange: _Guard, gen: int) -> None:
        timeout_ms = float(data.response_timeout)
        subs = sorted(data.subscriptions, key=lambda s: s.order)
        sent = time.monotonic()
        try:
            upstream = await exchange.fetch(outgoing, follow_redirect=data.follow_redirect, timeout_ms=timeout_ms)
        except UpstreamError as err:
            ic._upstream = time.monotonic() - sent
            self._registry.error(ic, _timed_out_text(timeout_ms) if err.timed_out else err.message, err)
            waiting = [s for s in subs if s.event != "after:response"]
            if waiting:
                if err.timed_out:
                    text = f"the request timed out after the `responseTimeout` of `{timeout_ms:g}ms`."
                else:
                    text = f"a network error occurred while making the request:\n\n{err.message}"
                error = InterceptError(
                    f"A callback was provided to intercept the upstream response, but {text}"
                    + self._describe(waiting[0].route, data)
                )
                error.__cause__ = err
                self._report(error, gen)
            await exchange.fail("failed")
            return
        ic._upstream = time.monotonic() - sent
        self._registry.set_state(ic, _S.RESPONSE_RECEIVED)
        rdata = ResponseData(upstream, outgoing.method)
        if gen == self._registry.generation:
            for event in ("before:response", "response:callback", "response"):
                for sub in [s for s in subs if s.event == event]:
                    await self._run_response_handler(sub, rdata, data, ic, exchange, gen)
                    if rdata.sent or gen != self._registry.generation:
                        break
                if rdata.sent or gen != self._registry.generation:
                    break
        if rdata.force_network_error:
            await exchange.fail("failed")
            self._registry.error(ic, "forceNetworkError called")
            return
        with self._registry.cond:
            ic.response = rdata.snapshot()
        self._registry.set_state(ic, _S.RESPONSE_INTERCEPTED)
        status, reason, headers, body = rdata.final()
        problem = headers_problem(headers)
        if problem is not None:  # set on `res.headers`: the browser would refuse it
            error = InterceptError(
                f"A response handler set an invalid response header. {problem}"
                + self._describe(subs[0].route, data) + f"\n\nIntercepted response: {rdata.describe()}"
            )
            await self._fail_response(error, ic, exchange, gen)
        ic.response_body_size = len(body)
        ic.response_body_bytes = body
        # no default CORS headers here: a response from the server keeps exactly its headers (1a.8)
        await _pause(rdata.delay, 0)
        abandoned = await exchange.fulfill(OutgoingResponse(status=status, status_text=reason, headers=headers,
                                                            body=body, throttle_kbps=rdata.throttle_kbps or None))
        if abandoned:
            self._registry.error(ic, abandoned)
            return
        await self._after_response(subs, rdata, data, ic, exchange, gen)
        self._registry.set_state(ic, _S.COMPLETE)

    async def _after_response(self, subs: list[Subscription], rdata: ResponseData, data: RequestData,
                              ic: Interception, exchange: _Guard, gen: int) -> None:
        """Tell the ``after:response`` listeners (the page already has its answer)."""
        for sub in [s for s in subs if s.event == "after:response"]:
            if gen != self._registry.generation:
                break
            final = copy.copy(rdata)
            final.headers = dict(rdata.headers)
            final.body = copy.deepcopy(rdata.body)
            final.lock = threading.Lock()
            try:
                await self._run_response_handler(sub, final, data, ic, exchange, gen, can_send=False)
            except _Failed:
                break

    async def _run_response_handler(self, sub: Subscription, rdata: ResponseData, data: RequestData,
                                    ic: Interception, exchange: _Guard, gen: int, *, can_send: bool = True) -> None:
        res = Res(rdata, lambda e: self._report(e, gen), self._load_fixture, can_send=can_send)
        error: BaseException
        timeout_ms = float(self._config("defaultCommandTimeout"))
        where = f"\n\nIntercepted response: {rdata.describe()}"
        try:
            await self._call_user(sub.handler, res, timeout_ms, ic)
        except TimeoutError as err:
            res._finish()
            error = InterceptError(
                f"A response handler ({sub.event}) timed out after taking more than the "
                f"`defaultCommandTimeout` of `{timeout_ms:g}ms` to finish."
                + self._describe(sub.route, data) + where
            )
            error.__cause__ = err
            await self._fail_response(error, ic, exchange, gen)
        except Exception as err:  # noqa: BLE001 - the user's handler failed
            res._finish()
            if getattr(err, "_runner_reported", False):
                error = err
            else:
                error = InterceptError(
                    f"An error was thrown in a response handler ({sub.event}): {type(err).__name__}: {err}"
                    + self._describe(sub.route, data) + where
                )
                error.__cause__ = err
            await self._fail_response(error, ic, exchange, gen)
        res._finish()

    async def _fail_response(self, error: BaseException, ic: Interception, exchange: _Guard, gen: int) -> None:
        if not getattr(error, "_runner_reported", False):
            self._report(error, gen)
        if exchange.answered:  # after:response: the page already has its response
            raise _Failed()
        self._registry.error(ic, str(error).split("\n", 1)[0], error)
        await exchange.fail("failed")
        raise _Failed()


def _timed_out_text(timeout_ms: float) -> str:
    return f"The server did not answer within the `responseTimeout` of `{timeout_ms:g}ms`."


def _settle_soon(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], outcome: Any) -> None:
    """From a worker thread: give ``future`` (on ``loop``) ``outcome``: a value, or the finished
    ``concurrent.futures.Future`` whose result or error it takes. Nothing when the loop closed
    or nobody waits any more."""

    def settle() -> None:
        if future.done():
            return
        if isinstance(outcome, concurrent.futures.Future):
            if outcome.cancelled():
                future.cancel()
            elif outcome.exception() is not None:
                future.set_exception(outcome.exception())  # type: ignore[arg-type]
            else:
                future.set_result(outcome.result())
        else:
            future.set_result(outcome)

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:  # the loop is closed: the run is over
        pass


async def _pause(delay_ms: float | None, extra_s: float) -> None:
    total = (delay_ms or 0) / 1000 + extra_s
    if total > 0:
        await asyncio.sleep(total)


async def _quietly(coro: Awaitable[Any]) -> None:
    try:
        await coro
    except Exception:  # noqa: BLE001 - the page may be gone already
        pass

