"""The child's channel: every event arrives in order; of frames only the newest waits; a reader
that went away costs lines, never the writer's thread."""

from __future__ import annotations

import array
import fcntl
import os
import termios
import threading
import time

from runner.events import LogLine
from runner.ui.channel import ChannelWriter, parse_line


def _read_all(fd: int, out: list[bytes], last_frame: threading.Event) -> None:
    data = b""
    while chunk := os.read(fd, 1 << 16):
        data += chunk
        if b'"f499"' in chunk:
            last_frame.set()
    out.extend(data.splitlines())


def test_events_arrive_in_order_and_frames_never_go_back() -> None:
    r, w = os.pipe()
    writer = ChannelWriter(w)
    got: list[bytes] = []
    last_frame = threading.Event()
    reader = threading.Thread(target=_read_all, args=(r, got, last_frame))
    reader.start()
    big = "x" * 20000  # frames are big: the pipe fills, older frames are replaced while waiting
    for n in range(500):
        writer(LogLine(nodeid="x", message=f"m{n}"))
        writer.frame({"data": f"f{n}", "pad": big, "width": 1, "height": 1})
    assert last_frame.wait(10)  # the newest frame always gets out
    writer.close()
    reader.join(10)
    messages = [parse_line(line) for line in got]
    assert all(m is not None for m in messages)
    logs = [m["event"]["message"] for m in messages if m and m["t"] == "event"]
    frames = [int(m["data"][1:]) for m in messages if m and m["t"] == "frame"]
    assert logs == [f"m{n}" for n in range(500)]
    assert frames[-1] == 499 and frames == sorted(set(frames))


def test_a_reader_that_is_gone_breaks_nothing() -> None:
    r, w = os.pipe()
    os.close(r)
    writer = ChannelWriter(w)
    writer(LogLine(nodeid="x", message="m"))
    writer.send({"t": "studio", "state": "done"})
    writer.close(5)
    assert writer.broken


def test_noise_is_not_a_message() -> None:
    assert parse_line(b"not json\n") is None
    assert parse_line(b"[1, 2]\n") is None
    assert parse_line(b'{"no": "type"}\n') is None
    assert parse_line(b'{"t": "frame", "data": ""}\n') == {"t": "frame", "data": ""}


def test_send_now_returns_once_the_line_is_on_the_pipe() -> None:
    r, w = os.pipe()
    writer = ChannelWriter(w)
    try:
        assert writer.send_now({"t": "wrote", "paths": ["/p/a"]})
        # on the pipe already: readable without waiting for the writer's thread
        os.set_blocking(r, False)
        assert parse_line(os.read(r, 1 << 16)) == {"t": "wrote", "paths": ["/p/a"]}
    finally:
        writer.close(5)
        os.close(r)
    assert not writer.send_now({"t": "wrote", "paths": ["/p/b"]})  # closed: at once, False


def test_send_now_to_a_reader_that_is_gone_does_not_wait() -> None:
    r, w = os.pipe()
    os.close(r)
    writer = ChannelWriter(w)
    assert not writer.send_now({"t": "wrote", "paths": ["/p/a"]}, timeout=5)
    assert writer.broken and not writer.send_now({"t": "wrote", "paths": ["/p/b"]}, timeout=5)
    writer.close(5)


def _waiting_in_pipe(fd: int) -> int:
    waiting = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, waiting)
    return waiting[0]


def test_send_now_to_a_server_that_stopped_reading_gives_up_after_its_timeout() -> None:
    r, w = os.pipe()
    writer = ChannelWriter(w)
    got: list[bytes] = []
    try:
        writer.frame({"data": "x" * (1 << 20), "width": 1, "height": 1})  # fills the pipe: nobody reads
        deadline = time.monotonic() + 10
        while _waiting_in_pipe(r) < 60000 and time.monotonic() < deadline:
            time.sleep(0.01)  # polling, bounded: the writer's thread is blocked once the pipe is full
        assert not writer.send_now({"t": "wrote", "paths": ["/p/a"]}, timeout=0.2)
        reader = threading.Thread(target=_read_all, args=(r, got, threading.Event()))
        reader.start()  # the server reads again: the frame, then the line, get out
        assert writer.send_now({"t": "wrote", "paths": ["/p/b"]}, timeout=10)
    finally:
        writer.close(5)
    reader.join(10)
    messages = [parse_line(line) for line in got]
    assert [m["t"] for m in messages if m] == ["frame", "wrote"] and messages[-1]["paths"] == ["/p/b"]
