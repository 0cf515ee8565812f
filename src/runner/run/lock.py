"""One ``runner run`` at a time per artifact path: two runs never trash or overwrite each other's.

``runner run`` empties the screenshots, videos, downloads and traces folders before it starts
(``trashAssetsBeforeRuns``) and writes the events file: a second run of the same project started
while the first is running would throw away the first run's screenshots and videos and write its
events into the same file. So a run locks every artifact path it writes (``screenshotsFolder``,
``videosFolder``, ``downloadsFolder``, ``tracesFolder``, ``eventsFile``, ``reportFolder``) before it
touches any of them, and a second run that finds one of them locked stops at once with a message
naming the other run.

The locks are ``flock`` locks on small files in a private folder of the user's temp folder (one
file per artifact path, named by a hash of its resolved path), not in the artifact folders
themselves, which are the user's. The operating system releases them when the process that holds
them ends in any way (``kill -9`` included): a crashed run never blocks the next one. The files
are left in place (removing a lock file races with a run that is taking it); each holds the
holder's pid, start time and command line, which the refusal shows.

Limits: paths are compared after resolving symbolic links, exactly; one run's folder nested
inside another's (``screenshotsFolder`` of one run = the parent of the other's) is not detected.
Runs of different users share nothing (each user has their own lock folder).
"""

from __future__ import annotations

import datetime
import fcntl
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import UsageError
from runner.file_locks import lock_folder

__all__ = ["LOCKED_PROPERTIES", "ArtifactsLock", "lock_artifacts", "lock_folder"]

#: The configuration options whose paths a run locks, in the order they are checked.
LOCKED_PROPERTIES = ("screenshotsFolder", "videosFolder", "downloadsFolder", "tracesFolder", "eventsFile",
                     "reportFolder")


@dataclass
class ArtifactsLock:
    """The locks one run holds; :meth:`release` (or the end of the process) lets them go."""

    held: list[tuple[str, Path, int]] = field(default_factory=list)  # (option, path, fd)

    @property
    def paths(self) -> list[Path]:
        return [path for _name, path, _fd in self.held]

    def release(self) -> None:
        """Let the locks go. Safe to call twice."""
        held, self.held = self.held, []
        for _name, _path, fd in held:
            os.close(fd)  # closing the descriptor releases its flock


def _paths(config: Any) -> list[tuple[str, Path]]:
    """``(option, resolved path)`` of every artifact path ``config`` writes, each path once."""
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    for name in LOCKED_PROPERTIES:
        value = config.path(name)
        if value is None:
            continue  # false: the run writes nothing there
        path = Path(os.path.realpath(value))
        if path not in seen:
            seen.add(path)
            found.append((name, path))
    return found


def _holder(fd: int) -> dict[str, Any]:
    """What the run holding the lock file ``fd`` wrote into it ({} when it is not written yet)."""
    try:
        data = os.pread(fd, 1 << 16, 0)
        holder = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _refusal(name: str, path: Path, holder: dict[str, Any]) -> UsageError:
    pid = holder.get("pid")
    who = f"another runner run (pid {pid}" if pid else "another runner run (its pid is not known yet"
    if holder.get("started"):
        who += f", started {holder['started']}"
    who += ")"
    command = holder.get("command")
    if command:
        who += f": {command}"
    return UsageError(
        f"{name} {str(path)!r} is in use by {who}.\n"
        "This run stopped before touching anything, so that run's screenshots, videos, traces, "
        "events and report are safe.\nWait for it to end, or give this run artifact folders of its own, e.g. "
        "--config screenshotsFolder=other/screenshots,videosFolder=other/videos,"
        "downloadsFolder=other/downloads,tracesFolder=other/traces,eventsFile=other/events.jsonl,"
        "reportFolder=other/report"
    )


def lock_artifacts(config: Any, *, folder: Path | None = None, pid: int | None = None) -> ArtifactsLock:
    """Lock every artifact path of ``config`` (``folder``: where the lock files are; the user's
    lock folder by default; ``pid``: the process the refusal names, this one by default: the
    ``runner`` command whose child holds the locks).

    Raises ``UsageError`` naming the other run when one of them is locked (none is then kept).
    When the lock folder cannot be used at all, warns on stderr and returns no locks: a run is
    not refused for want of a temp folder.
    """
    where = folder if folder is not None else lock_folder()
    try:
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as err:
        print(f"runner: warning: the artifact locks' folder {str(where)!r} cannot be made "
              f"({err.strerror or err}); this run does not check for another run using its "
              "artifact folders.", file=sys.stderr)
        return ArtifactsLock()
    lock = ArtifactsLock()
    stamp = {"pid": pid or os.getpid(),
             "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
             "command": " ".join(["runner", *sys.argv[1:]])}
    try:
        for name, path in _paths(config):
            digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:32]
            fd = os.open(where / f"{digest}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise _refusal(name, path, holder) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({**stamp, "option": name, "path": str(path)}).encode("utf-8"), 0)
            lock.held.append((name, path, fd))
    except BaseException:
        lock.release()
        raise
    return lock
