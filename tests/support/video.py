"""Reading back a recorded video in tests: ffprobe when installed, else the bundled ffmpeg."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from runner.artifacts.video import find_ffmpeg


def probe(path: Path) -> tuple[str, float]:
    """(codec name, duration in seconds) of the video stream of ``path``."""
    ffprobe = shutil.which("ffprobe")
    if ffprobe:
        out = subprocess.run(
            [ffprobe, "-v", "error", "-print_format", "json", "-show_streams", "-show_format",
             str(path)],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout
        info = json.loads(out)
        stream = next(s for s in info["streams"] if s["codec_type"] == "video")
        # the track's own duration: what players trust (the container's can be longer)
        return stream["codec_name"], float(stream.get("duration") or info["format"]["duration"])
    text = subprocess.run(
        [find_ffmpeg(), "-hide_banner", "-i", str(path)], capture_output=True, text=True,
        timeout=30,
    ).stderr
    codec = re.search(r"Video: (\w+)", text)
    dur = re.search(r"Duration: (\d+):(\d+):([\d.]+)", text)
    assert codec and dur, text
    h, m, s = dur.groups()
    return codec.group(1), int(h) * 3600 + int(m) * 60 + float(s)


def mean_colour(path: Path, at: float) -> tuple[int, int, int]:
    """The average colour (r, g, b) of the frame of ``path`` shown at ``at`` seconds."""
    out = subprocess.run(
        [find_ffmpeg(), "-hide_banner", "-loglevel", "error", "-ss", f"{at:.3f}", "-i", str(path),
         "-frames:v", "1", "-vf", "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24",
         "-"],
        capture_output=True, timeout=30, check=True,
    ).stdout
    assert len(out) == 3, f"no frame at {at:.3f} s in {path}"
    return out[0], out[1], out[2]


def decoded_frames(path: Path) -> int:
    """How many frames the video stream of ``path`` holds (every one decoded)."""
    text = subprocess.run(
        [find_ffmpeg(), "-hide_banner", "-i", str(path), "-map", "0:v:0", "-f", "null", "-"],
        capture_output=True, text=True, timeout=60,
    ).stderr
    counts = re.findall(r"frame=\s*(\d+)", text)
    assert counts, text
    return int(counts[-1])


def video_size(path: Path) -> tuple[int, int]:
    """(width, height) of the video stream of ``path``."""
    text = subprocess.run([find_ffmpeg(), "-hide_banner", "-i", str(path)], capture_output=True, text=True,
                          timeout=30).stderr
    found = re.search(r"Video: .*?, (\d{2,5})x(\d{2,5})", text)
    assert found, text
    return int(found.group(1)), int(found.group(2))


def frame_colours(path: Path) -> list[tuple[int, int, int]]:
    """The average colour (r, g, b) of every frame of ``path``, in order."""
    data = subprocess.run(
        [find_ffmpeg(), "-hide_banner", "-loglevel", "error", "-i", str(path), "-map", "0:v:0",
         "-fps_mode", "passthrough", "-vf", "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        capture_output=True, timeout=60, check=True,
    ).stdout
    return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data) - 2, 3)]
