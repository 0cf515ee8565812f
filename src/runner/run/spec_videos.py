"""One video per spec: started with the spec's first test, finished when the spec ends.

The recorder itself (CDP screencast into ffmpeg) is ``artifacts/video.py``; this module decides
when to record, where the file goes (``videosFolder/<spec path>.mp4``) and what to keep
(``videoUploadOnPasses: false`` deletes the videos of specs that passed).

When a spec ends, its recording is ended at once (the page is free for the next spec) but ffmpeg
finishes the file in the background while the next spec runs: that wait (~0.1 s a spec) is
otherwise pure overhead. :meth:`SpecVideos.settle` waits for all of them; the run calls it before
the reporters' run end. When the plugins file listens to ``after:spec`` (whose handler may read
the video), each video is finished before the spec is reported instead.
"""

from __future__ import annotations

import concurrent.futures
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.artifacts.folders import folder_problem
from runner.events import Event, VideoWritten

if TYPE_CHECKING:
    from runner.config import Config
    from runner.engine.browser import BrowserSession
    from runner.engine.devtools import DevTools
    from runner.engine.loop import EngineLoop

__all__ = ["SpecVideos"]

#: Seconds ffmpeg may take to finish one video after its spec ended.
FINISH_TIMEOUT = 120.0
#: Seconds the next test's reset waits for the last test's catch-up (it takes well under one; a
#: page or loop that does not answer is not waited for longer).
CATCH_UP_BOUND = 10.0


@dataclass
class _Part:
    """One mp4 of a spec (a spec has several when the browser was relaunched during it)."""

    spec: str
    path: Path
    done: concurrent.futures.Future[Path]
    started_at: float | None = None  # the wall clock at its time 0


@dataclass
class _Finished:
    """What :meth:`SpecVideos.finish` reported for a spec whose files may still be encoding."""

    spec: str
    label: str | None
    parts: list[_Part]
    delete: bool  # videoUploadOnPasses: false and the spec passed
    settled: bool = field(default=False)


class SpecVideos:
    """Records the spec that is running; a no-op when ``video`` is off or the run is headed."""

    def __init__(self, config: Config, loop: Callable[[], EngineLoop], *, enabled: bool,
                 finish_in_background: Callable[[], bool] = lambda: True,
                 publish: Callable[[Event], None] | None = None) -> None:
        self.config = config
        self._loop = loop  # the run's engine loop now (a blocked one is replaced)
        folder = config.path("videosFolder")
        # A folder that cannot be used was reported when the run started (runner run's warnings).
        self.enabled = enabled and bool(config.video) and folder is not None and folder_problem(folder) is None
        self.finish_in_background = finish_in_background
        self._publish = publish
        self._recorder: Any = None
        self._devtools: DevTools | None = None  # the recorded page's (a relaunch makes a new one)
        self._spec: str | None = None
        self._parts: list[_Part] = []
        self._finished: list[_Finished] = []
        self._catching: concurrent.futures.Future[None] | None = None  # the last test's catch_up

    @property
    def loop(self) -> EngineLoop:
        return self._loop()

    def _path(self, spec_relative: str) -> Path:
        folder = self.config.path("videosFolder")
        assert folder is not None
        suffix = f" ({len(self._parts) + 1})" if self._parts else ""
        return folder / f"{spec_relative}{suffix}.mp4"

    def ensure(self, spec_relative: str, browser: BrowserSession) -> None:
        """Make sure the current spec is being recorded on ``browser``'s page."""
        if not self.enabled:
            return
        if self._spec is not None and self._spec != spec_relative:
            self.finish(passed=None)
        devtools = browser.devtools
        if self._recorder is not None and self._devtools is devtools:
            return
        if self._recorder is not None:  # the browser was relaunched: close the broken part
            self._stop()
        from runner.artifacts.video import VideoRecorder

        path = self._path(spec_relative)
        width, height = (int(self.config.viewport_width), int(self.config.viewport_height))
        try:
            if devtools is None:
                raise RuntimeError("the browser has no page")
            path.parent.mkdir(parents=True, exist_ok=True)
            recorder = VideoRecorder(devtools, path, crf=self.config.video_crf, viewport=(width, height))
            self.loop.run(recorder.start(), 30)
        except Exception as err:  # noqa: BLE001 - a video that cannot start must not fail a test
            print(f"runner: warning: the video of {spec_relative} could not be recorded: {err}",
                  file=sys.stderr)
            self.enabled = False
            return
        self._recorder, self._devtools, self._spec = recorder, devtools, spec_relative

    def catch_up(self) -> None:
        """A test ended: its last state goes into the video even when the screencast was paused.

        Started, not waited for: the frame of a restarted screencast takes a moment (~20 ms a
        test), which the end of the test and its reports overlap. :meth:`caught_up` waits for
        it before anything moves the page on (the next test's reset, the end of the video)."""
        if self._recorder is None:
            return
        self.caught_up()
        self._catching = self.loop.submit(self._recorder.catch_up())

    def caught_up(self) -> None:
        """Wait (at most ``CATCH_UP_BOUND`` s) for the last :meth:`catch_up`: the page is about to
        move on, and the video must have its state first."""
        catching, self._catching = self._catching, None
        if catching is None:
            return
        try:
            catching.result(CATCH_UP_BOUND)
        except Exception:  # noqa: BLE001 - the video goes on (or is reported lost at its end)
            catching.cancel()

    def _stop(self) -> None:
        """End the current recording; ffmpeg finishes its file in the background."""
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        spec = self._spec or "?"
        self.caught_up()  # ending the screencast while a catch-up restarts it would lose the end
        try:
            self.loop.run(recorder.end(), 30)
        except Exception as err:  # noqa: BLE001 - a lost video must not fail the run
            self._lost(spec, err)
            try:
                self.loop.run(recorder.abort(), 30)
            except Exception:  # noqa: BLE001
                pass
            return
        done = self.loop.submit(recorder.finished(FINISH_TIMEOUT))
        self._parts.append(_Part(spec, recorder.path, done, recorder.started_at))

    def abandon(self, why: str) -> None:
        """The engine's loop was blocked and given up: what was being recorded or finished on
        it is lost (it may never run again)."""
        catching, self._catching = self._catching, None
        if catching is not None:
            catching.cancel()
        if self._recorder is not None:
            self._lost(self._spec or "?", RuntimeError(why))
            self._recorder = self._devtools = None
        lost: concurrent.futures.Future[Path] = concurrent.futures.Future()
        lost.set_exception(RuntimeError(why))
        for part in [*self._parts, *(p for f in self._finished for p in f.parts)]:
            if not part.done.done():
                part.done = lost

    @staticmethod
    def _lost(spec: str, err: BaseException) -> None:
        print(f"runner: warning: the video of {spec} was lost: {err}", file=sys.stderr)

    def finish(self, *, passed: bool | None) -> str | None:
        """End the spec's recording. Returns the video's path, or None when none is kept.

        ``passed`` is the spec's outcome (None when unknown); with ``videoUploadOnPasses: false``
        the video of a spec that passed is deleted.
        """
        if not self.enabled or self._spec is None:
            return None
        self._stop()
        spec = self._spec
        parts, self._parts, self._spec = self._parts, [], None
        delete = bool(passed) and not self.config.video_upload_on_passes
        label = None if delete or not parts else ", ".join(str(p.path) for p in parts)
        finished = _Finished(spec, label, parts, delete)
        self._finished.append(finished)
        if not self.finish_in_background():
            return self._settle(finished)
        return label

    def _settle(self, finished: _Finished) -> str | None:
        """Wait for the spec's files; returns its label as it stands (lost files left out) and
        publishes ``video.written``."""
        if finished.settled:
            return finished.label
        finished.settled = True
        kept: list[Path] = []
        for part in finished.parts:
            try:
                part.done.result(FINISH_TIMEOUT + 10)
            except Exception as err:  # noqa: BLE001 - a lost video must not fail the run
                self._lost(part.spec, err)
                continue
            if finished.delete:
                part.path.unlink(missing_ok=True)
            else:
                kept.append(part.path)
        if finished.label is not None:
            finished.label = ", ".join(str(p) for p in kept) if kept else None
        if self._publish is not None:
            self._publish(VideoWritten(spec=finished.spec, video=finished.label,
                                       started_at=finished.parts[0].started_at if finished.parts else None))
        return finished.label

    def settle(self) -> None:
        """Wait until every ended video is written (or known lost); each publishes
        ``video.written`` with what is kept of it."""
        for finished in self._finished:
            self._settle(finished)
        self._finished = [f for f in self._finished if not f.settled]
