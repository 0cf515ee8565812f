"""Playwright's tracing of the session's browser context: one chunk per traced test attempt.

Tracing is started on a context the first time a test attempt is traced there
(``tracing.start``, which opens the first chunk), and each later traced attempt opens a chunk of
its own (``tracing.start_chunk``). A chunk ends written (``stop_chunk(path)``) or discarded
(``stop_chunk()``: nothing reaches the disk). Attempts that are not traced open no chunk, so
they cost nothing: Playwright records nothing outside a chunk.

A context the session replaced (a page stuck in JavaScript, a browser relaunched after a crash)
is a new context: tracing is started on it again. Everything here runs on the engine loop; the
callers bound the waits.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

__all__ = ["ContextTracing", "TraceLost"]

#: Whether the source files of the recorded steps go into the trace. The steps are located at the
#: user's spec line (``tracing.group(location=...)``), so the viewer's Source tab shows the spec;
#: the cost is reading the spec (and runner's engine files, whose frames the inner actions carry)
#: once per kept trace, nothing for a discarded one (see docs/traces.md).
INCLUDE_SOURCES = True


class TraceLost(Exception):
    """The trace of the test cannot be written: ``str()`` says why."""


class ContextTracing:
    """The tracing state of one browser session (whose context may be replaced)."""

    def __init__(self) -> None:
        self._context: BrowserContext | None = None  # the context tracing runs on
        self._screenshots: bool | None = None  # what it was started with
        self._settled = True  # False: a start or stop did not finish, its state is unknown
        self.recording = False  # a chunk is open (the attempt is traced)

    async def begin(self, context: BrowserContext, title: str, *, screenshots: bool) -> None:
        """Open a chunk named ``title`` on ``context``, starting tracing there first when needed.
        Raises Playwright's error when it cannot (the attempt is then not traced)."""
        tracing = context.tracing
        self.recording = False
        fresh = context is not self._context or screenshots != self._screenshots or not self._settled
        self._settled = False
        if not fresh:
            await tracing.start_chunk(title=title)
        else:
            if context is self._context:  # other options, or a stop that did not finish
                with contextlib.suppress(PlaywrightError):
                    await tracing.stop()
            self._context = None
            await tracing.start(snapshots=True, screenshots=screenshots, sources=INCLUDE_SOURCES, title=title)
            self._context, self._screenshots = context, screenshots
        self._settled = True
        self.recording = True

    async def end(self, context: BrowserContext | None, path: Path | None) -> bool:
        """Close the open chunk: written to ``path`` (whose folder exists), or discarded when
        ``path`` is None. Returns
        whether a trace was written. Raises Playwright's error when the chunk could not be
        closed, :class:`TraceLost` when its context is gone (the trace is lost; the next
        :meth:`begin` starts tracing anew)."""
        if not self.recording:
            return False
        self.recording = False
        if context is None or context is not self._context:
            if path is None:
                return False
            raise TraceLost("the browser's page was replaced or closed during the test, and its trace with it")
        self._settled = False
        await context.tracing.stop_chunk(path=path)
        self._settled = True
        return path is not None

    async def group(self, context: BrowserContext | None, name: str, file: str | None, line: int | None) -> None:
        """Open a step ``name`` located at ``file``:``line`` (the user's spec) in the open chunk.
        Never raises: a step that cannot be told is left out."""
        if not self.recording or context is None or context is not self._context:
            return
        location = {"file": file, "line": line or 0} if file else None
        with contextlib.suppress(Exception):
            await context.tracing.group(name, location=location)  # type: ignore[arg-type]

    async def group_end(self, context: BrowserContext | None) -> None:
        """Close the step :meth:`group` opened. Never raises."""
        if not self.recording or context is None or context is not self._context:
            return
        with contextlib.suppress(Exception):
            await context.tracing.group_end()
