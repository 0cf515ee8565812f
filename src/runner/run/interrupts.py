"""Ctrl-C (SIGINT) and SIGTERM during ``runner run``: the first ends the run cleanly, the second
at once.

Python's default SIGTERM kills the interpreter on the spot: no reporter writes, no video is
finished, the browser and Playwright's driver are left to fend for themselves. CI systems send
SIGTERM at a timeout, so ``runner run`` (and only it: plain ``pytest`` keeps pytest's own
behaviour) installs :class:`RunInterrupts` for its lifetime:

* The first SIGINT or SIGTERM raises ``KeyboardInterrupt`` in the main thread, as Python's SIGINT
  does (a moment later when it comes inside Python's import machinery, where raising would
  break the process instead: see :func:`_unsafe_to_raise`). The test stops where it is, pytest ends the run as interrupted (the current test is told
  as failed by the interruption, every reporter writes, the videos are finished, the browser is
  closed), and ``runner run`` exits with 128 + the signal's number: 130 for SIGINT, 143 for
  SIGTERM.
* Once the run has ended (its ``run.ended`` is published: the reports are being written), the
  first signal no longer interrupts it: what the reports say (not interrupted) stays true, they
  are finished, and the exit status is the run's. The message says so.
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
import logging
import os
import signal
import sys
import threading
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
        # the process's own symbols hold libc's prctl: find_library would run `ldconfig -p`
        libc = ctypes.CDLL(None, use_errno=True)
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


#: Seconds after which a signal that came at a moment unsafe to interrupt is handled again.
_AGAIN_S = 0.01


def _unsafe_to_raise(frame: FrameType | None) -> bool:
    """``KeyboardInterrupt`` raised in ``frame`` would break the process rather than stop the run:
    inside Python's import machinery it can leave the import lock held (every later import in
    another thread, Playwright's included, then hangs) or be swallowed ("Exception ignored in
    ... _get_module_lock"); in ``__set_name__`` Python 3.11 turns it into a RuntimeError
    traceback. The handler asks again a moment later instead."""
    if frame is None:
        return False
    code = frame.f_code
    return code.co_filename.startswith("<frozen importlib") or code.co_name in ("__set_name__", "__init_subclass__")


def _quiet_leftovers() -> None:
    """Once the run is interrupted, what the interruption left half-made is not reported as it is
    collected: an event loop whose creation was cut (``Exception ignored in BaseEventLoop.__del__``),
    asyncio's "Loop ... that handles pid ... is closed" for the driver it outlived. The one
    message about the interruption is runner's."""
    sys.unraisablehook = lambda _unraisable: None
    logging.getLogger("asyncio").addFilter(_drop_closed_loop_warning)


def _drop_closed_loop_warning(record: logging.LogRecord) -> bool:
    return "that handles pid" not in str(record.msg)


class RunInterrupts:
    """SIGINT and SIGTERM handlers for one ``runner run`` (a context manager); :attr:`name`
    tells the run's reporters which signal stopped it."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.late: int | None = None  # a first signal after the run ended (not an interruption)
        self.ended = False  # the run's run.ended was published
        self._previous: dict[int, Any] = {}
        self._unraisablehook = sys.unraisablehook
        self._subreaper = False
        #: called as the second signal stops the run at once (``runner run`` notes it in its journal)
        self.on_stop: Any = None

    @property
    def name(self) -> str | None:
        """``"SIGINT"`` or ``"SIGTERM"`` once one arrived, else None."""
        return SIGNALS.get(signal.Signals(self.signum)) if self.signum is not None else None

    @property
    def exit_code(self) -> int:
        """The exit status of an interrupted run: 128 + the signal (130 when none was seen:
        a ``KeyboardInterrupt`` raised some other way)."""
        first = self.signum if self.signum is not None else self.late
        return 128 + (first if first is not None else signal.SIGINT)

    def run_ended(self, _event: object = None) -> None:
        """The run has ended (a bus subscriber to ``run.ended``): a first signal from now on
        lets the reports be finished."""
        self.ended = True

    def __enter__(self) -> RunInterrupts:
        self._unraisablehook = sys.unraisablehook
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        self._subreaper = become_subreaper()
        return self

    def __exit__(self, *exc: object) -> None:
        sys.unraisablehook = self._unraisablehook
        logging.getLogger("asyncio").removeFilter(_drop_closed_loop_warning)
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()
        if self._subreaper:
            self._subreaper = not become_subreaper(False)

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None and self.late is None:
            if self.ended:
                self.late = signum
                with contextlib.suppress(Exception):
                    name = SIGNALS.get(signal.Signals(signum), str(signum))
                    sys.stderr.write(f"\nrunner: {name}: the run has ended; its reports are being finished "
                                     "(send it again to stop at once, without them).\n")
                return
            if _unsafe_to_raise(_frame):
                self._ask_again(signum)
                return
            self.signum = signum
            _quiet_leftovers()
            raise KeyboardInterrupt
        self.stop_now(signum)

    @staticmethod
    def _ask_again(signum: int) -> None:
        """The signal again in a moment, to the main thread (where the handler runs)."""
        main = threading.main_thread().ident
        if main is None:  # pragma: no cover - the main thread always has one
            return
        timer = threading.Timer(_AGAIN_S, signal.pthread_kill, (main, signum))
        timer.daemon = True
        timer.start()

    def stop_now(self, signum: int) -> None:
        """The second signal: kill everything runner started and exit, reports unwritten."""
        name = SIGNALS.get(signal.Signals(signum), str(signum))
        with contextlib.suppress(Exception):  # the exit must happen whatever printing does
            sys.stderr.write(f"\nrunner: {name} again: stopped at once; the reports of this run "
                             "were not written.\n")
            sys.stderr.flush()
            sys.stdout.flush()
        if self.on_stop is not None:
            with contextlib.suppress(Exception):
                self.on_stop()
        kill_descendants()
        os._exit(self.exit_code)  # the status of the interruption: the first signal's
