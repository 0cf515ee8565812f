"""Threads for the user's blocking code (plain-function route handlers, plugins-file tasks).

Unlike ``concurrent.futures.ThreadPoolExecutor``, whose threads the interpreter joins at exit,
these are daemon threads: a handler that never returns fails its test and does not keep the
finished run's process alive. A call its caller gave up on (:meth:`Workers.give_up`, after a
timeout) stops counting against ``size``, so stuck calls cannot starve the ones after them.
Threads start when needed and end after a minute without work.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Workers"]

_IDLE_S = 60.0  # a thread without work for this long ends


class _Job:
    __slots__ = ("fn", "args", "future", "on_start", "running", "given_up")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 on_start: Callable[[], None] | None) -> None:
        self.fn = fn
        self.args = args
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.on_start = on_start
        self.running = False
        self.given_up = False


class Workers:
    """At most ``size`` daemon threads (not counting those running a call given up on)."""

    def __init__(self, name: str, size: int = 32) -> None:
        self._name = name
        self._size = size
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._counted = 0  # threads alive, less those running a call given up on
        self._idle = 0  # threads waiting for a job
        self._waiting = 0  # jobs not taken yet
        self._started = 0
        self._by_future: dict[concurrent.futures.Future[Any], _Job] = {}

    def submit(self, fn: Callable[..., Any], *args: Any,
               on_start: Callable[[], None] | None = None) -> concurrent.futures.Future[Any]:
        """Run ``fn(*args)`` in a thread; ``on_start()`` is called in that thread just before.
        The future holds its result or what it raised."""
        job = _Job(fn, args, on_start)
        with self._lock:
            self._by_future[job.future] = job
            self._waiting += 1
            self._grow()
        self._jobs.put(job)
        return job.future

    def give_up(self, future: concurrent.futures.Future[Any]) -> None:
        """Nobody waits for this call any more: cancel it if it has not started; if it runs, its
        thread no longer counts (it ends when the call returns, if ever)."""
        if future.cancel():
            return
        with self._lock:
            job = self._by_future.get(future)
            if job is None or job.given_up or not job.running:
                return
            job.given_up = True
            self._counted -= 1
            self._grow()

    def _grow(self) -> None:
        """Start a thread when a job waits for one and there is room (lock held)."""
        if self._waiting > self._idle and self._counted < self._size:
            self._counted += 1
            self._started += 1
            threading.Thread(target=self._work, name=f"{self._name}-{self._started}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                job: _Job | None = self._jobs.get(timeout=_IDLE_S)
            except queue.Empty:
                job = None
            with self._lock:
                self._idle -= 1
                if job is None:
                    if self._waiting == 0:
                        self._counted -= 1
                        return
                    continue
                self._waiting -= 1
                if not job.future.set_running_or_notify_cancel():
                    self._by_future.pop(job.future, None)
                    continue
                job.running = True
            self._run(job)
            with self._lock:
                self._by_future.pop(job.future, None)
                if job.given_up:
                    return  # it no longer counts: a thread was started in its place

    @staticmethod
    def _run(job: _Job) -> None:
        try:
            if job.on_start is not None:
                job.on_start()
            result = job.fn(*job.args)
        except BaseException as err:  # noqa: BLE001 - handed to whoever waits
            job.future.set_exception(err)
        else:
            job.future.set_result(result)
