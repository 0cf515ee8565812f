"""What a run produced, as plain data every reporter reads: specs, tests, attempts, errors."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["NOT_RUN", "AttemptResult", "TestResult", "SpecResult", "RunResult", "flaky_failure_message"]

#: The state of a test the run stopped before (``--max-failures``): no attempt, no failure.
NOT_RUN = "not_run"


@dataclass
class AttemptResult:
    """One run of a test (a test with retries has several)."""

    state: str  # "passed" | "failed" | "pending" | "skipped"
    duration_ms: float
    error: str | None = None  # the whole report: the test's source lines and the traceback
    error_type: str | None = None  # the exception's class name: "CommandError", "AssertionError"
    screenshots: list[str] = field(default_factory=list)  # failure screenshot and runner.screenshot()
    message: str | None = None  # one line: "CommandError: Timed out retrying after 4000ms: ..."
    trace: str | None = None  # the attempt's Playwright trace (a .zip) when one was kept

    def headline(self) -> str | None:
        """The error in one line: ``message``, else the first line of ``error``."""
        if self.message:
            return self.message
        lines = [line.strip() for line in (self.error or "").splitlines() if line.strip()]
        return lines[0] if lines else None


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    nodeid: str
    title: list[str]  # suite titles then the test name
    state: str  # final state: "passed" | "failed" | "pending" | "skipped" | "not_run" (NOT_RUN)
    attempts: list[AttemptResult] = field(default_factory=list)
    duration_ms: float = 0.0
    slow: bool = False
    log: list[str] = field(default_factory=list)
    routes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    attempts_allowed: int | None = None  # retries + 1; None when not known
    verdict: str | None = None  # a retry strategy's words on the outcome ("passed 2 of 3 attempts, ...")
    quarantine: str | None = None  # why it is quarantined (its failure does not fail the run)
    reason: str | None = None  # why a not_run test did not run: "stopped after 1 failure (--max-failures 1)"
    # it passed only on a retry, in a run with --fail-on-flaky (not quarantined): it fails the run
    fails_as_flaky: bool = False

    @property
    def counts_as_failure(self) -> bool:
        """It failed, and is not quarantined, or it is flaky under ``--fail-on-flaky``: it fails
        the run."""
        return (self.state == "failed" and self.quarantine is None) or self.fails_as_flaky

    @property
    def quarantined_failure(self) -> bool:
        """It failed under quarantine: reported, but the run does not fail for it."""
        return self.state == "failed" and self.quarantine is not None

    @property
    def full_title(self) -> str:
        return " ".join(self.title)

    @property
    def flaky(self) -> bool:
        return self.state == "passed" and len(self.attempts) > 1

    @property
    def flaky_failed(self) -> bool:
        """Failed although an attempt passed: a retry strategy failed a flaky test."""
        return self.state == "failed" and any(a.state == "passed" for a in self.attempts)

    @property
    def error(self) -> str | None:
        """The last attempt's whole error report (None when no attempt failed)."""
        last = self.last_failed
        return last.error if last else None

    @property
    def message(self) -> str | None:
        """The last failed attempt's error in one line, ``"Type: message"`` (else the error's first
        line); for a test that did not fail, why it was skipped (``"Skipped: not now"``,
        ``"expected to fail: known bug"``) or not run (its ``reason``), or None."""
        if self.state == NOT_RUN:
            return self.reason
        last = self.last_failed
        if last is not None:
            return last.headline()
        return self.attempts[-1].message if self.attempts and self.state != "passed" else None

    @property
    def last_failed(self) -> AttemptResult | None:
        """The last attempt that failed (None when none did)."""
        return next((attempt for attempt in reversed(self.attempts) if attempt.error), None)

    @property
    def screenshots(self) -> list[str]:
        """Every screenshot file of every attempt, in order, each once (a retry may overwrite one)."""
        return list(dict.fromkeys(shot for attempt in self.attempts for shot in attempt.screenshots))

    @property
    def traces(self) -> list[str]:
        """The trace file of every attempt that kept one, in order."""
        return [attempt.trace for attempt in self.attempts if attempt.trace]


@dataclass
class SpecResult:
    relative: str  # path relative to the project root
    absolute: str
    tests: list[TestResult] = field(default_factory=list)
    error: str | None = None  # the spec could not be loaded (syntax error, import error)
    duration_ms: float = 0.0
    video: str | None = None
    screenshots: list[str] = field(default_factory=list)
    traces: list[str] = field(default_factory=list)  # of its tests' attempts, in order
    # why it could not be loaded, in one line: "SyntaxError: invalid syntax (a_spec.py, line 3)"
    error_message: str | None = None
    error_type: str | None = None  # "SyntaxError", "ModuleNotFoundError", ...
    started_at: float | None = None  # when it started, seconds since the epoch

    def error_headline(self) -> str | None:
        """Why the spec could not be loaded, in one line (None when it loaded)."""
        if not self.error:
            return None
        if self.error_message:
            return self.error_message
        lines = [line.strip() for line in self.error.splitlines() if line.strip()]
        return lines[-1] if lines else "error"

    def count(self, state: str) -> int:
        return sum(1 for t in self.tests if t.state == state)

    @property
    def failures(self) -> int:
        """What fails the spec: its failed tests but the quarantined ones, and a load error."""
        return sum(1 for t in self.tests if t.counts_as_failure) + (1 if self.error else 0)

    @property
    def quarantined(self) -> int:
        """Its failed tests that are quarantined (not counted in :attr:`failures`)."""
        return sum(1 for t in self.tests if t.quarantined_failure)

    @property
    def ok(self) -> bool:
        return self.failures == 0

    @property
    def never_started(self) -> bool:
        """A stop (``--max-failures``) came before it: it was never started (no ``spec.started``
        event) and its tests, as far as told, were not run."""
        return self.started_at is None and bool(self.tests) and all(t.state == NOT_RUN for t in self.tests)

    @property
    def flaky_failures(self) -> int:
        """Its flaky tests that fail the run (``--fail-on-flaky``), counted in :attr:`failures`."""
        return sum(1 for t in self.tests if t.fails_as_flaky)


@dataclass
class RunResult:
    specs: list[SpecResult] = field(default_factory=list)
    duration_ms: float = 0.0
    browser: str = ""
    runner_version: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # the run as a whole failed: "no tests ran"
    started_at: str | None = None  # ISO 8601, UTC, when the run started
    ended_at: str | None = None
    stopped: str | None = None  # why the run stopped before all its tests ran (--max-failures)
    fail_on_flaky: bool = False  # the run was made with --fail-on-flaky (see :meth:`fail_flaky`)

    def fail_flaky(self) -> None:
        """``--fail-on-flaky``: every test that passed only on a retry (a quarantined one
        excepted) fails the run, counted in :attr:`failures` with the failed tests."""
        self.fail_on_flaky = True
        for test in self.all_tests():
            test.fails_as_flaky = test.flaky and test.quarantine is None

    @property
    def ok(self) -> bool:
        return not self.failures and not self.error

    def total(self, state: str) -> int:
        return sum(s.count(state) for s in self.specs)

    @property
    def tests(self) -> int:
        return sum(len(s.tests) for s in self.specs)

    @property
    def failures(self) -> int:
        """What fails the run (the exit status): failed tests but the quarantined ones, specs
        that could not be loaded, flaky tests under ``--fail-on-flaky``."""
        return sum(s.failures for s in self.specs)

    @property
    def flaky_failures(self) -> int:
        """Flaky tests that fail the run (``--fail-on-flaky``), counted in :attr:`failures`."""
        return sum(s.flaky_failures for s in self.specs)

    @property
    def quarantined(self) -> int:
        """Failed tests that are quarantined: reported, not counted in :attr:`failures`."""
        return sum(s.quarantined for s in self.specs)

    def all_tests(self) -> list[TestResult]:
        """Every test of every spec, in order."""
        return [test for spec in self.specs for test in spec.tests]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def flaky_failure_message(test: TestResult) -> str:
    """Why a flaky test fails a ``--fail-on-flaky`` run, in one line: ``passed only on attempt
    2 of 3: fails the run (--fail-on-flaky); attempt 1 failed: AssertionError: ...``."""
    allowed = test.attempts_allowed or len(test.attempts)
    number, failed = next(((i, a) for i, a in enumerate(test.attempts, 1) if a.state == "failed"),
                          (1, test.attempts[0] if test.attempts else None))
    said = (failed.headline() if failed is not None else None) or "failed"
    return (f"passed only on attempt {len(test.attempts)} of {allowed}: fails the run (--fail-on-flaky); "
            f"attempt {number} failed: {said}")
