"""Processes under runner's, from ``/proc``: a frozen browser is killed with its processes, and
``runner run``'s second Ctrl-C kills everything it started (``run/interrupts.py``).

Linux only (``/proc``); elsewhere nothing is found and nothing is killed.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["descendants", "kill_tree", "cpu_seconds"]


def _children_by_parent(alive_only: bool = False) -> dict[int, list[int]]:
    parents: dict[int, list[int]] = {}
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return parents
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it ended meanwhile
        # the command name (in parentheses) may hold spaces: the fields after it are plain
        fields = stat.rsplit(")", 1)[1].split()
        if alive_only and fields[0] == "Z":
            continue  # a zombie has ended: only its parent has not reaped it yet
        ppid = int(fields[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    return parents


def descendants(pid: int, *, alive_only: bool = False) -> list[int]:
    """Every process under ``pid`` (children first), from ``/proc``; [] where there is none.
    ``alive_only`` leaves out zombies (and what hangs below them)."""
    parents = _children_by_parent(alive_only)
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(0), []):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def kill_tree(pid: int) -> list[int]:
    """SIGKILL ``pid`` and every process under it, if it is a process of ours (under this
    process: a pid the system gave to someone else since is left alone). Stopped processes
    (SIGSTOP) die too. Returns the pids signalled."""
    ours = descendants(os.getpid())
    if pid not in ours:
        return []
    family = [pid, *descendants(pid)]
    for member in family:
        try:
            os.kill(member, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return family


def cpu_seconds(pid: int, tid: int | None = None) -> float | None:
    """The CPU time (user and system, seconds) process ``pid`` (or its thread ``tid``) has used
    so far, from ``/proc``; None when it cannot be read (gone, or not Linux). Two readings tell
    whether it is working or waiting."""
    path = Path(f"/proc/{pid}/task/{tid}/stat") if tid is not None else Path(f"/proc/{pid}/stat")
    try:
        fields = path.read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
