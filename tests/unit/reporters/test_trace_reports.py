"""The trace of an attempt, from its attempt.ended event to every reporter."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.unit.reporters.test_builtin_reporters import render, validate

from runner.events import AttemptEnded, TestEnded
from runner.reporters.dot import DotReporter
from runner.reporters.from_events import RunBuilder
from runner.reporters.json_report import JsonReporter
from runner.reporters.junit import JunitReporter
from runner.reporters.model import RunResult
from runner.reporters.spec import SpecReporter
from runner.reporters.tap import TapReporter

FIRST = "/p/runner/traces/a_spec.py/test_flaky.zip"
BROKEN = "/p/runner/traces/a_spec.py/test bad.zip"


@pytest.fixture(autouse=True)
def _no_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")


def _run() -> RunResult:
    """a_spec.py: test_flaky (failed, traced; then passed untraced), test_bad (failed, traced),
    test_ok (passed, no trace)."""
    builder = RunBuilder()
    for nodeid, attempts in {
        "a_spec.py::test_flaky": [("failed", FIRST), ("passed", None)],
        "a_spec.py::test_bad": [("failed", BROKEN)],
        "a_spec.py::test_ok": [("passed", None)],
    }.items():
        for number, (state, trace) in enumerate(attempts, 1):
            builder.apply(AttemptEnded(spec="a_spec.py", nodeid=nodeid, attempt=number, state=state,
                                       duration_ms=10, error="E boom" if state == "failed" else None,
                                       message="AssertionError: boom" if state == "failed" else None,
                                       trace=trace))
        builder.apply(TestEnded(spec="a_spec.py", nodeid=nodeid, title=[nodeid.split("::")[1]],
                                state=attempts[-1][0], duration_ms=10 * len(attempts), attempts=len(attempts)))
    return builder.run


def test_the_builder_keeps_each_attempts_trace() -> None:
    (spec,) = _run().specs
    flaky, bad, ok = spec.tests
    assert [a.trace for a in flaky.attempts] == [FIRST, None] and flaky.traces == [FIRST]
    assert bad.traces == [BROKEN] and ok.traces == []
    assert spec.traces == [FIRST, BROKEN]


def test_json_has_each_attempts_trace_and_the_tests_traces() -> None:
    text, _ = render(JsonReporter, run=_run())
    flaky, bad, ok = json.loads(text)["specs"][0]["tests"]
    assert [a["trace"] for a in flaky["attempts"]] == [FIRST, None] and flaky["traces"] == [FIRST]
    assert bad["traces"] == [BROKEN] and ok["traces"] == [] and ok["attempts"][0]["trace"] is None


def test_junit_lists_them_as_properties_and_attachments(tmp_path: Path) -> None:
    render(JunitReporter, {"projectRoot": str(tmp_path)}, run=_run())
    root = ET.parse(tmp_path / "runner" / "results" / "junit.xml").getroot()
    validate(root)
    suite = root.find("testsuite")
    assert suite is not None
    props = [(p.get("name"), p.get("value")) for p in suite.find("properties") or []]
    assert props == [("trace", FIRST), ("trace", BROKEN)]
    flaky, bad, ok = suite.findall("testcase")
    assert f"[[ATTACHMENT|{BROKEN}]]" in (bad.findtext("system-out") or "").splitlines()
    assert "trace" not in (ok.findtext("system-out") or "")


def test_spec_and_dot_say_how_to_open_a_failed_or_flaky_tests_trace() -> None:
    for reporter in (SpecReporter, DotReporter):
        text, _ = render(reporter, run=_run())
        assert f"trace: {BROKEN}  (runner show-trace '{BROKEN}')" in text
    spec_text, _ = render(SpecReporter, run=_run())
    assert f"trace: {FIRST}  (runner show-trace {FIRST})" in spec_text  # the flaky test's failed attempt
    assert spec_text.count("runner show-trace") == 2


def test_tap_lists_a_failed_tests_traces() -> None:
    text, _ = render(TapReporter, run=_run())
    assert f"  traces:\n    - {json.dumps(BROKEN)}\n  ..." in text
    assert text.count("traces:") == 1  # a passing test's YAML block is not written
