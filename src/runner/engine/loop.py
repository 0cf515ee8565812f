"""The engine's event-loop thread and the synchronous bridge the test thread calls through.

Playwright's async API runs on one asyncio loop in a dedicated daemon thread. The test thread
submits coroutines with :meth:`EngineLoop.run` and blocks on the result. Because the loop never
waits for the test thread, routed requests are served whatever the test is doing (a sleeping test,
a blocking handler in a worker thread), which Playwright's sync API cannot do.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
import threading
import time
from collections.abc import Awaitable, Coroutine
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from runner.engine.processes import cpu_seconds
from runner.usercode.tracebacks import is_internal

T = TypeVar("T")

__all__ = ["EngineLoop", "EngineTimeout", "EngineBlocked"]


# How often a waiting caller checks that the loop still runs (see EngineLoop.run's ``stall``).
_PROBE_EVERY = 0.25


class EngineTimeout(TimeoutError):
    """An engine call got no answer within the bound :meth:`EngineLoop.run` was given (the call
    was cancelled). Distinct from a ``TimeoutError`` the call itself raised."""


class EngineBlocked(EngineTimeout):
    """The loop ran nothing for ``seconds``: ``blocker`` (``"name (file:line)"``) holds its
    thread, typically an ``async def`` route handler that blocks instead of awaiting."""

    def __init__(self, blocker: str, seconds: float) -> None:
        super().__init__(f"the engine's loop is blocked by {blocker} (for {seconds:.1f} s)")
        self.blocker = blocker
        self.seconds = seconds


class EngineLoop:
    """An asyncio loop running forever in a daemon thread."""

    def __init__(self, name: str = "runner-engine") -> None:
        self.loop = asyncio.new_event_loop()
        # asyncio's own blocking calls (run_in_executor(None, ...)): runner's, never the user's,
        # whose blocking handlers and tasks run in daemon threads (runner/usercode/threads.py).
        self.executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=32, thread_name_prefix="runner-handler"
        )
        self.loop.set_default_executor(self.executor)
        self._ready = threading.Event()
        # Once a caller found the loop blocked: when, and the probe it sets when it runs again.
        self._stalled: tuple[float, threading.Event] | None = None
        # Playwright's driver when it was started ahead (engine/driver.py start_driver_early)
        self.early_driver: concurrent.futures.Future[Any] | None = None
        # runner run: the browser launched ahead, with what it was launched for (run/browser_host.py)
        self.early_launch: Any = None
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._ready.wait(5)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        self.loop.run_forever()

    @property
    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None, *,
            stall: float | None = None) -> T:
        """Run ``coro`` on the loop and return its result; raises what it raises.

        ``timeout`` (seconds) bounds the wait; on expiry the coroutine is cancelled and
        :class:`EngineTimeout` is raised. With ``stall`` (seconds), the wait also ends as soon as
        the loop itself has run nothing for that long (something blocks its thread): then
        :class:`EngineBlocked` says what.
        """
        if self.in_loop_thread:
            coro.close()
            raise RuntimeError("EngineLoop.run() called from the loop thread; await instead")
        stalled = self._stalled
        if stalled is not None:
            if not stalled[1].wait(_PROBE_EVERY):
                coro.close()  # still blocked: waiting again would only take as long
                raise EngineBlocked(self._blocking_frame(), time.monotonic() - stalled[0])
            self._stalled = None
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        deadline = None if timeout is None else time.monotonic() + timeout
        probe: tuple[float, threading.Event] | None = None  # when a probe was posted, and its answer
        try:
            while True:
                wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
                if stall is not None:
                    wait = _PROBE_EVERY if wait is None else min(wait, _PROBE_EVERY)
                try:
                    return future.result(wait)
                except concurrent.futures.TimeoutError:
                    if future.done():
                        raise  # the coroutine's own TimeoutError
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    raise EngineTimeout(f"engine call did not finish within {timeout} s") from None
                if stall is not None:
                    if probe is None or probe[1].is_set():
                        probe = (now, self._probe())
                    elif now - probe[0] >= stall and self._user_frame() is not None:
                        # the user's code holds the loop (runner's own long work on it, such as
                        # encoding a 60 MB body for the driver, is waited for up to ``timeout``)
                        self._stalled = probe
                        raise EngineBlocked(self._blocking_frame(), now - probe[0]) from None
        except BaseException:
            future.cancel()
            raise

    def _probe(self) -> threading.Event:
        """An event the loop sets as soon as it runs its next callback."""
        answered = threading.Event()
        try:
            self.loop.call_soon_threadsafe(answered.set)
        except RuntimeError:  # the loop is closed: nothing blocks it
            answered.set()
        return answered

    @property
    def stalled(self) -> bool:
        """Whether a call found the loop blocked (:class:`EngineBlocked`) and it has not run
        anything since."""
        stalled = self._stalled
        return stalled is not None and not stalled[1].is_set()

    def blocker(self, within: float = 0.25) -> str | None:
        """What of the user's keeps the loop from running, when it does not run a callback
        within ``within`` seconds (see :meth:`_blocking_frame`); None when it answers, or when
        only runner's or a library's code is busy on it."""
        stalled = self._stalled
        answered = stalled[1] if stalled is not None else self._probe()
        if answered.wait(within) or self._user_frame() is None:
            return None
        return self._blocking_frame()

    def _frames(self) -> tuple[FrameType | None, FrameType | None]:
        """The loop thread's innermost frame, and its innermost frame of the user's code."""
        frame = innermost = sys._current_frames().get(self._thread.ident or -1)
        while frame is not None and is_internal(frame.f_code.co_filename):
            frame = frame.f_back
        return innermost, frame

    def _user_frame(self) -> str | None:
        """The innermost frame of the user's code on the loop thread, else None."""
        frame = self._frames()[1]
        return None if frame is None else _where(frame)

    def thread_cpu(self) -> float | None:
        """The CPU time (seconds) the loop's thread has used so far (None where unknown)."""
        tid = self._thread.native_id
        return cpu_seconds(os.getpid(), tid) if tid is not None else None

    def _blocking_frame(self) -> str:
        """The innermost frame of the user's code on the loop thread (e.g. an ``async def`` route
        handler that calls ``time.sleep``), else the innermost frame: ``"name (file:line)"``."""
        innermost, user = self._frames()
        frame = user or innermost
        return "unknown code" if frame is None else _where(frame)

    def take_early_driver(self) -> concurrent.futures.Future[Any] | None:
        """The driver started ahead on this loop, once (None when none was)."""
        early, self.early_driver = self.early_driver, None
        return early

    def take_early_launch(self) -> Any:
        """The browser launch started ahead on this loop, once (None when none was)."""
        early, self.early_launch = self.early_launch, None
        return early

    def submit(self, coro: Awaitable[T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` without waiting for it."""

        async def _wrap() -> T:
            return await coro

        return asyncio.run_coroutine_threadsafe(_wrap(), self.loop)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the loop (after cancelling what still runs) and join the thread."""
        if not self._thread.is_alive():
            return

        async def _cancel_all() -> None:
            current = asyncio.current_task()
            tasks = [t for t in asyncio.all_tasks() if t is not current]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=timeout)

        try:
            asyncio.run_coroutine_threadsafe(_cancel_all(), self.loop).result(timeout)
        except Exception:  # noqa: BLE001 - best effort on shutdown
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        self.executor.shutdown(wait=False, cancel_futures=True)
        if not self._thread.is_alive():
            self.loop.close()


def _where(frame: FrameType) -> str:
    """``"name (file:line)"`` of ``frame``."""
    return f"{frame.f_code.co_name} ({Path(frame.f_code.co_filename).name}:{frame.f_lineno})"
