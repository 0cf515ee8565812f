"""The verbs of what a test leaves behind: screenshots, traces, HAR recordings, downloads.

Screenshots of the page (``screenshot``, ``failure_screenshot``), its trace (``start_trace``,
``trace_step``, ``stop_trace``), HAR recordings (``har_recorder``) and the files it downloads
(saved to ``downloadsFolder``).

A screenshot of one element is an element verb (``element_verbs``); the video of a spec is
recorded by ``run/spec_videos.py`` and ``artifacts/video.py`` through the CDP adapter (``devtools.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Download
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from runner.artifacts.traces import FailureStep, StepError
from runner.engine.holder import BrowserHolder
from runner.engine.tracing import ContextTracing

if TYPE_CHECKING:
    from runner.engine.har_recorder import HarRecorder

__all__ = ["CaptureVerbs"]


class CaptureVerbs(BrowserHolder):
    """Screenshots, traces, HAR recordings and downloads of the session's page."""

    _tracing: ContextTracing
    _downloads: list[asyncio.Task[None]]

    async def screenshot(self, path: Path | str, *, full_page: bool) -> None:
        """Save a PNG of the page (the whole page with ``full_page``) at ``path``."""
        await self._live_page().screenshot(path=str(path), full_page=full_page)

    async def failure_screenshot(self, path: Path | str, *, timeout_ms: float) -> bool:
        """Save a full-page PNG at ``path`` for a failed test, within about ``timeout_ms``.

        A page still loading a document that never comes cannot be captured (the screenshot
        waits for the navigation): after half the time its load is stopped, as the browser's
        stop button does, and the page as it stands is captured. Returns False when the page
        did not answer at all (its JavaScript stuck: Playwright's own screenshot timeout does
        not end that wait, so each step is cut here); raises Playwright's ``Error`` otherwise.
        """
        page = self._live_page()
        half = max(timeout_ms / 2, 1.0) / 1000

        async def shot() -> bool:
            try:
                await asyncio.wait_for(page.screenshot(path=str(path), full_page=True, timeout=half * 1000), half)
            except (PlaywrightTimeoutError, TimeoutError):
                return False
            return True

        if await shot():
            return True
        cdp = self.cdp
        if cdp is None:
            return False
        try:
            await asyncio.wait_for(cdp.send("Page.stopLoading"), half)
        except (PlaywrightError, TimeoutError):
            return False
        return await shot()


    async def start_trace(self, title: str, *, screenshots: bool) -> None:
        """Trace what follows (until :meth:`stop_trace`) as the trace ``title``: DOM snapshots,
        network, console, and screenshots when asked. Raises Playwright's error when tracing
        cannot start (the attempt is then not traced)."""
        assert self.context is not None
        await self._tracing.begin(self.context, title, screenshots=screenshots)

    async def stop_trace(self, path: Path | None, failure: FailureStep | None = None) -> bool:
        """End the trace :meth:`start_trace` began: written to ``path`` (its folder must exist),
        or discarded (nothing written) when ``path`` is None; ``failure``, the test's, is its last
        step when no command's step carries it. Returns whether it was written; raises
        Playwright's error when it could not be ended."""
        return await self._tracing.end(self.context, path, failure)

    async def trace_step(self, name: str, file: str | None, line: int | None) -> None:
        """Open a step of the trace (a group in the viewer's action list) at the user's line."""
        await self._tracing.group(self.context, name, file, line)

    async def trace_step_end(self, error: StepError | None = None, *, snapshot: bool = False) -> None:
        """Close the step :meth:`trace_step` opened: failed with ``error``; with ``snapshot``,
        after a DOM snapshot of the page as it is now (for a command that made no browser call)."""
        page = self.page if snapshot and self.alive else None
        await self._tracing.group_end(self.context, error=error, snapshot=page)

    async def trace_snapshot(self) -> None:
        """A DOM snapshot of the page as it is now, in the open step of the trace (none when
        the page is gone or nothing is traced)."""
        if self.page is not None and self.alive:
            await self._tracing.snapshot(self.context, self.page)

    def har_recorder(self, keep: Callable[[str], bool], content: str) -> HarRecorder | None:
        """A recorder of the page's exchanges to a HAR (har_recorder.py), or None with no page."""
        if self.page is None:
            return None
        from runner.engine.har_recorder import HarRecorder

        return HarRecorder(self.page, keep, content)

    def _on_download(self, download: Download) -> None:
        folder = self.options.downloads_folder
        if folder is None:
            return

        async def save() -> None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                await download.save_as(folder / download.suggested_filename)
            except (PlaywrightError, OSError):
                pass  # an unusable downloadsFolder was reported when the run started

        self._downloads.append(asyncio.ensure_future(save()))

    async def wait_downloads(self, timeout: float = 30.0) -> None:
        pending = [t for t in self._downloads if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        self._downloads = [t for t in self._downloads if not t.done()]
