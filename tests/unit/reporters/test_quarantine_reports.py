"""What each built-in reporter says of quarantined tests (a made-up run: no browser, no pytest run)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.unit.reporters.test_builtin_reporters import render

from runner.reporters.dot import DotReporter
from runner.reporters.json_report import JsonReporter
from runner.reporters.junit import JunitReporter
from runner.reporters.listing import ListReporter
from runner.reporters.minimal import MinReporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.reporters.spec import SpecReporter
from runner.reporters.tap import TapReporter

WHY = "known bug <b>#12</b>"


@pytest.fixture(autouse=True)
def _no_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def _run(*, plain_failure: bool = False) -> RunResult:
    broken = TestResult("a_spec.py::test_broken", ["test_broken"], "failed",
                        [AttemptResult("failed", 30, "E   AssertionError: nope", "AssertionError",
                                       message="AssertionError: nope")], 30, quarantine=WHY)
    watched = TestResult("a_spec.py::test_watched", ["test_watched"], "passed", [AttemptResult("passed", 10)], 10,
                         quarantine="watched")
    ok = TestResult("a_spec.py::test_ok", ["test_ok"], "passed", [AttemptResult("passed", 10)], 10)
    tests = [broken, watched, ok]
    if plain_failure:
        tests.append(TestResult("a_spec.py::test_bad", ["test_bad"], "failed",
                                [AttemptResult("failed", 5, "E   boom", "AssertionError", message="boom")], 5))
    return RunResult(specs=[SpecResult("a_spec.py", "/p/a_spec.py", tests, duration_ms=60)], duration_ms=60)


def test_the_run_counts_a_quarantined_failure_apart() -> None:
    run = _run()
    assert (run.failures, run.quarantined, run.ok, run.total("failed")) == (0, 1, True, 1)
    mixed = _run(plain_failure=True)
    assert (mixed.failures, mixed.quarantined, mixed.ok) == (1, 1, False)


def test_spec_and_list_tag_the_tests_and_the_summary_lists_them() -> None:
    text, _ = render(SpecReporter, run=_run())
    assert f"1) test_broken (30ms) [quarantined: {WHY}]" in text
    assert "✓ test_watched (10ms) [quarantined: watched]" in text
    assert "2 passing, 1 failing in quarantine" in text
    assert "Passed; 1 quarantined failed" in text
    assert f"a_spec.py test_broken: failed ({WHY})" in text and "a_spec.py test_watched: passed (watched)" in text
    listed, _ = render(ListReporter, run=_run())
    assert f"1) a_spec.py test_broken (30ms) [quarantined: {WHY}]" in listed


def test_dot_and_min_say_q_and_count_it_apart() -> None:
    text, _ = render(DotReporter, run=_run())
    assert text.splitlines()[1].strip() == "Q.."
    assert f"1) a_spec.py test_broken [quarantined: {WHY}]" in text
    assert "2 passing, 1 failing in quarantine" in text
    mixed, _ = render(MinReporter, run=_run(plain_failure=True))
    assert "2 passing, 1 failing, 1 failing in quarantine" in mixed


def test_tap_marks_a_quarantined_failure_todo() -> None:
    text, _ = render(TapReporter, run=_run())
    assert "not ok 1 - a_spec.py test_broken # TODO quarantined: known bug <b>\\#12</b>" in text
    assert "ok 2 - a_spec.py test_watched\n# quarantined: test 2: watched" in text
    assert "# fail 0" in text and "# todo 1 (failed in quarantine)" in text


def test_json_counts_and_marks_it(tmp_path: Path) -> None:
    text, _ = render(JsonReporter, run=_run())
    data = json.loads(text)
    assert (data["totalFailed"], data["totalQuarantined"], data["status"]) == (0, 1, "passed")
    assert data["specs"][0]["stats"]["failures"] == 0 and data["specs"][0]["stats"]["quarantined"] == 1
    assert [t["quarantine"] for t in data["specs"][0]["tests"]] == [WHY, "watched", None]


def test_junit_makes_a_quarantined_failure_skipped_with_its_reason(tmp_path: Path) -> None:
    render(JunitReporter, {"mochaFile": str(tmp_path / "j.xml")}, run=_run())
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("failures"), suite.get("skipped")) == ("0", "1")
    broken, watched, ok = suite.findall("testcase")
    assert broken.find("failure") is None
    skipped = broken.find("skipped")
    assert skipped is not None and skipped.get("message") == f"quarantined: {WHY}; it failed: AssertionError: nope"
    assert f"[[PROPERTY|quarantined={WHY}]]" in (broken.findtext("system-out") or "")
    assert "AssertionError: nope" in (broken.findtext("system-out") or "")
    assert watched.find("skipped") is None and "[[PROPERTY|quarantined=watched]]" in (watched.findtext("system-out") or "")
    assert ok.find("system-out") is None
