"""``watchForFileChanges`` in ``runner open``: a person's save of a file the last run runs re-runs it.

The watcher (``ui/watch.py``) reports batches of changed files. Each change is one of:

- the run's own: a file as studio saved it, or one a run wrote (:class:`RunWrites`: the child
  tells each path before writing it, ``ui/run_files.py``): never a save, whatever the file (a
  spec file it wrote or removed only updates the list);
- not watched (a data file, a file the runs never executed): nothing happens;
- a watched file: the pages are told ("changed: ..."), the project is read again (a new spec, a
  deleted one, another ``runner.json``), and when the last run runs that file (its specs, the
  modules it executed, the support and plugins files, the configuration), the last run is run
  again; a run in progress is stopped first. When the configuration no longer reads, nothing
  runs and the status bar says why. The last run's files
  include the files of ``fixturesFolder`` it read (the child tells them too).

Each batch is also told to the pages as ``{"t": "watch", "changed": [...], "rerun": bool,
"ignored": {"run": [...], "unwatched": [...]}}`` (project-relative names). A changed
configuration, or runs that executed modules in other folders, restart the watcher.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.config.paths import shown_path
from runner.ui.project import OpenProject

if TYPE_CHECKING:
    from runner.ui.watch import WatchRules

__all__ = ["RunWrites", "WatchRerun"]

_Stamp = tuple[int, int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        st = path.stat()
    except OSError:
        return None  # gone (a run may remove what it wrote)
    return st.st_mtime_ns, st.st_size, st.st_ino


class RunWrites:
    """The files runs wrote. While a run goes on, every change of a file it wrote is its own;
    once it ended, a change that leaves the file as the run left it is too (the watcher's news
    of the run's last writes comes after the run's end), any other is someone else's."""

    def __init__(self) -> None:
        self._live: set[Path] = set()
        # what the last two runs left: the watcher's news of a run's last writes comes within a
        # moment of its end, so older runs' stamps are not kept (a run writing new names each time
        # would grow them without bound)
        self._left: dict[Path, _Stamp] = {}
        self._before: dict[Path, _Stamp] = {}

    def wrote(self, paths: Iterable[Any]) -> None:
        self._live.update(Path(os.path.realpath(p)) for p in paths if isinstance(p, str))

    def ended(self) -> None:
        """The run ended (its processes too): what it left is stamped."""
        self._before = {p: s for p, s in self._left.items() if p not in self._live}
        self._left = {path: _stamp(path) for path in self._live}
        self._live = set()

    def by_run(self, path: Path) -> bool:
        if path in self._live:
            return True
        left = self._left if path in self._left else self._before
        return path in left and left[path] == _stamp(path)


class WatchRerun:
    """The watcher of one ``runner open``, started while ``watchForFileChanges`` is on."""

    def __init__(self, *, project: OpenProject, ours: Callable[[Path], bool],
                 broadcast: Callable[[dict[str, Any]], None], refresh: Callable[[], None],
                 rerun: Callable[[], Awaitable[bool]], last_specs: Callable[[], set[Path] | None]) -> None:
        self._project = project
        self._ours = ours  # a file as the server wrote it (studio's save): not a change
        self._broadcast = broadcast
        self._refresh = refresh  # the project read again, and told to the pages
        self._rerun = rerun  # the last run again; False when there is none to run
        self._last_specs = last_specs  # the specs of the last run (None: every spec)
        self.writes = RunWrites()
        self._imported: set[Path] = set()  # the Python files the last run executed
        self._importing: set[Path] = set()  # those the run in progress executed so far
        self._read: set[Path] = set()  # the other files the last run read (its fixtures among them)
        self._reading: set[Path] = set()  # those the run in progress read so far
        self._task: asyncio.Task[Any] | None = None
        self._roots: tuple[list[Path], list[Path]] | None = None
        self._busy = False
        self._restart_wanted = False

    # -- what the child tells ------------------------------------------------------------------
    def heard(self, message: dict[str, Any]) -> None:
        """A ``wrote``, ``imported`` or ``read`` message of the running child."""
        files = message.get("paths") if message.get("t") == "wrote" else message.get("files")
        if not isinstance(files, list):
            return
        if message.get("t") == "wrote":
            self.writes.wrote(files)
        elif message.get("t") == "read":
            self._reading.update(Path(os.path.realpath(f)) for f in files if isinstance(f, str))
        else:
            self._importing.update(Path(os.path.realpath(f)) for f in files if isinstance(f, str))

    def run_started(self) -> None:
        self._importing = set()
        self._reading = set()

    def run_ended(self, *, complete: bool) -> None:
        """A run's child ended; ``complete``: it ran to its end (not stopped), so what it executed
        replaces the last run's files, else adds to them."""
        self.writes.ended()
        imported = self._importing if complete else self._imported | self._importing
        read = self._reading if complete else self._read | self._reading
        self._importing = set()
        self._reading = set()
        if (imported and imported != self._imported) or read != self._read:
            self._imported = imported or self._imported
            self._read = read
            if self._task is not None and self._rules().roots() != self._roots:
                self._restart_soon()

    # -- the watch -------------------------------------------------------------------------------
    def restart(self) -> None:
        """Stop watching, and watch again when the configuration asks for it."""
        self.stop()
        config = self._project.config
        if config is not None and config.watch_for_file_changes:
            self._task = asyncio.create_task(self._watch())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _restart_soon(self) -> None:
        if self._busy:
            self._restart_wanted = True  # once the batch in hand is done (never mid-re-run)
        else:
            self.restart()

    def _rules(self) -> WatchRules:
        from runner.ui.watch import WatchRules

        return WatchRules(self._project.config, self._imported | self._importing, self._read | self._reading)

    async def _watch(self) -> None:
        from runner.ui.watch import SpecWatcher

        rules = self._rules()
        self._roots = rules.roots()
        watcher = SpecWatcher(rules)
        try:
            async for batch in watcher.changes():
                self._busy = True
                try:
                    config_changed = await self._batch(batch)
                finally:
                    self._busy = False
                if config_changed or self._restart_wanted:  # what is watched may have changed
                    self._restart_wanted = False
                    self._task = None
                    self.restart()
                    return
        finally:
            watcher.stop()

    async def _batch(self, batch: set[Path]) -> bool:
        """Handle one batch; returns whether the configuration changed."""
        rules = self._rules()
        changes = {p for p in batch if not self._ours(p)}
        by_run = {p for p in changes if self.writes.by_run(p)}
        kinds = {p: rules.kind(p) for p in changes - by_run}
        watched = {p for p, kind in kinds.items() if kind is not None}
        specs = self._last_specs()
        runs = any(rules.starts_run(p, specs) for p in watched)
        rerun = False
        if watched:
            self._broadcast({"t": "notice", "level": "info", "message": f"changed: {self._names(watched)}"})
            self._refresh()  # a new spec, a deleted one, another runner.json
            if runs:
                rerun = await self._rerun()
        elif any(rules.kind(p) == "spec" for p in by_run):
            self._refresh()  # a spec the run wrote or removed: the list shows it, nothing runs
        self._broadcast({"t": "watch", "changed": self._names(watched, joined=False), "rerun": rerun,
                         "ignored": {"run": self._names(by_run, joined=False),
                                     "unwatched": self._names(set(kinds) - watched, joined=False)}})
        return "config" in kinds.values()

    def _names(self, paths: set[Path], *, joined: bool = True) -> Any:
        names = sorted(shown_path(p, self._project.root) for p in paths)
        return ", ".join(names) if joined else names
