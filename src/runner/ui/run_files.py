"""In ``runner open``'s child: the project's files the run writes and the Python files it runs,
told to the server, so that its watcher (``ui/rerun.py``) re-runs on a person's saves only.

An audit hook (``sys.addaudithook``) sees, in every thread of the child:

- each file about to be written: ``open`` for writing, appending, creating or truncating
  (``open()``, ``Path.write_text``, ``os.open``, ``shutil`` copies), both paths of ``os.rename``
  and ``os.replace``, the new path of ``os.link`` and ``os.symlink``, and the path of
  ``os.remove``, ``os.truncate``, ``os.utime`` and ``os.chmod``. The first time a run touches a path of the project, the server is told
  (``{"t": "wrote", "paths": [...]}``) and the hook waits (at most a second) until that line is
  on the pipe: the server hears of a write before the write happens, so before the watcher can.
  A path already told costs a set lookup.
- each Python file of the project whose code the run executes (``exec`` of a module's code: the
  specs, the modules they import, the support file and its helpers, the plugins file), told as
  it is first executed (``{"t": "imported", "files": [...]}``): the modules the watcher re-runs on.
- each other file of the project the run opens for reading (``runner.fixture``, ``open()``), told
  as it is first read (``{"t": "read", "files": [...]}``): the watcher re-runs on those of
  ``fixturesFolder``.

Not seen: what processes the run starts write (a shell command, a task's subprocess, a forked
process, the browser's downloads), nor writes through a file descriptor opened before the hook.
Paths outside the project, and ``__pycache__``, are never told.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["RunFiles"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
#: audit events naming paths changed, and the indexes of those paths in the event's arguments
_TARGETS = {"os.rename": (0, 1), "os.link": (1,), "os.symlink": (1,), "os.remove": (0,), "os.truncate": (0,),
            "os.utime": (0,), "os.chmod": (0,)}


class RunFiles:
    """``with RunFiles(writer, project):`` around a run: the hook is on inside (it cannot be
    removed from the process: it goes quiet on exit). ``writer`` is the run's
    ``ChannelWriter``."""

    def __init__(self, writer: Any, project: Path) -> None:
        self._writer = writer
        root = os.path.abspath(project)
        self._roots = tuple({root + os.sep, os.path.realpath(root) + os.sep})
        self._told: set[str] = set()
        self._seen: set[str] = set()  # absolute paths as given, told or not the project's
        self._imported: set[str] = set()
        self._read: set[str] = set()  # absolute paths as given, read already (told or not)
        self._read_told: set[str] = set()
        self._lock = threading.Lock()
        self._on = False
        self._pid = os.getpid()  # a forked process has no writer's thread: it goes unheard
        self._inside = threading.local()  # the hook's own work raises events too

    def __enter__(self) -> RunFiles:
        self._on = True
        sys.addaudithook(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        self._on = False

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        # called for every audit event of the process: the common case returns at the first test;
        # an exception here would fail the test's own open(), so none leaves
        try:
            if event == "open":
                if self._on and isinstance(args[2], int):
                    if args[2] & _WRITE_FLAGS:
                        self._wrote(args[0])
                    else:
                        self._reads(args[0])
            elif event in _TARGETS:
                if self._on:
                    for index in _TARGETS[event]:
                        self._wrote(args[index])
            elif event == "exec" and self._on:
                self._executed(args[0])
        except Exception:  # noqa: BLE001, S110 - the run's own operation must go on
            pass

    def _mine(self, path: Any) -> str | None:
        """The absolute path, when it is one of the project's that the watcher could be told."""
        try:
            name = os.path.abspath(os.fsdecode(path))
        except (TypeError, ValueError):
            return None
        if not name.startswith(self._roots) or f"{os.sep}__pycache__{os.sep}" in name:
            return None
        return name

    def _wrote(self, path: Any) -> None:
        # the line is on the pipe before the write happens: the server hears of it first
        self._once(path, self._seen, self._told, self._tell_write)

    def _reads(self, path: Any) -> None:
        self._once(path, self._read, self._read_told, self._tell_read)

    def _tell_write(self, name: str) -> None:
        self._writer.send_now({"t": "wrote", "paths": [name]})

    def _tell_read(self, name: str) -> None:
        if not name.endswith((".py", ".pyc")) and not _installed(name):  # modules are told as run
            self._writer.send({"t": "read", "files": [name]})

    def _once(self, path: Any, seen: set[str], told: set[str], tell: Callable[[str], None]) -> None:
        """``tell`` the project's file ``path`` the first time it comes (``told``: the names told;
        ``seen``: the absolute paths as given already handled, the common case's one lookup)."""
        if isinstance(path, int):
            return  # a file descriptor: the path was told when it was opened
        raw = os.fspath(path)
        if raw in seen or getattr(self._inside, "busy", False) or os.getpid() != self._pid:
            return
        self._inside.busy = True
        try:
            name = self._mine(raw)
            if name is not None:
                with self._lock:
                    new = name not in told
                    told.add(name)
                if new:
                    tell(name)
            if isinstance(raw, str) and raw.startswith(os.sep):
                # absolute: the same file whatever the working folder; added once told, so that
                # another thread writing it meanwhile waits for the line too
                seen.add(raw)
        finally:
            self._inside.busy = False

    def _executed(self, code: Any) -> None:
        filename = getattr(code, "co_filename", None)
        if not isinstance(filename, str) or not filename.endswith(".py") or filename in self._imported:
            return
        if getattr(self._inside, "busy", False):
            return
        self._inside.busy = True
        try:
            name = self._mine(filename)
            if name is None or _installed(name):
                return
            with self._lock:
                if filename in self._imported:
                    return
                self._imported.add(filename)
            self._writer.send({"t": "imported", "files": [name]})
        finally:
            self._inside.busy = False


def _installed(name: str) -> bool:
    """A module of an installed package (a virtual environment inside the project)."""
    parts = name.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts
