"""What every command of one test shares: the test's configuration, the engine and the log."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from runner.commands.selectors import invalid_selector_message
from runner.commands.steps import SNAPSHOT_WAIT_S
from runner.engine.element_verbs import InvalidSelector
from runner.engine.frames import FrameUnavailable
from runner.engine.loop import EngineBlocked, EngineTimeout
from runner.errors import CommandError, UsageError
from runner.events import Event
from runner.redaction import Redactor

if TYPE_CHECKING:
    from runner.config import Config
    from runner.engine.browser import BrowserSession
    from runner.engine.loop import EngineLoop

T = TypeVar("T")

# A call with a timeout of its own is given this much longer: its own timeout error says more.
_MARGIN_S = 5.0
# The loop running nothing is given defaultCommandTimeout and this much more: a busy machine can
# be slow to run a callback that is itself quick.
_SLACK_S = 1.0
# Any other call is given what is left of its command's timeout (defaultCommandTimeout outside a
# retrying command) and this much more before the page counts as not responding. A page can be
# slow to answer and alive: a query on 200,000 elements, a first layout (on 2 oversubscribed
# cores a 200,000-element page took 20 s to answer `() => 1`), a driver busy moving a large
# body. Its late answer still decides the command (the length it found, not "dead"). 30 s is
# Playwright's own default timeout for an action.
_ALIVE_S = 30.0
# When a call got no answer: how long runner looks at the driver's and its loop's CPU use, and
# the share of that time they must work for the engine to count as busy moving data (idle, a
# waiting driver uses next to nothing).
_LOOK_S = 0.5
_BUSY_SHARE = 0.25

__all__ = ["TestContext", "LogEntry", "retry", "Attempt"]


@dataclass
class LogEntry:
    name: str
    message: str
    at_ms: float

    @property
    def line(self) -> str:
        """The line as the terminal and the events file show it: ``click: get('#b')``, ``url``."""
        return f"{self.name}: {self.message}" if self.message else self.name


@dataclass
class Attempt:
    """One try of a retrying command: did it hold, what to say if not, and what it found."""

    ok: bool
    message: str = ""
    value: Any = None


@dataclass
class TestContext:
    """The state of the test the ``runner`` fixture serves."""

    config: Config
    loop: EngineLoop
    browser_getter: Callable[[], BrowserSession]
    base_url: str | None
    spec_relative: str = ""
    spec_file: Path | None = None  # the spec's file: its snapshot baselines are beside it
    title: str = ""
    project_root: Path = field(default_factory=Path.cwd)
    log: list[LogEntry] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)  # runner.screenshot() files, for reports
    attempt: int = 1  # 2 and up when the test runs again after a failure (retries)
    screenshot_paths: set[Path] = field(default_factory=set)  # every screenshot path of the run
    async_errors: list[BaseException] = field(default_factory=list)
    # checks once the test's body passed (strictNetwork): each returns the error that fails it
    end_checks: list[Callable[[], BaseException | None]] = field(default_factory=list)
    # run when the test ends, passed or failed (runner.record_har writes its file): each
    # returns a warning to print, or None
    closers: list[Callable[[], str | None]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    nodeid: str = ""  # the pytest node id of the test
    publish: Callable[[Event], None] | None = None  # the run's event bus
    redactor: Redactor | None = None  # the run's secrets: hidden in trace steps, learned from type(log=False)
    command_depth: int = 0  # > 0 while a command runs (commands it calls are part of it)
    commands_told: int = 0  # the number of the last command.started of this attempt
    command_parent: int | None = None  # the number of the custom command running (its commands' parent)
    # the error the last failed command raised: a test failing with another one (a plain assert)
    # gets its failure told as the last line of its command log (steps.tell_failure)
    command_error: BaseException | None = None
    # what the running command found, told with its command.ended (steps.py): popup's tab and URL
    command_result: str | None = None
    command: str = ""  # the command told last, as ``runner.get('h1').should()``
    traced: bool = False  # the attempt is recorded in a trace: each command is a step of it
    pending_step: Any = None  # (name function, file, line) of a step told later (steps.py)
    # while a retrying command runs: its timeout (ms) and when it ends (time.monotonic()); a
    # call it makes may take that long before the page counts as not responding
    command_timeout: tuple[float, float] | None = None
    # while a retrying Value reads its subject (values.py): a retry inside makes one attempt
    # and fails with its bare message, so the Value's own retry is the one that waits and says
    # "Timed out retrying" (once, after the Value's timeout, not the inner one's)
    one_attempt: bool = False
    # while a retrying command of a traced attempt reads the page again (its attempts after the
    # first): those reads are left out of the trace (each would be two DOM snapshots), and the
    # retry ends with one snapshot of the page as it passed or gave up (``retry``). The commands'
    # reads ask ``quiet_read()``.
    quiet_reads: bool = False
    quietly_read: bool = False  # a read was left out since the retry began: it ends on a snapshot
    # the page the commands drive when it is not the test's own: "tab[1]", a popup's (tabs.py)
    page_label: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def browser(self) -> BrowserSession:
        return self.browser_getter()

    def quiet_read(self) -> bool:
        """Whether the page read about to be made is left out of the trace (a retry's attempt
        after the first, traced): the retry then ends on a snapshot of the page."""
        if self.quiet_reads:
            self.quietly_read = True
        return self.quiet_reads

    def add_log(self, name: str, message: str, *, at: int | None = None) -> None:
        """A line of the command log, at its end (or at index ``at``: a command's own line, put
        where the command began, before the lines told while it ran). The run's secrets in it
        are hidden: a failing test's report prints the log as it is."""
        if self.redactor is not None:
            message = self.redactor.text(message)
        entry = LogEntry(name, message, (time.monotonic() - self.started) * 1000)
        if at is None:
            self.log.append(entry)
        else:
            self.log.insert(at, entry)

    def tell(self, event: Event) -> None:
        """Publish ``event`` on the run's bus (when there is one)."""
        if self.publish is not None:
            self.publish(event)

    def report_async_error(self, error: BaseException) -> None:
        """Called from any thread (route handlers) to fail the test at its next command."""
        with self._lock:
            self.async_errors.append(error)

    def take_async_error(self) -> BaseException | None:
        with self._lock:
            if self.async_errors:
                return self.async_errors.pop(0)
        return None

    def end_error(self) -> BaseException | None:
        """What fails the test once its body passed: an error from the background, else the
        first end check that fails."""
        error = self.take_async_error()
        if error is not None:
            return error
        for check in self.end_checks:
            error = check()
            if error is not None:
                return error
        return None

    def checkpoint(self) -> None:
        """Raise what happened in the background: a handler's error, a browser crash."""
        __tracebackhide__ = True
        error = self.take_async_error()
        if error is not None:
            raise error
        broken = self.browser.broken
        if broken:
            raise CommandError(broken)

    def run(self, coro: Coroutine[Any, Any, T], timeout_ms: float | None = None) -> T:
        """Run an engine coroutine for this test and return its result.

        The wait is bounded: by ``timeout_ms`` with a margin (the coroutine's own timeout, whose
        error says more, comes first), else by what is left of the retrying command's timeout
        (``defaultCommandTimeout`` outside one) and ``_ALIVE_S`` more; and by
        ``defaultCommandTimeout`` (and a little slack) of the engine's loop running nothing.
        Raises ``CommandError`` when the page, the browser or the loop did not answer, or broke.
        """
        __tracebackhide__ = True
        browser = self.browser
        if browser.broken:  # a page that stopped responding is not asked again
            coro.close()
            raise CommandError(browser.broken)
        default_ms = float(self.config.default_command_timeout)
        own = self.command_timeout
        if timeout_ms is None and own is not None:
            # a retrying command's calls wait as long as the command may (should(...,
            # timeout=20000) on a page busy for 8 s is busy, not dead), and a little longer
            left_s = max(own[1] - time.monotonic(), 0.0)
            named = "defaultCommandTimeout" if own[0] == default_ms else "its timeout"
            bound, which = left_s + _ALIVE_S, f"{named}: {own[0]:g}ms, and {_ALIVE_S:g} s more"
        elif timeout_ms is None:
            bound = default_ms / 1000 + _ALIVE_S
            which = f"defaultCommandTimeout: {default_ms:g}ms, and {_ALIVE_S:g} s more"
        else:
            bound, which = float(timeout_ms) / 1000 + _MARGIN_S, f"its timeout: {float(timeout_ms):g}ms"
        asked = time.monotonic()
        try:
            return self.loop.run(coro, bound, stall=default_ms / 1000 + _SLACK_S)
        except InvalidSelector as err:
            # a query's selector the browser cannot read: the user's mistake, said once (no
            # retrying, no Playwright frames), and the command's line of the log says it too
            message = invalid_selector_message(self.command or "A query", err.selector, err.part)
            self.add_log("failed", message)
            raise UsageError(message) from None
        except EngineBlocked as err:
            raise CommandError(self._blocked(browser, err.blocker)) from err
        except EngineTimeout as err:
            # the loop's stall bound and the call's bound can end together: a loop blocked by a
            # handler is the cause to name, not the page
            blocker = self.loop.blocker()
            if blocker is not None:
                raise CommandError(self._blocked(browser, blocker)) from err
            waited = time.monotonic() - asked
            if self._moving_data(browser):
                raise CommandError(self._busy(waited, which)) from err
            raise CommandError(self._no_answer(browser, waited, which)) from err
        except Exception as err:
            broken = browser.broken
            if broken:
                raise CommandError(broken) from err
            raise

    def check_loop(self) -> None:
        """Raise ``CommandError`` naming what blocks the engine's loop, if something does (an
        ``async def`` handler that blocks): a command that timed out waiting says why."""
        __tracebackhide__ = True
        blocker = self.loop.blocker()
        if blocker is not None:
            raise CommandError(self._blocked(self.browser, blocker))

    def _blocked(self, browser: BrowserSession, blocker: str) -> str:
        return browser.stopped_responding(
            f"runner's event loop is blocked by {blocker}, so {self.command or 'a command'} got "
            f"no answer (defaultCommandTimeout: {float(self.config.default_command_timeout):g}ms)."
            "\nAn `async def` route handler runs on that loop and must not block (time.sleep, a "
            "synchronous HTTP call): await instead (asyncio.sleep), or write it as a plain def, "
            "which runs in a thread of its own."
        )

    def _moving_data(self, browser: BrowserSession) -> bool:
        """Whether runner's engine is busy moving data to or from the browser (a large stub,
        fixture or response a handler read crosses Playwright's driver as one message, which
        can take minutes): the driver, or runner's loop, works through this short look."""
        def used() -> float | None:
            driver, loop = browser.driver_cpu(), self.loop.thread_cpu()
            if driver is None and loop is None:
                return None
            return (driver or 0.0) + (loop or 0.0)

        before = used()
        if before is None:
            return False
        time.sleep(_LOOK_S)
        after = used()
        return after is not None and after - before >= _LOOK_S * _BUSY_SHARE

    def _busy(self, waited_s: float, which: str) -> str:
        """A call that got no answer because the engine was still moving data: not a dead page."""
        return (
            f"{self.command or 'A command'} got no answer from the browser in {waited_s * 1000:.0f}ms "
            f"({which}): Playwright's driver was still busy moving data between runner and the "
            "browser (a large body: a stub, a fixture, a response a handler read), so the page "
            "could not be asked.\nThe page itself is not stuck: give the command a longer timeout "
            "(timeout=), or make the bodies runner sends or reads smaller."
        )

    def _no_answer(self, browser: BrowserSession, waited_s: float, which: str) -> str:
        """Why a call got no answer (the browser says when it crashed or its driver stopped),
        else the page stopped responding: the browser replaces it before the next test."""
        if browser.broken:
            return browser.broken
        return browser.stopped_responding(
            f"The page stopped responding: {self.command or 'a command'} got no answer from the "
            f"browser in {waited_s * 1000:.0f}ms ({which}).\nIts JavaScript may be stuck (an "
            "endless loop?) or the browser frozen; the next test gets a fresh page."
        )

    def resolve_url(self, url: str) -> str:
        """Make ``url`` absolute against ``baseUrl`` (or runner's own file server)."""
        if _ABSOLUTE.match(url) or url.startswith(("about:", "data:", "file:", "blob:")):
            return url
        lowered = url.lower()
        if lowered.startswith(("localhost", "127.0.0.1", "[::1]")):
            return "http://" + url
        if self.base_url is None:
            raise CommandError(
                f"The relative URL {url!r} cannot be resolved: no baseUrl is configured and "
                "runner's file server is not running.\nSet baseUrl in runner.json or pass a full URL."
            )
        return self.base_url.rstrip("/") + "/" + url.lstrip("/")


_ABSOLUTE = re.compile(r"[a-z][a-z0-9+.-]*://", re.I)  # a scheme first, not "://" in the query


def retry(
    ctx: TestContext,
    attempt: Callable[[], Attempt],
    timeout_ms: float,
    what: str,
) -> Any:
    """Call ``attempt`` until it holds or ``timeout_ms`` passes; then raise with its last word.

    The message says what was expected and what was last seen (``attempt``'s message) and how
    long runner waited. Inside a Value's read (``ctx.one_attempt``) it makes one attempt and
    raises CommandError with the attempt's bare message: the Value's retry waits.
    """
    __tracebackhide__ = True
    if ctx.one_attempt:
        ctx.checkpoint()
        result = attempt()
        if not result.ok:
            raise CommandError(result.message)
        return result.value
    start = time.monotonic()
    deadline = start + timeout_ms / 1000
    pause = 0.005
    outer, ctx.command_timeout = ctx.command_timeout, (float(timeout_ms), deadline)
    outer_quiet = ctx.quiet_reads
    ended = False  # passed, or gave up at its timeout (not cut short by a stop or a broken page)
    try:
        while True:
            ctx.checkpoint()
            try:
                result = attempt()
            except FrameUnavailable as err:  # a frame not there yet is retried like an element
                result = Attempt(False, str(err))
            # The first read is in the trace (the page as the command found it); the ones after
            # it are not, the retry's last state is (its snapshot when it ends, below).
            ctx.quiet_reads = ctx.traced
            if result.ok:
                ended = True
                # what the background said while the attempt read the page fails this command:
                # the page's state it passed on may be the work of a handler that broke meanwhile
                ctx.checkpoint()
                return result.value
            now = time.monotonic()
            if now >= deadline:
                waited = int(round((now - start) * 1000))
                ctx.add_log("failed", f"{what} (after {waited}ms)")  # the command log ends on it
                ended = True
                page = f"{ctx.page_label}." if ctx.page_label else ""  # a popup's command says so
                raise CommandError(f"Timed out retrying after {waited}ms: {page}{what}: {result.message}")
            time.sleep(min(pause, max(0.0, deadline - now)))
            pause = min(pause * 2, 0.05)
    finally:
        ctx.command_timeout = outer
        ctx.quiet_reads = outer_quiet
        if ctx.quietly_read and not outer_quiet:
            ctx.quietly_read = False
            if ended and not ctx.loop.in_loop_thread:  # (a command called on the loop cannot wait)
                _snapshot_ended_retry(ctx)


def _snapshot_ended_retry(ctx: TestContext) -> None:
    """A retry whose later reads the trace left out ended: the page as it is now goes into the
    trace (the step's "after"). Bounded; a snapshot that cannot be taken is left out."""
    try:
        ctx.loop.run(ctx.browser.trace_snapshot(), SNAPSHOT_WAIT_S)
    except Exception:  # noqa: BLE001 - tracing never fails a command
        pass
