"""``clock = runner.clock(now=...)``: the page's time, held still and moved by the test.

The original's ``cy.clock``/``cy.tick``, on Playwright's Clock (the engine's ``clock_verbs.py``):
Date reads ``now`` and stays there; setTimeout, setInterval, requestAnimationFrame and the like
wait until the test moves the clock (``tick``, ``run_all``). Each call is a command of its own in
the command log and the events (``clock``, ``tick``, ``set_time``, ``run_all``, ``pause``,
``resume``, ``restore``), each telling the time the page reads after it. The clock ends with its
test (the next one gets a new context, with real time); docs/time-and-network.md says it all.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Any

from runner.commands.base import CommandsBase
from runner.commands.steps import command
from runner.engine.clock_verbs import ClockGone, ClockHandle, ClockRunaway, iso_ms
from runner.engine.holder import PageError
from runner.errors import CommandError, UsageError

if TYPE_CHECKING:
    from runner.commands.context import TestContext

__all__ = ["ClockCommands", "Clock", "epoch_ms"]

#: How many timers ``run_all`` runs before it says an interval never ends (sinon's own limit).
RUN_ALL_LIMIT = 1000

_EXAMPLE = 'runner.clock(now="2024-01-31T09:00:00Z")'


def epoch_ms(value: Any, what: str) -> int:
    """``value`` (epoch milliseconds, a ``datetime`` or an ISO 8601 string) as epoch milliseconds.

    A naive datetime (or ISO string without an offset) is local time, as Python's
    ``datetime.timestamp()`` takes it. Raises ``UsageError`` naming ``what`` and the value.
    """
    expected = "epoch milliseconds (an int), a datetime or an ISO 8601 string"
    if isinstance(value, bool) or not isinstance(value, (int, float, str, dt.datetime)):
        raise UsageError(f"{what} takes {expected}; found {value!r} ({type(value).__name__}).\nFor example: {_EXAMPLE}.")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise UsageError(f"{what} takes {expected}; found {value!r}.")
        ms = round(value)
    elif isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise UsageError(f"{what} takes {expected}; found {value!r}, which is not an ISO 8601 date "
                             f"(\"2024-01-31\", \"2024-01-31T09:00:00Z\").\nFor example: {_EXAMPLE}.") from None
        ms = _datetime_ms(parsed)
    else:
        ms = _datetime_ms(value)
    try:
        iso_ms(ms)
    except OverflowError:
        raise UsageError(f"{what}: {value!r} is outside the dates runner can set (years 1 to 9999).") from None
    return ms


def _datetime_ms(value: dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.astimezone()  # local time, as datetime.timestamp() reads a naive one
    return (value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def _span_ms(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise UsageError(f"{what} takes a number of milliseconds, 0 or more; found {value!r}.\n"
                         "For example: clock.tick(1000).")
    return float(value)


class ClockCommands(CommandsBase):
    """``clock``: the page's time under the test's control."""

    @command("clock")
    def clock(self, now: Any = 0) -> Clock:
        """Install a paused clock at ``now`` (epoch milliseconds, a ``datetime`` or an ISO 8601
        string; 0, the Unix epoch, as in the original) in the test's page and every page it
        opens next; returns the :class:`Clock` that moves it. Called before ``visit``, the app's
        first script already reads ``now``; called on a loaded page, it takes effect at once
        (timers the page set before keep running in real time). Raises ``UsageError`` for a bad
        ``now`` or on a popup's runner (the clock is the test's, its popups share it)."""
        ctx = self._ctx
        if ctx.page_label is not None:
            raise UsageError(f"{ctx.page_label}.clock(): the clock belongs to the test, not to one tab; call "
                             "runner.clock() on the test's runner (its popups share that clock).")
        at = epoch_ms(now, "runner.clock(now=...)")
        handle = _ask(ctx, ctx.browser.clock_install(at), "runner.clock()")
        ctx.add_log("clock", iso_ms(at))
        ctx.command_result = iso_ms(at)
        return Clock(ctx, handle, at)


class Clock:
    """What ``runner.clock()`` returns: the page's clock, moved by the test. ``now`` is the time
    it was last set to or moved to by this object (what Date reads while it is paused)."""

    def __init__(self, ctx: TestContext, handle: ClockHandle, now: int) -> None:
        self._ctx = ctx
        self._handle = handle
        self.now = now

    def __repr__(self) -> str:
        return f"<Clock at {iso_ms(self.now)}>"

    def _told(self, name: str, message: str) -> None:
        """The command's log line and its result: the time the page reads now."""
        read = _ask(self._ctx, self._ctx.browser.clock_now(), f"clock.{name}()")
        if read is not None:
            self.now = int(read)
        shown = iso_ms(self.now)
        self._ctx.add_log(name, f"{message} (now {shown})" if message else f"now {shown}")
        self._ctx.command_result = shown

    @command("tick")
    def tick(self, ms: float) -> Clock:
        """Move the clock ``ms`` milliseconds on, firing the timers due on the way in the order
        they are due (intervals as often as they fall). Returns the clock."""
        span = _span_ms(ms, "clock.tick()")
        _ask(self._ctx, self._ctx.browser.clock_run_for(self._handle, span), "clock.tick()")
        self._told("tick", f"{span:g}ms")
        return self

    @command("set_time")
    def set_time(self, now: Any) -> Clock:
        """Set what Date reads (epoch milliseconds, a ``datetime`` or an ISO 8601 string); no
        timer fires and the pending ones keep their delays. Returns the clock."""
        at = epoch_ms(now, "clock.set_time()")
        _ask(self._ctx, self._ctx.browser.clock_set_time(self._handle, at), "clock.set_time()")
        self._told("set_time", "")
        return self

    @command("run_all")
    def run_all(self) -> int:
        """Run every pending setTimeout and setInterval of the page (its main frame), and those
        they set, moving the clock to each in turn; returns how many ran. Fails after
        1000 timers with some still pending (an interval never ends: use ``tick``)."""
        ran = _ask(self._ctx, self._ctx.browser.clock_run_all(self._handle, RUN_ALL_LIMIT), "clock.run_all()")
        self._told("run_all", f"{ran} timer{'s' if ran != 1 else ''}")
        return int(ran)

    @command("pause")
    def pause(self) -> Clock:
        """Stop a resumed clock where it is. Returns the clock."""
        _ask(self._ctx, self._ctx.browser.clock_pause(self._handle), "clock.pause()")
        self._told("pause", "")
        return self

    @command("resume")
    def resume(self) -> Clock:
        """Let the clock run on from its time, as fast as real time; timers fire as it passes.
        Returns the clock."""
        _ask(self._ctx, self._ctx.browser.clock_resume(self._handle), "clock.resume()")
        self._told("resume", "")
        return self

    @command("restore")
    def restore(self) -> None:
        """Real time again: Date reads the real date and runs, timers fire in real time. Playwright
        cannot take its clock out of the page, so its functions stay, driven by real time; the
        next test has the real ones."""
        _ask(self._ctx, self._ctx.browser.clock_resume(self._handle, real_time=True), "clock.restore()")
        self._told("restore", "real time")


def _ask(ctx: TestContext, coro: Any, said: str) -> Any:
    """Run a clock verb for the test (``said``: the call, as the error names it); the engine's
    refusals become the command's failure."""
    __tracebackhide__ = True
    try:
        return ctx.run(coro)
    except (ClockGone, ClockRunaway) as err:
        raise CommandError(f"{said}: {err}") from None
    except PageError as err:
        raise CommandError(f"{said} failed in the page: {err}") from None
