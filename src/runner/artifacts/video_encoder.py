"""The encoding half of a video recording: timed JPEG frames piped to ffmpeg.

Each frame is wrapped with its time in a streaming Matroska container (:mod:`.matroska`) and
piped to ffmpeg, which writes a variable-frame-rate h264 mp4 (``-fps_mode passthrough``). The
pipe is written by a background thread from a bounded buffer; when ffmpeg falls behind, the
buffer keeps the newest frame and drops older ones (bounded memory, final state kept).
:class:`~runner.artifacts.video.VideoRecorder` feeds it the page's screencast.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from runner.artifacts.matroska import jpeg_size, mkv_frame, mkv_header

__all__ = ["FFMPEG_NICENESS", "MAX_PENDING_FRAMES", "FfmpegPipe"]

#: Frames waiting for ffmpeg at most (a JPEG of a 1000x660 page is 30-100 KB).
MAX_PENDING_FRAMES = 30
#: How much lower than runner's the encoder's CPU priority is (``nice``).
FFMPEG_NICENESS = 10


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


class FfmpegPipe:
    """One ffmpeg encoding ``path`` from the frames it is pushed.

    ``track_size``: the Matroska track's width and height, when the first frame's JPEG does not
    say it. ``crf``: x264's CRF, or None for the lightest setting that
    still plays everywhere (``-preset ultrafast`` at x264's default quality, CRF 23).
    """

    def __init__(self, path: Path, *, crf: int | None, track_size: tuple[int, int]) -> None:
        self.path = path
        self.crf = crf
        self.track_size = track_size
        self.frames_dropped = 0
        self.frames_written = 0  # handed to ffmpeg, the tail frame included
        self.proc: subprocess.Popen[bytes] | None = None
        self.closing = False
        self._stderr: Any = None
        self._thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._pending: collections.deque[_Frame] = collections.deque()
        self._write_error: BaseException | None = None
        self._last_frame: _Frame | None = None

    def _command(self, exe: str, size: tuple[int, int]) -> list[str]:
        if self.crf is None:
            quality = ["-preset", "ultrafast", "-crf", "23"]
        else:
            quality = ["-preset", "veryfast", "-crf", str(int(self.crf))]
        w, h = size
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

    def start(self, exe: str, size: tuple[int, int]) -> None:
        """Start ``exe`` (an ffmpeg) encoding at ``size`` (the mp4's width and height, even),
        and the thread that writes to it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            self._command(exe, size),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            # A process group of its own: a terminal's Ctrl-C (sent to runner's group) must not
            # reach ffmpeg, which would end the file unfinished; runner finishes it on the way out.
            process_group=0,
        )
        _lower_priority(self.proc.pid)
        self._thread = threading.Thread(target=self._writer, name="runner-video", daemon=True)
        self._thread.start()

    def push(self, ms: int, data: bytes | str) -> None:
        """A frame (JPEG bytes, or base64 text) at ``ms`` of the video."""
        with self._cond:
            if len(self._pending) >= MAX_PENDING_FRAMES:
                self._pending.pop()  # keep the newest: the last state before idle must show
                self.frames_dropped += 1
            self._pending.append(_Frame(ms, data))
            self._cond.notify()

    def _writer(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        header_written = False
        try:
            while True:
                with self._cond:
                    while not self._pending and not self.closing:
                        self._cond.wait()
                    batch = list(self._pending)
                    self._pending.clear()
                    closing = self.closing
                for frame in batch:
                    data = frame.data
                    jpeg = base64.b64decode(data) if isinstance(data, str) else data
                    if not jpeg:
                        continue
                    if not header_written:
                        size = jpeg_size(jpeg) or self.track_size
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

    def close(self, end_ms: int | None, final: str | None = None) -> None:
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
            self.closing = True
            self._cond.notify()

    def wait(self, timeout: float) -> int:
        """Wait (blocking, at most ``timeout`` s for each) for the writer and ffmpeg; return
        ffmpeg's exit code. Raises ``subprocess.TimeoutExpired``."""
        assert self.proc is not None
        if self._thread is not None:
            self._thread.join(timeout)
        return self.proc.wait(timeout)

    async def kill(self) -> None:
        """Kill ffmpeg if it runs, and wait (briefly) for it and the writer."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            await asyncio.get_running_loop().run_in_executor(None, proc.wait, 10)
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10)

    def discard(self) -> None:
        """Remove the (partial) file."""
        self.close_stderr()
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass

    def stderr_tail(self) -> str:
        """ffmpeg's last lines of output, joined with ``|``."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            text: str = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        return " | ".join(lines[-5:])

    def close_stderr(self) -> None:
        if self._stderr is not None:
            try:
                self._stderr.close()
            except OSError:
                pass
            self._stderr = None
