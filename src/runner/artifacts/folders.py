"""Can runner write into the artifact folders (``screenshotsFolder``, ``videosFolder``,
``downloadsFolder``, ``tracesFolder``, ``reportFolder``)?

A folder option can point anywhere: at a file, below a file, into a folder runner may not write
to. :func:`folder_problem` says what is wrong without creating anything;
:func:`artifact_folder_warnings` turns that into the one-line warnings ``runner run`` prints at
start (the run goes on without those artifacts), and :func:`make_artifact_folder` creates a folder
on use and turns an ``OSError`` into runner's own :class:`~runner.errors.CommandError`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from runner.errors import CommandError

__all__ = ["artifact_folder_warnings", "folder_problem", "make_artifact_folder"]


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be used (created if missing, then written to), or None when it can.

    Nothing is created. The answer names the path that is in the way: ``'/p/afile' is a file,
    not a folder``, ``permission denied: '/p/locked' is not writable``.
    """
    folder = Path(os.path.abspath(folder))
    existing = folder
    while True:
        try:
            os.stat(existing)  # follows links: a link to a folder is a folder
            break
        except FileNotFoundError:
            if os.path.lexists(existing):
                return f"{str(existing)!r} is a link to nothing"
        except NotADirectoryError:
            pass  # a parent of it is a file: found further up
        except OSError as exc:
            return f"{str(existing)!r} cannot be read: {exc.strerror or exc}"
        if existing.parent == existing:
            return None  # pragma: no cover - the file system root always exists
        existing = existing.parent
    if not existing.is_dir():
        return f"{str(existing)!r} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        return f"permission denied: {str(existing)!r} is not writable"
    return None


#: The artifact folders, and what is lost when one cannot be used.
_CONSEQUENCES = {
    "screenshotsFolder": "failure screenshots will not be saved and runner.screenshot() will fail",
    "videosFolder": "videos will not be recorded",
    "downloadsFolder": "files downloaded during tests will not be saved",
    "tracesFolder": "traces will not be saved",
    "reportFolder": "the HTML report will not be written",
}


def artifact_folder_warnings(config: Any, *, video: bool = True) -> list[str]:
    """One warning line per artifact folder that cannot be used: option, path, problem and
    consequence. ``video`` False leaves ``videosFolder`` out (no video is recorded anyway)."""
    lines = []
    for name in _CONSEQUENCES:
        folder = config.path(name)
        if folder is None or name == "videosFolder" and not video:
            continue
        problem = folder_problem(folder)
        if problem is None:
            continue
        consequence = _CONSEQUENCES[name]
        if name == "screenshotsFolder" and not config.get("screenshotOnRunFailure"):
            consequence = "runner.screenshot() will fail"
        lines.append(f"{name} {str(config.get(name))!r} cannot be used: {problem}; {consequence}.")
    return lines


def make_artifact_folder(folder: Path, *, option: str, root: Path, what: str) -> None:
    """Create ``folder`` (``root``, the value of ``option``, or a folder below it).

    Raises :class:`CommandError` naming ``what`` could not be saved, the folder and the reason.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        problem = folder_problem(root) or folder_problem(folder)
        if problem is None:
            problem = f"{exc.strerror or exc} ({exc.filename or folder})"
        raise CommandError(
            f"{what} could not be saved: {option} {str(root)!r} cannot be used: {problem}.\n"
            f"Point {option} at a folder runner can write to."
        ) from None
