"""The page's request as the handler chain answers it, and how the chain fails it.

:class:`Guard` wraps the adapter's :class:`~runner.net.types.Exchange` to know whether the page
has its answer, and waits out a throttled body the exchange cannot stream. :class:`Failures`
reports a handler's error to the current test (only once: :func:`mark_reported`), records it
and answers the page with a network error; :class:`Failed` then ends the request's chain.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from .interception import Interception
from .messages import HttpRequest, HttpResponse
from .registry import Registry
from .route import Route
from .static_response import throttle_seconds
from .types import Exchange, UpstreamError

__all__ = ["Failed", "Failures", "Guard", "describe", "mark_reported", "was_reported", "quietly"]


class Failed(Exception):
    """The request was already answered with a network error (a handler failed)."""


class Guard:
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

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        result = await self.exchange.pass_through(request)  # if it raises, handle() fails the request
        self.answered = True
        return result

    async def let_go(self) -> None:
        await self.exchange.let_go()  # if it raises, handle() fails the request
        self.answered = True

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        return await self.exchange.fetch(request, follow_redirect=follow_redirect, timeout_ms=timeout_ms)

    async def fulfill(self, response: HttpResponse) -> str | None:
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


def mark_reported(err: BaseException) -> BaseException:
    """Mark ``err`` as told to the test already (see :func:`was_reported`)."""
    err._runner_reported = True  # type: ignore[attr-defined]
    return err


def was_reported(err: BaseException) -> bool:
    """Whether ``err`` was told to the test already: a completion error raised in a handler is
    reported where it was raised, and the chain only fails the request."""
    return bool(getattr(err, "_runner_reported", False))


async def quietly(coro: Awaitable[Any]) -> None:
    """Await ``coro``, ignoring what it raises (the page may be gone already)."""
    try:
        await coro
    except Exception:  # noqa: BLE001 - the page may be gone already
        pass


class Failures:
    """Tells the current test of a request's failure and answers the page with a network error.

    ``report_error(err)`` fails the current test; only errors of the current generation reach
    it (a request of an earlier test must not fail this one).
    """

    def __init__(self, registry: Registry, report_error: Callable[[BaseException], None]) -> None:
        self._registry = registry
        self._report_error = report_error

    def report(self, err: BaseException, gen: int) -> None:
        if not self._registry.is_current(gen):
            return  # a request of an earlier test: it must not fail this one
        mark_reported(err)
        try:
            self._report_error(err)
        except Exception:  # noqa: BLE001 - reporting must never break request handling
            pass

    async def fail_request(self, error: BaseException, ic: Interception, exchange: Guard, gen: int) -> NoReturn:
        """Report ``error`` (unless it was), record it and give the page a network error."""
        if not was_reported(error):
            self.report(error, gen)
        self._registry.error(ic, str(error).split("\n", 1)[0], error)
        await exchange.fail("failed")
        raise Failed()

    async def fail_response(self, error: BaseException, ic: Interception, exchange: Guard, gen: int) -> NoReturn:
        """:meth:`fail_request` for a response handler: only reported once the page already has
        its response (an ``after:response`` listener)."""
        if not exchange.answered:
            await self.fail_request(error, ic, exchange, gen)
        if not was_reported(error):  # after:response: the page already has its response
            self.report(error, gen)
        raise Failed()


def describe(route: Route, request: Any) -> str:
    """The lines that end a handler's error message: its route and the request (``method``, ``url``)."""
    return f"\n\nRoute: {route.describe()}\n\nIntercepted request: {request.method} {request.url}"
