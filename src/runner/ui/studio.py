"""Studio in ``runner open``'s server: a person's actions on a test's page, saved into its spec.

Studio starts a run of one test with the recorder in its page (``plugin/studio.py``, in the child); the child
tells each recorded action and the recorder's state. Saving stops the recorder (it hands over what
was typed but not committed), inserts the actions into the test (``ui/studio_edit.py``) and runs
the test again; the file studio wrote is not a change the watcher re-runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from runner.errors import RunnerError
from runner.ui.project import OpenProject
from runner.ui.runs import ChildRun

__all__ = ["STUDIO_STOP_S", "Studio"]

#: Seconds studio's recorder gets to stop (and hand over the last typing) before a save.
STUDIO_STOP_S = 10.0


class Studio:
    """Studio on one test at a time: started, its actions gathered, saved or cancelled.
    ``recording`` is what the page shows of it (None when there is none)."""

    def __init__(self, *, project: OpenProject, run: Callable[[], ChildRun | None],
                 start_run: Callable[..., Awaitable[None]], broadcast: Callable[[dict[str, Any]], None]) -> None:
        self._project = project
        self._run = run  # the run of the test (studio's runs are the server's runs)
        self._start_run = start_run
        self._broadcast = broadcast
        self.recording: dict[str, Any] | None = None
        self._saved: dict[Path, int] = {}  # spec -> mtime_ns studio wrote (not a change to re-run on)

    async def start(self, spec: str, test: str) -> None:
        config = self._project.config
        if not (config and config.experimental_studio):
            raise RunnerError("studio is off: set experimentalStudio to true in runner.json.")
        self.recording = {"spec": spec, "test": test, "state": "starting", "actions": []}
        self._broadcast({"t": "studio", "studio": self.recording})
        await self._start_run(spec=spec, test=test, studio=True)

    def input(self, data: dict[str, Any]) -> None:
        """A person's click or key on the app view, for the recorded page."""
        run = self._run()
        if run is not None and self.recording is not None:
            run.send(data)

    async def save(self) -> None:
        from runner.ui.studio_edit import insert_commands

        studio = self.recording
        if studio is None:
            raise RunnerError("there is no studio recording to save.")
        run = self._run()
        if run is not None and not run.done.is_set() and studio.get("state") == "recording":
            # the recorder hands over what was typed but not yet committed when it stops
            run.send({"t": "studio-done"})
            await self._stopped(STUDIO_STOP_S)
        path = self._project.specs.get(studio["spec"])
        if path is None:
            raise RunnerError(f"the spec {studio['spec']!r} is gone.")
        actions = list(studio["actions"])
        if not actions:
            raise RunnerError("studio recorded nothing to save: click, type, check or select in the app first.")
        result = await asyncio.to_thread(insert_commands, path, studio["test"], actions)
        with contextlib.suppress(OSError):
            self._saved[path.resolve()] = path.stat().st_mtime_ns
        studio.update(state="saved", lines=list(getattr(result, "lines", []) or []))
        self._broadcast({"t": "studio", "studio": studio})
        await self._start_run(spec=studio["spec"], test=studio["test"])

    async def _stopped(self, bound: float) -> None:
        deadline = time.monotonic() + bound
        while self.recording is not None and self.recording.get("state") == "recording" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def cancel(self) -> None:
        if self.recording is None:
            return
        self.recording["state"] = "cancelled"
        self._broadcast({"t": "studio", "studio": self.recording})
        run = self._run()
        if run is not None:
            run.send({"t": "studio-done"})
        self.recording = None

    def heard(self, message: dict[str, Any]) -> None:
        """The child told a recorded action or the recorder's state."""
        studio = self.recording
        if studio is None:
            return
        if isinstance(message.get("action"), dict):
            studio["actions"].append(message["action"])
        elif isinstance(message.get("state"), str):
            studio["state"] = message["state"]
            if message.get("reason"):
                studio["reason"] = str(message["reason"])
        self._broadcast({"t": "studio", "studio": studio})

    def run_ended(self) -> None:
        """The run ended: a recording not saved nor cancelled has ended with it."""
        studio = self.recording
        if studio is not None and studio.get("state") not in ("saved", "cancelled"):
            if studio.get("state") in ("starting", "recording"):
                studio["state"] = "ended"
                self._broadcast({"t": "studio", "studio": studio})

    def wrote(self, path: Path) -> bool:
        """Whether ``path`` is as studio saved it (its change is not the person's)."""
        try:
            resolved = path.resolve()
            return self._saved.get(resolved) == resolved.stat().st_mtime_ns
        except OSError:
            return False
