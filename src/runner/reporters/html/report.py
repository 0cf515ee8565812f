"""The HTML report of a run, built from its events: a bus subscriber during ``runner run``, fed
an events file by ``runner report --from FILE --reporter html``.

Written as a folder (see ``docs/report.md``)::

    index.html, report.js, report.css   the page (package data, the same for every run)
    data/index.js                       the run's summary and one short row per test
    data/t/<n>.js                       one test's page, loaded when the test is opened
    bodies/<n>/...                      bodies too long to show whole, and images
    screenshots/, videos/, traces/      the run's artifacts (hard links, else copies)
    trace/                              Playwright's trace viewer, when a test has a trace
    .runner-report                      the marker: this folder is runner's to replace

A test's page is written when the test ends, and its events dropped, so memory does not grow
with the bodies a run intercepts. The folder is built beside the target and moved into place at
:meth:`HtmlReport.finish` (see ``folder.py``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from runner.events import (
    A11yChecked,
    AttemptEnded,
    CommandEnded,
    CommandStarted,
    Event,
    LogLine,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
    RunEnded,
    RunStarted,
    ScreenshotTaken,
    SnapshotCompared,
    TestEnded,
    TestStarted,
)
from runner.reporters.from_events import RunBuilder
from runner.reporters.html.details import TestEvents, test_page
from runner.reporters.html.files import ArtifactCopies, copy_tree
from runner.reporters.html.folder import Staging
from runner.reporters.html.index import RunIndex
from runner.reporters.html.jsdata import js_call

__all__ = ["HtmlReport", "STATIC_FILES"]

#: The page's own files, copied from the package into every report.
STATIC_FILES = ("index.html", "report.js", "report.css")

# The events of one test, kept until it ends and its page is written.
_TEST_EVENTS = (CommandStarted, CommandEnded, LogLine, RequestIntercepted, RouteAdded, RouteAliased,
                ScreenshotTaken, A11yChecked, SnapshotCompared, AttemptEnded, TestStarted)


class HtmlReport:
    """Builds the report for ``target`` from the events it is given (call it with each event,
    then :meth:`finish`). ``viewer``: the trace viewer's folder, copied when a test has a trace."""

    def __init__(self, target: Path, *, viewer: Path | None = None, project_root: Path | None = None) -> None:
        self.staging = Staging(target)
        self.viewer = viewer
        self.project_root = project_root
        self.builder = RunBuilder()
        self.index = RunIndex()
        self.tests: dict[str, TestEvents] = {}  # running tests, by node id
        self.ended_tests: set[str] = set()  # the node ids of the tests that ended
        self.has_trace = False
        self._numbers = 0
        self._copies: ArtifactCopies | None = None
        self._problems = 0
        # the history's strip and flaky-across-runs marks (run/history.py's report_data), handed in
        # by `runner run` before finish(); None: no history column
        self.history: dict[str, Any] | None = None

    @property
    def target(self) -> Path:
        return self.staging.target

    @property
    def failures(self) -> int:
        """Failed tests, and specs that could not be loaded, of the events so far."""
        return self.index.failures

    @property
    def ended(self) -> RunEnded | None:
        """The run's run.ended event, once seen (none: the run was stopped)."""
        return self.index.ended

    def note(self, text: str) -> None:
        """Say ``text`` at the top of the report (an events file that broke off, ...)."""
        self.index.notes.append(text)

    # -- events -------------------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        try:
            self._apply(event)
        except OSError:
            raise  # the folder cannot be written: the bus drops this subscriber and says why
        except Exception as err:  # noqa: BLE001 - one odd event must not cost the whole report
            self._problems += 1
            if self._problems <= 3:
                self.note(f"the report could not use a {event.kind} event: {type(err).__name__}: {err}")

    def _apply(self, event: Event) -> None:
        self.index.saw(event.at)
        self.builder.apply(event)
        if isinstance(event, TestEnded):
            self._test_ended(event)
        elif isinstance(event, _TEST_EVENTS):
            self._collect(event)
        else:
            self.index.apply(event)
            if isinstance(event, RunStarted) and self.project_root is None and event.project_root:
                self.project_root = Path(event.project_root)

    def _collect(self, event: Event) -> None:
        """Keep one of a test's events for its page."""
        if isinstance(event, (CommandStarted, CommandEnded, LogLine)):
            self._test(event.nodeid, event.at).commands.append(event)
        elif isinstance(event, RequestIntercepted):
            if self._belongs(event.nodeid):
                self._test(event.nodeid, event.at).requests.append(event)
        elif isinstance(event, (RouteAdded, RouteAliased)):
            if self._belongs(event.nodeid):
                self._test(event.nodeid, event.at).routes.append(event)
        elif isinstance(event, ScreenshotTaken):
            self._test(event.nodeid, event.at).shots.append(event)
        elif isinstance(event, A11yChecked):
            self._test(event.nodeid, event.at).checks.append(event)
        elif isinstance(event, SnapshotCompared):
            self._test(event.nodeid, event.at).snapshots.append(event)
        elif isinstance(event, AttemptEnded):
            self._test(event.nodeid, event.at, spec=event.spec).attempts.append(event)
            self.has_trace = self.has_trace or bool(event.trace)
        elif isinstance(event, TestStarted):
            test = self._test(event.nodeid, event.at, spec=event.spec)
            test.title, test.started_at = list(event.title), min(test.started_at, event.at)

    def _belongs(self, nodeid: str) -> bool:
        """Whether a request or route event names a test that may still be running: one of no
        test, or of a test that ended (a request that came after its end), is not counted as a
        test of its own."""
        return bool(nodeid) and nodeid not in self.ended_tests

    def _test(self, nodeid: str, at: float, spec: str | None = None) -> TestEvents:
        test = self.tests.get(nodeid)
        if test is None:
            self._numbers += 1
            test = self.tests[nodeid] = TestEvents(number=self._numbers, nodeid=nodeid, spec=spec or "",
                                                   title=[nodeid.rpartition("::")[2] or nodeid], started_at=at)
        if spec and not test.spec:
            test.spec = spec
        return test

    def _test_ended(self, event: TestEnded) -> None:
        test = self._test(event.nodeid, event.at, spec=event.spec)
        del self.tests[event.nodeid]
        self.ended_tests.add(event.nodeid)
        test.title = list(event.title) or test.title
        if event.quarantine is not None:
            self.index.quarantine[event.nodeid] = event.quarantine
        self._write_test(test, state=event.state, duration_ms=event.duration_ms, flaky=event.flaky,
                         slow=event.slow, reason=event.reason, verdict=event.verdict)

    def _write_test(self, test: TestEvents, *, state: str, duration_ms: float, flaky: bool, slow: bool,
                    reason: str | None = None, verdict: str | None = None) -> None:
        root = self.staging.make()
        copies = self._artifact_copies(root)
        folder = root / "bodies" / str(test.number)

        def write_body(data: bytes, name: str) -> str:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
            return f"bodies/{test.number}/{name}"

        page = test_page(test, state=state, duration_ms=duration_ms, flaky=flaky, slow=slow,
                         copies=copies, write_body=write_body, project_root=self.project_root)
        page["verdict"] = verdict
        data = root / "data" / "t"
        data.mkdir(parents=True, exist_ok=True)
        (data / f"{test.number}.js").write_text(js_call("test", test.number, page), encoding="utf-8")
        self.index.add_test(test, state=state, duration_ms=duration_ms, flaky=flaky, slow=slow, reason=reason,
                            verdict=verdict)

    def _artifact_copies(self, root: Path) -> ArtifactCopies:
        """What links (or copies) artifacts into the report at ``root``; relative artifact paths
        are read from the project root as known now (run.started may name it late)."""
        if self._copies is None:
            self._copies = ArtifactCopies(root, self.project_root)
        self._copies.project_root = self.project_root
        return self._copies

    # -- the end ------------------------------------------------------------------------------
    def finish(self) -> Path:
        """Write what is left (tests the run left unfinished, the index, the page, the videos, the
        trace viewer) and put the report in place. Returns its folder. Raises ``OSError`` (nothing
        replaced) and ``PermissionError`` when the target is not runner's to replace."""
        try:
            for test in list(self.tests.values()):  # cut short: the run ended before they did
                self.tests.pop(test.nodeid)
                self._write_test(test, state="unfinished", duration_ms=sum(a.duration_ms for a in test.attempts),
                                 flaky=False, slow=False)
            root = self.staging.make()
            copies = self._artifact_copies(root)
            for spec in self.index.specs.values():
                spec["video"] = copies.add(spec["video"], "videos") if spec["video"] else None
            trace_viewer = False
            if self.has_trace and self.viewer is not None and (self.viewer / "index.html").is_file():
                copy_tree(self.viewer, root / "trace")
                trace_viewer = True
            data = root / "data"
            data.mkdir(exist_ok=True)
            index = self.index.data(self.builder.run, trace_viewer=trace_viewer)
            index["history"] = self.history
            (data / "index.js").write_text(js_call("index", index), encoding="utf-8")
            static = resources.files("runner.reporters.html") / "static"
            for name in STATIC_FILES:
                (root / name).write_bytes((static / name).read_bytes())
        except BaseException:
            self.staging.discard()
            raise
        self.staging.publish()
        return self.target

    def discard(self) -> None:
        """Write no report: what was built so far is removed (the target is left as it was)."""
        self.staging.discard()
