"""Each test of a run, from its start to its reports' verdict: ``test.started``, every
``attempt.ended`` and ``test.ended``.

An attempt after which the test runs another is told as it ends (``attempt_ended``, from the
retries' loop); the test's last attempt, and any attempt not told yet (a pytest-xdist worker's,
whose reports come with the test's end), are told from the test's reports when it ends.
A test's reports (setup, call, teardown; its earlier attempts carried on the last) are gathered
until pytest finishes it. A test that started and never ended is ended anyway, failed by what cut
it short: the death of the pytest-xdist worker running it, the run's interruption, or the end of
the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from runner.events import NOT_RUN, AttemptEnded, Event, TestEnded, TestStarted, from_json
from runner.plugin.outcomes import (
    ALLOWED_ATTR,
    ATTEMPTS_ATTR,
    EVENTS_ATTR,
    QUARANTINE_ATTR,
    SPEC_VIDEO_ATTR,
    VERDICT_ATTR,
    attempt_from_reports,
    died_report,
    interrupted_report,
    title_of,
)
from runner.plugin.spec_ledger import SpecLedger, SpecRecord

__all__ = ["TestsLedger"]


class TestsLedger:
    """The run's tests, started and ended; ``totals`` counts them by their final state."""

    __test__ = False  # not a test class (pytest collects Test* names)

    def __init__(self, *, publish: Callable[[Event], None], specs: SpecLedger, slow_ms: float,
                 totals: dict[str, int]) -> None:
        self._publish = publish
        self._specs = specs
        self._slow_ms = slow_ms  # the run's slowTestThreshold (a test's own comes in its reports)
        self._totals = totals
        self._reports: dict[str, list[pytest.TestReport]] = {}
        self._running: dict[str, tuple[float, Any]] = {}  # started, not ended: (monotonic, location)
        self._ended: set[str] = set()
        self._told: dict[str, list[dict[str, Any]]] = {}  # attempts told as they ended, test not ended

    def started(self, nodeid: str, location: Any) -> None:
        spec = self._specs.spec_of(nodeid)
        self._specs.test_starts(spec)
        self._running[nodeid] = (time.monotonic(), location)
        self._publish(TestStarted(spec=spec.relative, nodeid=nodeid, title=title_of(nodeid)))

    def attempt_ended(self, nodeid: str, attempt: dict[str, Any]) -> None:
        """An attempt of a test that will run another (plugin/retrying.py) is told as it ends,
        not with the test's end: its ``attempt.ended`` comes before the next attempt's events."""
        told = self._told.setdefault(nodeid, [])
        told.append(attempt)
        self._tell_attempt(self._specs.spec_of(nodeid), nodeid, len(told), attempt)

    def report(self, report: pytest.TestReport) -> None:
        if report.when not in ("setup", "call", "teardown") and report.nodeid in self._running:
            # pytest-xdist's report of a worker that died running this test (its `when` is "???"):
            # no other report of it comes, so it ends here, failed by the death
            said = (report.longreprtext.strip().splitlines() or ["it ended"])[-1]  # "worker 'gw0' crashed ..."
            self.end_dead(report.nodeid, f"a worker process of the run died ({said})")
            return
        self._reports.setdefault(report.nodeid, []).append(report)

    def end_dead(self, nodeid: str, how: str) -> None:
        """End the test ``nodeid``, failed by the death of the process that ran it (``how``)."""
        started, location = self._running[nodeid]
        where = location if isinstance(location, tuple) else (nodeid.split("::")[0], None, nodeid)
        self._reports[nodeid] = [self._after_told(nodeid, died_report(nodeid, where, how, time.monotonic() - started))]
        self.finished(nodeid, location)

    def end_interrupted(self, reason: str) -> None:
        """Tell the tests the interruption cut short (started, never ended) as failed by it."""
        for nodeid, (started, location) in list(self._running.items()):
            where = location if isinstance(location, tuple) else (nodeid.split("::")[0], None, nodeid)
            self._reports.setdefault(nodeid, []).append(
                self._after_told(nodeid, interrupted_report(nodeid, where, reason, time.monotonic() - started)))
            self.finished(nodeid, location)

    def _after_told(self, nodeid: str, report: pytest.TestReport) -> pytest.TestReport:
        """A report made here for a test cut short: the attempts told as they ended are its
        earlier attempts (a waiting test's, whose reports pytest was never given)."""
        if self._told.get(nodeid) and not getattr(report, ATTEMPTS_ATTR, None):
            setattr(report, ATTEMPTS_ATTR, list(self._told[nodeid]))
        return report

    def end_unfinished(self) -> None:
        """The run ends: a test started, never ended and not interrupted lost its process."""
        for nodeid in list(self._running):
            self.end_dead(nodeid, "the run ended before it did (its process stopped answering)")

    def finished(self, nodeid: str, location: Any) -> None:
        """pytest finished the test: its attempts and its verdict, from its reports."""
        reports = self._reports.pop(nodeid, [])
        spec = self._specs.spec_of(nodeid)
        if spec.started is None:  # a test whose start was not told (a plugin skipped logstart)
            self._specs.start(spec)
        verdict = next((v for r in reports if isinstance(v := getattr(r, VERDICT_ATTR, None), dict)), {})
        attempts, allowed = self._attempts(nodeid, spec, reports, last_kept=bool(verdict.get("last_attempt_kept")))
        final = attempts[-1]
        duration = sum(a["duration_ms"] for a in attempts)
        threshold = final["slow_ms"] if final["slow_ms"] is not None else self._slow_ms
        # a retry strategy's outcome may differ from the last attempt's (a flaky test it fails)
        state = str(verdict.get("outcome") or final["state"])
        quarantine = next((str(getattr(r, QUARANTINE_ATTR)) for r in reports if getattr(r, QUARANTINE_ATTR, None)), None)
        self._totals["tests"] += 1
        self._totals[state] = self._totals.get(state, 0) + 1
        if quarantine is not None and state == "failed":
            self._totals["quarantined"] += 1
        self._publish(TestEnded(
            spec=spec.relative, nodeid=nodeid, title=title_of(nodeid), state=state, duration_ms=duration,
            attempts=len(attempts), slow=duration > float(threshold),
            flaky=state == "passed" and len(attempts) > 1, attempts_allowed=allowed,
            quarantine=quarantine, verdict=verdict.get("text"),
        ))
        self._running.pop(nodeid, None)
        self._ended.add(nodeid)
        self._specs.test_ended(spec, state)

    def end_not_run(self, nodeids: list[str], reason: str) -> None:
        """The run stopped early (``reason``): each of ``nodeids`` that never started is told as
        ``not_run``, in the run's order. A spec that had started ends with its last; one that
        never started gets no ``spec.started`` or ``spec.ended`` (the plugins file's
        ``before:spec`` and ``after:spec`` do not fire for it): only its tests are told."""
        for nodeid in nodeids:
            if nodeid in self._ended or nodeid in self._running:
                continue
            spec = self._specs.spec_of(nodeid)
            self._totals["tests"] += 1
            self._totals[NOT_RUN] += 1
            self._ended.add(nodeid)
            self._publish(TestEnded(spec=spec.relative, nodeid=nodeid, title=title_of(nodeid), state=NOT_RUN,
                                    duration_ms=0.0, attempts=0, reason=reason))
            if spec.started is not None:
                self._specs.test_ended(spec, NOT_RUN)

    def _attempts(self, nodeid: str, spec: SpecRecord, reports: list[pytest.TestReport], *,
                  last_kept: bool = False) -> tuple[list[dict[str, Any]], int | None]:
        """The test's attempts (the earlier ones its last report carries; with ``last_kept``, the
        last one too, as it ran, its reports holding a strategy's verdict), each told as
        ``attempt.ended``, and how many it was allowed; a pytest-xdist worker's events of the test
        are told first, in their place (worker_relay.py)."""
        earlier: list[dict[str, Any]] = []
        allowed: int | None = None
        for report in reports:
            earlier = getattr(report, ATTEMPTS_ATTR, None) or earlier
            allowed = getattr(report, ALLOWED_ATTR, None) or allowed
            for data in getattr(report, EVENTS_ATTR, None) or ():
                self._publish(from_json(data))
            told = getattr(report, SPEC_VIDEO_ATTR, None)
            if isinstance(told, dict):
                spec.video, spec.video_told = told.get("video"), True
        attempts = earlier if last_kept and earlier else [*earlier, attempt_from_reports(reports)]
        told = len(self._told.pop(nodeid, []))
        for number, attempt in enumerate(attempts, 1):
            if number > told:
                self._tell_attempt(spec, nodeid, number, attempt)
        return attempts, allowed

    def _tell_attempt(self, spec: SpecRecord, nodeid: str, number: int, attempt: dict[str, Any]) -> None:
        self._publish(AttemptEnded(
            spec=spec.relative, nodeid=nodeid, attempt=number, state=attempt["state"],
            duration_ms=attempt["duration_ms"], error=attempt["error"], error_type=attempt["error_type"],
            message=attempt["message"], screenshots=list(attempt["screenshots"]), log=list(attempt["log"]),
            routes=list(attempt["routes"]), requests=list(attempt["requests"]),
            trace=attempt.get("trace"),
        ))
