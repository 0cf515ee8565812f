"""Where ``runner run`` writes its events (``eventsFile``), and what happens to an older file.

runner writes only over a file it wrote itself: :func:`check_events_file` refuses a path that is
a folder or a file that does not start with a runner event, before anything runs. An older events
file is trashed with the other artifacts (``trashAssetsBeforeRuns``), or, when trashing is off,
kept beside the new one under a name that says when it was written
(``events.2026-11-23T17-50-42.jsonl``): an artifact of another run is never deleted unasked.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from runner.errors import ConfigError
from runner.events import EventFormatError, from_json

__all__ = ["check_events_file", "keep_aside"]


def _written_by_runner(path: Path) -> bool:
    """The file is empty or its first line is a runner event."""
    try:
        with path.open("rb") as file:
            first = file.readline(1 << 20)
    except OSError:
        return False
    if not first.strip():
        return path.stat().st_size == len(first)  # empty (a run that wrote nothing yet)
    try:
        from_json(json.loads(first))
    except (ValueError, EventFormatError, TypeError):
        return False
    return True


def check_events_file(config: Any) -> Path | None:
    """The events file of the run (None when ``eventsFile`` is false).

    Raises ``ConfigError`` when the path is a folder, or a file runner did not write (so it will
    not be overwritten or trashed).
    """
    path = config.path("eventsFile")
    if path is None:
        return None
    if path.is_dir():
        raise ConfigError(
            f"eventsFile {str(path)!r} is a folder.\nExpected the path of a file to write, e.g. "
            "runner/results/events.jsonl, or false to write no events file."
        )
    if path.exists() and not _written_by_runner(path):
        raise ConfigError(
            f"eventsFile {str(path)!r} holds something that is not a runner events file, so runner "
            "will not overwrite it.\nPoint eventsFile at a file of its own (the default is "
            "runner/results/events.jsonl), or set it to false."
        )
    return path


def keep_aside(path: Path) -> Path | None:
    """Rename an older events file at ``path`` to ``<stem>.<its time>.jsonl`` (a number added when
    taken); returns the new path, or None when there was none. Raises ``OSError``."""
    if not path.is_file():
        return None
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.localtime(path.stat().st_mtime))
    for n in range(1, 1000):
        suffix = f".{stamp}" if n == 1 else f".{stamp}-{n}"
        target = path.with_name(f"{path.stem}{suffix}{path.suffix}")
        if not os.path.lexists(target):
            path.rename(target)
            return target
    raise OSError(f"no free name beside {path} to keep the older events file")
