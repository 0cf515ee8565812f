"""The pipe between ``runner open``'s server and the child process that runs the specs.

Child to server, one JSON object a line on a pipe of its own (never stdout: pytest captures the
test's output there):

- ``{"t": "event", "event": {...}}``: a run event, in its JSON form (``runner.events``), every one,
  in order;
- ``{"t": "frame", "data": base64 JPEG, "width": px, "height": px}``: the page as painted; only
  the newest frame waits to be written (an older one not yet written is dropped, never an event);
- ``{"t": "studio", ...}``: studio's state and each recorded action;
- ``{"t": "wrote", "paths": [...]}``: files the run is about to write (``ui/run_files.py``), on the
  pipe before the write happens; ``{"t": "imported", "files": [...]}``: Python files of the
  project the run executed, as it executes them.

Server to child, one JSON object a line on the child's stdin: ``{"t": "input", ...}`` (a person's
click or key for the page, in studio) and ``{"t": "studio-done"}``.

The writer never blocks the run: lines are written by a thread of their own; a server that went
away costs the lines, not the run.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from typing import Any

from runner.events import Event, dumps_event, json_line

__all__ = ["ChannelWriter", "parse_line", "MAX_LINE"]

#: The longest line the server reads (a frame of a big viewport is a few hundred KB).
MAX_LINE = 32 * 1024 * 1024


class ChannelWriter:
    """Writes messages to the file descriptor ``fd`` from a thread of its own. A bus subscriber
    (``writer(event)``) and a frame sink (:meth:`frame`)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lines: deque[tuple[bytes, threading.Event | None]] = deque()
        self._frame: bytes | None = None
        self._cond = threading.Condition()
        self._closed = False
        self.broken = False
        self._thread = threading.Thread(target=self._write_all, name="runner-ui-channel", daemon=True)
        self._thread.start()

    def __call__(self, event: Event) -> None:
        self._put(('{"t":"event","event":' + dumps_event(event) + "}\n").encode("utf-8"))

    def send(self, message: dict[str, Any]) -> None:
        """Any other message (studio's)."""
        self._put((json_line(message) + "\n").encode())

    def send_now(self, message: dict[str, Any], timeout: float = 1.0) -> bool:
        """``message``, returning once it is on the pipe (ahead of any frame), or after
        ``timeout`` seconds, or at once when the writer is closed or broken: False then."""
        written = threading.Event()
        if threading.current_thread() is self._thread:
            return False  # the writer cannot wait for itself
        if not self._put((json_line(message) + "\n").encode(), written):
            return False
        return written.wait(timeout) and not self.broken

    def frame(self, frame: dict[str, Any]) -> None:
        line = (json.dumps({"t": "frame", **frame}, separators=(",", ":")) + "\n").encode("ascii")
        with self._cond:
            self._frame = line
            self._cond.notify()

    def _put(self, line: bytes, written: threading.Event | None = None) -> bool:
        with self._cond:
            if self._closed or self.broken:
                return False
            self._lines.append((line, written))
            self._cond.notify()
            return True

    def _write_all(self) -> None:
        while True:
            with self._cond:
                while not self._lines and self._frame is None and not self._closed:
                    self._cond.wait()
                written: threading.Event | None = None
                if self._lines:
                    line, written = self._lines.popleft()
                elif self._frame is not None:
                    line, self._frame = self._frame, None
                else:
                    return  # closed and drained
            if not self.broken:
                self._write(line)
            if written is not None:
                written.set()

    def _write(self, line: bytes) -> None:
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError:
            self.broken = True  # the server is gone: the run goes on, unheard

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued (for at most ``timeout`` s), then close the descriptor."""
        with self._cond:
            self._closed = True
            self._frame = None
            self._cond.notify()
        self._thread.join(timeout)
        try:
            os.close(self._fd)
        except OSError:
            pass


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One message of the child, or None when the line is not one (a broken child's noise)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        return None
    return message
