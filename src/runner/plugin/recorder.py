"""pytest's view of a run, told as run events.

:class:`RunRecorder` is a pytest plugin object registered by runner's plugin whenever a run
session is active (not in pytest-xdist workers: their reports reach the controller's recorder).
It turns collection and the test reports into ``run.started``, ``spec.started``,
``test.started``, ``attempt.ended``, ``test.ended``, ``spec.ended`` and ``run.ended`` on the
session's bus. It reads only what the reports carry, so tests run in this process and tests run
by xdist workers are told the same way. The specs are kept by ``plugin/spec_ledger.py``, the
tests by ``plugin/tests_ledger.py``; the recorder tells the run itself and hands them the hooks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.events import NOT_RUN, Event, RunEnded, RunStarted
from runner.plugin.outcomes import interruption_reason
from runner.plugin.spec_ledger import SpecLedger
from runner.plugin.tests_ledger import TestsLedger

__all__ = ["RunRecorder"]


class RunRecorder:
    """Publishes a run's events from pytest's hooks.

    ``describe_run(spec_paths)`` makes the ``run.started`` event; ``finish_spec(relative,
    passed)`` ends a spec's artifacts and returns its video (or None); ``settle()`` waits for
    artifacts still being written (it may publish ``video.written``) before ``run.ended``;
    ``run_error()`` why the run as a whole failed (``run.ended``'s ``error``), if it did;
    ``stopped()`` why it stopped before its last test (``--max-failures``), if it did: the tests
    it never started are told as ``not_run``.
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
                 run_error: Callable[[], str | None] | None = None,
                 stopped: Callable[[], str | None] | None = None, fail_on_flaky: bool = False) -> None:
        self._publish = publish
        self._fail_on_flaky = fail_on_flaky  # told in run.ended, so every report counts flaky tests as failures
        self._describe_run = describe_run
        self._settle = settle
        self._run_error = run_error
        self._stopped = stopped
        self._ids: list[str] = []  # the tests the run will run, by node id, in order
        self._started = time.monotonic()
        self._announced = False
        self._interrupted_by = interrupted_by
        self._interruption: BaseException | None = None  # what pytest caught (KeyboardInterrupt, Exit)
        self.totals = {"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0, "quarantined": 0,
                       NOT_RUN: 0}
        self._specs = SpecLedger(publish=publish, project_root=project_root, spec_root=spec_root,
                                 spec_paths=spec_paths, finish_spec=finish_spec, totals=self.totals)
        self._tests = TestsLedger(publish=publish, specs=self._specs, slow_ms=slow_ms, totals=self.totals)

    # -- collection -------------------------------------------------------------------------
    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self._specs.collected(str(item.path))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self._specs.counted:
            self._ids = [item.nodeid for item in session.items]
        self._specs.count([str(item.path) for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """pytest-xdist's controller: the tests a worker collected (every worker collects the
        same ones; the first tells how many tests each spec has)."""
        if self._specs.counted:
            return
        self._ids = list(ids)
        self._specs.count_workers(ids)
        self._announce()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """The run begins once collection succeeded (a bad ``-k`` fails after collection_finish,
        which pytest calls whatever happened): a run pytest refused never has a run.started."""
        if self._specs.counted:
            self._announce()

    def _announce(self) -> None:
        if self._announced:
            return
        self._announced = True
        self._publish(self._describe_run(self._specs.relatives()))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.fspath:
            self._specs.load_failed(str(report.fspath), str(report.longrepr))

    # -- tests ------------------------------------------------------------------------------
    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._announce()
        self._tests.started(nodeid, location)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._tests.report(report)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self._tests.finished(nodeid, location)

    def attempt_ended(self, nodeid: str, attempt: dict[str, Any]) -> None:
        """An attempt after which the test runs another, told as it ends (plugin/retrying.py)."""
        self._tests.attempt_ended(nodeid, attempt)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self._interruption = excinfo.value

    def _reason(self) -> str:
        return interruption_reason(self._interrupted_by() if self._interrupted_by else None,
                                   self._interruption)

    # -- the run's end ----------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) and not self._announced:
            return  # pytest stopped before the run began (a bad -k): no run.started, runner run says why
        self._announce()
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            self._tests.end_interrupted(self._reason())
        self._tests.end_unfinished()  # started, never ended, not interrupted: its process died
        stopped = self._stopped() if self._stopped is not None and not interrupted else None
        if stopped is not None:
            self._tests.end_not_run(self._ids, stopped)
        self._specs.end_started()  # specs cut short (-x, maxfail, interrupted) end first
        self._specs.end_specs_without_tests()
        if self._settle is not None:
            self._settle()
        ran = self.totals["tests"] or self._specs.any_ended()
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
            skipped=totals["skipped"], error=error, interrupted=interrupted, quarantined=totals["quarantined"],
            stopped=stopped, not_run=totals[NOT_RUN], fail_on_flaky=self._fail_on_flaky,
        ))
