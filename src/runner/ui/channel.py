"""The pipe between ``runner open``'s server and the child process that runs the specs.

Child to server, one JSON object a line on a pipe of its own (never stdout: pytest captures the
test's output there):

- ``{"t": "event", "event": {...}}``: a run event, in its JSON form (``runner.events``), every one,
  in order;
- ``{"t": "frame", "data": base64 JPEG, "width": px, "height": px}``: the page as painted; only
  the newest frame waits to be written (an older one not yet written is dropped, never an event);
- ``{"t": "studio", ...}``: studio's state and each recorded action;
- ``{"t": "wrote", "paths": [...]}``: files the run is about to write (``ui/run_files.py``), on the
  pipe before the write happens (written by the writing thread itself, :meth:`ChannelWriter.send_now`); ``{"t": "imported", "files": [...]}``: Python files of the
  project the run executed, as it executes them; ``{"t": "read", "files": [...]}``: the project's
  other files the run read, as it first reads them.

Server to child, one JSON object a line on the child's stdin: ``{"t": "input", ...}`` (a person's
click or key for the page, in studio) and ``{"t": "studio-done"}``.

The writer never blocks the run: lines are written by a thread of their own; a server that went
away costs the lines, not the run.
"""

from __future__ import annotations

import json
import os
import select
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
        self._lines: deque[bytes] = deque()
        self._frame: bytes | None = None
        self._cond = threading.Condition()
        self._fd_lock = threading.Lock()  # one whole line at a time on the pipe, whoever writes it
        self._urgent = 0  # send_now calls waiting for the pipe
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
        """Write ``message`` on the pipe from the calling thread (not the writer's: no hand-over,
        a few microseconds) and return True once it is there; False, unwritten, when the writer is
        closed or broken, when the line is longer than a pipe writes at once, or when the pipe
        takes nothing for ``timeout`` seconds (a server that stopped reading holds no test)."""
        line = (json_line(message) + "\n").encode()
        if len(line) > select.PIPE_BUF:
            return False
        with self._cond:
            self._urgent += 1  # the writer's thread starts no frame meanwhile: it would go first
        try:
            if not self._fd_lock.acquire(timeout=timeout):
                return False
        except BaseException:
            self._done_urgent()
            raise
        try:
            if self._closed or self.broken:
                return False
            poller = select.poll()
            poller.register(self._fd, select.POLLOUT)
            if not poller.poll(timeout * 1000):
                return False
            os.write(self._fd, line)  # at most PIPE_BUF bytes: all of it, at once
            return True
        except OSError:
            self.broken = True  # the server is gone: the run goes on, unheard
            return False
        finally:
            self._fd_lock.release()
            self._done_urgent()

    def _done_urgent(self) -> None:
        with self._cond:
            self._urgent -= 1
            self._cond.notify()

    def frame(self, frame: dict[str, Any]) -> None:
        line = (json.dumps({"t": "frame", **frame}, separators=(",", ":")) + "\n").encode("ascii")
        with self._cond:
            self._frame = line
            self._cond.notify()

    def _put(self, line: bytes) -> None:
        with self._cond:
            if self._closed:
                return
            self._lines.append(line)
            self._cond.notify()

    def _write_all(self) -> None:
        while True:
            with self._cond:
                while not self._lines and (self._frame is None or self._urgent) and not self._closed:
                    self._cond.wait()
                if self._lines:
                    line = self._lines.popleft()
                elif self._frame is not None and not self._urgent:
                    line, self._frame = self._frame, None
                else:
                    return  # closed and drained
            if self.broken:
                continue
            with self._fd_lock:
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
        # a send_now in progress ends within its timeout; the descriptor is closed either way
        locked = self._fd_lock.acquire(timeout=timeout)
        try:
            os.close(self._fd)
        except OSError:
            pass
        finally:
            if locked:
                self._fd_lock.release()


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One message of the child, or None when the line is not one (a broken child's noise)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        return None
    return message
