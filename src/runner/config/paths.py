"""How a path a user wrote (configuration, reporterOptions) becomes a file system path."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["resolve_path"]


def resolve_path(root: Path, value: str | os.PathLike[str]) -> Path:
    """``value`` as an absolute, normalised path: a leading ``~`` or ``~user`` is that home
    folder (as in a shell; an unknown user stays as written), else a relative path is relative
    to ``root``."""
    return Path(os.path.normpath(Path(root) / os.path.expanduser(os.fspath(value))))
