"""``watchForFileChanges`` in ``runner open``: a changed file re-reads the project and re-runs.

The watcher (``ui/watch.py``) reports batches of changed files; a file as studio saved it is not a
change. The page is told what changed and gets the project anew; the last run is run again when the
configuration reads. A changed configuration restarts the watcher (what is watched may change).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from runner.config.paths import shown_path
from runner.ui.project import OpenProject

__all__ = ["WatchRerun"]


class WatchRerun:
    """The watcher of one ``runner open``, started while ``watchForFileChanges`` is on."""

    def __init__(self, *, project: OpenProject, ours: Callable[[Path], bool],
                 broadcast: Callable[[dict[str, Any]], None], refresh: Callable[[], None],
                 rerun: Callable[[], Awaitable[None]]) -> None:
        self._project = project
        self._ours = ours  # a file as the server wrote it (studio's save): not a change
        self._broadcast = broadcast
        self._refresh = refresh  # the project read again, and told to the pages
        self._rerun = rerun
        self._task: asyncio.Task[Any] | None = None

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

    async def _watch(self) -> None:
        from runner.ui.watch import SpecWatcher, affects

        project = self._project
        watcher = SpecWatcher(project.config)
        try:
            async for batch in watcher.changes():
                changed = {p for p in batch if not self._ours(p)}
                if not changed:
                    continue
                kinds = {affects(p, project.config) for p in changed}
                names = ", ".join(sorted(shown_path(p, project.root) for p in changed))
                self._broadcast({"t": "notice", "level": "info", "message": f"changed: {names}"})
                self._refresh()  # a new spec, a deleted one, another runner.json
                if project.problem is None:
                    await self._rerun()
                if "config" in kinds:  # what is watched may have changed with it
                    self._task = None
                    self.restart()
                    return
        finally:
            watcher.stop()
