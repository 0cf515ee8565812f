"""``watchForFileChanges``: which files ``runner open`` watches, and their changes, debounced.

Watched (:class:`WatchRules`), the files a run runs: the configuration (``runner.json`` or the
``--config-file``, and ``runner.env.json``), the support file, the plugins file, the spec files
of the spec folder (``integrationFolder``, ``componentFolder`` under ``--component``) and the
Python files of the project the last runs executed (their helpers, the support package: the
child tells them, ``ui/run_files.py``), and the files of ``fixturesFolder`` the last run read
(``runner.fixture``, ``open()``; the child tells them too). Other data files (JSON, CSV, text,
images elsewhere, fixtures no run read) are not watched.

The spec folder and the fixtures folder are watched with what they hold (a new spec may appear in
any of its folders, a fixture be read from any);
every other watched file through its own folder, not what is below it. A folder that does not
exist yet is watched from its nearest existing folder, with what it holds. The watcher hears
every change in those folders; :class:`WatchRules` says which are of watched files. Never told at
all: ``__pycache__`` and compiled files, editors' swap and backup files (``.swp``, ``~``,
``.#name``, ``4913``), and anything under the artifact folders (screenshots, videos, traces,
downloads, the HTML report, the events file's folder). Changes within ``debounce_ms`` of each
other are one batch. Uses ``watchfiles`` (inotify on Linux).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from runner.config.load import ENV_FILE_NAME
from runner.run.specs import spec_folder_option, spec_matcher

__all__ = ["SpecWatcher", "WatchRules", "ignored"]

_ARTIFACTS = ("screenshotsFolder", "videosFolder", "tracesFolder", "downloadsFolder", "reportFolder")
_SWAP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".pyc", ".pyo", "~")


def _option_path(config: Any, name: str) -> Path | None:
    try:
        return config.path(name)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - an option that is off (false) or absent is not watched
        return None


def _artifact_folders(config: Any) -> list[Path]:
    folders = [p for p in (_option_path(config, n) for n in _ARTIFACTS) if p is not None]
    events = _option_path(config, "eventsFile")
    if events is not None:
        folders.append(events.parent)
    return folders


def ignored(path: Path, config: Any) -> bool:
    """Whether a change of ``path`` is never told (see the module's docstring)."""
    name = path.name
    if "__pycache__" in path.parts or name.endswith(_SWAP_SUFFIXES) or name.startswith(".#") or name == "4913":
        return True
    return any(path.is_relative_to(folder) for folder in _artifact_folders(config))


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def _existing(path: Path) -> tuple[Path, bool]:
    """``path``'s nearest existing folder, and whether that is ``path`` itself."""
    found = path
    while not found.is_dir() and found.parent != found:
        found = found.parent
    return found, found == path


class WatchRules:
    """The watched files of one configuration, given the Python files the runs executed
    (``imported``) and the other files the last run read (``read``; absolute paths)."""

    def __init__(self, config: Any, imported: Iterable[Path] = (), read: Iterable[Path] = ()) -> None:
        self.config = config
        self.imported = frozenset(_real(p) for p in imported)
        fixtures = _option_path(config, "fixturesFolder")
        self.fixtures_folder = _real(fixtures) if fixtures is not None else None
        self.fixtures = frozenset(p for p in (_real(r) for r in read)
                                  if self.fixtures_folder is not None and p.is_relative_to(self.fixtures_folder))
        specs = _option_path(config, spec_folder_option(config))
        self.specs = _real(specs) if specs is not None else None
        self._is_spec = spec_matcher(config, self.specs) if self.specs is not None else None
        self.config_files: set[Path] = {_real(Path(config.project_root) / ENV_FILE_NAME)}
        if config.config_file is not None:
            self.config_files.add(_real(config.config_file))
        self.named = {_real(p): kind for kind, p in (("support", _option_path(config, "supportFile")),
                                                     ("plugins", _option_path(config, "pluginsFile")))
                      if p is not None}

    def kind(self, path: Path) -> str | None:
        """What ``path`` is: "config", "support", "plugins", "spec" (a spec file, there or not),
        "module" (a Python file a run executed), "fixture" (a file of ``fixturesFolder`` the last
        run read), or None: not watched."""
        if path in self.config_files:
            return "config"
        if path in self.named:
            return self.named[path]
        if self._is_spec is not None and path.suffix == ".py" and self._is_spec(path) \
                and path.name not in ("conftest.py", "__init__.py"):
            return "spec"
        if path in self.imported:
            return "module"
        if path in self.fixtures:
            return "fixture"
        return None

    def starts_run(self, path: Path, specs: set[Path] | None) -> bool:
        """Whether a change of ``path`` re-runs a run of ``specs`` (None: every spec): a file it
        runs (its specs, the modules it executed, the fixtures it read, the support and plugins
        files, the configuration). Another spec's change updates the list only."""
        kind = self.kind(path)
        if kind == "spec":
            return specs is None or path in specs or path in self.imported
        return kind is not None

    def roots(self) -> tuple[list[Path], list[Path]]:
        """The folders to watch with what they hold, and those to watch alone (existing ones)."""
        deep: list[Path] = []
        flat: list[Path] = []
        # the fixtures folder whole, from the start, though only the fixtures a run read count: a
        # folder added later would restart the watcher, and a save during a restart is not heard
        wanted = [(self.specs, True)] if self.specs is not None else []
        if self.fixtures_folder is not None and self.fixtures_folder.is_dir():
            wanted.append((self.fixtures_folder, True))
        wanted += [(p.parent, False) for p in (*self.config_files, *self.named, *self.imported)]
        for folder, recursive in wanted:
            if folder is None:
                continue
            found, exists = _existing(folder)
            (deep if recursive or not exists else flat).append(found)
        deep = sorted({d for d in deep if not any(d != o and d.is_relative_to(o) for o in deep)})
        flat = sorted({f for f in flat if not any(f.is_relative_to(d) for d in deep)})
        return deep, flat


#: A batch is handed on once no change came for this long (watchfiles' ``step``): an editor's
#: save (a temporary file renamed over the old one) is over within it.
_STEP_MS = 50


class SpecWatcher:
    """The changes in the folders of :meth:`WatchRules.roots`, in debounced batches (absolute
    paths, never one :func:`ignored`)."""

    def __init__(self, rules: WatchRules, debounce_ms: int = 300) -> None:
        self.rules = rules
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()

    async def changes(self) -> AsyncIterator[set[Path]]:
        deep, flat = self.rules.roots()
        queue: asyncio.Queue[set[Path]] = asyncio.Queue()
        # the project's root holds runner.json, and maybe a virtual environment not to be walked
        tasks = [asyncio.create_task(self._watch(roots, recursive, queue))
                 for roots, recursive in ((deep, True), (flat, False)) if roots]
        if not tasks:
            return
        try:
            while not self._stop.is_set():
                getter = asyncio.ensure_future(queue.get())
                stopper = asyncio.ensure_future(self._stop.wait())
                done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if getter not in done:
                    getter.cancel()
                    return
                batch = getter.result()
                if len(tasks) > 1:
                    # The other watcher's part of the same save (runner.json beside a spec saved
                    # with it) comes one quiet step after its last change, as this part did.
                    await asyncio.sleep(2 * _STEP_MS / 1000)
                while not queue.empty():
                    batch |= queue.get_nowait()
                yield batch
        finally:
            self._stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self, roots: list[Path], recursive: bool, queue: asyncio.Queue[set[Path]]) -> None:
        from watchfiles import awatch

        config = self.rules.config

        def keep(_change: Any, name: str) -> bool:
            return not ignored(Path(name), config)

        async for batch in awatch(*roots, watch_filter=keep, debounce=self.debounce_ms, step=_STEP_MS,
                                  stop_event=self._stop, rust_timeout=500, recursive=recursive):
            changed = {_real(name) for _change, name in batch}
            if changed:
                queue.put_nowait(changed)

    def stop(self) -> None:
        """End :meth:`changes` (within about half a second)."""
        self._stop.set()
