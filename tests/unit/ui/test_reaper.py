"""``ui/reaper.py``: the server reaps the ended children it did not start, never one it owns (that
asyncio waits for), and nothing while a child is being started."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from runner.ui import reaper


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _ended_child() -> int:
    """A child of this process that has ended (a zombie until someone waits for it)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while _state(proc.pid) != "Z" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _state(proc.pid) == "Z"
    proc.returncode = 0  # this test waits for it (or the reaper does), not Popen
    return proc.pid


def test_an_ended_child_nobody_owns_is_reaped() -> None:
    pid = _ended_child()
    assert reaper.reap() >= 1
    assert _state(pid) == "gone"


def test_an_owned_child_is_left_to_its_owner_and_nothing_is_reaped_while_one_starts() -> None:
    pid = _ended_child()
    reaper.own(pid)
    try:
        reaper.reap()
        assert _state(pid) == "Z"
        assert os.waitpid(pid, os.WNOHANG) == (pid, 0)  # its owner gets its exit status
    finally:
        reaper.disown(pid)
    other = _ended_child()
    with reaper.starting():
        assert reaper.reap() == 0 and _state(other) == "Z"
    assert _state(other) == "gone"  # reaped as the start ended
