"""The Interceptor: routes of one page, the request/response chain, aliases, ``wait`` and ``get``.

Threads: ``intercept``, ``wait``, ``get``, ``clear`` and the tables are called from the test
thread; ``handle`` runs on the engine's event loop, one task per request. Shared state is guarded
by one re-entrant lock whose condition wakes ``wait`` whenever an interception changes.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from runner.bodies import decode_body
from runner.errors import CommandError, InterceptError, UsageError

from ._util import header_get, header_has, ordinal, reason_phrase, show
from .interception import Interception, RequestError, ResponseSnapshot, lazy_loader
from .matcher import MatchView
from .req import Completion, Req, RequestData, Subscription
from .res import Res, ResponseData
from .route import Route, RouteHandle, build_route
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

__all__ = ["Interceptor"]

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

    async def pass_through(self, request: OutgoingRequest | None) -> ObservedResponse | UpstreamError:
        result = await self.exchange.pass_through(request)  # if it raises, handle() fails the request
        self.answered = True
        return result

    async def fetch(self, request: OutgoingRequest, *, follow_redirect: bool, timeout_ms: float) -> Any:
        return await self.exchange.fetch(request, follow_redirect=follow_redirect, timeout_ms=timeout_ms)

    async def fulfill(self, response: OutgoingResponse) -> None:
        await self.exchange.fulfill(response)
        self.answered = True

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


class Interceptor:
    """The interception engine of one browser page (cleared before each test).

    ``config(name)`` gives the current test's ``defaultCommandTimeout``, ``requestTimeout`` and
    ``responseTimeout``; ``load_fixture(spec)`` the bytes of a fixture (``"a.json"`` or
    ``"img.png,null"``); ``report_error(err)`` fails the current test (any thread);
    ``on_change()`` tells the adapter that routes were added or cleared.
    """

    def __init__(self, *, loop: asyncio.AbstractEventLoop, config: Callable[[str], Any],
                 load_fixture: Callable[[str], bytes], report_error: Callable[[BaseException], None],
                 on_change: Callable[[], None] | None = None) -> None:
        self._loop = loop
        self._config = config
        self._load_fixture = load_fixture
        self._report_error = report_error
        self._on_change = on_change
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._routes: list[Route] = []
        self._dynamic: list[tuple[str, Interception]] = []
        self._records: list[Interception] = []
        self._raw: dict[str, RawRequest] = {}
        self._ordinals: dict[str, int] = {}
        self._generation = 0
        self._ids = itertools.count(1)
        self._executor = ThreadPoolExecutor(max_workers=32, thread_name_prefix="runner-route-handler")

    # -- definition (test thread) ------------------------------------------------------------
    def intercept(self, *args: Any) -> RouteHandle:
        """Register a route from any form of ``runner.intercept()``; return its handle.

        Raises UsageError (with the original runner's messages) for invalid arguments.
        """
        __tracebackhide__ = True
        route = build_route(args)
        with self._lock:
            self._routes.append(route)
        if self._on_change is not None:
            self._on_change()
        return RouteHandle(route, self._lock)

    def has_routes(self) -> bool:
        return bool(self._routes)

    def needs_routing(self) -> bool:
        """True when some route may change a request (a handler or a static response).

        While every route is a spy, the adapter need not intercept at all: it can hand the
        requests it observes to :meth:`handle` with an exchange that only watches, because a
        chain of spies only ever calls ``pass_through(None)`` (the cost rule).
        """
        with self._lock:
            return any(r.handler is not None or r.static is not None for r in self._routes)

    def clear(self) -> None:
        """Drop routes, aliases and records for a new test. Requests still in flight finish
        quietly: no more old handlers run, nothing fails the new test or is recorded in it."""
        with self._cond:
            had = bool(self._routes)
            self._generation += 1
            self._routes = []
            self._dynamic = []
            self._records = []
            self._raw = {}
            self._ordinals = {}
            self._cond.notify_all()
        if had and self._on_change is not None:
            self._on_change()

    def _report(self, err: BaseException, gen: int) -> None:
        if gen != self._generation:
            return  # a request of an earlier test: it must not fail this one
        _mark_reported(err)
        try:
            self._report_error(err)
        except Exception:  # noqa: BLE001 - reporting must never break request handling
            pass

    def _set_state(self, ic: Interception, state: InterceptionState) -> None:
        with self._cond:
            ic.state = state
            if state in (_S.COMPLETE, _S.ERRORED):
                ic.duration_ms = round((time.monotonic() - ic.started) * 1000, 1)
            self._cond.notify_all()

    def _error(self, ic: Interception, message: str, cause: BaseException | None = None) -> None:
        with self._cond:
            ic.error = RequestError(message, cause=cause)
        self._set_state(ic, _S.ERRORED)

    # -- handling (loop thread) --------------------------------------------------------------
    async def handle(self, raw: RawRequest, exchange: Exchange) -> None:
        """Serve one routed request. Never raises; always answers the page's request."""
        guard = _Guard(exchange)
        gen = self._generation
        try:
            await self._handle(raw, guard, gen)
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

    def _chain(self, view: MatchView, routes: list[Route]) -> list[Route]:
        middleware = [r for r in routes if r.middleware and not r.disabled and r.matcher.match(view)]
        others = [r for r in reversed(routes) if not r.middleware and not r.disabled and r.matcher.match(view)]
        return middleware + others

    async def _handle(self, raw: RawRequest, exchange: _Guard, gen: int) -> None:
        with self._lock:
            routes = list(self._routes) if gen == self._generation else []
        view = MatchView(raw.method, raw.url, raw.headers, raw.resource_type)
        if raw.method.upper() == "OPTIONS" and "access-control-request-method" in raw.headers:
            preflight = [r for r in routes if not r.disabled and r.matcher.match_preflight(view)]
            if preflight and not any(r.matcher.method_mentions_options for r in preflight):
                await exchange.fulfill(preflight_response(raw))
                return
        chain = self._chain(view, routes)
        if not chain:
            await exchange.pass_through(None)
            return

        data = RequestData(raw, float(self._config("responseTimeout")))
        ic = Interception(id=f"interceptedRequest{next(self._ids)}", browser_request_id=raw.id,
                          request=data.snapshot())
        ic.started = time.monotonic()
        with self._lock:
            if gen == self._generation:
                self._records.append(ic)
                self._raw[ic.id] = raw

        completion: Completion | None = None
        completed_by: tuple[Route, int] | None = None
        for order, route in enumerate(chain):
            if gen != self._generation:
                await exchange.pass_through(None)  # cleared: the old routes no longer exist
                return
            with self._cond:
                if route.disabled:
                    continue  # another request used up its `times` since this one arrived
                route.matches += 1
                route.interceptions.append(ic)
                ic.route_ids.append(route.id)
                if ic.route_id is None:
                    ic.route_id = route.id
                self._cond.notify_all()
            if route.handler is not None:
                completion = await self._run_request_handler(route, order, data, ic, exchange, gen)
                if completion is not None:
                    completed_by = (route, order)
                    break
            elif route.static is not None:
                completion = Completion("reply", static=route.static)
                break

        if gen != self._generation:
            await exchange.pass_through(None)
            return
        with self._cond:
            ic.request = data.snapshot(ic.request.alias)
        self._set_state(ic, _S.INTERCEPTED)
        if completion is not None and completion.kind == "reply" and completion.static is not None:
            await self._send_static(completion.static, raw, ic, exchange, gen, data)
            return
        if completion is not None and completion.callback is not None and completed_by is not None:
            with data.lock:
                data.subscriptions.append(
                    Subscription(completed_by[0], completed_by[1], "response:callback", completion.callback)
                )
        outgoing, changed = data.outgoing()
        if not data.has_response_listeners():
            await self._pass_through(outgoing if changed else None, ic, exchange)
            return
        await self._response_phase(raw, data, outgoing, ic, exchange, gen)

    async def _pass_through(self, outgoing: OutgoingRequest | None, ic: Interception, exchange: _Guard) -> None:
        result = await exchange.pass_through(outgoing)
        if isinstance(result, UpstreamError):
            self._error(ic, result.message, result)  # recorded only: no response callback waits
            return
        ctype = header_get(result.headers, "content-type")
        loader = None
        if result.load_body is not None:
            timeout_s = float(self._config("responseTimeout")) / 1000
            loader = lazy_loader(result.load_body, self._loop, timeout_s, lambda b: decode_body(b, ctype)[0])
        with self._cond:
            ic.response = ResponseSnapshot(
                status_code=result.status, status_message=result.status_text,
                headers=dict(result.headers), url=result.url, body="", loader=loader,
            )
        self._set_state(ic, _S.RESPONSE_RECEIVED)
        self._set_state(ic, _S.COMPLETE)

    # -- user code ---------------------------------------------------------------------------
    async def _call_user(self, fn: Callable[..., Any], arg: Any, timeout_ms: float) -> None:
        """Run a handler: ``async def`` on the loop, a plain function in a worker thread (so it
        may block); an awaitable it returns is awaited. Raises TimeoutError past ``timeout_ms``."""
        timeout = max(float(timeout_ms), 0.0) / 1000
        deadline = self._loop.time() + timeout
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):  # noqa: B004
            await asyncio.wait_for(fn(arg), timeout)
            return
        result = await asyncio.wait_for(self._loop.run_in_executor(self._executor, fn, arg), timeout)
        if inspect.isawaitable(result):
            await asyncio.wait_for(_as_coro(result), max(deadline - self._loop.time(), 0.0))

    def _describe(self, route: Route, data_or_raw: Any) -> str:
        return f"\n\nRoute: {route.describe()}\n\nIntercepted request: {data_or_raw.method} {data_or_raw.url}"

    async def _run_request_handler(self, route: Route, order: int, data: RequestData, ic: Interception,
                                   exchange: _Guard, gen: int) -> Completion | None:
        req = Req(data, route, order, lambda e: self._report(e, gen))
        error: BaseException
        timeout_ms = float(self._config("defaultCommandTimeout"))
        assert route.handler is not None
        try:
            await self._call_user(route.handler, req, timeout_ms)
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
        if alias and gen == self._generation:
            with self._cond:
                self._dynamic.append((alias, ic))
                ic.dynamic_aliases.append(alias)
                ic.request = data.snapshot(alias)
                self._cond.notify_all()
        return completion

    async def _fail_request(self, error: BaseException, ic: Interception, exchange: _Guard, gen: int) -> None:
        if not getattr(error, "_runner_reported", False):
            self._report(error, gen)
        self._error(ic, str(error).split("\n", 1)[0], error)
        await exchange.fail("failed")
        raise _Failed()

    # -- answering ---------------------------------------------------------------------------
    async def _send_static(self, static: StaticResponse, raw: RawRequest, ic: Interception,
                           exchange: _Guard, gen: int, data: RequestData | None = None) -> None:
        with self._cond:
            ic.stubbed = True
        if static.force_network_error:
            await exchange.fail("failed")
            self._error(ic, "forceNetworkError called")
            return
        try:
            if static.fixture:  # file I/O: off the loop
                rendered = await self._loop.run_in_executor(self._executor, render, static, self._load_fixture)
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
        await _pause(rendered.delay, throttle_seconds(len(rendered.body), rendered.throttle_kbps))
        await exchange.fulfill(OutgoingResponse(
            status=rendered.status, status_text=reason_phrase(rendered.status),
            headers=headers, body=rendered.body,
        ))
        with self._cond:
            ic.response = ResponseSnapshot(
                status_code=rendered.status, status_message=reason_phrase(rendered.status),
                headers=dict(headers), url=raw.url,
                body=decode_body(rendered.body, header_get(headers, "content-type"))[0],
                delay=rendered.delay, throttle_kbps=rendered.throttle_kbps,
            )
        subs = sorted(data.subscriptions, key=lambda sub: sub.order) if data is not None else []
        if data is not None and any(sub.event == "after:response" for sub in subs):
            answered = UpstreamResponse(status=rendered.status, status_text=reason_phrase(rendered.status),
                                        headers=dict(headers), body=rendered.body, url=raw.url)
            await self._after_response(subs, ResponseData(answered, raw.method), data, ic, exchange, gen)
        self._set_state(ic, _S.COMPLETE)

    async def _response_phase(self, raw: RawRequest, data: RequestData, outgoing: OutgoingRequest,
                              ic: Interception, exchange: _Guard, gen: int) -> None:
        timeout_ms = float(data.response_timeout)
        subs = sorted(data.subscriptions, key=lambda s: s.order)
        try:
            upstream = await exchange.fetch(outgoing, follow_redirect=data.follow_redirect, timeout_ms=timeout_ms)
        except UpstreamError as err:
            self._error(ic, err.message, err)
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
        self._set_state(ic, _S.RESPONSE_RECEIVED)
        rdata = ResponseData(upstream, outgoing.method)
        if gen == self._generation:
            for event in ("before:response", "response:callback", "response"):
                for sub in [s for s in subs if s.event == event]:
                    await self._run_response_handler(sub, rdata, data, ic, exchange, gen)
                    if rdata.sent or gen != self._generation:
                        break
                if rdata.sent or gen != self._generation:
                    break
        if rdata.force_network_error:
            await exchange.fail("failed")
            self._error(ic, "forceNetworkError called")
            return
        with self._cond:
            ic.response = rdata.snapshot()
        self._set_state(ic, _S.RESPONSE_INTERCEPTED)
        status, reason, headers, body = rdata.final()
        headers = add_cors_headers(headers, raw.headers)
        await _pause(rdata.delay, throttle_seconds(len(body), rdata.throttle_kbps))
        await exchange.fulfill(OutgoingResponse(status=status, status_text=reason, headers=headers, body=body))
        await self._after_response(subs, rdata, data, ic, exchange, gen)
        self._set_state(ic, _S.COMPLETE)

    async def _after_response(self, subs: list[Subscription], rdata: ResponseData, data: RequestData,
                              ic: Interception, exchange: _Guard, gen: int) -> None:
        """Tell the ``after:response`` listeners (the page already has its answer)."""
        for sub in [s for s in subs if s.event == "after:response"]:
            if gen != self._generation:
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
            await self._call_user(sub.handler, res, timeout_ms)
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
        self._error(ic, str(error).split("\n", 1)[0], error)
        await exchange.fail("failed")
        raise _Failed()

    # -- aliases (test thread) ---------------------------------------------------------------
    def _known_aliases(self) -> list[str]:
        names: list[str] = []
        for route in self._routes:
            if route.alias and route.alias not in names:
                names.append(route.alias)
        for name, _ic in self._dynamic:
            if name not in names:
                names.append(name)
        return names

    def _candidates(self, alias: str) -> list[Interception]:
        out: list[Interception] = []
        seen: set[str] = set()
        for name, ic in self._dynamic:
            if name == alias and ic.id not in seen:
                seen.add(ic.id)
                out.append(ic)
        for route in self._routes:
            if route.alias == alias:
                for ic in route.interceptions:
                    if ic.id not in seen:
                        seen.add(ic.id)
                        out.append(ic)
        return out

    def _alias_error(self, cmd: str, name: str) -> UsageError:
        known = self._known_aliases()
        if known:
            listed = f"Available aliases are: `{', '.join(known)}`."
        else:
            listed = "You have not aliased anything yet."
        return UsageError(f"`{cmd}` could not find a registered alias for: `@{name}`.\n{listed}")

    def _split(self, name: str, known: list[str]) -> tuple[str, str | None]:
        if "." not in name or name in known:
            return name, None
        head, _, last = name.rpartition(".")
        if last in ("request", "response", "all") or last.isdigit():
            return head, last
        return name, None

    def _parse_wait_target(self, target: str) -> tuple[str, str | None]:
        known = self._known_aliases()
        if not target.startswith("@"):
            if target in known or self._split(target, known)[0] in known:
                raise UsageError(
                    f"Invalid alias: `{target}`.\nYou forgot the `@`. It should be written as: `@{target}`."
                )
            raise UsageError(
                "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of "
                f"routes. You passed: {show(target)}. Aliases are written with a leading `@`."
            )
        alias, spec = self._split(target[1:], known)
        if spec == "all" or (spec is not None and spec.isdigit()):
            raise UsageError(
                f"`runner.wait()` does not support waiting on `@{alias}.{spec}`: the `.all` and index "
                f"suffixes are for `runner.get()`. Use `runner.get('@{alias}.{spec}')` to read what was "
                f"recorded, or `runner.wait('@{alias}')` to wait for the next request."
            )
        if not alias:
            raise UsageError(f"`runner.wait()` was given an empty alias: {show(target)}.")
        if alias not in known and not any(r.handler is not None for r in self._routes):
            raise self._alias_error("runner.wait()", alias)
        return alias, spec

    def wait(self, aliases: str | list[str], *, timeout: float | None = None,
             request_timeout: float | None = None, response_timeout: float | None = None,
             **options: Any) -> Interception | list[Interception]:
        """Wait for the next request (``@a.request``) or response (``@a``, ``@a.response``) of
        each alias not yielded by an earlier wait; return one interception, or a list in the
        order given. Timeouts in ms: ``request_timeout`` (else ``timeout``, else
        ``requestTimeout``) then ``response_timeout`` (else ``timeout``, else ``responseTimeout``).
        The camelCase option names are accepted too (``requestTimeout=...``).

        Raises UsageError for misuse and CommandError on timeout.
        """
        __tracebackhide__ = True
        for key, value in options.items():  # the camelCase spellings of the original's options
            if key == "requestTimeout" and request_timeout is None:
                request_timeout = value
            elif key == "responseTimeout" and response_timeout is None:
                response_timeout = value
            elif key not in ("requestTimeout", "responseTimeout", "log"):
                raise UsageError(
                    f"runner.wait() got an unknown option {key!r}. Options: timeout, request_timeout, "
                    "response_timeout (requestTimeout, responseTimeout)."
                )
        single = isinstance(aliases, str)
        if single:
            targets = [aliases]
        elif isinstance(aliases, (list, tuple)) and aliases and all(isinstance(a, str) for a in aliases):
            targets = list(aliases)
        else:
            raise UsageError(
                "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of "
                f"routes. You passed: {show(aliases)}"
            )
        with self._lock:
            parsed = [self._parse_wait_target(t) for t in targets]  # type: ignore[arg-type]
        req_ms = _pick(request_timeout, timeout, self._config("requestTimeout"))
        resp_ms = _pick(response_timeout, timeout, self._config("responseTimeout"))
        start = time.monotonic()
        results = [self._wait_one(alias, spec, start + req_ms / 1000, req_ms, resp_ms) for alias, spec in parsed]
        return results[0] if single else results

    def _wait_one(self, alias: str, spec: str | None, deadline: float, req_ms: float,
                  resp_ms: float) -> Interception:
        __tracebackhide__ = True
        with self._cond:
            n = self._ordinals.get(alias, 0) + 1
            self._ordinals[alias] = n
            found: Interception | None = None
            while spec != "response":  # `@a.response` skips the request step (see the docs)
                found = next((c for c in self._candidates(alias) if not c.request_waited), None)
                if found is not None:
                    found.request_waited = True
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CommandError(
                        f"runner.wait() timed out waiting {req_ms:g}ms for the {ordinal(n)} request to "
                        f"the route: `{alias}`. No request ever occurred."
                    )
                self._cond.wait(remaining)
            if spec == "request":
                assert found is not None
                found.alias = alias
                found.request.alias = alias
                return found
            resp_deadline = time.monotonic() + resp_ms / 1000
            while True:
                target = next((c for c in self._candidates(alias) if not c.response_waited), None)
                if target is not None and target.state.done:
                    break
                remaining = resp_deadline - time.monotonic()
                if remaining <= 0:
                    raise CommandError(
                        f"runner.wait() timed out waiting {resp_ms:g}ms for the {ordinal(n)} response "
                        f"to the route: `{alias}`. No response ever occurred."
                    )
                self._cond.wait(remaining)
            target.request_waited = True
            target.response_waited = True
            target.alias = alias
            target.request.alias = alias
            return target

    def get(self, alias: str) -> Interception | list[Interception] | None:
        """Read what an alias recorded, without waiting: ``"@a"`` (the most recent or None),
        ``"@a.all"`` (a list), ``"@a.N"`` (1-based, or None). Raises UsageError for an unknown
        alias or ``"@a.0"``."""
        __tracebackhide__ = True
        if not isinstance(alias, str) or not alias.startswith("@"):
            raise UsageError(f"`runner.get()` reads an alias written with a leading `@`; found {alias!r}.")
        with self._lock:
            known = self._known_aliases()
            name = alias[1:]
            base, spec = self._split(name, known)
            if spec in ("request", "response"):
                base, spec = name, None
            if spec == "0":
                raise UsageError(
                    "`0` is not a valid alias property. Are you trying to ask for the first response? "
                    f"If so write `@{base}.1`"
                )
            if base not in known:
                raise self._alias_error("runner.get()", base)
            candidates = self._candidates(base)
        if spec is None:
            return candidates[-1] if candidates else None
        if spec == "all":
            return candidates
        index = int(spec)
        return candidates[index - 1] if index <= len(candidates) else None

    # -- tables ------------------------------------------------------------------------------
    def routes_table(self) -> list[dict[str, Any]]:
        """One row per route, oldest first: id, method, matcher, stubbed, handler kind, alias,
        matches, times, middleware, log (the Routes panel)."""
        with self._lock:
            return [
                {
                    "id": r.id,
                    "method": r.matcher.method_text,
                    "matcher": r.describe(),
                    "stubbed": r.static is not None,
                    "handler": r.kind,
                    "alias": r.alias,
                    "matches": r.matches,
                    "times": r.times,
                    "middleware": r.middleware,
                    "log": r.log,
                }
                for r in self._routes
            ]

    def requests_log(self) -> list[dict[str, Any]]:
        """One row per intercepted request, in arrival order: id, method, url, route ids,
        aliases, stubbed (True) or went to the server (False), state, status, error, duration_ms."""
        with self._lock:
            rows = []
            by_id = {r.id: r for r in self._routes}
            for ic in self._records:
                raw = self._raw.get(ic.id)
                aliases = [by_id[rid].alias for rid in ic.route_ids if rid in by_id and by_id[rid].alias]
                aliases += [a for a in ic.dynamic_aliases if a not in aliases]
                rows.append({
                    "id": ic.id,
                    "browser_request_id": ic.browser_request_id,
                    "method": raw.method if raw else ic.request.method,
                    "url": raw.url if raw else ic.request.url,
                    "route_ids": list(ic.route_ids),
                    "aliases": aliases,
                    "stubbed": ic.stubbed,
                    "state": ic.state.value,
                    "status": ic.response.status_code if ic.response is not None else None,
                    "error": ic.error.message if ic.error is not None else None,
                    "duration_ms": ic.duration_ms,
                })
            return rows


def _pick(*values: Any) -> float:
    for value in values:
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UsageError(f"runner.wait() timeouts must be numbers of milliseconds >= 0; found {value!r}.")
            return float(value)
    return 0.0


async def _as_coro(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def _pause(delay_ms: float | None, extra_s: float) -> None:
    total = (delay_ms or 0) / 1000 + extra_s
    if total > 0:
        await asyncio.sleep(total)


async def _quietly(coro: Awaitable[Any]) -> None:
    try:
        await coro
    except Exception:  # noqa: BLE001 - the page may be gone already
        pass

