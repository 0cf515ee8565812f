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

import time
from importlib import resources
from pathlib import Path
from typing import Any

from runner.events import (
    AttemptEnded,
    BrowserStarted,
    CommandEnded,
    CommandStarted,
    Event,
    LogLine,
    PluginEvent,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
    RunEnded,
    RunStarted,
    ScreenshotTaken,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    VideoWritten,
)
from runner.reporters.from_events import RunBuilder
from runner.reporters.html.details import TestEvents, test_page
from runner.reporters.html.files import ArtifactCopies, copy_tree
from runner.reporters.html.folder import Staging
from runner.reporters.html.jsdata import js_call

__all__ = ["HtmlReport", "STATIC_FILES"]

#: The page's own files, copied from the package into every report.
STATIC_FILES = ("index.html", "report.js", "report.css")

_HEADLINE = 300  # characters of a failed test's error kept in the list


class HtmlReport:
    """Builds the report for ``target`` from the events it is given (call it with each event,
    then :meth:`finish`). ``viewer``: the trace viewer's folder, copied when a test has a trace."""

    def __init__(self, target: Path, *, viewer: Path | None = None, project_root: Path | None = None) -> None:
        self.staging = Staging(target)
        self.viewer = viewer
        self.project_root = project_root
        self.builder = RunBuilder()
        self.notes: list[str] = []
        self.tests: dict[str, TestEvents] = {}  # running tests, by node id
        self.ended_tests: set[str] = set()  # the node ids of the tests that ended
        self.rows: list[list[Any]] = []
        self.specs: dict[str, dict[str, Any]] = {}
        self.browsers: list[dict[str, Any]] = []
        self.plugin_errors: list[str] = []
        self.started: RunStarted | None = None
        self.ended: RunEnded | None = None
        self.has_trace = False
        self.first_at: float | None = None
        self.last_at: float | None = None
        self._numbers = 0
        self._copies: ArtifactCopies | None = None
        self._problems = 0

    @property
    def target(self) -> Path:
        return self.staging.target

    @property
    def failures(self) -> int:
        """Failed tests, and specs that could not be loaded, of the events so far."""
        return sum(1 for row in self.rows if row[3] == "failed") + \
            sum(1 for spec in self.specs.values() if spec["error"])

    def note(self, text: str) -> None:
        """Say ``text`` at the top of the report (an events file that broke off, ...)."""
        self.notes.append(text)

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
        self.first_at = event.at if self.first_at is None else self.first_at
        self.last_at = event.at
        self.builder.apply(event)
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
        elif isinstance(event, AttemptEnded):
            self._test(event.nodeid, event.at, spec=event.spec).attempts.append(event)
            self.has_trace = self.has_trace or bool(event.trace)
        elif isinstance(event, TestStarted):
            test = self._test(event.nodeid, event.at, spec=event.spec)
            test.title, test.started_at = list(event.title), min(test.started_at, event.at)
        elif isinstance(event, TestEnded):
            self._test_ended(event)
        elif isinstance(event, (SpecStarted, SpecEnded, VideoWritten)):
            self._spec(event)
        elif isinstance(event, BrowserStarted):
            self.browsers.append({"name": event.name, "version": event.version, "path": event.path,
                                  "headless": event.headless, "launch": event.launch, "at": event.at})
        elif isinstance(event, PluginEvent):
            self.plugin_errors += [f"{event.name}: {error}" for error in event.errors]
        elif isinstance(event, RunStarted):
            self.started = event
            if self.project_root is None and event.project_root:
                self.project_root = Path(event.project_root)
        elif isinstance(event, RunEnded):
            self.ended = event

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

    def _spec(self, event: SpecStarted | SpecEnded | VideoWritten) -> dict[str, Any]:
        spec = self._spec_of(event.spec)
        if isinstance(event, SpecStarted):
            spec["absolute"] = event.absolute
        elif isinstance(event, SpecEnded):
            spec.update(durationMs=round(event.duration_ms, 1), error=event.error, ended=True,
                        errorMessage=event.error_message, empty=event.empty)
            if spec["videoStartedAt"] is None:  # video.written (the final word) not seen yet
                spec["video"] = event.video
        else:
            spec["video"], spec["videoStartedAt"] = event.video, event.started_at or -1.0
        return spec

    def _test_ended(self, event: TestEnded) -> None:
        test = self._test(event.nodeid, event.at, spec=event.spec)
        del self.tests[event.nodeid]
        self.ended_tests.add(event.nodeid)
        test.title = list(event.title) or test.title
        self._write_test(test, state=event.state, duration_ms=event.duration_ms, flaky=event.flaky,
                         slow=event.slow)

    def _write_test(self, test: TestEvents, *, state: str, duration_ms: float, flaky: bool, slow: bool) -> None:
        root = self.staging.make()
        copies = self._artifact_copies(root)
        folder = root / "bodies" / str(test.number)

        def write_body(data: bytes, name: str) -> str:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
            return f"bodies/{test.number}/{name}"

        page = test_page(test, state=state, duration_ms=duration_ms, flaky=flaky, slow=slow,
                         copies=copies, write_body=write_body, project_root=self.project_root)
        data = root / "data" / "t"
        data.mkdir(parents=True, exist_ok=True)
        (data / f"{test.number}.js").write_text(js_call("test", test.number, page), encoding="utf-8")
        headline = None
        if state == "failed" or flaky:
            failed = [a for a in test.attempts if a.error or a.message]
            if failed:
                last = failed[-1]
                headline = (last.message or (last.error or "").strip().splitlines()[-1])[:_HEADLINE]
        elif state in ("skipped", "pending") and test.attempts and test.attempts[-1].message:
            headline = (test.attempts[-1].message or "")[:_HEADLINE]
        self._spec_of(test.spec)
        self.rows.append([test.number, test.spec, list(test.title), state, round(duration_ms),
                          max(len(test.attempts), 1), int(flaky), test.nodeid, round(test.started_at, 3),
                          headline, int(slow)])

    def _spec_of(self, name: str) -> dict[str, Any]:
        """The spec ``name`` as the index shows it (made the first time it is named)."""
        spec = self.specs.get(name)
        if spec is None:
            spec = self.specs[name] = {"name": name, "absolute": None, "durationMs": None, "error": None,
                                       "errorMessage": None, "video": None, "videoStartedAt": None,
                                       "empty": False, "ended": False}
        return spec

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
            for spec in self.specs.values():
                spec["video"] = copies.add(spec["video"], "videos") if spec["video"] else None
            trace_viewer = False
            if self.has_trace and self.viewer is not None and (self.viewer / "index.html").is_file():
                copy_tree(self.viewer, root / "trace")
                trace_viewer = True
            data = root / "data"
            data.mkdir(exist_ok=True)
            (data / "index.js").write_text(js_call("index", self._index(trace_viewer)), encoding="utf-8")
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

    def _index(self, trace_viewer: bool) -> dict[str, Any]:
        order = list(self.started.specs) if self.started is not None else []
        order += [spec.relative for spec in self.builder.run.specs if spec.relative not in order]
        order += [name for name in self.specs if name not in order]
        present = [name for name in order if name in self.specs]
        index_of = {name: i for i, name in enumerate(present)}
        rows = sorted(self.rows, key=lambda r: (index_of.get(r[1], len(index_of)), r[0]))
        for row in rows:
            row[1] = index_of.get(row[1], 0)
        return {"run": self._summary(), "specs": [self.specs[name] for name in present], "tests": rows,
                "traceViewer": trace_viewer}

    def _summary(self) -> dict[str, Any]:
        started, ended, run = self.started, self.ended, self.builder.run
        # a flaky test passed, but is counted once, as flaky: the chips add up to the tests
        states = ["flaky" if row[6] else row[3] for row in self.rows]
        totals = {"tests": len(self.rows), "passed": states.count("passed"), "failed": states.count("failed"),
                  "pending": states.count("pending"), "skipped": states.count("skipped"),
                  "flaky": sum(row[6] for row in self.rows), "unfinished": states.count("unfinished"),
                  "specErrors": sum(1 for s in self.specs.values() if s["error"])}
        notes = list(self.notes)
        if ended is None:
            notes.append("The events end before the run did (there is no run.ended event): the run was "
                         "stopped. The report shows what was recorded.")
        config = []
        if started is not None:
            for name, value in started.config.items():
                config.append([name, value, started.sources.get(name, "")])
        browser_version = (started.browser_version if started is not None else "") or \
            (self.browsers[0]["version"] if self.browsers else "")
        first, last = self.first_at or time.time(), self.last_at or time.time()
        return {
            "runId": started.run_id if started else None,
            "runnerVersion": started.runner_version if started else None,
            "browser": started.browser if started else (run.browser or None),
            "browserVersion": browser_version or None,
            "browsers": self.browsers,
            "projectRoot": started.project_root if started else None,
            "mode": started.mode if started else None,
            "startedAt": started.at if started else first,
            "endedAt": ended.at if ended else last,
            "durationMs": round(ended.duration_ms) if ended else round((last - first) * 1000),
            "interrupted": bool(ended.interrupted) if ended else True,
            "error": ended.error if ended else None,
            "totals": totals,
            "config": config,
            "notes": notes,
            "pluginErrors": self.plugin_errors,
            "generatedAt": time.time(),
        }
