"""The spec reporter's output for a made-up run (no browser, no pytest run)."""

from __future__ import annotations

import io

import pytest

from runner.errors import ConfigError
from runner.reporters import make_reporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.reporters.spec import SpecReporter, format_ms


def _run() -> RunResult:
    ok = TestResult("a_spec.py::test_ok", ["test_ok"], "passed", [AttemptResult("passed", 120)], 120)
    slow = TestResult("a_spec.py::TestSuite::test_slow", ["TestSuite", "test_slow"], "passed",
                      [AttemptResult("failed", 50, "AssertionError: first"), AttemptResult("passed", 12000)],
                      12050, slow=True)
    bad = TestResult("b_spec.py::test_bad", ["test_bad"], "failed",
                     [AttemptResult("failed", 80, "CommandError: expected 3 got 2")], 80,
                     log=["visit: http://x/", "failed: 'div[' is not a valid selector.\nQueries take CSS selectors"],
                     routes=[{"method": "GET", "matcher": "/api/*", "stubbed": True, "alias": "api", "matches": 2}])
    pending = TestResult("b_spec.py::test_later", ["test_later"], "pending", [AttemptResult("pending", 0)], 0)
    return RunResult(specs=[SpecResult("a_spec.py", "/p/a_spec.py", [ok, slow], duration_ms=1500),
                            SpecResult("b_spec.py", "/p/b_spec.py", [bad, pending], duration_ms=900)],
                     duration_ms=2400, browser="chromium (headless)", runner_version="0.1.0")


def render(options=None) -> str:
    out = io.StringIO()
    reporter = SpecReporter(options, out)
    run = _run()
    reporter.on_run_start(run, [s.relative for s in run.specs])
    for i, spec in enumerate(run.specs, 1):
        reporter.on_spec_start(spec, i, len(run.specs))
        for test in spec.tests:
            reporter.on_test_end(spec, test)
        reporter.on_spec_end(spec)
    reporter.on_run_end(run)
    return out.getvalue()


def test_progress_lines_and_failure_details():
    text = render()
    assert "Running:  a_spec.py" in text and "(1 of 2)" in text
    assert "✓ test_ok (120ms)" in text
    assert "TestSuite\n" in text and "passed on attempt 2 of 2, flaky" in text
    assert "1) test_bad" in text and "CommandError: expected 3 got 2" in text
    assert "command log:" in text and "visit: http://x/" in text
    # a line of two lines keeps the log's indent on its second (not at the terminal's edge)
    assert "\n       failed: 'div[' is not a valid selector.\n         Queries take CSS selectors\n" in text
    assert "/api/*" in text and "Routes (1)" in text
    assert "- test_later" in text


def test_summary_table():
    text = render()
    summary = text[text.index("(Run Finished)"):]
    a_row = next(line for line in summary.splitlines() if "a_spec.py" in line)
    b_row = next(line for line in summary.splitlines() if "b_spec.py" in line)
    assert a_row.split()[1:7] == ["a_spec.py", "2", "2", "-", "-", "-"]
    assert b_row.split()[1:7] == ["b_spec.py", "2", "-", "1", "1", "-"]
    assert "1 of 2 failed (50%)" in summary


def test_slow_time_is_yellow_when_colours_are_on(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[33m(12s)\x1b[0m" in render()


def test_routes_option_prints_routes_of_passing_tests_too():
    assert "routes of" not in render()


@pytest.mark.parametrize(("ms", "text"), [(5, "5ms"), (1500, "1.5s"), (12000, "12s"), (61000, "1m 01s")])
def test_format_ms(ms, text):
    assert format_ms(ms) == text


def test_make_reporter_builtin_custom_and_errors(tmp_path):
    assert isinstance(make_reporter("spec", {}, tmp_path), SpecReporter)
    (tmp_path / "mine.py").write_text(
        "from runner.reporters import Reporter\nclass Reporter(Reporter):\n    pass\n")
    custom = make_reporter("mine.py", {"x": 1}, tmp_path)
    assert custom.options == {"projectRoot": str(tmp_path), "x": 1}
    with pytest.raises(ConfigError, match="Did you mean 'spec'"):
        make_reporter("spek", {}, tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        make_reporter("./nope.py", {}, tmp_path)


def test_routes_table_fits_the_matcher_or_marks_the_cut():
    from runner.reporters.spec import MATCHER_WIDTH, _routes_table

    whole = '{"method": "GET", "url": "/api/todos.json"}'
    table = _routes_table([{"method": "GET", "matcher": whole, "stubbed": False, "alias": None, "matches": 1}], "")
    assert whole + "  No" in table  # the column is as wide as the matcher
    long = "/api/" + "x" * 100
    table = _routes_table([{"method": "GET", "matcher": long, "stubbed": True, "alias": "a", "matches": 0}], "")
    row = table.splitlines()[-1]
    assert long[:MATCHER_WIDTH - 1] + "…  Yes" in row


def test_a_long_run_error_keeps_the_numbers_in_their_columns():
    """"The process running the tests died" pushed the last row's numbers out of their columns."""
    out = io.StringIO()
    run = _run()
    run.error = "the process running the tests died"
    SpecReporter(None, out).on_run_end(run)
    lines = out.getvalue().splitlines()
    header = next(line for line in lines if "Tests" in line and "Duration" in line)
    last = next(line for line in lines if "The process running the tests died" in line)
    assert last.index("The process") == header.index("Spec")
    assert len(last) == len(header)  # every column ends where its heading does
