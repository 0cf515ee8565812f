"""The engine's event-loop thread and the synchronous bridge the test thread calls through.

Playwright's async API runs on one asyncio loop in a dedicated daemon thread. The test thread
submits coroutines with :meth:`EngineLoop.run` and blocks on the result. Because the loop never
waits for the test thread, routed requests are served whatever the test is doing (a sleeping test,
a blocking handler in a worker thread), which Playwright's sync API cannot do.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["EngineLoop"]


class EngineLoop:
    """An asyncio loop running forever in a daemon thread."""

    def __init__(self, name: str = "runner-engine") -> None:
        self.loop = asyncio.new_event_loop()
        # Handlers written as plain functions may block; they run here, not on the loop.
        self.executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=32, thread_name_prefix="runner-handler"
        )
        self.loop.set_default_executor(self.executor)
        self._ready = threading.Event()
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

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and return its result; raises what it raises.

        ``timeout`` (seconds) bounds the wait; on expiry the coroutine is cancelled and
        ``TimeoutError`` is raised.
        """
        if self.in_loop_thread:
            coro.close()
            raise RuntimeError("EngineLoop.run() called from the loop thread; await instead")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"engine call did not finish within {timeout} s") from None
        except KeyboardInterrupt:
            future.cancel()
            raise

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
