"""The handler chain of one routed request: the automatic answer to a CORS preflight, then the
request phase (the matching routes' handlers and static responses, in order, until one
completes the request), handing what they decided to the
:class:`~runner.net.responder.Responder` for the response phase.

Everything here runs on the engine's event loop, one task per request; the records it writes
live in the :class:`~runner.net.registry.Registry` and change only through its methods.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.errors import InterceptError

from .alias_names import AliasNames
from .cors import preflight_response
from .guard import Failed, Failures, Guard, describe, quietly, was_reported
from .handlers import HandlerRunner
from .headers import header_get, headers_problem
from .interception import Interception
from .matching import MatchView
from .messages import HttpRequest
from .registry import Registry
from .req import Completion, Req, RequestData
from .responder import Responder
from .route import Route
from .types import Exchange, InterceptionState

__all__ = ["Chain"]

_S = InterceptionState


@dataclass
class _Walked:
    """What the request phase decided: the ``completion`` a handler or stub gave (None: the
    request goes on to the server), the route (and its order) that gave it, and whether any
    handler ran or stub answered (``acted``; else the request was only spied on), and whether a
    request handler ran (``handled``: only one can change the request)."""

    completion: Completion | None = None
    by: tuple[Route, int] | None = None
    acted: bool = False
    handled: bool = False


class Chain:
    """Serves the routed requests of one page through the routes of the registry.

    ``config(name)`` gives the current test's ``defaultCommandTimeout`` and ``responseTimeout``;
    ``load_fixture(spec)`` the bytes of a fixture; ``report_error(err)`` fails the current test
    (only errors of the current generation reach it).
    """

    def __init__(self, *, loop: asyncio.AbstractEventLoop, config: Callable[[str], Any],
                 load_fixture: Callable[[str], bytes], report_error: Callable[[BaseException], None],
                 registry: Registry, aliases: AliasNames) -> None:
        self._config = config
        self._registry = registry
        self._aliases = aliases
        self._failures = Failures(registry, report_error)
        self._handlers = HandlerRunner(loop)
        self._responder = Responder(loop=loop, config=config, load_fixture=load_fixture, registry=registry,
                                    failures=self._failures, handlers=self._handlers)

    async def handle(self, raw: HttpRequest, exchange: Exchange) -> None:
        """Serve one routed request. Never raises; always answers the page's request."""
        arrival = time.monotonic()
        guard = Guard(exchange)
        gen = self._registry.generation
        try:
            await self._handle(raw, guard, gen, arrival)
        except asyncio.CancelledError:
            await quietly(guard.fail("failed"))
            raise
        except Failed:
            await quietly(guard.fail("failed"))
        except BaseException as err:  # noqa: BLE001 - a bug here must not hang the page
            if not was_reported(err):
                wrapped = InterceptError(f"runner's interception engine failed on {raw.method} {raw.url}: {err!r}")
                wrapped.__cause__ = err
                self._failures.report(wrapped, gen)
            await quietly(guard.fail("failed"))
        finally:
            if not guard.answered:
                await quietly(guard.fail("failed"))

    async def _handle(self, raw: HttpRequest, exchange: Guard, gen: int, arrival: float) -> None:
        # the page's requests go through runner.intercept's routes, the app's server's through
        # runner.intercept_backend's
        routes = [r for r in self._registry.routes_of(gen) if r.server == raw.server]
        view = MatchView.of(raw)
        is_preflight = raw.method.upper() == "OPTIONS" and "access-control-request-method" in raw.headers
        if is_preflight and await self._answer_preflight(raw, view, routes, exchange):
            return
        chain = _routes_for(view, routes)
        if self._registry.probes and not is_preflight:  # the browser's, not the app's
            self._registry.saw(view, bool(chain), gen, server=raw.server)
        if not chain:
            await exchange.let_go()  # nothing records it: its response is nobody's business
            return
        data = RequestData(raw, float(self._config("responseTimeout")))
        ic, recorded = self._registry.open_record(raw, data.snapshot(), arrival, gen)
        walked = await self._walk(chain, data, ic, recorded, exchange, gen)
        if walked is None or not self._registry.is_current(gen):
            await exchange.let_go()  # cleared: the old routes no longer exist
            return
        if walked.handled:  # only a handler changes the request: else it goes out as first recorded
            self._registry.set_request(ic, data.snapshot(ic.request.alias))
        self._registry.set_state(ic, _S.INTERCEPTED)
        await self._send_on(raw, data, ic, walked, exchange, gen)

    async def _answer_preflight(self, raw: HttpRequest, view: MatchView, routes: list[Route], exchange: Guard) -> bool:
        """Answer a CORS preflight that routes match (1a.7); False when it goes down the chain
        as any request does (no route matches it, or one's ``method`` mentions OPTIONS)."""
        preflight = [r for r in routes if not r.disabled and r.matcher.match_preflight(view)]
        if not preflight or any(r.matcher.method_mentions_options for r in preflight):
            return False
        if any(r.handler is not None or r.static is not None for r in preflight):
            await exchange.fulfill(preflight_response(raw))
        else:
            # Only spies match it: a spy never changes what the page gets, and the
            # server answers exactly as it does while nothing routes the page (where
            # the browser sends its preflights itself, unseen by the routes).
            await exchange.pass_through(None)
        return True

    async def _walk(self, chain: list[Route], data: RequestData, ic: Interception, recorded: bool,
                    exchange: Guard, gen: int) -> _Walked | None:
        """The request phase: each route of ``chain`` records the request (when ``recorded``:
        one that came after the test's end is served, counted in no test), and its handler runs
        or its stub answers, until one completes the request. None when the test's routes were
        cleared meanwhile."""
        walked = _Walked()
        for order, route in enumerate(chain):
            if not self._registry.is_current(gen):
                return None
            if not self._registry.reach(route, ic, recorded):
                continue  # another request used up its `times` since this one arrived
            if exchange.watch_only:
                continue  # a request in flight (a redirect's next hop): matched and recorded only
            if route.handler is not None:
                walked.acted = walked.handled = True
                ic.queued_until(time.monotonic())
                completion = await self._run_request_handler(route, order, data, ic, exchange, gen)
                if completion is not None:
                    walked.completion, walked.by = completion, (route, order)
                    break
            elif route.static is not None:
                walked.acted = True
                ic.queued_until(time.monotonic())
                walked.completion = Completion("reply", static=route.static)
                break
        ic.queued_until(time.monotonic())  # every route reached is a spy: the request is sent on now
        return walked

    async def _send_on(self, raw: HttpRequest, data: RequestData, ic: Interception, walked: _Walked,
                       exchange: Guard, gen: int) -> None:
        """Answer with the stub the request phase chose, or send the request on."""
        completion = walked.completion
        if completion is not None and completion.kind == "reply" and completion.static is not None:
            await self._responder.send_static(completion.static, raw, ic, exchange, gen, data)
            return
        if completion is not None and completion.callback is not None and walked.by is not None:
            data.subscribe(walked.by[0], walked.by[1], "response:callback", completion.callback)
        outgoing, changed = data.outgoing()
        problem = headers_problem(outgoing.headers) if changed else None
        if problem is not None:  # the browser would refuse it and leave the page waiting
            error = InterceptError(
                f"A request handler passed to `runner.intercept()` set an invalid request header. {problem}"
                f"\n\nIntercepted request: {raw.method} {raw.url}"
            )
            await self._failures.fail_request(error, ic, exchange, gen)
        if (not walked.acted and not exchange.sends_itself) or (not data.has_response_listeners()
                                                                and not exchange.holds_request):
            # A spy never changes what the page gets: the request goes on as the page sent it,
            # its response streams to the page whole, as late as the server sends it.
            await self._responder.pass_through(outgoing if changed else None, ic, exchange,
                                               float(data.response_timeout))
            return
        # A held request that a handler saw goes to the server through the engine even when
        # nobody listens for the response: so `responseTimeout` cuts it, and the record has the
        # status the server sent.
        await self._responder.fetch_and_answer(data, outgoing, ic, exchange, gen)

    async def _run_request_handler(self, route: Route, order: int, data: RequestData, ic: Interception,
                                   exchange: Guard, gen: int) -> Completion | None:
        req = Req(data, route, order, lambda e: self._failures.report(e, gen))
        error: BaseException
        timeout_ms = float(self._config("defaultCommandTimeout"))
        assert route.handler is not None
        length_before = header_get(data.headers, "content-length")
        try:
            await self._handlers.call(route.handler, req, timeout_ms, ic)
            data.sync_length(length_before)
        except TimeoutError as err:
            req._finish()
            error = InterceptError(
                "A request handler passed to `runner.intercept()` timed out after taking more than the "
                f"`defaultCommandTimeout` of `{timeout_ms:g}ms` to finish." + describe(route, data)
            )
            error.__cause__ = err
            await self._failures.fail_request(error, ic, exchange, gen)
        except Exception as err:  # noqa: BLE001 - the user's handler failed
            req._finish()
            if was_reported(err):
                error = err  # a completion error, already reported where it was raised
            else:
                error = InterceptError(
                    "An error was thrown in a request handler passed to `runner.intercept()`: "
                    f"{type(err).__name__}: {err}" + describe(route, data)
                )
                error.__cause__ = err
            await self._failures.fail_request(error, ic, exchange, gen)
        completion = req._finish()
        alias = req.alias
        if alias and self._registry.is_current(gen):
            self._aliases.add(alias, ic, route.id, data.snapshot(alias))
        return completion


def _routes_for(view: MatchView, routes: list[Route]) -> list[Route]:
    """The routes a request goes through: middleware first (oldest first), then the others,
    newest first."""
    middleware = [r for r in routes if r.middleware and not r.disabled and r.matcher.match(view)]
    others = [r for r in reversed(routes) if not r.middleware and not r.disabled and r.matcher.match(view)]
    return middleware + others
