"""``watchForFileChanges``: which files ``runner open`` watches, and their changes, debounced.

Watched: ``integrationFolder`` (``componentFolder`` under ``--component``: the specs and
whatever they import from there),
``fixturesFolder``, the support file's and the plugins file's folders, and the configuration
file. Not told: ``__pycache__`` and compiled files, editors' swap and backup files (``.swp``,
``~``, ``.#name``, ``4913``), and anything under the artifact folders (screenshots, videos,
traces, downloads, the HTML report, the events file's folder), even inside a watched folder: a
run writing its artifacts never starts another run.

A path that does not exist when watching starts is watched from its nearest existing folder
(a folder created later is seen). Changes within ``debounce_ms`` of each other are one batch.
Uses ``watchfiles`` (inotify on Linux).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from runner.run.specs import spec_folder_option

__all__ = ["SpecWatcher", "watched_paths", "affects", "ignored"]

_ARTIFACTS = ("screenshotsFolder", "videosFolder", "tracesFolder", "downloadsFolder", "reportFolder")
_SWAP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".pyc", ".pyo", "~")


def _option_path(config: Any, name: str) -> Path | None:
    try:
        return config.path(name)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - an option that is off (false) or absent is not watched
        return None


def watched_paths(config: Any) -> list[Path]:
    """What is watched (each an existing folder or file; a missing one's nearest folder)."""
    wanted: list[Path] = []
    for name in (spec_folder_option(config), "fixturesFolder"):
        path = _option_path(config, name)
        if path is not None:
            wanted.append(path)
    for name in ("supportFile", "pluginsFile"):
        path = _option_path(config, name)
        if path is not None:
            wanted.append(path.parent)
    if config.config_file is not None:
        wanted.append(Path(config.config_file))
    out: list[Path] = []
    for path in wanted:
        while not path.exists() and path.parent != path:
            path = path.parent
        if path not in out and not any(path.is_relative_to(o) for o in out if o.is_dir()):
            out = [o for o in out if not o.is_relative_to(path)] + [path]
    return out


def _artifact_folders(config: Any) -> list[Path]:
    folders = [p for p in (_option_path(config, n) for n in _ARTIFACTS) if p is not None]
    events = _option_path(config, "eventsFile")
    if events is not None:
        folders.append(events.parent)
    return folders


def ignored(path: Path, config: Any) -> bool:
    """Whether a change of ``path`` is not told (see the module's docstring)."""
    name = path.name
    if "__pycache__" in path.parts or name.endswith(_SWAP_SUFFIXES) or name.startswith(".#") or name == "4913":
        return True
    return any(path.is_relative_to(folder) for folder in _artifact_folders(config))


def affects(path: Path, config: Any) -> str:
    """What a change of ``path`` is: "config", "plugins", "support", "fixture", "spec" or "other"."""
    if config.config_file is not None and path == Path(config.config_file):
        return "config"
    for name, kind in (("pluginsFile", "plugins"), ("supportFile", "support")):
        option = _option_path(config, name)
        if option is not None and (path == option or path.parent == option.parent):
            return kind
    fixtures = _option_path(config, "fixturesFolder")
    if fixtures is not None and path.is_relative_to(fixtures):
        return "fixture"
    specs = _option_path(config, spec_folder_option(config))
    if specs is not None and path.is_relative_to(specs):
        return "spec"
    return "other"


class SpecWatcher:
    """The changes of a project's watched files, in debounced batches (absolute paths)."""

    def __init__(self, config: Any, debounce_ms: int = 300) -> None:
        self.config = config
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()

    async def changes(self) -> AsyncIterator[set[Path]]:
        paths = watched_paths(self.config)
        files = {p for p in paths if p.is_file()}
        folders = [p for p in paths if p.is_dir()]
        queue: asyncio.Queue[set[Path]] = asyncio.Queue()
        # Folders are watched with what they hold; a file through its folder alone (the project's
        # root holds runner.json, and maybe a virtual environment not to be walked).
        tasks = [asyncio.create_task(self._watch(folders, None, True, queue))] if folders else []
        if files:
            tasks.append(asyncio.create_task(self._watch(sorted({f.parent for f in files}), files, False, queue)))
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
                # the other watcher's part of the same save arrives within the debounce
                await asyncio.sleep(self.debounce_ms / 1000)
                while not queue.empty():
                    batch |= queue.get_nowait()
                yield batch
        finally:
            self._stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self, roots: list[Path], only: set[Path] | None, recursive: bool,
                     queue: asyncio.Queue[set[Path]]) -> None:
        from watchfiles import awatch

        def keep(_change: Any, name: str) -> bool:
            path = Path(name)
            return (only is None or path in only) and not ignored(path, self.config)

        async for batch in awatch(*roots, watch_filter=keep, debounce=self.debounce_ms, step=50,
                                  stop_event=self._stop, rust_timeout=500, recursive=recursive):
            changed = {Path(name) for _change, name in batch}
            if changed:
                queue.put_nowait(changed)

    def stop(self) -> None:
        """End :meth:`changes` (within about half a second)."""
        self._stop.set()
