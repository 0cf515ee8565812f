"""Locks that let runner processes take turns at a file they all write (the run's history, a HAR
that several workers add to) and the folder such locks live in.

A lock is an ``flock`` on a small file in a folder of the temp folder private to the user, named
by a hash of the locked file's resolved path: never beside the locked file (its folder is the
user's), released by the operating system however the holder ends (``kill -9`` included).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["LockBusy", "lock_folder", "waiting_lock"]


class LockBusy(Exception):
    """Another process held the lock for longer than the caller would wait."""


def lock_folder() -> Path:
    """The folder the lock files live in: private to this user, shared by all their runs."""
    return Path(tempfile.gettempdir()) / f"runner-{os.getuid()}" / "locks"


@contextmanager
def waiting_lock(path: Path, kind: str, wait_s: float) -> Iterator[None]:
    """Hold the lock of ``path`` (``kind`` names the lock file: ``history``, ``har``), waiting
    up to ``wait_s`` seconds for another holder to let it go; then :class:`LockBusy`.
    Raises ``OSError`` when the lock file cannot be made."""
    where = lock_folder()
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    digest = hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:32]
    fd = os.open(where / f"{kind}-{digest}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockBusy(f"{str(path)!r} stayed locked by another runner for {wait_s:.0f}s") from None
                time.sleep(0.02)  # a holder keeps it for one read and one write of a file
        yield
    finally:
        os.close(fd)  # closing the descriptor releases its flock
