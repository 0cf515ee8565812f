"""The HTML report's quarantine tag and totals in a real Chromium, driven by runner itself: a
report built from a run's events, served on 127.0.0.1, opened with ``runner.visit``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.static_files import serve_folder

from runner.events import (
    AttemptEnded,
    Event,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
)
from runner.reporters.html import HtmlReport

pytestmark = pytest.mark.e2e

WHY = '<img src=x onerror="window.pwned=1"> bug #12'
SPEC = "cart_spec.py"


def _test(name: str, at: float, state: str, quarantine: str | None) -> list[Event]:
    nodeid = f"runner/integration/{SPEC}::{name}"
    error = "E   AssertionError: nope" if state == "failed" else None
    return [TestStarted(at=at, spec=SPEC, nodeid=nodeid, title=[name]),
            AttemptEnded(at=at + 0.01, spec=SPEC, nodeid=nodeid, attempt=1, state=state, duration_ms=10,
                         error=error, message="AssertionError: nope" if error else None),
            TestEnded(at=at + 0.02, spec=SPEC, nodeid=nodeid, title=[name], state=state, duration_ms=10,
                      attempts=1, quarantine=quarantine)]


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("quarantine-report")
    report = HtmlReport(base / "report", viewer=None)
    at = 1_700_000_000.0
    events: list[Event] = [
        RunStarted(at=at, run_id="q", runner_version="9.9.9", browser="chromium", specs=[SPEC]),
        SpecStarted(at=at, spec=SPEC, absolute=f"/p/runner/integration/{SPEC}"),
        *_test("test_broken", at + 1, "failed", WHY), *_test("test_watched", at + 2, "passed", "watched"),
        *_test("test_ok", at + 3, "passed", None),
        SpecEnded(at=at + 4, spec=SPEC, duration_ms=30),
        RunEnded(at=at + 5, duration_ms=5000, tests=3, passed=2, failed=1, pending=0, skipped=0, quarantined=1),
    ]
    for event in events:
        report(event)
    with serve_folder(report.finish()) as url:
        yield url + "/index.html"


def test_a_quarantined_test_has_its_tag_and_reason_and_does_not_fail_the_run(runner, report_url: str) -> None:
    runner.visit(report_url)
    runner.get("#verdict").should("have.text", "passed")  # its only failure is quarantined
    runner.get("#summary .chip.c-failed b").should("have.text", "1")
    runner.get("#summary .chip.c-quarantined b").should("have.text", "1")
    runner.get("#list .tag.quarantined").should("have.length", 2)
    runner.contains(".row", "test_broken").find(".tag.quarantined").should("have.text", "quarantined").and_(
        "have.attr", "title", WHY)
    runner.contains(".row", "test_ok").find(".tag.quarantined").should("not.exist")
    runner.contains(".row", "test_broken").click()
    runner.get("#detail .facts .tag.quarantined").should("have.text", f"quarantined: {WHY}")
    runner.get("#detail img").should("not.exist")  # the reason is text, never markup


@pytest.fixture(scope="module")
def flaky_report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The report of a ``--fail-on-flaky`` run whose only failure is a flaky test (passed on its
    retry) and a quarantined one."""
    base = tmp_path_factory.mktemp("fail-on-flaky-report")
    report = HtmlReport(base / "report", viewer=None)
    at = 1_700_000_000.0
    nodeid = f"runner/integration/{SPEC}::test_flip"
    events: list[Event] = [
        RunStarted(at=at, run_id="f", runner_version="9.9.9", browser="chromium", specs=[SPEC]),
        SpecStarted(at=at, spec=SPEC, absolute=f"/p/runner/integration/{SPEC}"),
        TestStarted(at=at + 1, spec=SPEC, nodeid=nodeid, title=["test_flip"]),
        AttemptEnded(at=at + 1.1, spec=SPEC, nodeid=nodeid, attempt=1, state="failed", duration_ms=10,
                     error="E   AssertionError: flip", message="AssertionError: flip"),
        AttemptEnded(at=at + 1.2, spec=SPEC, nodeid=nodeid, attempt=2, state="passed", duration_ms=10),
        TestEnded(at=at + 1.3, spec=SPEC, nodeid=nodeid, title=["test_flip"], state="passed", duration_ms=20,
                  attempts=2, flaky=True, attempts_allowed=2),
        *_test("test_broken", at + 2, "failed", "known"),
        SpecEnded(at=at + 4, spec=SPEC, duration_ms=30),
        RunEnded(at=at + 5, duration_ms=5000, tests=2, passed=1, failed=1, pending=0, skipped=0, quarantined=1,
                 fail_on_flaky=True),
    ]
    for event in events:
        report(event)
    assert report.failures == 1  # runner report --from's exit status
    with serve_folder(report.finish()) as url:
        yield url + "/index.html"


def test_a_flaky_test_fails_the_verdict_of_a_fail_on_flaky_run(runner, flaky_report_url: str) -> None:
    runner.visit(flaky_report_url)
    runner.get("#verdict").should("have.text", "failed")  # as the exit status: not "passed"
    runner.get("#summary .chip.c-flaky-failing").should("contain.text", "flaky failing (--fail-on-flaky)")
    runner.get("#summary .chip.c-flaky-failing b").should("have.text", "1")
    runner.get("#summary .chip.c-quarantined b").should("have.text", "1")
