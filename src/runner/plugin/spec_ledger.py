"""The run's specs as pytest reports them, told as ``spec.started`` and ``spec.ended``.

A spec is known by its file: the tests collected in it are counted, and it ends when its last test
does (specs whose tests interleave under pytest-xdist are tracked independently). A spec that
could not be loaded, or that ``runner run`` selected and that holds no test, is told too, in its
place in the order: there is nothing to wait for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from runner.events import Event, SpecEnded, SpecStarted
from runner.plugin.outcomes import load_error_summary, load_error_text, relative_to_first

__all__ = ["SpecLedger", "SpecRecord"]


class SpecRecord:
    """What the recorder knows of one spec."""

    def __init__(self, relative: str, absolute: str) -> None:
        self.relative = relative
        self.absolute = absolute
        self.remaining = 0  # tests still to end
        self.started: float | None = None  # monotonic, once its first test started
        self.ended = False
        self.failed = False
        self.error: str | None = None  # it could not be loaded
        self.error_type: str | None = None
        self.error_message: str | None = None
        self.empty = False  # selected, but it holds no test
        self.video: str | None = None  # told by the pytest-xdist worker that ran it
        self.video_told = False


class SpecLedger:
    """The specs of one run, in order: counted at collection, started with their first test,
    ended with their last (``finish_spec(relative, passed)`` ends a spec's artifacts and returns
    its video). A spec that could not be loaded counts as a failed test in ``totals``."""

    def __init__(self, *, publish: Callable[[Event], None], project_root: Path, spec_root: Path | None,
                 spec_paths: list[Path] | None, finish_spec: Callable[[str, bool], str | None] | None,
                 totals: dict[str, int]) -> None:
        self._publish = publish
        self.project_root = project_root
        self.spec_root = spec_root
        # the specs runner run selected, in order: a spec without tests is reported too
        self._selected = [str(Path(p).resolve()) for p in spec_paths] if spec_paths is not None else None
        self._finish_spec = finish_spec
        self._totals = totals  # the run's, shared with the recorder
        self._specs: dict[str, SpecRecord] = {}
        self._by_nodeid_path: dict[str, SpecRecord] = {}  # a node id's file part -> its spec
        self._order: list[str] = []
        self._collected_files: set[str] = set()  # files that had tests (before -k deselected any)
        self.counted = False

    def spec(self, path: str) -> SpecRecord:
        key = str(Path(path).resolve())
        spec = self._specs.get(key)
        if spec is None:
            relative = relative_to_first(Path(path), (self.spec_root, self.project_root)) or Path(path).as_posix()
            spec = self._specs[key] = SpecRecord(relative, key)
            self._order.append(key)
        return spec

    def spec_of(self, nodeid: str) -> SpecRecord:
        path = nodeid.split("::")[0]
        spec = self._by_nodeid_path.get(path)
        if spec is None:
            candidate = Path(path)
            if not candidate.is_absolute():
                for root in (Path.cwd(), self.project_root):
                    if (root / candidate).exists():
                        candidate = root / candidate
                        break
            spec = self._by_nodeid_path[path] = self.spec(str(candidate))
        return spec

    def relatives(self) -> list[str]:
        """The specs' paths as the run tells them, in order."""
        return [self._specs[k].relative for k in self._order]

    def any_ended(self) -> bool:
        return any(s.ended for s in self._specs.values())

    # -- collection -------------------------------------------------------------------------
    def collected(self, path: str) -> None:
        """A test was collected in ``path`` (before -k or -m deselected any)."""
        self._collected_files.add(str(Path(path).resolve()))

    def count(self, paths: list[str]) -> None:
        """The tests the run will run, by their file (once: the first count holds)."""
        if self.counted:
            return
        self.counted = True
        for path in paths:
            self.spec(path).remaining += 1
        if self._selected is not None:
            ordered = []
            for key in self._selected:
                if key in self._specs:
                    ordered.append(key)
                elif key not in self._collected_files:
                    self.spec(key).empty = True
                    ordered.append(key)
            self._order = ordered + [k for k in self._order if k not in ordered]

    def count_workers(self, ids: list[str]) -> None:
        """pytest-xdist's controller: the tests a worker collected, by node id (every worker
        collects the same ones: the first tells how many tests each spec has)."""
        if self.counted:
            return
        files = [str(self.spec_of(nodeid).absolute) for nodeid in ids]
        self._collected_files.update(files)
        self.count(files)

    def load_failed(self, path: str, longrepr: str) -> None:
        """The spec ``path`` could not be loaded (its collection failed)."""
        spec = self.spec(path)
        spec.error = load_error_text(longrepr)
        spec.error_type, spec.error_message = load_error_summary(spec.error)

    # -- start and end ----------------------------------------------------------------------
    def start(self, spec: SpecRecord) -> None:
        spec.started = time.monotonic()
        self._publish(SpecStarted(spec=spec.relative, absolute=spec.absolute))

    def test_starts(self, spec: SpecRecord) -> None:
        """A test of ``spec`` starts: the spec starts with its first (after the specs without
        tests listed before it)."""
        if spec.started is None:
            self.end_specs_without_tests(before=spec.absolute)
            self.start(spec)

    def test_ended(self, spec: SpecRecord, state: str) -> None:
        """A test of ``spec`` ended in ``state``: the spec ends with its last."""
        spec.failed = spec.failed or state == "failed"
        spec.remaining -= 1
        if spec.remaining <= 0:
            self.end(spec)

    def end(self, spec: SpecRecord) -> None:
        if spec.ended:
            return
        spec.ended = True
        if spec.started is None:
            self.start(spec)
        assert spec.started is not None
        duration = (time.monotonic() - spec.started) * 1000
        if spec.video_told:  # recorded in the pytest-xdist worker that ran the spec
            video = spec.video
        else:
            video = self._finish_spec(spec.relative, not spec.failed and not spec.error) if self._finish_spec else None
        if spec.error:
            self._totals["failed"] += 1
        self._publish(SpecEnded(spec=spec.relative, duration_ms=duration, error=spec.error,
                                error_type=spec.error_type, error_message=spec.error_message,
                                video=video, empty=spec.empty))

    def end_started(self) -> None:
        """The run ends: the specs cut short (-x, maxfail, interrupted) end first."""
        for key in self._order:
            spec = self._specs[key]
            if spec.started is not None:
                self.end(spec)

    def end_specs_without_tests(self, before: str | None = None) -> None:
        """Tell the specs that could not be loaded or hold no test (there is nothing to wait
        for), in their place in the order: those listed before the spec ``before``, or all."""
        for key in self._order:
            if key == before:
                break
            spec = self._specs[key]
            if (spec.error or spec.empty) and spec.remaining == 0 and spec.started is None:
                self.end(spec)
