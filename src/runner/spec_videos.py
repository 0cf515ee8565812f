"""One video per spec: started with the spec's first test, finished when the spec ends.

The recorder itself (CDP screencast into ffmpeg) is ``artifacts/video.py``; this module decides
when to record, where the file goes (``videosFolder/<spec path>.mp4``) and what to keep
(``videoUploadOnPasses: false`` deletes the videos of specs that passed).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.config import Config
    from runner.engine.browser import BrowserSession
    from runner.engine.loop import EngineLoop

__all__ = ["SpecVideos"]


class SpecVideos:
    """Records the spec that is running; a no-op when ``video`` is off or the run is headed."""

    def __init__(self, config: Config, loop: EngineLoop, *, enabled: bool) -> None:
        self.config = config
        self.loop = loop
        self.enabled = enabled and bool(config.video) and config.path("videosFolder") is not None
        self._recorder: Any = None
        self._cdp: Any = None
        self._spec: str | None = None
        self._parts: list[Path] = []

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
        if self._recorder is not None and self._cdp is browser.cdp:
            return
        if self._recorder is not None:  # the browser was relaunched: close the broken part
            self._stop()
        from runner.artifacts.video import VideoRecorder

        path = self._path(spec_relative)
        width, height = (int(self.config.viewport_width), int(self.config.viewport_height))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            recorder = VideoRecorder(browser.cdp, path, crf=self.config.video_crf, viewport=(width, height))
            self.loop.run(recorder.start(), 30)
        except Exception as err:  # noqa: BLE001 - a video that cannot start must not fail a test
            print(f"runner: warning: the video of {spec_relative} could not be recorded: {err}",
                  file=sys.stderr)
            self.enabled = False
            return
        self._recorder, self._cdp, self._spec = recorder, browser.cdp, spec_relative

    def _stop(self) -> None:
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        try:
            self._parts.append(self.loop.run(recorder.stop(), 120))
        except Exception as err:  # noqa: BLE001 - a lost video must not fail the run
            print(f"runner: warning: the video of {self._spec} was lost: {err}", file=sys.stderr)
            try:
                self.loop.run(recorder.abort(), 30)
            except Exception:  # noqa: BLE001
                pass

    def finish(self, *, passed: bool | None) -> str | None:
        """End the spec's recording. Returns the video's path, or None when none is kept.

        ``passed`` is the spec's outcome (None when unknown); with ``videoUploadOnPasses: false``
        the video of a spec that passed is deleted.
        """
        if not self.enabled or self._spec is None:
            return None
        self._stop()
        parts, self._parts, self._spec = self._parts, [], None
        if passed and not self.config.video_upload_on_passes:
            for part in parts:
                part.unlink(missing_ok=True)
            return None
        return ", ".join(str(p) for p in parts) if parts else None
