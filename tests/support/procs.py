"""Processes as /proc sees them: descendants and liveness, for tests that check nothing is left."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from runner.engine.processes import descendants


def children(pid: int) -> set[int]:
    """Every descendant of ``pid`` (runner's own /proc walker, so tests and runner agree)."""
    return set(descendants(pid))


def alive(pid: int) -> bool:
    """The process runs (a zombie has ended: only its parent has not reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def left_after(pids: set[int], bound: float = 10.0) -> list[int]:
    """Those of ``pids`` still alive after waiting up to ``bound`` seconds for them to end."""
    deadline = time.monotonic() + bound
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return sorted(p for p in pids if alive(p))


def pid_in(path: Path, bound: float = 30.0) -> int:
    """The pid a process wrote into ``path`` (waits up to ``bound`` seconds for it)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text.isdigit():
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"{path} never got a pid within {bound} s")


def stop_group(proc: subprocess.Popen[str]) -> None:
    """Whatever happened in the test, leave no runner behind: ``proc`` (started in a session of
    its own) and its whole process group killed, then reaped."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
