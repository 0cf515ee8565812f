"""How a path a user wrote (configuration, reporterOptions) becomes a file system path, and how a
path is shown back to them."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["resolve_path", "shown_path"]


def resolve_path(root: Path, value: str | os.PathLike[str]) -> Path:
    """``value`` as an absolute, normalised path: a leading ``~`` or ``~user`` is that home
    folder (as in a shell; an unknown user stays as written), else a relative path is relative
    to ``root``."""
    return Path(os.path.normpath(Path(root) / os.path.expanduser(os.fspath(value))))


def shown_path(path: Path, root: Path) -> str:
    """``path`` as a user reads it: relative to ``root`` (with ``/``) when it is inside it, else
    as it is."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
