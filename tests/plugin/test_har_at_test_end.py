"""A HAR recording the test never stopped is written when the test ends, even when it failed."""

from __future__ import annotations

import json
import textwrap

import pytest

pytestmark = [pytest.mark.e2e]


def test_an_unstopped_recording_is_written_when_a_failing_test_ends(project):
    pytester = project({"a_spec.py": textwrap.dedent("""
        def test_records_then_fails(runner):
            runner.record_har("traffic.har")
            runner.visit("/")
            assert False, "the test fails after the page loaded"
        """)})
    (pytester.path / "runner" / "fixtures").mkdir(parents=True, exist_ok=True)
    result = pytester.runpytest_subprocess("runner/integration/a_spec.py", "-p", "no:cacheprovider", timeout=180)
    result.assert_outcomes(failed=1)
    har = json.loads((pytester.path / "runner" / "fixtures" / "traffic.har").read_text())
    (page,) = har["log"]["entries"]
    assert page["request"]["url"].endswith("/") and page["response"]["status"] == 200
    assert "<h1>Hi</h1>" in page["response"]["content"]["text"]


def test_a_hook_that_raises_when_a_passing_test_ends_fails_that_test_with_its_error(project):
    pytester = project({"a_spec.py": textwrap.dedent("""
        def refuse(entry):
            raise RuntimeError("cannot scrub this")

        def test_records_with_a_broken_hook(runner):
            runner.record_har("traffic.har", redact=refuse)
            runner.visit("/")
        """)})
    fixtures = pytester.path / "runner" / "fixtures"
    fixtures.mkdir(parents=True, exist_ok=True)
    result = pytester.runpytest_subprocess("runner/integration/a_spec.py", "-p", "no:cacheprovider", timeout=180)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the redact hook refuse raised RuntimeError: cannot scrub this on the entry of GET http*/*"])
    assert list(fixtures.iterdir()) == []  # nothing written, no partial file left


def test_a_har_torn_while_the_test_ran_is_one_clear_error_and_is_left_as_it_is(project):
    pytester = project({"a_spec.py": textwrap.dedent("""
        from pathlib import Path

        def test_updates_a_file_someone_tears(runner):
            runner.replay_har("api.har", update="missing")
            runner.visit("/")
            (Path(__file__).parents[1] / "fixtures" / "api.har").write_text('{"log": {"entries": [')
        """)})
    fixtures = pytester.path / "runner" / "fixtures"
    fixtures.mkdir(parents=True, exist_ok=True)
    (fixtures / "api.har").write_text('{"log": {"entries": []}}')
    result = pytester.runpytest_subprocess("runner/integration/a_spec.py", "-p", "no:cacheprovider", timeout=180)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*runner.replay_har(*api.har'): is not JSON: * Read again when the test "
                                 "ended, to add what the server answered: nothing was added, the file is as it was."])
    assert "Traceback" not in result.stdout.str()
    assert "def _end_check" not in result.stdout.str()  # no frame of runner's own: the test has no line to show
    # in the command log, the failure is no assert of the test's
    result.stdout.fnmatch_lines(["*error: CommandError: runner.replay_har(*api.har'): is not JSON*"])
    assert "assert: CommandError" not in result.stdout.str()
    assert (fixtures / "api.har").read_text() == '{"log": {"entries": ['  # not replaced, not repaired
