"""A runner test's attempts under its retries, and the retries deferred to the end of its spec.

:class:`TestAttempts` runs one test's attempts until its retry policy (config/retries.py) decides,
then gives its last reports the earlier attempts, the attempts allowed and a strategy's verdict,
and tells them to pytest. :func:`run_test` runs one item of the run's loop: with ``retries``'
``deferred``, a test whose first attempt failed waits, its retries run after the spec's other
tests; the spec's fixtures of wider scope stay set up through its last test (its teardown is
aimed at the first waiting test), and are torn down after the last retry, as pytest tears them
down after a spec's last test (and, as for that test's retries, between the attempts of the
last waiting test). A pytest-xdist worker reports only the test it is running, so there the
retries run at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from runner.config.retries import RetryPolicy, Verdict
from runner.plugin.max_failures import run_stopped
from runner.plugin.outcomes import (
    ALLOWED_ATTR,
    ATTEMPTS_ATTR,
    ERROR_ATTR,
    VERDICT_ATTR,
    attempt_from_reports,
)

__all__ = ["TestAttempts", "run_test"]

#: ``tell_interrupted(item, error, earlier attempts, seconds)``: the run stopped during an attempt
Interrupted = Callable[[pytest.Item, BaseException, list[dict[str, Any]], float], None]
#: ``tell_ended(item, attempt)``: an attempt ended and another will run (its ``attempt.ended`` now)
AttemptTold = Callable[[pytest.Item, dict[str, Any]], None]


@dataclass
class TestAttempts:
    """One test's attempts so far: ``set_attempt(item, n)`` is told each attempt's number
    before it runs (its artifacts are named by it); ``tell_ended`` each attempt after which
    another is due, as it ends (a deferred one's too, before the spec's other tests run)."""

    __test__ = False  # not a test class (pytest collects Test* names)

    item: pytest.Item
    policy: RetryPolicy
    set_attempt: Callable[[pytest.Item, int], None]
    tell_interrupted: Interrupted
    tell_ended: AttemptTold
    earlier: list[dict[str, Any]] = field(default_factory=list)
    reports: list[pytest.TestReport] = field(default_factory=list)
    passed: int = 0
    failed: int = 0
    verdict: Verdict | None = None
    _ended: dict[str, Any] = field(default_factory=dict)  # the last attempt, told as it ended

    @property
    def more(self) -> bool:
        """Another attempt is due (none ran yet, or the policy wants one)."""
        return self.verdict is None or self.verdict.more

    def attempt(self, nextitem: pytest.Item | None) -> None:
        """Run one attempt; ``nextitem`` is what pytest tears down towards after it."""
        if self.verdict is not None:  # the attempt before this one is an earlier attempt now
            self.earlier.append(self._ended)
        self.set_attempt(self.item, self.passed + self.failed + 1)
        started = time.monotonic()
        try:
            self.reports = runtestprotocol(self.item, nextitem=nextitem, log=False)
        except (KeyboardInterrupt, pytest.exit.Exception) as err:
            self.tell_interrupted(self.item, err, self.earlier, time.monotonic() - started)
            raise  # pytest ends the run as interrupted
        if any(r.failed for r in self.reports):
            self.failed += 1
        else:
            self.passed += 1
        self.verdict = self.policy.decide(self.passed, self.failed)
        if self.verdict.more:
            self._ended = attempt_from_reports(self.reports)
            self.tell_ended(self.item, self._ended)

    def give_up(self) -> None:
        """End the test with the attempts it had (it failed): the run stops before its retries."""
        self.verdict = Verdict(False, "failed", None)
        self.finish()

    def finish(self) -> None:
        """The test ended: its last reports, with its attempts and verdict, told to pytest."""
        assert self.verdict is not None
        _give_verdict(self.reports, self.verdict, self.earlier, self.policy.attempts_allowed,
                      ran=self.passed + self.failed)
        for report in self.reports:
            self.item.ihook.pytest_runtest_logreport(report=report)
        self.item.ihook.pytest_runtest_logfinish(nodeid=self.item.nodeid, location=self.item.location)


def run_test(item: pytest.Item, nextitem: pytest.Item | None, attempts: TestAttempts | None,
             waiting: list[TestAttempts], *, may_defer: bool) -> None:
    """Run ``item`` (``attempts``: its retries, None for a test runner does not retry), then,
    when it is its spec's last, the retries ``waiting`` for the spec's end, in the order their
    tests failed. ``may_defer``: a failed test's retries may wait (not under ``-x``, nor in a
    pytest-xdist worker, which reports only the test it runs)."""
    last_of_spec = nextitem is None or nextitem.path != item.path
    # while tests wait, the spec's module and class fixtures stay up through its last test
    towards = waiting[0].item if waiting and last_of_spec else nextitem
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    if attempts is None:  # as pytest's own protocol
        runtestprotocol(item, nextitem=towards, log=True)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    else:
        attempts.attempt(towards)
        if attempts.more and attempts.policy.deferred and may_defer and not last_of_spec:
            waiting.append(attempts)  # its test ends after its retries, at the spec's end
            return
        while attempts.more:
            attempts.attempt(towards)
        attempts.finish()
    _give_up_if_stopped(item, waiting)
    if not last_of_spec:
        return
    while waiting:
        held = waiting.pop(0)
        after = waiting[0].item if waiting else nextitem
        while held.more:
            held.attempt(after)
        held.finish()
        _give_up_if_stopped(item, waiting)


def _give_up_if_stopped(item: pytest.Item, waiting: list[TestAttempts]) -> None:
    """The run stops after the test that just ended (--max-failures, a plugin's stop on
    failures): the tests still waiting end now, failed by the attempt they had (no test starts
    after this one, so their spec's end never comes, nor do their retries), as the run asked."""
    if waiting and (item.session.shouldstop or item.session.shouldfail or run_stopped(item.config)):
        while waiting:
            waiting.pop(0).give_up()


def _give_verdict(reports: list[pytest.TestReport], verdict: Verdict, earlier: list[dict[str, Any]],
                  allowed: int, *, ran: int) -> None:
    """Put on the test's last reports its earlier attempts, the attempts allowed and a retry
    strategy's verdict. A strategy that fails a test whose last attempt passed
    (detect-flake-but-always-fail) fails its call report with the verdict, so that pytest, its
    exit status and every report count it failed; the attempt itself is kept as it ran."""
    if verdict.text is not None and verdict.outcome == "failed" and not any(r.failed for r in reports):
        last = attempt_from_reports(reports)
        call = next((r for r in reports if r.when == "call"), reports[-1])
        call.outcome = "failed"
        call.longrepr = f"RetryStrategy: {verdict.text}."
        setattr(call, ERROR_ATTR, ["RetryStrategy", f"RetryStrategy: {verdict.text}."])
        earlier = [*earlier, last]
        for report in reports:
            setattr(report, VERDICT_ATTR, {"outcome": "failed", "text": verdict.text, "last_attempt_kept": True})
    elif verdict.text is not None:
        for report in reports:
            setattr(report, VERDICT_ATTR, {"outcome": verdict.outcome, "text": verdict.text})
    for report in reports:
        setattr(report, ALLOWED_ATTR, allowed)  # "attempt 2 of 3", not "of 2": the retries allowed
        if earlier:
            setattr(report, ATTEMPTS_ATTR, earlier)  # plain data: it crosses to xdist's controller
            report.sections.append(("runner attempts", f"attempt {ran} of {allowed}"))
