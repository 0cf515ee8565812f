"""Where a screenshot (or another per-test artifact: a trace) goes: a safe file name, the attempt
it was taken in, and one file per shot.

Every screenshot of a run gets a path of its own: two tests whose titles become the same file name
(``test_p[a/b]`` and ``test_p[a:b]``), a name used by several tests, or a test that runs again
after a failure never overwrite each other's files. The second shot of a name gets `` (2)``, the
third `` (3)``; a shot taken in a retried attempt gets `` (attempt N)`` first, as failure
screenshots do.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["MAX_NAME", "claim_artifact_path", "claim_screenshot_path", "safe_file_name"]

#: The longest file or folder name runner writes, in UTF-8 bytes (file systems allow 255).
MAX_NAME = 200
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


def safe_file_name(name: str) -> str:
    """``name`` usable as a file name on every system (at most :data:`MAX_NAME` bytes)."""
    return _cut(_UNSAFE.sub("_", name), MAX_NAME) or "_"


def _cut(text: str, size: int) -> str:
    """``text`` cut to at most ``size`` UTF-8 bytes, never inside a character."""
    return text.encode("utf-8")[:max(0, size)].decode("utf-8", "ignore")


def claim_screenshot_path(folder: Path, name: str, *, taken: set[Path], tail: str = "", attempt: int = 1,
                          subfolders: bool = False) -> Path:
    """The path of a new screenshot ``name`` under ``folder`` (a ``.png``): see
    :func:`claim_artifact_path`."""
    return claim_artifact_path(folder, name, taken=taken, tail=tail, attempt=attempt, subfolders=subfolders)


def claim_artifact_path(folder: Path, name: str, *, taken: set[Path], tail: str = "", attempt: int = 1,
                        subfolders: bool = False, extension: str = ".png") -> Path:
    """The path of a new file ``name`` + ``extension`` under ``folder``, not in ``taken`` (and
    added to it).

    ``tail`` is kept whole after the name (`` (failed)``); a long name is cut before it (the
    name and tail take at most :data:`MAX_NAME` bytes, the extension comes on top). With
    ``subfolders``, a ``/`` in ``name`` makes folders (``runner.screenshot("login/form")``);
    otherwise it is replaced like any character a file name cannot hold.
    """
    parts = [p for p in name.split("/") if p not in ("", ".", "..")] if subfolders else [name]
    parts = parts or ["_"]
    where = folder.joinpath(*(safe_file_name(p) for p in parts[:-1]))
    stem = _UNSAFE.sub("_", parts[-1]) or "_"
    if attempt > 1:
        tail = f"{tail} (attempt {attempt})"
    number = 1
    while True:
        ending = tail + (f" ({number})" if number > 1 else "")
        path = where / f"{_cut(stem, MAX_NAME - len(ending.encode('utf-8'))) or '_'}{ending}{extension}"
        if path not in taken:
            taken.add(path)
            return path
        number += 1
