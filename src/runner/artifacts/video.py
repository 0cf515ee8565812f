"""Record a page as an mp4: the browser's own screencast (CDP) encoded by ffmpeg.

How it works, and why:

* ``Page.startScreencast`` sends a JPEG whenever the page paints (up to ~55 per second,
  irregularly; nothing at all while the page is idle). Each frame is acked at once on the loop,
  so a slow ffmpeg can never hold the browser back.
* Frames are timed by their own ``metadata.timestamp``. Instead of repeating frames to reach a
  constant rate (costly for long idle stretches: every copy is decoded and encoded again), each
  frame is wrapped with its timestamp in a tiny streaming Matroska container (``V_MJPEG``) and
  piped to ffmpeg, which writes a variable-frame-rate mp4 (``-fps_mode passthrough``). An idle
  minute costs nothing; at :meth:`VideoRecorder.stop` the last frame is written once more at the
  stop time so the video lasts as long as the recording. The Matroska writer is
  :mod:`.matroska`; ffmpeg, its pipe and the bounded buffer that feeds it are
  :mod:`.video_encoder`; this module is the screencast and the video's clock.
* The pipe is written by a background thread from a bounded buffer; when ffmpeg falls behind,
  the buffer keeps the newest frame and drops older ones (bounded memory, final state kept).
* Cost: while the screencast runs, the browser captures every frame the page composites (the
  capture happens whether or not a frame is then sent; ``everyNthFrame`` and late acks only
  spare the sending). A page that paints continuously (a spinner, an endless animation) is
  captured ~60 times a second, which slowed quick tests by 25-40 %. So the screencast is paced:
  when two frames arrive less than ``HOT_INTERVAL`` apart, it is stopped and started again
  ``PAUSE`` later. A (re)started screencast sends the page as it is at once, so nothing that
  lasts longer than a pause is missed, and a page that has stopped painting costs nothing.
  Continuous animation is thus sampled at roughly 8-12 frames a second; occasional paints
  (typing, clicks, navigation) all arrive. Frames are asked at half the viewport size
  (``SCREENCAST_SCALE``). :meth:`VideoRecorder.stop` ends the video on a fresh screenshot.
* Encoding is libx264 (h264 in mp4 plays in every browser and player; MJPEG-in-mp4 does not).
  ``crf`` is the ``videoCompression`` CRF; ``crf=None`` (compression off) uses the lightest
  setting that still plays everywhere: ``-preset ultrafast`` at x264's default quality (CRF 23).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from runner.artifacts.video_encoder import FfmpegPipe
from runner.errors import ConfigError, RunnerError

__all__ = ["VideoRecorder", "DevToolsChannel", "find_ffmpeg", "VideoError"]

#: JPEG quality asked of the browser.
JPEG_QUALITY = 70
#: Frames are captured at this fraction of the viewport (the video is scaled back up): the
#: browser's JPEG encoding and the frames' trip through the driver dominate the cost.
SCREENCAST_SCALE = 0.5
#: Seconds :meth:`VideoRecorder.catch_up` waits for the frame of a restarted screencast.
CATCH_UP_WAIT = 0.5
#: Two frames closer than this (seconds) mean the page is painting continuously...
HOT_INTERVAL = 0.1
#: ...and the screencast is then stopped for this long (seconds) before it is started again.
PAUSE = 0.15


class VideoError(RunnerError):
    """ffmpeg failed or did not finish encoding a video in time."""


class DevToolsChannel(Protocol):
    """What the recorder needs of the page's DevTools protocol session.

    runner hands it the engine's adapter (``runner.engine.devtools.DevTools``); a Playwright
    ``CDPSession`` fits too.
    """

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def on(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None: ...

    def remove_listener(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None: ...


def find_ffmpeg() -> str:
    """The ffmpeg to use: the ``imageio-ffmpeg`` wheel's binary, else ``ffmpeg`` on PATH."""
    try:
        import imageio_ffmpeg  # type: ignore[import-not-found, unused-ignore]

        exe = str(imageio_ffmpeg.get_ffmpeg_exe())
        if exe and os.path.exists(exe):
            return exe
    except Exception:  # noqa: BLE001 - not installed, or the wheel has no binary for here
        pass
    found = shutil.which("ffmpeg")
    if found:
        return found
    raise ConfigError(
        "video: true needs ffmpeg to encode the videos, and none was found (neither the "
        "imageio-ffmpeg package nor an ffmpeg on PATH). Install one with "
        "`pip install imageio-ffmpeg` or `apt-get install ffmpeg`, or set \"video\": false in "
        "runner.json."
    )


# -- the video's clock ------------------------------------------------------------------------------


class _VideoClock:
    """Maps the browser's frame timestamps to milliseconds of the video: time 0 is
    :meth:`VideoRecorder.start`, and each frame comes strictly after the one before."""

    def __init__(self) -> None:
        self.origin_ts: float | None = None  # browser timestamp of video time 0
        self.started_mono = 0.0
        self.last_ms = -1
        self.last_mono = 0.0
        self.last_ts: float | None = None

    def frame_ms(self, ts: Any, now: float) -> int:
        """The time in the video of a frame stamped ``ts`` by the browser (anything else when
        it has none) that arrived at ``now`` (monotonic)."""
        if not isinstance(ts, (int, float)) or (self.last_ts is not None and ts < self.last_ts):
            ts = None
        if self.origin_ts is None:
            # Video time 0 is start(); the browser's clock may differ from ours, so map by the
            # delay between start() and this first frame's arrival.
            base = ts if ts is not None else now
            self.origin_ts = base - (now - self.started_mono)
            if ts is None:
                self.origin_ts = self.started_mono
                ts = now
        elif ts is None:
            ts = (self.last_ts or 0.0) + (now - self.last_mono)
        self.last_ts, self.last_mono = ts, now
        ms = max(0, int((ts - self.origin_ts) * 1000))
        if ms <= self.last_ms:
            ms = self.last_ms + 1
        self.last_ms = ms
        return ms

    def end_ms(self, end_mono: float) -> int:
        """The video's end for a recording ended at ``end_mono``: after its last frame."""
        end_ms = int((end_mono - self.started_mono) * 1000)
        if self.origin_ts is not None and self.last_ts is not None:
            end_ms = int((self.last_ts - self.origin_ts + end_mono - self.last_mono) * 1000)
        return max(end_ms, self.last_ms + 1, 1)


class VideoRecorder:
    """Records the page behind ``devtools`` into ``path`` (an mp4). Runs on the engine loop.

    ``devtools`` is the page's protocol session (a :class:`DevToolsChannel`: ``await
    send(method, params)``, ``on(event, callback)`` and ``remove_listener(event, callback)``).
    """

    def __init__(
        self,
        devtools: DevToolsChannel,
        path: Path,
        *,
        crf: int | None,
        viewport: tuple[int, int],
        ffmpeg: str | None = None,
    ) -> None:
        if crf is not None and not 0 <= int(crf) <= 51:
            raise ConfigError(f"videoCompression: {crf!r} is not a CRF. Expected 0 to 51, or false.")
        self.devtools = devtools
        self.path = Path(path)
        self.crf = crf
        width, height = viewport
        self.width = max(2, int(width) + int(width) % 2)  # yuv420p needs even sizes
        self.height = max(2, int(height) + int(height) % 2)
        self.ffmpeg = ffmpeg
        self.scale = SCREENCAST_SCALE
        self.hot_interval = HOT_INTERVAL
        self.pause = PAUSE
        self.frames_received = 0
        self.pauses = 0
        self._prev_frame_mono: float | None = None  # arrival of the previous frame, this cast
        self._pausing = False
        self._pacer: asyncio.Task[None] | None = None
        self._encoder = FfmpegPipe(self.path, crf=crf, track_size=(self.width, self.height))
        self._clock = _VideoClock()
        self.started_at: float | None = None
        self._ack_tasks: set[asyncio.Task[Any]] = set()
        self._running = False
        self._next_frame: asyncio.Future[None] | None = None  # a catch-up waits for the next frame

    @property
    def frames_written(self) -> int:
        """Frames handed to ffmpeg, the tail frame included."""
        return self._encoder.frames_written

    @property
    def frames_dropped(self) -> int:
        """Frames dropped because ffmpeg fell behind (the newest is kept)."""
        return self._encoder.frames_dropped

    # -- ffmpeg -----------------------------------------------------------------------------------
    def video_size(self) -> tuple[int, int]:
        """The mp4's width and height: the screencast's frame size (``scale`` of the viewport,
        even, as yuv420p needs). Encoding at the viewport size instead would cost four times the
        pixels for no detail the frames have."""
        return (max(2, int(self.width * self.scale) // 2 * 2), max(2, int(self.height * self.scale) // 2 * 2))

    async def start(self) -> None:
        """Start ffmpeg and the screencast."""
        if self._running:
            return
        exe = self.ffmpeg or find_ffmpeg()
        self._encoder.start(exe, self.video_size())
        self._clock.started_mono = time.monotonic()
        self.started_at = time.time()  # the wall clock at the video's time 0
        self._running = True
        self.devtools.on("Page.screencastFrame", self._on_frame)
        try:
            await self._start_screencast()
        except BaseException:
            await self.abort()
            raise

    async def _start_screencast(self) -> None:
        self._prev_frame_mono = None
        await self.devtools.send("Page.startScreencast", {
            "format": "jpeg", "quality": JPEG_QUALITY,
            "maxWidth": max(2, int(self.width * self.scale)),
            "maxHeight": max(2, int(self.height * self.scale)),
        })

    async def _pause_screencast(self) -> None:
        """The page paints continuously: stop the screencast for ``pause`` s, then start it
        again (it sends the page as it is then at once)."""
        try:
            await asyncio.wait_for(self.devtools.send("Page.stopScreencast", {}), 5)
            self.pauses += 1
            await asyncio.sleep(self.pause)
            if self._running:
                await asyncio.wait_for(self._start_screencast(), 5)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the page or browser is gone; stop() still finishes
            pass
        finally:
            self._pausing = False

    async def catch_up(self) -> None:
        """Make sure the page as it is now gets into the video: when the screencast is paused
        (the page painted all the time), start it again at once (it sends the current page).
        A test's last state lasting less than a pause would be missed otherwise."""
        if not self._running or not await self._cancel_pacer():
            return
        self._pausing = False
        arrived = self._next_frame = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self._start_screencast(), 5)
            # the restart's frame is taken a moment later: wait for it (briefly) before the page
            # moves on; woken by its arrival, not by polling (the wait is on the test's path)
            await asyncio.wait({arrived}, timeout=CATCH_UP_WAIT)
        except Exception:  # noqa: BLE001 - the page or browser is gone; end() still finishes
            return
        finally:
            self._next_frame = None

    def _on_frame(self, params: dict[str, Any]) -> None:
        session_id = params.get("sessionId")
        ack = asyncio.ensure_future(self._ack(session_id))
        self._ack_tasks.add(ack)
        ack.add_done_callback(self._ack_tasks.discard)
        if not self._running:
            return
        now = time.monotonic()
        if (
            self._prev_frame_mono is not None
            and now - self._prev_frame_mono < self.hot_interval
            and not self._pausing
        ):
            self._pausing = True
            self._pacer = asyncio.ensure_future(self._pause_screencast())
        self._prev_frame_mono = now
        ms = self._clock.frame_ms((params.get("metadata") or {}).get("timestamp"), now)
        self.frames_received += 1
        self._encoder.push(ms, params.get("data", ""))
        if self._next_frame is not None and not self._next_frame.done():
            self._next_frame.set_result(None)

    async def _ack(self, session_id: Any) -> None:
        try:
            await self.devtools.send("Page.screencastFrameAck", {"sessionId": session_id})
        except Exception:  # noqa: BLE001 - the page went away; nothing to ack
            pass

    # -- ending -----------------------------------------------------------------------------------
    async def _cancel_pacer(self) -> bool:
        """Stop a pause in progress (the screencast stays stopped); whether there was one."""
        pacer, self._pacer = self._pacer, None
        if pacer is None or pacer.done():
            return False
        pacer.cancel()
        try:
            await pacer
        except BaseException:  # noqa: BLE001 - cancelled, or the page went away
            pass
        return True

    async def _stop_screencast(self) -> None:
        self._running = False
        await self._cancel_pacer()
        try:
            self.devtools.remove_listener("Page.screencastFrame", self._on_frame)
        except Exception:  # noqa: BLE001
            pass
        try:
            await asyncio.wait_for(self.devtools.send("Page.stopScreencast", {}), 5)
        except Exception:  # noqa: BLE001 - the page or browser is gone
            pass

    async def _screenshot(self) -> str | None:
        """The page as it is now (base64 JPEG), or None when the page is gone."""
        try:
            shot = await asyncio.wait_for(self.devtools.send("Page.captureScreenshot", {
                "format": "jpeg", "quality": JPEG_QUALITY, "optimizeForSpeed": True,
            }), 5)
        except Exception:  # noqa: BLE001
            return None
        data = shot.get("data") if isinstance(shot, dict) else None
        return data if isinstance(data, str) and data else None

    async def stop(self, timeout: float = 120.0) -> Path:
        """End the recording, wait (at most ``timeout`` s) for ffmpeg; return the mp4's path."""
        await self.end()
        return await self.finished(timeout)

    async def end(self) -> None:
        """End the recording: stop the screencast and hand ffmpeg its last frame (quick; the
        page is free again afterwards). :meth:`finished` waits for the file."""
        if self._encoder.proc is None:
            raise VideoError("VideoRecorder.end() called before start().")
        if self._encoder.closing:
            return
        end_mono = time.monotonic()
        await self._stop_screencast()
        # The screencast may have been paused when the page last painted: end the video on a
        # fresh screenshot of it (also the only frame of a page that never painted while
        # recorded).
        final = await self._screenshot()
        self._encoder.close(self._clock.end_ms(end_mono), final)

    async def finished(self, timeout: float = 120.0) -> Path:
        """Wait (at most ``timeout`` s) for ffmpeg to finish the file :meth:`end` closed; return
        its path. Raises :class:`VideoError` (and leaves no partial file) when it failed."""
        encoder = self._encoder
        if encoder.proc is None or not encoder.closing:
            raise VideoError("VideoRecorder.finished() called before end().")
        try:
            code = await asyncio.get_running_loop().run_in_executor(None, encoder.wait, timeout)
        except subprocess.TimeoutExpired:
            await self.abort()
            raise VideoError(
                f"ffmpeg did not finish encoding {self.path} within {timeout:g} s; the video "
                "was dropped."
            ) from None
        if code != 0 or not self.path.exists() or self.path.stat().st_size == 0:
            message = encoder.stderr_tail()
            encoder.discard()
            raise VideoError(
                f"ffmpeg failed to encode {self.path} (exit code {code}): {message or 'no output'}"
            )
        encoder.close_stderr()
        return self.path

    async def abort(self) -> None:
        """Stop recording and delete the partial file."""
        if not self._encoder.closing:  # after end() the page (and its CDP session) may record another spec
            await self._stop_screencast()
        self._encoder.close(None)
        await self._encoder.kill()
        self._encoder.discard()
