"""pytest's view of a run, told as run events.

:class:`RunRecorder` is a pytest plugin object registered by runner's plugin whenever a run
session is active (not in pytest-xdist workers: their reports reach the controller's recorder).
It turns collection and the test reports into ``run.started``, ``spec.started``,
``test.started``, ``attempt.ended``, ``test.ended``, ``spec.ended`` and ``run.ended`` on the
session's bus. It reads only what the reports carry, so tests run in this process and tests run
by xdist workers are told the same way; specs whose tests interleave (workers) are tracked
independently, each ending when its last test does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.events import (
    AttemptEnded,
    Event,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    from_json,
)
from runner.plugin.outcomes import (
    ALLOWED_ATTR,
    ATTEMPTS_ATTR,
    EVENTS_ATTR,
    SPEC_VIDEO_ATTR,
    attempt_from_reports,
    died_report,
    interrupted_report,
    interruption_reason,
    load_error_summary,
    load_error_text,
    relative_to_first,
    title_of,
)

__all__ = ["RunRecorder"]


class _Spec:
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


class RunRecorder:
    """Publishes a run's events from pytest's hooks.

    ``describe_run(spec_paths)`` makes the ``run.started`` event; ``finish_spec(relative,
    passed)`` ends a spec's artifacts and returns its video (or None); ``settle()`` waits for
    artifacts still being written (it may publish ``video.written``) before ``run.ended``;
    ``run_error()`` why the run as a whole failed (``run.ended``'s ``error``), if it did.
    ``slow_ms`` is the run's ``slowTestThreshold``. ``interrupted_by()`` names the signal that
    interrupted ``runner run`` (None when none did).

    When the run is interrupted (Ctrl-C, SIGTERM, ``pytest.exit``), a test that started and did
    not end is told as failed by the interruption, and ``run.ended`` carries the interruption as
    the run's error: no report of an interrupted run says that everything passed.
    """

    def __init__(self, *, publish: Callable[[Event], None], project_root: Path, spec_root: Path | None,
                 describe_run: Callable[[list[str]], RunStarted], slow_ms: float,
                 spec_paths: list[Path] | None = None,
                 finish_spec: Callable[[str, bool], str | None] | None = None,
                 settle: Callable[[], None] | None = None,
                 interrupted_by: Callable[[], str | None] | None = None,
                 run_error: Callable[[], str | None] | None = None) -> None:
        self._publish = publish
        self.project_root = project_root
        self.spec_root = spec_root
        self._describe_run = describe_run
        self._slow_ms = slow_ms
        # the specs runner run selected, in order: a spec without tests is reported too
        self._selected = [str(Path(p).resolve()) for p in spec_paths] if spec_paths is not None else None
        self._finish_spec = finish_spec
        self._settle = settle
        self._run_error = run_error
        self._started = time.monotonic()
        self._specs: dict[str, _Spec] = {}
        self._by_nodeid_path: dict[str, _Spec] = {}  # a node id's file part -> its spec
        self._order: list[str] = []
        self._collected_files: set[str] = set()  # files that had tests (before -k deselected any)
        self._counted = False
        self._announced = False
        self._reports: dict[str, list[pytest.TestReport]] = {}
        self._running: dict[str, tuple[float, Any]] = {}  # started, not ended: (monotonic, location)
        self._interrupted_by = interrupted_by
        self._interruption: BaseException | None = None  # what pytest caught (KeyboardInterrupt, Exit)
        self.totals = {"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0}

    # -- specs ------------------------------------------------------------------------------
    def _spec(self, path: str) -> _Spec:
        key = str(Path(path).resolve())
        spec = self._specs.get(key)
        if spec is None:
            relative = relative_to_first(Path(path), (self.spec_root, self.project_root)) or Path(path).as_posix()
            spec = self._specs[key] = _Spec(relative, key)
            self._order.append(key)
        return spec

    def _spec_of(self, nodeid: str) -> _Spec:
        path = nodeid.split("::")[0]
        spec = self._by_nodeid_path.get(path)
        if spec is None:
            candidate = Path(path)
            if not candidate.is_absolute():
                for root in (Path.cwd(), self.project_root):
                    if (root / candidate).exists():
                        candidate = root / candidate
                        break
            spec = self._by_nodeid_path[path] = self._spec(str(candidate))
        return spec

    def _start(self, spec: _Spec) -> None:
        spec.started = time.monotonic()
        self._publish(SpecStarted(spec=spec.relative, absolute=spec.absolute))

    def _end(self, spec: _Spec) -> None:
        if spec.ended:
            return
        spec.ended = True
        if spec.started is None:
            self._start(spec)
        assert spec.started is not None
        duration = (time.monotonic() - spec.started) * 1000
        if spec.video_told:  # recorded in the pytest-xdist worker that ran the spec
            video = spec.video
        else:
            video = self._finish_spec(spec.relative, not spec.failed and not spec.error) if self._finish_spec else None
        if spec.error:
            self.totals["failed"] += 1
        self._publish(SpecEnded(spec=spec.relative, duration_ms=duration, error=spec.error,
                                error_type=spec.error_type, error_message=spec.error_message,
                                video=video, empty=spec.empty))

    def _end_specs_without_tests(self, before: str | None = None) -> None:
        """Tell the specs that could not be loaded or hold no test (there is nothing to wait
        for), in their place in the order: those listed before the spec ``before``, or all."""
        for key in self._order:
            if key == before:
                break
            spec = self._specs[key]
            if (spec.error or spec.empty) and spec.remaining == 0 and spec.started is None:
                self._end(spec)

    # -- collection -------------------------------------------------------------------------
    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self._collected_files.add(str(Path(str(item.path)).resolve()))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._count([item.nodeid for item in session.items],
                    paths=[str(item.path) for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """pytest-xdist's controller: the tests a worker collected (every worker collects the
        same ones; the first tells how many tests each spec has)."""
        if self._counted:
            return
        files = [str(self._spec_of(nodeid).absolute) for nodeid in ids]
        self._collected_files.update(files)
        self._count(ids, paths=files)
        self._announce()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """The run begins once collection succeeded (a bad ``-k`` fails after collection_finish,
        which pytest calls whatever happened): a run pytest refused never has a run.started."""
        if self._counted:
            self._announce()

    def _count(self, nodeids: list[str], paths: list[str]) -> None:
        if self._counted:
            return
        self._counted = True
        for path in paths:
            self._spec(path).remaining += 1
        if self._selected is not None:
            ordered = []
            for key in self._selected:
                if key in self._specs:
                    ordered.append(key)
                elif key not in self._collected_files:
                    self._spec(key).empty = True
                    ordered.append(key)
            self._order = ordered + [k for k in self._order if k not in ordered]

    def _announce(self) -> None:
        if self._announced:
            return
        self._announced = True
        self._publish(self._describe_run([self._specs[k].relative for k in self._order]))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.fspath:
            spec = self._spec(str(report.fspath))
            spec.error = load_error_text(str(report.longrepr))
            spec.error_type, spec.error_message = load_error_summary(spec.error)

    # -- tests ------------------------------------------------------------------------------
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._announce()
        spec = self._spec_of(nodeid)
        if spec.started is None:
            self._end_specs_without_tests(before=spec.absolute)
            self._start(spec)
        self._running[nodeid] = (time.monotonic(), location)
        self._publish(TestStarted(spec=spec.relative, nodeid=nodeid, title=title_of(nodeid)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when not in ("setup", "call", "teardown") and report.nodeid in self._running:
            # pytest-xdist's report of a worker that died running this test (its `when` is "???"):
            # no other report of it comes, so it ends here, failed by the death
            said = (report.longreprtext.strip().splitlines() or ["it ended"])[-1]  # "worker 'gw0' crashed ..."
            self._end_dead_test(report.nodeid, f"a worker process of the run died ({said})")
            return
        self._reports.setdefault(report.nodeid, []).append(report)

    def _end_dead_test(self, nodeid: str, how: str) -> None:
        started, location = self._running[nodeid]
        where = location if isinstance(location, tuple) else (nodeid.split("::")[0], None, nodeid)
        self._reports[nodeid] = [died_report(nodeid, where, how, time.monotonic() - started)]
        self.pytest_runtest_logfinish(nodeid, location)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        reports = self._reports.pop(nodeid, [])
        spec = self._spec_of(nodeid)
        if spec.started is None:  # a test whose start was not told (a plugin skipped logstart)
            self._start(spec)
        earlier: list[dict[str, Any]] = []
        allowed: int | None = None
        for report in reports:
            earlier = getattr(report, ATTEMPTS_ATTR, None) or earlier
            allowed = getattr(report, ALLOWED_ATTR, None) or allowed
            # a pytest-xdist worker's events of the test, in their place (worker_relay.py)
            for data in getattr(report, EVENTS_ATTR, None) or ():
                self._publish(from_json(data))
            told = getattr(report, SPEC_VIDEO_ATTR, None)
            if isinstance(told, dict):
                spec.video, spec.video_told = told.get("video"), True
        attempts = [*earlier, attempt_from_reports(reports)]
        for number, attempt in enumerate(attempts, 1):
            self._publish(AttemptEnded(
                spec=spec.relative, nodeid=nodeid, attempt=number, state=attempt["state"],
                duration_ms=attempt["duration_ms"], error=attempt["error"], error_type=attempt["error_type"],
                message=attempt["message"], screenshots=list(attempt["screenshots"]), log=list(attempt["log"]),
                routes=list(attempt["routes"]), requests=list(attempt["requests"]),
                trace=attempt.get("trace"),
            ))
        final = attempts[-1]
        duration = sum(a["duration_ms"] for a in attempts)
        threshold = final["slow_ms"] if final["slow_ms"] is not None else self._slow_ms
        state = final["state"]
        self.totals["tests"] += 1
        self.totals[state] = self.totals.get(state, 0) + 1
        spec.failed = spec.failed or state == "failed"
        self._publish(TestEnded(
            spec=spec.relative, nodeid=nodeid, title=title_of(nodeid), state=state, duration_ms=duration,
            attempts=len(attempts), slow=duration > float(threshold),
            flaky=state == "passed" and len(attempts) > 1, attempts_allowed=allowed,
        ))
        self._running.pop(nodeid, None)
        spec.remaining -= 1
        if spec.remaining <= 0:
            self._end(spec)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self._interruption = excinfo.value

    def _reason(self) -> str:
        return interruption_reason(self._interrupted_by() if self._interrupted_by else None,
                                   self._interruption)

    def _end_interrupted_tests(self) -> None:
        """Tell the tests the interruption cut short (started, never ended) as failed by it."""
        reason = self._reason()
        for nodeid, (started, location) in list(self._running.items()):
            where = location if isinstance(location, tuple) else (nodeid.split("::")[0], None, nodeid)
            self._reports.setdefault(nodeid, []).append(
                interrupted_report(nodeid, where, reason, time.monotonic() - started))
            self.pytest_runtest_logfinish(nodeid, location)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) and not self._announced:
            return  # pytest stopped before the run began (a bad -k): no run.started, runner run says why
        self._announce()
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self._end_interrupted_tests()
        for nodeid in list(self._running):  # started, never ended, not interrupted: its process died
            self._end_dead_test(nodeid, "the run ended before it did (its process stopped answering)")
        for key in self._order:  # specs cut short (-x, maxfail, interrupted) end first
            spec = self._specs[key]
            if spec.started is not None:
                self._end(spec)
        self._end_specs_without_tests()
        if self._settle is not None:
            self._settle()
        ran = self.totals["tests"] or any(s.ended for s in self._specs.values())
        if exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) and not ran:
            return  # pytest did not run: there are no results to report (runner run says why)
        error = ("no tests ran" if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
                 else self._run_error() if self._run_error is not None else None)
        if interrupted:
            error = f"interrupted by {self._reason()}"
        totals = self.totals
        self._publish(RunEnded(
            duration_ms=(time.monotonic() - self._started) * 1000, tests=totals["tests"],
            passed=totals["passed"], failed=totals["failed"], pending=totals["pending"],
            skipped=totals["skipped"], error=error, interrupted=interrupted,
        ))
