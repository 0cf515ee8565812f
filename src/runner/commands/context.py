"""What every command of one test shares: the test's configuration, the engine and the log."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from runner.errors import CommandError
from runner.events import Event

if TYPE_CHECKING:
    from runner.config import Config
    from runner.engine.browser import BrowserSession
    from runner.engine.loop import EngineLoop

T = TypeVar("T")

__all__ = ["TestContext", "LogEntry", "retry", "Attempt"]


@dataclass
class LogEntry:
    name: str
    message: str
    at_ms: float


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
    title: str = ""
    project_root: Path = field(default_factory=Path.cwd)
    log: list[LogEntry] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)  # runner.screenshot() files, for reports
    attempt: int = 1  # 2 and up when the test runs again after a failure (retries)
    screenshot_paths: set[Path] = field(default_factory=set)  # every screenshot path of the run
    async_errors: list[BaseException] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    nodeid: str = ""  # the pytest node id of the test
    publish: Callable[[Event], None] | None = None  # the run's event bus
    command_depth: int = 0  # > 0 while a command runs (commands it calls are part of it)
    commands_told: int = 0  # the number of the last command.started of this attempt
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def browser(self) -> BrowserSession:
        return self.browser_getter()

    def add_log(self, name: str, message: str) -> None:
        self.log.append(LogEntry(name, message, (time.monotonic() - self.started) * 1000))

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

    def checkpoint(self) -> None:
        """Raise what happened in the background: a handler's error, a browser crash."""
        __tracebackhide__ = True
        error = self.take_async_error()
        if error is not None:
            raise error
        crash = self.browser.crash_message
        if crash:
            raise CommandError(f"{crash}\nThe next test will get a fresh browser.")

    def run(self, coro: Coroutine[Any, Any, T], timeout_ms: float | None = None) -> T:
        """Run an engine coroutine for this test, bounded (with a margin) by ``timeout_ms``."""
        __tracebackhide__ = True
        bound = None if timeout_ms is None else timeout_ms / 1000 + 10
        try:
            return self.loop.run(coro, bound)
        except Exception as err:
            crash = self.browser.crash_message
            if crash:
                raise CommandError(f"{crash}\nThe next test will get a fresh browser.") from err
            raise

    def resolve_url(self, url: str) -> str:
        """Make ``url`` absolute against ``baseUrl`` (or runner's own file server)."""
        if "://" in url or url.startswith(("about:", "data:", "file:", "blob:")):
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


def retry(
    ctx: TestContext,
    attempt: Callable[[], Attempt],
    timeout_ms: float,
    what: str,
) -> Any:
    """Call ``attempt`` until it holds or ``timeout_ms`` passes; then raise with its last word.

    The message says what was expected and what was last seen (``attempt``'s message) and how
    long runner waited.
    """
    __tracebackhide__ = True
    start = time.monotonic()
    deadline = start + timeout_ms / 1000
    pause = 0.005
    while True:
        ctx.checkpoint()
        result = attempt()
        if result.ok:
            return result.value
        now = time.monotonic()
        if now >= deadline:
            waited = int(round((now - start) * 1000))
            ctx.add_log("failed", f"{what} (after {waited}ms)")  # the command log ends on it
            raise CommandError(f"Timed out retrying after {waited}ms: {what}: {result.message}")
        time.sleep(min(pause, max(0.0, deadline - now)))
        pause = min(pause * 2, 0.05)
