"""``runner.exec``'s shell command, run so that nothing it started outlives it.

The command runs in a process group of its own (``process_group=0``: the shell is its leader and
everything it starts belongs to it, unless it moves itself elsewhere with ``setsid``). Past its
timeout, or when the run is interrupted while it runs, the whole group is killed, not only the
shell: ``subprocess.run`` kills the shell alone, and a ``sleep`` or server it started would keep
running after the run (and keep the output pipes open).

When the shell ends, what it left in the group is killed too (``sleep 300 &``): a command's
background processes do not outlive it, and one that keeps the output pipes open does not make
runner wait for it until the timeout.

A terminal's Ctrl-C does not reach the group (it is not the terminal's foreground group): the
interruption reaches runner, which kills the group here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["ShellResult", "run_shell"]

#: Seconds to wait for the output pipes to close once the group was killed: a process that left
#: the group (``setsid``) may hold them open, and the test must not wait for it.
DRAIN_TIMEOUT = 5.0


class ShellResult:
    """What a finished command left: exit code and output (bytes, undecoded)."""

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


def run_shell(command: str, *, cwd: Path, env: Mapping[str, str], timeout: float) -> ShellResult:
    """Run ``command`` with ``/bin/sh`` in ``cwd``; ``timeout`` in seconds.

    Raises ``subprocess.TimeoutExpired`` after ``timeout`` (the command's process group killed
    first); any other interruption (``KeyboardInterrupt``) also kills the group before it goes on.
    """
    with _interrupts_held() as held:
        proc = subprocess.Popen(command, shell=True, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    deadline = time.monotonic() + timeout
    try:
        if held:
            signal.raise_signal(signal.SIGINT)  # now, where the group it started is killed
        while True:
            try:
                out, err = proc.communicate(timeout=max(0.0, min(POLL_S, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if proc.poll() is not None:
                    # the shell is done; a process it left in the background holds the pipes open
                    out, err = kill_group(proc)
                    break
                if time.monotonic() >= deadline:
                    raise subprocess.TimeoutExpired(command, timeout) from None
    except BaseException:
        kill_group(proc)
        raise
    _kill_members(proc.pid)  # what the finished shell left in its group
    return ShellResult(proc.returncode, out, err)


#: Seconds between looks at whether the shell ended while its output pipes are still open.
POLL_S = 0.1


@contextlib.contextmanager
def _interrupts_held() -> Iterator[list[int]]:
    """Hold a Ctrl-C (SIGINT) that arrives while the shell starts, and say whether one came.

    Python raises ``KeyboardInterrupt`` wherever the main thread is: inside ``Popen``, after the
    shell was started but before ``run_shell`` holds it, nobody would kill its group (a loaded
    machine made that window wide enough to hit). Off the main thread Python delivers no
    signal, so there is nothing to hold.
    """
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: held.append(signum))
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)


def _kill_members(group: int) -> None:
    """Kill what is left in process group ``group`` (nothing is fine). The group's id stays
    reserved while a member lives (the kernel does not give the number to a new process), so this
    reaches only them."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is empty already: every member exited


def kill_group(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Kill ``proc``'s process group (it leads it), reap ``proc`` and close its pipes; returns the
    output read until then (empty when the pipes had to be closed unread)."""
    _kill_members(proc.pid)
    out: tuple[bytes, bytes] = (b"", b"")
    try:
        got = proc.communicate(timeout=DRAIN_TIMEOUT)
        out = (got[0] or b"", got[1] or b"")
    except subprocess.TimeoutExpired:
        # a process outside the group holds the pipes: stop reading, the shell is reaped below
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    proc.wait(DRAIN_TIMEOUT)
    return out
