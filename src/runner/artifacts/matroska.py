"""A minimal streaming Matroska writer: one MJPEG video track, one keyframe per Cluster, with
millisecond timecodes; enough for ffmpeg to read JPEG frames of irregular timing from a pipe
(:mod:`runner.artifacts.video_encoder`). Also reads a JPEG's size, which the track must declare.
"""

from __future__ import annotations

import struct

__all__ = ["jpeg_size", "mkv_frame", "mkv_header"]


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
