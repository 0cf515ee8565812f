"""RunStart: at ``run.started``, the last run's artifacts trashed and the events file opened; not before.

``runner run`` checks what it can before pytest runs, but some mistakes only pytest finds: an
argument it does not know (``runner run -- --ff``), a bad ``-k`` expression. Such a run never
starts (no ``run.started``), and it must leave the last run's artifacts as they were: the HTML
report, the events file, the screenshots, videos and traces.

:class:`RunStart` is the first subscriber of the run's bus. The events before ``run.started`` are
held; at ``run.started`` it empties the artifact folders (``trashAssetsBeforeRuns``), opens the
events file and hands it every event from then on. A run that never started: :meth:`undo` puts
back the older events file that was kept aside (the HTML report is discarded by its writer).
"""

from __future__ import annotations

import sys
from pathlib import Path

from runner.artifacts.trash import TrashPlan, trash_assets
from runner.events import Event, EventsFileWriter, RunStarted

__all__ = ["RunStart"]


class RunStart:
    """``events_path``: the events file (None: none is written); ``trash``: what to empty at the
    start; ``kept_aside``: (where the older events file was moved, its path) to undo."""

    def __init__(self, events_path: Path | None, trash: TrashPlan | None,
                 kept_aside: tuple[Path, Path] | None = None) -> None:
        self.events_path = events_path
        self.trash = trash
        self.kept_aside = kept_aside
        self.started = False
        self.writer: EventsFileWriter | None = None
        self._held: list[Event] = []

    def __call__(self, event: Event) -> None:
        if self.started:
            self._write(event)
            return
        if not isinstance(event, RunStarted):
            self._held.append(event)
            return
        self.started = True
        self._begin()
        held, self._held = self._held, []
        for earlier in [event, *held]:
            self._write(earlier)

    def _write(self, event: Event) -> None:
        writer = self.writer
        if writer is None:
            return
        try:
            writer(event)
        except OSError as err:  # a full disk: the file ends here, the run goes on
            self.writer = None
            self._cut(writer, err)

    def _cut(self, writer: EventsFileWriter, err: OSError) -> None:
        print(f"runner: warning: eventsFile {str(self.events_path)!r} could not be written "
              f"({err.strerror or err}); it ends before this point of the run. Free some space, or "
              "point eventsFile elsewhere.", file=sys.stderr)
        try:
            writer.close()
        except OSError:
            pass  # what could not be flushed is lost, as the warning said

    def _begin(self) -> None:
        plan = self.trash
        if plan is not None:
            trash_assets(plan)
            for problem in plan.problems:
                print(f"runner: warning: trashAssetsBeforeRuns: {problem}", file=sys.stderr)
        if self.events_path is None:
            return
        try:
            self.writer = EventsFileWriter(self.events_path)
        except OSError as err:
            print(f"runner: warning: eventsFile {str(self.events_path)!r} cannot be written "
                  f"({err.strerror or err}); this run writes no events file.", file=sys.stderr)

    def undo(self) -> None:
        """The run never started: the older events file goes back where it was."""
        if self.started or self.kept_aside is None:
            return
        moved, original = self.kept_aside
        try:
            moved.rename(original)
        except OSError as err:
            print(f"runner: warning: the older events file stays at {str(moved)!r} ({err.strerror or err}).",
                  file=sys.stderr)

    def close(self) -> None:
        writer, self.writer = self.writer, None
        if writer is None:
            return
        try:
            writer.close()
        except OSError as err:  # its last lines could not be flushed (a full disk)
            self._cut(writer, err)

