"""Running the user's route handlers: ``async def`` ones on the engine's loop, plain functions
in a pool of worker threads (so a handler may block without stalling the page's other
requests), each bounded by a timeout that counts from when it starts, its time written to the
record's timings."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

from runner.usercode.threads import Workers

from ._util import as_coro
from .interception import Interception

__all__ = ["HandlerRunner"]


class HandlerRunner:
    """Runs the handlers of one page's routes (on ``loop``, or in its worker threads)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._workers = Workers("runner-route-handler", size=32)

    async def call(self, fn: Callable[..., Any], arg: Any, timeout_ms: float, ic: Interception) -> None:
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
                ic.handler_ran(time.monotonic() - started)
            return
        submitted = time.monotonic()
        began: list[float] = []
        try:
            result = await self.in_thread(functools.partial(fn, arg), timeout, began)
            if inspect.isawaitable(result):
                remaining = began[0] + timeout - time.monotonic()
                await asyncio.wait_for(as_coro(result), max(remaining, 0.0))
        finally:
            start = began[0] if began else time.monotonic()
            ic.handler_ran(time.monotonic() - start, waited=start - submitted)

    async def in_thread(self, call: Callable[[], Any], timeout: float | None,
                        began: list[float] | None = None) -> Any:
        """``call()`` in a worker thread. ``timeout`` (seconds) counts from when it starts:
        waiting for a free thread is not its time. ``began`` gets the moment it started."""
        loop = self._loop
        done: asyncio.Future[Any] = loop.create_future()
        # The worker writes when the call starts, and only its end wakes the loop: one hand-over
        # between threads per call, not two (every handler and response callback pays it).
        start = began if began is not None else []
        job = self._workers.submit(call, on_start=lambda: start.append(time.monotonic()))
        job.add_done_callback(lambda f: _settle_soon(loop, done, f))
        try:
            if timeout is None:
                return await done
            return await _within(done, start, timeout)
        except BaseException:  # its timeout, or the request's task was cancelled
            done.cancel()  # nobody reads what the call ends with now (nor is told it was not read)
            self._workers.give_up(job)
            raise


# How often a call that has not started yet (every worker thread busy) is looked at again when
# its timeout is shorter: its time counts only once it starts.
_NOT_STARTED_CHECK_S = 0.05


async def _within(done: asyncio.Future[Any], start: list[float], timeout: float) -> Any:
    """What ``done`` gives, unless the call runs past ``timeout`` seconds from ``start[0]`` (the
    moment its worker started it, written by that thread): then TimeoutError."""
    while True:
        if start:
            remaining = start[0] + timeout - time.monotonic()
            if remaining <= 0 and not done.done():
                raise TimeoutError
        else:
            remaining = max(timeout, _NOT_STARTED_CHECK_S)
        finished, _ = await asyncio.wait((done,), timeout=max(remaining, 0.0))
        if finished:
            return done.result()


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
