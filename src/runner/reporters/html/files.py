"""Artifacts copied into the report (screenshots, videos, traces) so that it stands alone.

A file is hard-linked when the file system allows it (no space, no time), else copied. A file
that is gone (trashed by a later run, never written) is told as missing, never an error. Each
source file is copied once; names are kept, with a number in front when two would clash.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

__all__ = ["ArtifactCopies", "link_or_copy", "copy_tree"]

_UNSAFE_NAME = re.compile(r"[^\w.() -]+", re.ASCII)
_WORD = re.compile(r"\w", re.ASCII)


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` becomes a hard link to ``source``, or a copy of it; raises ``OSError``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def copy_tree(source: Path, target: Path) -> None:
    """Copy the folder ``source`` to ``target`` (files hard-linked where possible)."""
    shutil.copytree(source, target, copy_function=lambda s, t: link_or_copy(Path(s), Path(t)),
                    dirs_exist_ok=True)


class ArtifactCopies:
    """Copies artifacts into ``root/<kind>/`` and remembers what became of each."""

    def __init__(self, root: Path, project_root: Path | None = None) -> None:
        self.root = root
        self.project_root = project_root
        self._done: dict[str, dict[str, Any]] = {}
        self._names: set[str] = set()

    def add(self, path: str | None, kind: str) -> dict[str, Any] | None:
        """Copy the artifact at ``path`` into ``<kind>/``: ``{"file": <path in the report>}``, or
        ``{"missing": <the path as recorded>, "why": ...}``; None for no path."""
        if not path or not isinstance(path, str):
            return None
        source = Path(path)
        if not source.is_absolute() and self.project_root is not None:
            source = self.project_root / source
        key = f"{kind}\0{source}"
        if key in self._done:
            return self._done[key]
        name = _UNSAFE_NAME.sub("_", source.name)[-120:] or kind
        if not _WORD.match(name):
            name = f"_{name}"  # the page links only names that start with a letter, digit or _
        relative = f"{kind}/{name}"
        number = 1
        while relative in self._names:
            number += 1
            relative = f"{kind}/{number}-{name}"
        try:
            if not source.is_file():
                raise FileNotFoundError(path)
            link_or_copy(source, self.root / relative)
        except OSError as err:
            result: dict[str, Any] = {"missing": path,
                                      "why": "the file is gone" if isinstance(err, FileNotFoundError)
                                      else f"it could not be copied: {err.strerror or err}"}
        else:
            self._names.add(relative)
            result = {"file": relative}
        self._done[key] = result
        return result
