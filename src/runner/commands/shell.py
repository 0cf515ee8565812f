"""``runner.exec``'s shell command, run so that nothing it started outlives it.

The command runs in a process group of its own (``process_group=0``: the shell is its leader and
everything it starts belongs to it, unless it moves itself elsewhere with ``setsid``). Past its
timeout, or when the run is interrupted while it runs, the whole group is killed, not only the
shell: ``subprocess.run`` kills the shell alone, and a ``sleep`` or server it started would keep
running after the run (and keep the output pipes open).

A terminal's Ctrl-C does not reach the group (it is not the terminal's foreground group): the
interruption reaches runner, which kills the group here.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
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
    proc = subprocess.Popen(command, shell=True, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        kill_group(proc)
        raise
    return ShellResult(proc.returncode, out, err)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s process group (it leads it), reap ``proc`` and close its pipes."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is empty already: every member exited
    try:
        proc.communicate(timeout=DRAIN_TIMEOUT)
    except subprocess.TimeoutExpired:
        # a process outside the group holds the pipes: stop reading, the shell is reaped below
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    proc.wait(DRAIN_TIMEOUT)
