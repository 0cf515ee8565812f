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
  stop time so the video lasts as long as the recording.
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
import base64
import collections
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from runner.errors import ConfigError, RunnerError

__all__ = ["VideoRecorder", "DevToolsChannel", "find_ffmpeg", "VideoError"]

#: Frames waiting for ffmpeg at most (a JPEG of a 1000x660 page is 30-100 KB).
MAX_PENDING_FRAMES = 30
#: JPEG quality asked of the browser.
JPEG_QUALITY = 70
#: Frames are captured at this fraction of the viewport (the video is scaled back up): the
#: browser's JPEG encoding and the frames' trip through the driver dominate the cost.
SCREENCAST_SCALE = 0.5
#: How much lower than runner's the encoder's CPU priority is (``nice``).
FFMPEG_NICENESS = 10
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


# -- a minimal streaming Matroska writer (one MJPEG video track) ----------------------------------


def _vint_size(n: int) -> bytes:
    """EBML variable-size integer for an element's data size."""
    for length in range(1, 9):
        if n < (1 << (7 * length)) - 1:
            return (n | (1 << (7 * length))).to_bytes(length, "big")
    raise ValueError("EBML element too large")


def _uint(n: int) -> bytes:
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def _el(ident: int, data: bytes) -> bytes:
    return _uint(ident) + _vint_size(len(data)) + data


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a JPEG image, read from its frame header (SOFn), or None."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > len(data):
                return None
            height = int.from_bytes(data[i + 5:i + 7], "big")
            width = int.from_bytes(data[i + 7:i + 9], "big")
            return (width, height) if width and height else None
        i += 2 + length
    return None


def mkv_header(width: int, height: int) -> bytes:
    """EBML header, an open-ended Segment, Info (millisecond timecodes) and the one track.

    ``width`` and ``height`` must be those of the first JPEG frame: ffmpeg's MJPEG decoder takes
    a first frame well under the track's height for one field of an interlaced picture and then
    pairs up frames (half of them would be lost).
    """
    ebml = _el(0x1A45DFA3, b"".join([
        _el(0x4286, _uint(1)), _el(0x42F7, _uint(1)), _el(0x42F2, _uint(4)),
        _el(0x42F3, _uint(8)), _el(0x4282, b"matroska"), _el(0x4287, _uint(4)),
        _el(0x4285, _uint(2)),
    ]))
    info = _el(0x1549A966, b"".join([
        _el(0x2AD7B1, _uint(1_000_000)), _el(0x4D80, b"runner"), _el(0x5741, b"runner"),
    ]))
    video = _el(0xE0, _el(0xB0, _uint(width)) + _el(0xBA, _uint(height)))
    track = _el(0xAE, b"".join([
        _el(0xD7, _uint(1)), _el(0x73C5, _uint(1)), _el(0x83, _uint(1)),
        _el(0x86, b"V_MJPEG"), video,
    ]))
    segment_unknown_size = _uint(0x18538067) + b"\x01\xff\xff\xff\xff\xff\xff\xff"
    return ebml + segment_unknown_size + info + _el(0x1654AE6B, track)


def mkv_frame(timecode_ms: int, jpeg: bytes) -> bytes:
    """One Cluster holding one keyframe SimpleBlock at ``timecode_ms``."""
    block = b"\x81" + struct.pack(">hB", 0, 0x80) + jpeg
    return _el(0x1F43B675, _el(0xE7, _uint(timecode_ms)) + _el(0xA3, block))


# -- the recorder ----------------------------------------------------------------------------------


def _lower_priority(pid: int) -> None:
    """Give the encoder a lower CPU priority: it only has to keep up on average, while the
    browser and the test are what a user waits for."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, FFMPEG_NICENESS)
    except (AttributeError, OSError):  # not on this system, or not allowed: the default then
        pass


class _Frame:
    __slots__ = ("ms", "data")

    def __init__(self, ms: int, data: bytes | str) -> None:
        self.ms = ms
        self.data = data  # base64 text from CDP; decoded in the writer thread


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
        self.frames_dropped = 0
        self.frames_written = 0  # handed to ffmpeg, the tail frame included
        self.pauses = 0
        self._prev_frame_mono: float | None = None  # arrival of the previous frame, this cast
        self._pausing = False
        self._pacer: asyncio.Task[None] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._pending: collections.deque[_Frame] = collections.deque()
        self._closing = False
        self._write_error: BaseException | None = None
        self._last_frame: _Frame | None = None
        self._origin_ts: float | None = None  # browser timestamp of video time 0
        self._started_mono = 0.0
        self.started_at: float | None = None
        self._last_ms = -1
        self._last_mono = 0.0
        self._last_ts: float | None = None
        self._ack_tasks: set[asyncio.Task[Any]] = set()
        self._running = False

    # -- ffmpeg -----------------------------------------------------------------------------------
    def video_size(self) -> tuple[int, int]:
        """The mp4's width and height: the screencast's frame size (``scale`` of the viewport,
        even, as yuv420p needs). Encoding at the viewport size instead would cost four times the
        pixels for no detail the frames have."""
        return (max(2, int(self.width * self.scale) // 2 * 2), max(2, int(self.height * self.scale) // 2 * 2))

    def _command(self, exe: str) -> list[str]:
        if self.crf is None:
            quality = ["-preset", "ultrafast", "-crf", "23"]
        else:
            quality = ["-preset", "veryfast", "-crf", str(int(self.crf))]
        w, h = self.video_size()
        fit = (
            f"scale={w}:{h}:force_original_aspect_ratio=decrease,"
            f"pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,format=yuv420p"
        )
        return [
            exe, "-hide_banner", "-loglevel", "error", "-y",
            "-f", "matroska", "-i", "pipe:0",
            "-vf", fit, "-fps_mode", "passthrough",
            # No B-frames: with variable frame timing they made the mp4 track end early (a
            # long idle stretch was cut off in players that trust the track duration).
            "-c:v", "libx264", *quality, "-bf", "0", "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", "-f", "mp4", str(self.path),
        ]

    async def start(self) -> None:
        """Start ffmpeg and the screencast."""
        if self._running:
            return
        exe = self.ffmpeg or find_ffmpeg()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            self._command(exe),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            # A process group of its own: a terminal's Ctrl-C (sent to runner's group) must not
            # reach ffmpeg, which would end the file unfinished; runner finishes it on the way out.
            process_group=0,
        )
        _lower_priority(self._proc.pid)
        self._thread = threading.Thread(target=self._writer, name="runner-video", daemon=True)
        self._thread.start()
        self._started_mono = time.monotonic()
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
        received = self.frames_received
        try:
            await asyncio.wait_for(self._start_screencast(), 5)
        except Exception:  # noqa: BLE001 - the page or browser is gone; end() still finishes
            return
        # the restart's frame is taken a moment later: wait for it (briefly) before the page moves on
        deadline = time.monotonic() + CATCH_UP_WAIT
        while self.frames_received == received and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

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
        ts = (params.get("metadata") or {}).get("timestamp")
        if not isinstance(ts, (int, float)) or (self._last_ts is not None and ts < self._last_ts):
            ts = None
        if self._origin_ts is None:
            # Video time 0 is start(); the browser's clock may differ from ours, so map by the
            # delay between start() and this first frame's arrival.
            base = ts if ts is not None else now
            self._origin_ts = base - (now - self._started_mono)
            if ts is None:
                self._origin_ts = self._started_mono
                ts = now
        elif ts is None:
            ts = (self._last_ts or 0.0) + (now - self._last_mono)
        self._last_ts, self._last_mono = ts, now
        ms = max(0, int((ts - self._origin_ts) * 1000))
        if ms <= self._last_ms:
            ms = self._last_ms + 1
        self._last_ms = ms
        self.frames_received += 1
        self._push(_Frame(ms, params.get("data", "")))

    async def _ack(self, session_id: Any) -> None:
        try:
            await self.devtools.send("Page.screencastFrameAck", {"sessionId": session_id})
        except Exception:  # noqa: BLE001 - the page went away; nothing to ack
            pass

    def _push(self, frame: _Frame) -> None:
        with self._cond:
            if len(self._pending) >= MAX_PENDING_FRAMES:
                self._pending.pop()  # keep the newest: the last state before idle must show
                self.frames_dropped += 1
            self._pending.append(frame)
            self._cond.notify()

    def _writer(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        header_written = False
        try:
            while True:
                with self._cond:
                    while not self._pending and not self._closing:
                        self._cond.wait()
                    batch = list(self._pending)
                    self._pending.clear()
                    closing = self._closing
                for frame in batch:
                    data = frame.data
                    jpeg = base64.b64decode(data) if isinstance(data, str) else data
                    if not jpeg:
                        continue
                    if not header_written:
                        size = jpeg_size(jpeg) or (self.width, self.height)
                        proc.stdin.write(mkv_header(*size))
                        header_written = True
                    proc.stdin.write(mkv_frame(frame.ms, jpeg))
                    self.frames_written += 1
                    frame.data = jpeg
                    self._last_frame = frame
                if closing and not self._pending:
                    return
        except (BrokenPipeError, OSError, ValueError) as exc:
            self._write_error = exc
        finally:
            try:
                proc.stdin.close()
            except (BrokenPipeError, OSError):
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

    def _close_writer(self, end_ms: int | None, final: str | None = None) -> None:
        """Write the tail frame (``final``, else the last one again) at ``end_ms`` (when given)
        and let the writer finish."""
        with self._cond:
            if end_ms is not None:
                last = self._pending[-1] if self._pending else self._last_frame
                if last is None and final is not None:
                    self._pending.append(_Frame(0, final))
                    last = self._pending[-1]
                if last is not None and end_ms > last.ms:
                    self._pending.append(_Frame(end_ms, final if final is not None else last.data))
            self._closing = True
            self._cond.notify()

    async def stop(self, timeout: float = 120.0) -> Path:
        """End the recording, wait (at most ``timeout`` s) for ffmpeg; return the mp4's path."""
        await self.end()
        return await self.finished(timeout)

    async def end(self) -> None:
        """End the recording: stop the screencast and hand ffmpeg its last frame (quick; the
        page is free again afterwards). :meth:`finished` waits for the file."""
        if self._proc is None:
            raise VideoError("VideoRecorder.end() called before start().")
        if self._closing:
            return
        end_mono = time.monotonic()
        await self._stop_screencast()
        # The screencast may have been paused when the page last painted: end the video on a
        # fresh screenshot of it (also the only frame of a page that never painted while
        # recorded).
        final = await self._screenshot()
        end_ms = int((end_mono - self._started_mono) * 1000)
        if self._origin_ts is not None and self._last_ts is not None:
            end_ms = int((self._last_ts - self._origin_ts + end_mono - self._last_mono) * 1000)
        self._close_writer(max(end_ms, self._last_ms + 1, 1), final)

    async def finished(self, timeout: float = 120.0) -> Path:
        """Wait (at most ``timeout`` s) for ffmpeg to finish the file :meth:`end` closed; return
        its path. Raises :class:`VideoError` (and leaves no partial file) when it failed."""
        if self._proc is None or not self._closing:
            raise VideoError("VideoRecorder.finished() called before end().")
        proc = self._proc
        thread = self._thread

        def finish() -> int:
            if thread is not None:
                thread.join(timeout)
            return proc.wait(timeout)

        try:
            code = await asyncio.get_running_loop().run_in_executor(None, finish)
        except subprocess.TimeoutExpired:
            await self.abort()
            raise VideoError(
                f"ffmpeg did not finish encoding {self.path} within {timeout:g} s; the video "
                "was dropped."
            ) from None
        if code != 0 or not self.path.exists() or self.path.stat().st_size == 0:
            message = self._stderr_tail()
            self._discard()
            raise VideoError(
                f"ffmpeg failed to encode {self.path} (exit code {code}): {message or 'no output'}"
            )
        self._close_stderr()
        return self.path

    async def abort(self) -> None:
        """Stop recording and delete the partial file."""
        if not self._closing:  # after end() the page (and its CDP session) may record another spec
            await self._stop_screencast()
        self._close_writer(None)
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            await asyncio.get_running_loop().run_in_executor(None, proc.wait, 10)
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10)
        self._discard()

    def _discard(self) -> None:
        self._close_stderr()
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            text: str = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return " | ".join(lines[-5:])

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            try:
                self._stderr.close()
            except OSError:
                pass
            self._stderr = None
