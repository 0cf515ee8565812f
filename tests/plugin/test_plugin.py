"""The pytest plugin under plain ``pytest`` and pytest-xdist: fixture, mark, retries, failure
screenshots, and every test run and reported once."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SPEC_DIR = "runner/integration"


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*args, "-p", "no:cacheprovider", timeout=180)


def test_the_fixture_and_the_mark_give_each_test_its_configuration(project):
    pytester = project({"a_spec.py": textwrap.dedent("""
        import pytest
        from runner import Runner

        @pytest.mark.runner(viewportWidth=375, env={"who": "suite"})
        class TestPhone:
            def test_suite_mark(self, runner):
                assert runner.config("viewportWidth") == 375
                assert Runner.config("viewportWidth") == 375  # the global reads the running test
                assert runner.env("who") == "suite"

            @pytest.mark.runner(viewportWidth=400)
            def test_test_mark_wins(self, runner):
                runner.visit("/")
                assert runner.config("viewportWidth") == 400
                runner.get("h1").should("have.text", "Hi")

        def test_run_config(runner):
            assert runner.config("viewportWidth") == 1000

        @pytest.mark.runner(viewportWidth="wide")
        def test_bad_mark(runner):
            pass
        """)})
    result = _run(pytester, f"{SPEC_DIR}/a_spec.py")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*viewportWidth*wide*"])


def test_retries_run_a_failing_test_again_and_report_it_once(project):
    pytester = project({"a_spec.py": textwrap.dedent("""
        import pytest
        from pathlib import Path

        COUNT = Path(__file__).with_name("count.txt")

        @pytest.mark.runner(retries=2)
        def test_flaky(runner):
            n = int(COUNT.read_text()) if COUNT.exists() else 0
            COUNT.write_text(str(n + 1))
            assert n >= 1, f"attempt {n + 1} fails"

        @pytest.mark.runner(retries=1)
        def test_always_fails(runner):
            assert False, "never"
        """)})
    result = _run(pytester, f"{SPEC_DIR}/a_spec.py", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    assert (pytester.path / SPEC_DIR / "count.txt").read_text() == "2"
    result.stdout.fnmatch_lines(["*runner attempts*", "attempt 2 of 2"])


def test_a_failing_test_leaves_a_failure_screenshot(project):
    pytester = project({"shots_spec.py": textwrap.dedent("""
        def test_breaks(runner):
            runner.visit("/")
            runner.get("h1").should("have.text", "Bye", timeout=200)
        """)})
    result = _run(pytester, f"{SPEC_DIR}/shots_spec.py")
    result.assert_outcomes(failed=1)
    shot = pytester.path / "runner" / "screenshots" / "shots_spec.py" / "test_breaks (failed).png"
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


XDIST_SPECS = {
    "a_spec.py": textwrap.dedent("""
        import pytest

        def test_a1(runner):
            runner.visit("/")

        def test_a2(runner):
            runner.visit("/")

        @pytest.mark.runner(retries=1)
        def test_a3_fails(runner):
            runner.visit("/")
            assert False, "a3 fails"
        """),
    "b_spec.py": textwrap.dedent("""
        def test_b1(runner):
            runner.visit("/")

        def test_b2(runner):
            runner.get("h1").should("not.exist")

        def test_b3(runner):
            assert runner.config("viewportHeight") == 660
        """),
}


def test_under_xdist_every_test_runs_and_reports_once(project):
    pytester = project(XDIST_SPECS)
    result = _run(pytester, f"{SPEC_DIR}/a_spec.py", f"{SPEC_DIR}/b_spec.py", "-n", "2", "-rA")
    result.assert_outcomes(passed=5, failed=1)
    text = result.stdout.str()
    assert text.count("FAILED runner/integration/a_spec.py::test_a3_fails") == 1
    for node in ("a_spec.py::test_a1", "a_spec.py::test_a2", "b_spec.py::test_b1", "b_spec.py::test_b2",
                 "b_spec.py::test_b3"):
        assert text.count(f"PASSED runner/integration/{node}") == 1, node


def test_runner_run_with_xdist_prints_each_spec_once_and_counts_the_failures(project):
    pytester = project(XDIST_SPECS)
    result = pytester.run(str(Path(sys.executable).with_name("runner")), "run", "--", "-n", "2", timeout=180)
    assert result.ret == 1, result.stdout.str() + result.stderr.str()
    out = result.stdout.str()
    assert out.count("Running:  a_spec.py") == 1 and out.count("Running:  b_spec.py") == 1
    assert out.count("✓ test_a1") == 1 and out.count("✓ test_b3") == 1
    assert out.count("1) test_a3_fails") == 2  # its line in the spec, and its failure below
    assert "1 of 2 failed (50%)" in out
    events = [json.loads(line) for line in
              (pytester.path / "runner" / "results" / "events.jsonl").read_text().splitlines()]
    ended = [e["nodeid"] for e in events if e["kind"] == "test.ended"]
    assert len(ended) == len(set(ended)) == 6
    run_ended = next(e for e in events if e["kind"] == "run.ended")
    assert (run_ended["passed"], run_ended["failed"]) == (5, 1)


@pytest.mark.slow
def test_xdist_splitting_specs_says_no_video_is_recorded(project):
    pytester = project({"a_spec.py": "def test_a1(runner):\n    runner.visit('/')\n",
                        "b_spec.py": "def test_b1(runner):\n    runner.visit('/')\n"}, {"video": True})
    runner_cli = str(Path(sys.executable).with_name("runner"))
    split = pytester.run(runner_cli, "run", "--", "-n", "2", timeout=180)
    assert split.ret == 0, split.stdout.str() + split.stderr.str()
    assert ("runner: notice: no video is recorded in this run: pytest-xdist's `--dist load` may split a spec's "
            "tests across workers") in split.stderr.str()
    assert not list((pytester.path / "runner" / "videos").rglob("*.mp4"))
    whole = pytester.run(runner_cli, "run", "--workers", "2", timeout=180)
    assert whole.ret == 0, whole.stdout.str() + whole.stderr.str()
    assert "no video is recorded" not in whole.stderr.str()
    assert len(list((pytester.path / "runner" / "videos").rglob("*.mp4"))) == 2
