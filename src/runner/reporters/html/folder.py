"""The report folder: runner's own, replaced whole by each report, never someone else's.

A report is built in a fresh folder beside the target (``.<name>.building-<pid>``) and moved into
place when it is complete, so a reader never sees half a report and a run that dies leaves the
previous report as it was. Every folder runner writes holds a marker file (:data:`MARKER`); runner
replaces a folder only when it holds that marker or is empty. Anything else (the project, a folder
of the user's, a screenshots folder that grew inside it) is refused with a message and left
untouched: :func:`folder_refusal` says why before anything is written, and :meth:`Staging.publish`
checks again at the moment of the swap.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

__all__ = ["MARKER", "Staging", "folder_refusal", "is_report_folder", "overlap_refusal"]

#: The file that marks a folder as a runner report (runner deletes no folder without it).
MARKER = ".runner-report"


def is_report_folder(folder: Path) -> bool:
    """``folder`` holds runner's marker file."""
    return (folder / MARKER).is_file()


def folder_refusal(folder: Path) -> str | None:
    """Why runner will not write its report to ``folder`` (None: it will). ``folder`` may be
    missing, empty, or a report runner wrote; anything else is refused."""
    try:
        if not os.path.lexists(folder):
            return None
        if folder.is_symlink() or not folder.is_dir():
            what = "a link" if folder.is_symlink() else "a file"
            return f"{str(folder)!r} is {what}, not a folder runner made for its report"
        if is_report_folder(folder) or not any(folder.iterdir()):
            return None
    except OSError as err:
        return f"{str(folder)!r} cannot be read: {err.strerror or err}"
    return (f"{str(folder)!r} holds files that are not a runner report (it has no {MARKER} file), "
            "so runner will not replace it")


def overlap_refusal(folder: Path, others: dict[str, Path]) -> str | None:
    """Why ``folder`` may not be the report folder because it is, or holds, one of ``others``
    (option name -> path: the project, the specs, the other artifact folders, ...); None when it
    is none of them. Replacing the report would delete them."""
    mine = Path(os.path.realpath(folder))
    for name, path in others.items():
        theirs = Path(os.path.realpath(path))
        if mine == theirs or mine in theirs.parents:
            relation = "is" if mine == theirs else "holds"
            return (f"{str(folder)!r} {relation} the {name} ({str(path)!r}); each report replaces the "
                    "folder whole, so it must be a folder of its own")
    return None


class Staging:
    """A report being built for ``target``: write into :attr:`path`, then :meth:`publish`."""

    def __init__(self, target: Path) -> None:
        self.target = Path(os.path.abspath(target))
        self.path = self.target.with_name(f".{self.target.name}.building-{os.getpid()}")
        self._made = False

    def make(self) -> Path:
        """Create the staging folder (once) with its marker; raises ``OSError``."""
        if not self._made:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            _remove_leftovers(self.target)
            self.path.mkdir()
            self._made = True
            (self.path / MARKER).write_text(
                json.dumps({"runner": "report", "written": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n",
                encoding="utf-8")
        return self.path

    def publish(self) -> None:
        """Put the built report in place of ``target`` (an older report is deleted). Raises
        ``OSError`` (the staging folder is then removed) and ``PermissionError`` with the reason
        when ``target`` is not runner's to replace."""
        refusal = folder_refusal(self.target)
        if refusal is not None:
            self.discard()
            raise PermissionError(refusal)
        old = self.target.with_name(f".{self.target.name}.old-{os.getpid()}")
        try:
            if os.path.lexists(self.target):
                if is_report_folder(self.target):
                    self.target.rename(old)
                else:
                    self.target.rmdir()  # empty (checked above); rmdir fails if that changed
            self.path.rename(self.target)
        except OSError:
            self.discard()
            raise
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        """Remove the staging folder (runner's own, made by :meth:`make`)."""
        if self._made:
            shutil.rmtree(self.path, ignore_errors=True)
            self._made = False


def _remove_leftovers(target: Path) -> None:
    """Staging and old folders of this target left by a process that was killed (they are
    runner's: they hold its marker; those of a process still alive are left alone)."""
    prefix = f".{target.name}."
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if (entry.name.startswith(prefix) and (".building-" in entry.name or ".old-" in entry.name)
                and entry.is_dir() and not entry.is_symlink() and is_report_folder(entry)
                and not _alive(entry.name.rpartition("-")[2])):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid_text: str) -> bool:
    """The process ``pid_text`` (from a folder's name) is running (and is not this one)."""
    if not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True
