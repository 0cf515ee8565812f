"""Playwright's tracing of the session's browser context: one trace per traced test attempt.

Tracing is started on the context when a traced attempt begins (``tracing.start``, which opens
its one chunk) and stopped when it ends: written (``stop(path)``) or discarded (``stop()``:
nothing reaches the disk). Attempts that are not traced start nothing, so they cost nothing.

Why not one ``start`` and a chunk per attempt (``start_chunk``/``stop_chunk``), as runner did
before: Playwright keeps a context's network log, and the response bodies it names, from one
chunk to the next, so the trace of a test held the requests of every test before it on that
context (the 31st test of a run listed 62 requests instead of its 2). Stopping tracing empties
that log; the per-test cost of the two ways is the same within the noise of the measurement
(``bench/trace_isolation.py``, figures in docs/traces.md). A new context per test would isolate
the trace too, at the cost of a context, and the per-test reset already leaves nothing of a test
to the next one (cookies, storage, CacheStorage, service workers; measured by the same bench).

Each runner command is a step of the trace (``tracing.group``). A step can be closed with the
error its command failed with: Playwright's ``group_end`` carries none, so the kept trace is
rewritten once written (:func:`runner.artifacts.traces.mark_failed_steps`), its step's end event
given the error as Playwright gives a failed call its own, which the trace viewer shows in its
action list and its Errors tab; a test that failed otherwise (a plain ``assert``) gets a last
step carrying its error. A step can also end with a DOM snapshot of the page as it is
then (:meth:`ContextTracing.group_end`), for the commands that make no browser call: without
one, the viewer shows such a step's "after" as the page of the last call before it. That call's
error, should it fail (a page navigating away), is runner's and is taken out of the written trace.

A context the session replaced (a page stuck in JavaScript, a browser relaunched after a crash)
loses its trace. Everything here runs on the engine loop; the callers bound the waits.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page

from runner.artifacts.traces import SNAPSHOT_CALL, FailureStep, StepError, mark_failed_steps
from runner.engine.page_verbs import NAVIGATING

__all__ = ["ContextTracing", "TraceLost"]

#: Whether the source files of the recorded steps go into the trace. The steps are located at the
#: user's spec line (``tracing.group(location=...)``), so the viewer's Source tab shows the spec;
#: the cost is reading the spec (and runner's engine files, whose frames the inner actions carry)
#: once per kept trace, nothing for a discarded one (see docs/traces.md).
INCLUDE_SOURCES = True

#: How long a step's closing snapshot may take (seconds): a page busy in JavaScript does not
#: answer, and the step then closes without it.
SNAPSHOT_BOUND = 1.0


class TraceLost(Exception):
    """The trace of the test cannot be written: ``str()`` says why."""


class ContextTracing:
    """The tracing state of one browser session (whose context may be replaced)."""

    def __init__(self) -> None:
        self._context: BrowserContext | None = None  # tracing is (or may be) started on it
        self.recording = False  # a trace is open (the attempt is traced)
        self._opened = 0  # steps opened in this trace (the n-th is the trace's n-th group)
        self._open: list[int] = []  # the numbers of the steps still open, innermost last
        self._failed: dict[int, StepError] = {}  # step number -> the error its command failed with
        self._unsure = False  # a step could not be sent: the numbers may not match the trace's
        self._quiet = False  # a closing snapshot's call failed: its error is to be taken out
        # A closing snapshot the page has not answered within SNAPSHOT_BOUND (busy in JavaScript):
        # while it is pending, the next steps close without one instead of each waiting again
        self._unanswered: asyncio.Future[Any] | None = None

    async def begin(self, context: BrowserContext, title: str, *, screenshots: bool) -> None:
        """Start a trace named ``title`` on ``context``. Raises Playwright's error when it
        cannot (the attempt is then not traced)."""
        self.recording = False
        if self._context is context:  # a stop that did not finish: its state is unknown
            with contextlib.suppress(Exception):
                await context.tracing.stop()
        self._context = context  # from here on tracing may be started on it
        self._opened, self._open, self._failed, self._unsure, self._quiet = 0, [], {}, False, False
        self._unanswered = None
        await context.tracing.start(snapshots=True, screenshots=screenshots, sources=INCLUDE_SOURCES, title=title)
        self.recording = True

    async def end(self, context: BrowserContext | None, path: Path | None,
                  failure: FailureStep | None = None) -> bool:
        """Stop the open trace: written to ``path`` (whose folder exists), or discarded when
        ``path`` is None. ``failure``: the test's failure, told as a last step with its error when
        no step carries it (it was not a command's: a plain ``assert``). Returns whether a trace
        was written. Raises Playwright's error when it could not be stopped, :class:`TraceLost`
        when its context is gone (the trace is lost)."""
        if not self.recording:
            return False
        told = {error.message for error in self._failed.values()}
        if path is not None and failure is not None and failure.error.message not in told and context is self._context:
            await self.group(context, failure.name, failure.file, failure.line)
            await self.group_end(context, error=failure.error)
        self.recording = False
        if context is None or context is not self._context:
            self._context = None
            if path is None:
                return False
            raise TraceLost("the browser's page was replaced or closed during the test, and its trace with it")
        await context.tracing.stop(path=path)
        self._context = None
        if path is None:
            return False
        failed = {} if self._unsure else self._failed
        # always: an evaluation runner retried past a navigation (_in_page) is no error of the test's
        mark_failed_steps(path, failed, quiet=SNAPSHOT_CALL, waited_out=NAVIGATING)
        return True

    async def group(self, context: BrowserContext | None, name: str, file: str | None, line: int | None) -> None:
        """Open a step ``name`` located at ``file``:``line`` (the user's spec) in the open trace.
        Never raises: a step that cannot be told is left out.

        The steps are sent in the order they are told without waiting for one another (no lock:
        a step waiting for the one before would let the command's own browser calls overtake
        it), so a step is numbered before it is sent; one that could not be sent leaves the
        numbers unsure, and no error is put on a step of that trace."""
        if not self.recording or context is None or context is not self._context:
            return
        location = {"file": file, "line": line or 0} if file else None
        self._opened += 1
        self._open.append(self._opened)
        try:
            await context.tracing.group(name, location=location)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - the step is left out
            self._unsure = True

    async def group_end(self, context: BrowserContext | None, *, error: StepError | None = None,
                        snapshot: Page | None = None) -> None:
        """Close the step :meth:`group` opened: failed with ``error`` (its command's), after a
        DOM snapshot of ``snapshot`` (the page as it is now) when given. Never raises."""
        if not self.recording or context is None or context is not self._context or not self._open:
            return
        number = self._open.pop()
        if error is not None:
            self._failed[number] = error
        if snapshot is not None:
            await self._snapshot(snapshot)
        with contextlib.suppress(Exception):
            await context.tracing.group_end()

    async def snapshot(self, context: BrowserContext | None, page: Page) -> None:
        """A DOM snapshot of ``page`` as it is now, in the open step (a retrying command whose
        later reads the trace leaves out ends on one: the page when it passed or gave up). Never
        raises."""
        if self.recording and context is not None and context is self._context and self._open:
            await self._snapshot(page)

    async def _snapshot(self, page: Page) -> None:
        if self._unanswered is not None and not self._unanswered.done():
            return
        # Any snapshotted call will do: an evaluation of nothing changes nothing. It is not
        # cancelled past the bound: while the page has not answered it (busy in JavaScript),
        # a command that does not touch the page is not held up a second each time.
        call = asyncio.ensure_future(page.evaluate(SNAPSHOT_CALL))
        call.add_done_callback(_consume)
        await asyncio.wait({call}, timeout=SNAPSHOT_BOUND)
        if not call.done() or call.exception() is not None:
            self._quiet = True  # the call's error is runner's, not the test's
        self._unanswered = None if call.done() else call


def _consume(call: asyncio.Future[Any]) -> None:
    """Retrieve a closing snapshot's error (a page navigating away or closed): nobody's news."""
    if not call.cancelled():
        call.exception()
