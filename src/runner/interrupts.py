"""Ctrl-C (SIGINT) and SIGTERM during ``runner run``: the first ends the run cleanly, the second
at once.

Python's default SIGTERM kills the interpreter on the spot: no reporter writes, no video is
finished, the browser and Playwright's driver are left to fend for themselves. CI systems send
SIGTERM at a timeout, so ``runner run`` (and only it: plain ``pytest`` keeps pytest's own
behaviour) installs :class:`RunInterrupts` for its lifetime:

* The first SIGINT or SIGTERM raises ``KeyboardInterrupt`` in the main thread, as Python's SIGINT
  does. The test stops where it is, pytest ends the run as interrupted (the current test is told
  as failed by the interruption, every reporter writes, the videos are finished, the browser is
  closed), and ``runner run`` exits with 128 + the signal's number: 130 for SIGINT, 143 for
  SIGTERM.
* A second one stops at once: every process runner started (the driver, the browser, ffmpeg,
  ``runner.exec`` commands) is killed, and the process exits with the first signal's status
  without writing the reports.

``runner run`` also becomes a *child subreaper* (Linux): a process whose parent died while the
run lives (a browser whose driver was killed) is re-parented to runner rather than to init, so
:func:`kill_descendants` still finds it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import time
from types import FrameType
from typing import Any

from runner.engine import processes

__all__ = ["RunInterrupts", "become_subreaper", "descendants", "kill_descendants"]

#: Signals that interrupt a run, and the names reports give them.
SIGNALS = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}
_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>


def become_subreaper(on: bool = True) -> bool:
    """Make this process the reaper of its orphaned descendants (Linux), or stop being it
    (``on=False``); whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def descendants(pid: int) -> set[int]:
    """Every live (not zombie) descendant of ``pid``, from ``/proc`` (empty where there is none)."""
    return set(processes.descendants(pid, alive_only=True))


def kill_descendants(pid: int | None = None, timeout: float = 3.0) -> None:
    """SIGKILL every descendant of ``pid`` (this process by default), again until none is left
    (the children of a killed process reach this subreaper), for at most ``timeout`` seconds."""
    root = os.getpid() if pid is None else pid
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = descendants(root)
        if not found:
            return
        for child in found:
            with contextlib.suppress(OSError):  # it ended meanwhile
                os.kill(child, signal.SIGKILL)
        time.sleep(0.01)  # the kernel delivers SIGKILL asynchronously


class RunInterrupts:
    """SIGINT and SIGTERM handlers for one ``runner run`` (a context manager); :attr:`name`
    tells the run's reporters which signal stopped it."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}
        self._subreaper = False

    @property
    def name(self) -> str | None:
        """``"SIGINT"`` or ``"SIGTERM"`` once one arrived, else None."""
        return SIGNALS.get(signal.Signals(self.signum)) if self.signum is not None else None

    @property
    def exit_code(self) -> int:
        """The exit status of an interrupted run: 128 + the signal (130 when none was seen:
        a ``KeyboardInterrupt`` raised some other way)."""
        return 128 + (self.signum if self.signum is not None else signal.SIGINT)

    def __enter__(self) -> RunInterrupts:
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        self._subreaper = become_subreaper()
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()
        if self._subreaper:
            self._subreaper = not become_subreaper(False)

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
            raise KeyboardInterrupt
        self.stop_now(signum)

    def stop_now(self, signum: int) -> None:
        """The second signal: kill everything runner started and exit, reports unwritten."""
        name = SIGNALS.get(signal.Signals(signum), str(signum))
        with contextlib.suppress(Exception):  # the exit must happen whatever printing does
            sys.stderr.write(f"\nrunner: {name} again: stopped at once; the reports of this run "
                             "were not written.\n")
            sys.stderr.flush()
            sys.stdout.flush()
        kill_descendants()
        os._exit(self.exit_code)  # the status of the interruption: the first signal's
