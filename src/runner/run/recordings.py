"""What the browser records of a run's tests: each spec's video and each test's trace.

A video covers a spec (``runner/spec_videos``: when to record, where, what to keep); a trace covers
one attempt of a test, is written when the test asks for it (or discarded), and keeps no secret in
clear: it is scrubbed with the run's redactor, or deleted. A recording the browser cannot start or
finish is lost with a warning, never the test's result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import zipfile
from collections.abc import Callable
from pathlib import Path

from runner.commands.context import TestContext
from runner.commands.steps import failure_step, flush_step
from runner.config import Config
from runner.engine.browser import BrowserSession
from runner.engine.loop import EngineBlocked, EngineTimeout
from runner.events import Event
from runner.redaction import Redactor
from runner.redaction.traces import scrub_trace
from runner.run.browser_host import STALL_S, BrowserHost
from runner.run.spec_videos import SpecVideos
from runner.usercode.tracebacks import first_line

__all__ = ["Recordings"]

# Starting a test's trace, and ending it (written or discarded): a browser that does not answer
# in time loses the trace, not the test.
_TRACE_WAIT_S = 10


class Recordings:
    """The run's spec videos and test traces, recorded through the browser host."""

    def __init__(self, *, host: BrowserHost, config: Callable[[], Config], redactor: Callable[[], Redactor],
                 videos_enabled: Callable[[], bool], finish_in_background: Callable[[], bool],
                 publish: Callable[[Event], None], warn: Callable[[str], None]) -> None:
        self._host = host
        self._config = config  # the run's configuration
        self._redactor = redactor  # the run's (the plugins file may give it more to hide)
        self._videos_enabled = videos_enabled  # asked when the first video starts
        self._finish_in_background = finish_in_background
        self._publish = publish
        self._warn = warn
        self._videos: SpecVideos | None = None
        self._discarding: concurrent.futures.Future[bool] | None = None  # the last test's trace, being discarded

    @property
    def videos(self) -> SpecVideos:
        if self._videos is None:
            self._videos = SpecVideos(
                self._config(), lambda: self._host.loop,
                enabled=self._videos_enabled(),
                finish_in_background=self._finish_in_background,
                publish=self._publish,
            )
        return self._videos

    def finish_spec(self, spec_relative: str, passed: bool) -> str | None:
        """The spec ``spec_relative`` ended: finish its video. Returns the video's path when one
        is kept (``video.written`` follows when the file is complete)."""
        if self._videos is None:
            return None
        self._host.abandon_blocked()  # its recording cannot be finished through a blocked loop
        return self._videos.finish(passed=passed)

    def settle_videos(self) -> None:
        """Wait for videos still being written (each publishes ``video.written``)."""
        if self._videos is not None:
            self._host.abandon_blocked()
            self._videos.settle()

    def catch_up(self) -> None:
        """The test ended: the spec's video notes where (see ``SpecVideos.catch_up``)."""
        if self._videos is not None:
            self._videos.catch_up()

    def settle_last_test(self) -> None:
        """The page is about to be reset for the next test (or closed): the last test's video
        catch-up is waited for first (``SpecVideos.caught_up``: the video has the test's last
        state before the page moves on). The discarding of its trace is not: see
        :meth:`settle_discarded_trace`."""
        if self._videos is not None:
            self._videos.caught_up()

    def settle_discarded_trace(self) -> None:
        """Wait for the last test's trace to be discarded: before a trace is started again
        (tracing starts only once the last one stopped, so the new trace holds nothing of the
        reset) and before the browser closes. The reset between the two tests does not wait for
        it: whatever of the reset the stopping trace still sees is thrown away with it."""
        discarding, self._discarding = self._discarding, None
        if discarding is not None:
            try:  # watched as the loop's other calls are: a loop found blocked is given up by the reset
                self._host.loop.run(_settled(discarding), _TRACE_WAIT_S, stall=STALL_S)
            except Exception:  # noqa: BLE001 - a discarded trace is nobody's news; the next start says why it cannot
                discarding.cancel()

    def abandon(self, why: str) -> None:
        """The engine's loop was given up: the video being recorded through it is lost (and the
        trace being discarded on it is not waited for)."""
        self._discarding = None
        if self._videos is not None:
            self._videos.abandon(why)

    def close_videos(self) -> None:
        """The run ends: finish the last spec's video (no verdict) and wait for every video."""
        if self._videos is not None:
            self._videos.finish(passed=None)
            self._videos.settle()

    def start_trace(self, browser: BrowserSession, config: Config, spec_relative: str, title: str,
                    attempt: int) -> bool:
        """Start tracing the test; False (with a warning) when the browser cannot."""
        name = f"{spec_relative} :: {title}" + (f" (attempt {attempt})" if attempt > 1 else "")
        try:
            self._host.loop.run(browser.start_trace(name, screenshots=bool(config.trace_screenshots)),
                                _TRACE_WAIT_S, stall=STALL_S)
        except Exception as err:  # noqa: BLE001 - the test runs untraced
            self._warn(f"the trace of {title} could not be started: {first_line(err)}")
            return False
        return True

    def end_trace(self, ctx: TestContext, path: Path | None,
                  error: tuple[BaseException, str | None, int | None] | None = None) -> str | None:
        """Write the test's trace to ``path``, or discard it (None). Returns the path written; a
        trace that cannot be written is lost with a warning, the test's result unchanged."""
        flush_step(ctx)
        browser = self._host.launched
        if browser is None:
            return None
        if path is None:
            # Nothing to write, nothing to say (a discarded trace that cannot be stopped is no
            # news): neither the test nor the next reset waits for it, the next trace's start
            # does (settle_discarded_trace).
            self._discarding = self._host.loop.submit(browser.stop_trace(None))
            return None
        where = "" if path is None else f" to {str(path)!r}"
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            failure = failure_step(*error) if error is not None and path is not None else None
            written = self._host.loop.run(browser.stop_trace(path, failure), _TRACE_WAIT_S, stall=STALL_S)
        except EngineBlocked as err:
            why = str(err)
        except EngineTimeout:
            why = f"the browser did not answer within {_TRACE_WAIT_S} s"
        except Exception as err:  # noqa: BLE001 - a lost trace must not fail the test
            why = first_line(err)
        else:
            if not written or path is None:
                return None
            problem = self._scrub_trace(path)
            if problem is None:
                return str(path)
            why = problem
        if path is not None:
            self._warn(f"the trace of {ctx.title} could not be written{where}: {why}")
        return None

    def _scrub_trace(self, path: Path) -> str | None:
        """Hide the run's secrets in the trace just written (and drop its bodies when
        ``redact.traceBodies`` is false). Returns why it could not (the trace is then deleted:
        a trace with secrets in clear is not kept)."""
        rules = self._config().get("redact") or {}
        try:
            scrub_trace(path, self._redactor(), drop_bodies=rules.get("traceBodies") is False)
        except (OSError, zipfile.BadZipFile) as err:
            path.unlink(missing_ok=True)
            return f"its secrets could not be hidden ({err})"
        return None


async def _settled(future: concurrent.futures.Future[bool]) -> None:
    """Wait, on the engine loop, for what was submitted to it (its result is not wanted)."""
    await asyncio.wrap_future(future)
