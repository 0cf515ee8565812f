"""The page's clock (``runner.clock``), on Playwright's Clock: installed paused, ticked, set, run out.

Playwright's clock belongs to the context: once installed, its script is in every document the
context loads (popups too) and cannot be taken out again. So a context whose clock was installed
is never handed to another test: :attr:`ClockVerbs.clock_installed` makes the next reset replace
the context (``browser.py``), and a :class:`ClockHandle` of an older context is refused.

Playwright has no public "run every pending timer"; ``run_all`` is built on ``run_for``: a small
script (:data:`TIMER_WATCH`, put in every document after Playwright's clock) keeps the due time
of each pending ``setTimeout``/``setInterval`` of the page's main frame, and the clock is run to
the next one until none is left.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from playwright.async_api import Error as PlaywrightError

from runner.engine.holder import BrowserHolder, PageError

__all__ = ["ClockVerbs", "ClockHandle", "TIMER_WATCH", "NATIVE_TIME", "iso_ms"]

_T = TypeVar("_T")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: Watches the page's timers under the fake clock: the due time (the clock's ``performance.now()``)
#: of each pending setTimeout and setInterval, and how many ran. Wraps the clock's own functions,
#: so timers still go through Playwright's clock.
TIMER_WATCH = """(() => {
  if (globalThis.__runnerTimers || !globalThis.__pwClock) return;
  const pending = new Map();
  const watch = { fired: 0 };
  const now = () => globalThis.performance.now();
  const code = (fn) => typeof fn === 'function' ? fn : () => (0, eval)(String(fn));
  const setT = globalThis.setTimeout, clearT = globalThis.clearTimeout;
  const setI = globalThis.setInterval, clearI = globalThis.clearInterval;
  globalThis.setTimeout = function (fn, delay, ...args) {
    const run = code(fn);
    const id = setT(function (...a) { pending.delete(id); watch.fired++; return run.apply(this, a); },
                    delay, ...args);
    pending.set(id, now() + Math.max(0, +delay || 0));
    return id;
  };
  globalThis.setInterval = function (fn, delay, ...args) {
    const run = code(fn), every = Math.max(0, +delay || 0);
    const id = setI(function (...a) { pending.set(id, now() + every); watch.fired++; return run.apply(this, a); },
                    delay, ...args);
    pending.set(id, now() + every);
    return id;
  };
  globalThis.clearTimeout = (id) => { pending.delete(id); return clearT(id); };
  globalThis.clearInterval = (id) => { pending.delete(id); return clearI(id); };
  watch.next = () => {
    if (!pending.size) return null;
    return Math.max(0, Math.ceil(Math.min(...pending.values()) - now()));
  };
  globalThis.__runnerTimers = watch;
})();"""

#: The browser's own timers and time, kept before the clock replaces them: runner's scripts in
#: the page (dom.js's waits for a still element, page_values.js's bound on a promise, a smooth
#: scroll) read them as ``globalThis.__runnerNative``, so the test's clock never holds them up.
NATIVE_TIME = """(() => {
  if (globalThis.__runnerNative) return;
  const g = globalThis;
  g.__runnerNative = {
    setTimeout: g.setTimeout.bind(g), clearTimeout: g.clearTimeout.bind(g),
    requestAnimationFrame: g.requestAnimationFrame.bind(g), performance: g.performance, Date: g.Date,
  };
})();"""

_NEXT = "() => globalThis.__runnerTimers ? [globalThis.__runnerTimers.next(), globalThis.__runnerTimers.fired] : null"


def iso_ms(ms: int) -> str:
    """``2020-01-01T00:00:00.000Z``: epoch milliseconds as an exact ISO 8601 UTC string."""
    return (_EPOCH + dt.timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ClockGone(PageError):
    """The clock a handle stands for is no longer the page's: its test ended, or its context
    was replaced (a crash)."""


class ClockRunaway(PageError):
    """``run_all`` ran its limit of timers and some are still pending (an interval, or timers that
    keep scheduling timers)."""


def _told(verb: Callable[..., Awaitable[_T]]) -> Callable[..., Awaitable[_T]]:
    """Playwright's errors of a clock verb told as :class:`PageError` (its message unchanged)."""

    @functools.wraps(verb)
    async def run(*args: Any, **kwargs: Any) -> _T:
        try:
            return await verb(*args, **kwargs)
        except PlaywrightError as err:
            raise PageError(getattr(err, "message", None) or str(err)) from err

    return run


@dataclass(frozen=True)
class ClockHandle:
    """Which clock a test's ``Clock`` object drives: the context it was installed in."""

    generation: int


class ClockVerbs(BrowserHolder):
    """Install, tick, set, pause, resume and run out the context's fake clock."""

    # True once the context's clock is installed: the next reset replaces the context
    clock_installed: bool
    # counts the contexts made (browser.py's _new_context): a handle of an older one is refused
    context_generation: int

    @_told
    async def clock_install(self, now_ms: int) -> ClockHandle:
        """Install the fake clock in the context (its pages now and every document it loads
        next), paused at ``now_ms``: Date reads ``now_ms``, timers wait for :meth:`clock_run_for`."""
        context = self._live_context()
        if not self.clock_installed:  # kept first: in every new document this script runs before the clock's
            self.clock_installed = True
            await context.add_init_script(NATIVE_TIME)
            await self._in_frames(NATIVE_TIME)
        await context.clock.install(time=iso_ms(now_ms))
        await self._pause_at(now_ms)
        await context.add_init_script(TIMER_WATCH)
        try:
            await self._live_page().evaluate(TIMER_WATCH)
        except PlaywrightError:  # a page navigating: the next document gets it from the init script
            pass
        return ClockHandle(self.context_generation)

    async def _in_frames(self, script: str) -> None:
        """Run ``script`` in every frame of the context's pages now (a frame navigating gets it
        from the init script instead)."""
        for page in self._live_context().pages:
            for frame in page.frames:
                try:
                    await frame.evaluate(script)
                except PlaywrightError:
                    pass

    async def _pause_at(self, at_ms: int) -> None:
        """Stop the clock at ``at_ms``. Playwright refuses a pause "in the past": a live page's
        clock kept running (in real time) since it was installed or resumed; it is then paused
        a little later and set back, which fires no timer."""
        clock = self._live_context().clock
        asked = time.monotonic()
        try:
            await clock.pause_at(iso_ms(at_ms))
            return
        except PlaywrightError as err:
            if "past" not in str(err):
                raise
        # the failed pause stopped the clock already: it is at most this far past at_ms
        ahead = int((time.monotonic() - asked) * 1000) + 1000
        await clock.pause_at(iso_ms(at_ms + ahead))
        await clock.set_system_time(iso_ms(at_ms))

    def _check(self, handle: ClockHandle) -> None:
        if handle.generation != self.context_generation or not self.clock_installed:
            raise ClockGone("This clock ended with its test (or its page was replaced): call runner.clock() "
                            "again in this test.")

    @_told
    async def clock_run_for(self, handle: ClockHandle, ms: float) -> None:
        """Advance the clock ``ms`` milliseconds (a fraction rounded up, as the page's clock
        does), firing the timers due on the way, in order."""
        self._check(handle)
        await self._live_context().clock.run_for(math.ceil(ms))

    @_told
    async def clock_set_time(self, handle: ClockHandle, now_ms: int) -> None:
        """Set what Date reads; no timer fires."""
        self._check(handle)
        await self._live_context().clock.set_system_time(iso_ms(now_ms))

    @_told
    async def clock_pause(self, handle: ClockHandle) -> None:
        """Stop a resumed clock where it is now."""
        self._check(handle)
        now = await self.clock_now()
        await self._pause_at(int(now) if now is not None else int(time.time() * 1000))

    @_told
    async def clock_resume(self, handle: ClockHandle, *, real_time: bool = False) -> None:
        """Let the clock run in real time (timers fire as real time passes); with ``real_time``
        it first reads the real date again."""
        self._check(handle)
        clock = self._live_context().clock
        if real_time:
            await clock.set_system_time(iso_ms(int(time.time() * 1000)))
        await clock.resume()

    @_told
    async def clock_run_all(self, handle: ClockHandle, limit: int) -> int:
        """Run the clock to each pending timer of the page's main frame in turn (and the timers
        they set) until none is left; returns how many ran. Raises :class:`ClockRunaway` after
        ``limit`` timers with some still pending."""
        self._check(handle)
        page, clock = self._live_page(), self._live_context().clock
        first: int | None = None
        for _ in range(2 * limit + 10):  # a timer the watch thinks pending but never fires ends it too
            found = await page.evaluate(_NEXT)
            if found is None:
                return 0
            wait, fired = found
            first = fired if first is None else first
            if wait is None:
                return int(fired - first)
            if fired - first >= limit:
                raise ClockRunaway(f"ran {limit} timers and some are still pending: an interval (or a "
                                   "timer that sets another) never ends. Use clock.tick(ms) to run a span of time.")
            await clock.run_for(wait)
        raise ClockRunaway(f"moved the clock {2 * limit + 10} times and timers are still pending.")

    async def clock_now(self) -> float | None:
        """What Date.now() reads in the page now (None when the page cannot say)."""
        try:
            value = await self._live_page().evaluate("() => Date.now()")
        except PlaywrightError:
            return None
        return float(value) if isinstance(value, (int, float)) else None
