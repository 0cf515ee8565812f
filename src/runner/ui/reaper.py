"""``runner open``'s server reaps the orphans that reach it, so no zombie piles up under it.

The server is a child subreaper (``ui/command.py``): when a run's child ends, the processes it
left (Playwright's driver, the browser's processes, a test's own) become the server's children,
and each one that ends stays a zombie until the server waits for it. :func:`install` reaps them on
every SIGCHLD. The children the server started itself (the runs' children, ``ui/runs.py``) are
waited for by asyncio, which must get their exit status: they are :func:`own`-ed from their start
until asyncio has waited for them and never reaped here, and no reaping happens while a child is
being started (:func:`starting`), before its pid is known.

Linux only (``/proc``); elsewhere nothing is reaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

__all__ = ["install", "own", "disown", "starting", "reap"]

_ours: set[int] = set()  # the children asyncio waits for
_starting = 0  # children being started, their pid not known yet


def own(pid: int) -> None:
    """``pid`` is a child the server started and asyncio waits for: never reaped here."""
    _ours.add(pid)


def disown(pid: int) -> None:
    """asyncio has waited for ``pid``."""
    _ours.discard(pid)


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """While a child is being started (its pid not :func:`own`-ed yet), nothing is reaped."""
    global _starting
    _starting += 1
    try:
        yield
    finally:
        _starting -= 1
    reap()  # what ended meanwhile


def _zombie_children() -> list[int]:
    pids: list[int] = []
    try:
        tasks = list(Path("/proc/self/task").iterdir())
    except OSError:
        return pids
    for task in tasks:
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    zombies = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            zombies.append(pid)
    return zombies


def reap() -> int:
    """Wait for every ended child of this process that it did not start; how many."""
    if _starting:
        return 0
    reaped = 0
    for pid in _zombie_children():
        if pid in _ours:
            continue
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                reaped += 1
    return reaped


def install(loop: asyncio.AbstractEventLoop) -> None:
    """Reap on every SIGCHLD that reaches the server (its loop runs the reaping)."""
    loop.add_signal_handler(signal.SIGCHLD, reap)
