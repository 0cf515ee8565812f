"""The browser session's recovery: a crashed page, closed browser or dead driver, replaced.

A page that crashed or stopped answering, a browser that closed or froze, a driver that died
are noticed (``broken`` says why, and the running test fails with it) and replaced before the
next test (:meth:`Recovery.ensure_alive`), every step bounded, killing the processes of what
does not answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Browser, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from runner.engine.holder import BrowserHolder
from runner.engine.processes import cpu_seconds, kill_tree

__all__ = ["Recovery", "CLOSE_BOUND", "OPEN_BOUND"]

# How long the steps that replace a broken page or browser may take (seconds). A page or browser
# that does not answer within them is given up on: its context closed, else its processes killed.
CLOSE_BOUND = 5.0  # closing a context or a browser
OPEN_BOUND = 15.0  # a new context and page

# What the test that was running is told (the first line is the one reports show).
_CRASHED = "The browser page crashed while the test was running.\nThe next test gets a fresh page."
_CLOSED = ("The browser closed unexpectedly while the test was running.\n"
          "The next test gets a fresh browser.")
_DRIVER_STOPPED = (
    "The browser's driver stopped (killed?) while the test was running: Playwright's node process "
    "is gone, and the browser with it.\nThe next test starts a new driver and browser. If the "
    "system killed it (out of memory?), see the system log (dmesg)."
)


class Recovery(BrowserHolder):
    """What broke, told and replaced: the page, else the browser, else the driver too."""

    _pw: Playwright | None
    _driver_gone: bool
    _driver_pid: int | None
    _browser_pid: int | None
    devtools: Any
    start: Callable[[], Awaitable[None]]  # browser.py's: launch the browser (and the driver when gone)

    def _on_disconnected(self, browser: Browser) -> None:
        if browser is self.browser and self.broken is None:
            self.broken = _CLOSED

    def _on_crash(self, page: Page) -> None:
        if page is self.page:
            self.broken = _CRASHED

    def _driver_exited(self, pw: Playwright) -> None:
        if pw is self._pw:  # not a driver runner stopped itself
            self._driver_gone = True
            self.broken = _DRIVER_STOPPED

    def driver_cpu(self) -> float | None:
        """The CPU time (seconds) Playwright's driver process has used so far (None where
        unknown): while it climbs, the driver is busy moving data (a large body), not waiting
        for a page that does not answer."""
        return cpu_seconds(self._driver_pid) if self._driver_pid is not None else None

    def stopped_responding(self, message: str) -> str:
        """The page (or the browser) did not answer a command: the test fails with ``message``,
        later commands fail at once, and the next reset replaces the page. Returns ``message``."""
        if self.broken is None:
            self.broken = message
        return self.broken


    async def ensure_alive(self) -> bool:
        """Replace what broke: the page (a new context), else the browser (killed when it does
        not answer), else the driver too. Returns True when something had to be made anew.

        Every step is bounded, so a page stuck in JavaScript or a frozen browser cannot hold it
        up. Raises ``BrowserNotFoundError`` when a new browser cannot be started.
        """
        if self.alive:
            return False
        if self._driver_gone:
            await self._drop_driver()
        elif self.browser is not None and self.browser.is_connected():
            try:
                if self.context is not None:
                    with contextlib.suppress(PlaywrightError):  # closed already
                        await asyncio.wait_for(self.context.close(), CLOSE_BOUND)
                await asyncio.wait_for(self._new_context(), OPEN_BOUND)
                return True
            except (PlaywrightError, TimeoutError):
                self._kill_browser()  # it does not answer (frozen), or makes no page
        else:
            self._kill_browser()  # what may be left of it
        await self.start()
        return True

    def _kill_browser(self) -> None:
        """Kill the browser's processes (a frozen browser cannot be closed) and forget it."""
        if self._browser_pid is not None:
            kill_tree(self._browser_pid)
        self._forget_browser()

    def _forget_browser(self) -> None:
        self.browser = self.context = self.page = None
        self.cdp = self.devtools = None
        self._browser_pid = None

    def kill(self) -> None:
        """Kill the driver and the browser without asking them (from any thread): for when the
        engine's loop itself is blocked. The session is unusable afterwards."""
        for pid in (self._browser_pid, self._driver_pid):
            if pid is not None:
                kill_tree(pid)

    async def _drop_driver(self) -> None:
        """Forget a driver that went away (its browser went with it)."""
        pw, self._pw, self._driver_pid = self._pw, None, None
        self._kill_browser()
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), CLOSE_BOUND)
            except Exception:  # noqa: BLE001 - it is gone already
                pass
