"""`runner run --max-failures N` (and pytest's -x / --maxfail after --): the run stops cleanly after
N failed tests, in one process and across workers; the tests it never started are listed as not
run everywhere (terminal, events file, JSON, JUnit, TAP, the HTML report). Real runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.support.report_events import read_data_file

from runner.cli.run import _max_failures
from runner.errors import UsageError

SPECS = {
    "runner/integration/a_spec.py": '''
        def test_a1(runner):
            runner.visit("/")
            assert False, "a1 fails"

        def test_a2(runner):
            runner.log("a2 ran")
    ''',
    "runner/integration/b_spec.py": '''
        def test_b1(runner):
            runner.visit("/")
            assert False, "b1 fails"

        def test_b2(runner):
            runner.log("b2 ran")
    ''',
    "runner/integration/c_spec.py": '''
        def test_c1(runner):
            runner.log("c1 ran")

        def test_c2(runner):
            runner.log("c2 ran")
    ''',
}
STOPPED_1 = "stopped after 1 failure (--max-failures 1)"


def _project(root: Path, specs: dict[str, str] = SPECS, *, video: bool = False) -> Path:
    return write_project(root, base_project(dict(specs), {"video": video}))


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


def _states(events: list[dict]) -> dict[str, str]:
    return {e["nodeid"].rsplit("::", 1)[-1]: e["state"] for e in events if e["kind"] == "test.ended"}


def _no_interruption(text: str) -> None:
    assert "KeyboardInterrupt" not in text and "nterrupted" not in text, text


@pytest.mark.slow
def test_one_process_stops_after_the_first_failure_and_lists_what_did_not_run(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_runner("run", "--max-failures", "1", cwd=root, timeout=180)
    assert result.code == 1, result.text  # the failures, as ever: not-run tests are no failures
    _no_interruption(result.text)
    # the terminal: the cut spec's test, the specs that never started, the summary
    assert f"- test_a2 (not run: {STOPPED_1})" in result.out, result.out
    for name in ("test_b1", "test_b2", "test_c1", "test_c2"):
        assert f"- {name} (not run: {STOPPED_1})" in result.out
    assert f"Not run: 5 tests in 3 specs ({STOPPED_1})" in result.out
    assert "a2 ran" not in result.text
    # the specs the stop came before are headed as not run, not as running (the new user's finding)
    headers = [line.split("  (")[0].strip() for line in result.out.splitlines() if line.startswith("  Running:  ")
               or line.startswith("  Not run:  ")]
    assert headers == ["Running:  a_spec.py", "Not run:  b_spec.py", "Not run:  c_spec.py"], result.out
    # the events file: a not_run test.ended for each, with its reason; no spec.started for a spec
    # that never ran (so no before:spec for it); run.ended says why and how many
    events = _events(root)
    assert _states(events) == {"test_a1": "failed", "test_a2": "not_run", "test_b1": "not_run",
                               "test_b2": "not_run", "test_c1": "not_run", "test_c2": "not_run"}
    not_run = [e for e in events if e["kind"] == "test.ended" and e["state"] == "not_run"]
    assert {(e["attempts"], e["reason"]) for e in not_run} == {(0, STOPPED_1)}
    assert [e["spec"] for e in events if e["kind"] == "spec.started"] == ["a_spec.py"]
    assert [e["spec"] for e in events if e["kind"] == "spec.ended"] == ["a_spec.py"]
    assert not any(e["kind"] == "test.started" and e["spec"] != "a_spec.py" for e in events)
    (ended,) = [e for e in events if e["kind"] == "run.ended"]
    assert (ended["stopped"], ended["not_run"], ended["failed"], ended["tests"]) == (STOPPED_1, 5, 1, 6)
    assert ended["interrupted"] is False and ended["error"] is None
    # the failed test finished normally: its artifacts are kept
    assert (root / "runner/screenshots/a_spec.py/test_a1 (failed).png").is_file()
    # the HTML report: each not-run test a row with its reason, the run's totals and why it stopped
    index = read_data_file(root / "runner/report/data/index.js", "index")
    assert index["run"]["totals"]["notRun"] == 5 and index["run"]["stopped"] == STOPPED_1
    rows = {r[2][-1]: r for r in index["tests"]}
    assert rows["test_c2"][3] == "not_run" and rows["test_c2"][9] == STOPPED_1 and rows["test_c2"][5] == 0
    assert rows["test_a1"][3] == "failed"
    # the JSON and JUnit reporters, fed the same run's events
    report = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "json", cwd=root)
    data = json.loads(report.out)
    assert data["totalNotRun"] == 5 and data["totalFailed"] == 1 and data["stopped"] == STOPPED_1
    c_spec = next(s for s in data["specs"] if s["relative"] == "c_spec.py")
    assert c_spec["stats"]["notRun"] == 2
    assert {(t["state"], t["reason"], t["message"]) for t in c_spec["tests"]} == {("not_run", STOPPED_1, STOPPED_1)}
    junit = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "junit",
                       "--reporter-options", "mochaFile=junit.xml", cwd=root)
    assert junit.code == 1, junit.text  # the failures of the run it reports
    suites = {s.get("name"): s for s in ET.parse(root / "junit.xml").getroot()}
    assert suites["c_spec.py"].get("skipped") == "2" and suites["a_spec.py"].get("failures") == "1"
    skips = [case.find("skipped") for case in suites["b_spec.py"]]
    assert [s.get("message") for s in skips if s is not None] == [f"not run: {STOPPED_1}"] * 2


@pytest.mark.slow
def test_workers_stop_on_pytests_maxfail_without_an_interruption(tmp_path: Path) -> None:
    """The issue's case: `--workers 2 -- --maxfail=1` exited 130, "Interrupted by KeyboardInterrupt"."""
    root = _project(tmp_path, video=True)
    result = run_runner("run", "--workers", "2", "-r", "junit", "-o", "mochaFile=junit.xml", "--", "--maxfail=1",
                        cwd=root, timeout=240)
    _no_interruption(result.text)
    events = _events(root)
    states = _states(events)
    failed = sorted(name for name, state in states.items() if state == "failed")
    # each worker's first test may already be running when the other's fails: it finishes
    assert failed in (["test_a1"], ["test_b1"], ["test_a1", "test_b1"]), states
    assert result.code == len(failed), result.text
    assert "passed" not in states.values()  # no test started after a failure in its worker
    assert {name for name, state in states.items() if state == "not_run"} == set(states) - set(failed)
    assert len(states) == 6
    (ended,) = [e for e in events if e["kind"] == "run.ended"]
    assert ended["interrupted"] is False and ended["stopped"] == STOPPED_1 and ended["not_run"] == 6 - len(failed)
    assert "c_spec.py" not in {e["spec"] for e in events if e["kind"] == "spec.started"}
    # a spec the stop cut short after its first test still has its video, finished in its worker
    for spec in [e for e in events if e["kind"] == "spec.ended"]:
        assert spec["video"] and Path(spec["video"]).is_file() and Path(spec["video"]).stat().st_size > 0, spec
    suites = {s.get("name"): s for s in ET.parse(root / "junit.xml").getroot()}
    c_cases = list(suites["c_spec.py"].iter("testcase"))
    assert [c.find("skipped").get("message") for c in c_cases] == [f"not run: {STOPPED_1}"] * 2  # type: ignore[union-attr]
    index = read_data_file(root / "runner/report/data/index.js", "index")
    assert index["run"]["totals"]["notRun"] == 6 - len(failed) and not index["run"]["interrupted"]


FLAKY_SPECS = {
    "runner/integration/a_spec.py": '''
        from pathlib import Path

        MARK = Path(__file__).with_name("a1.tried")

        def test_a1(runner):
            first = not MARK.exists()
            MARK.write_text("tried")
            assert not first, "a1 fails its first attempt"

        def test_a2(runner):
            assert False, "a2 fails every attempt"
    ''',
    "runner/integration/b_spec.py": SPECS["runner/integration/b_spec.py"],
    "runner/integration/c_spec.py": SPECS["runner/integration/c_spec.py"],
}


@pytest.mark.slow
def test_a_retried_test_counts_once_by_its_final_outcome(tmp_path: Path) -> None:
    root = _project(tmp_path, FLAKY_SPECS)
    result = run_runner("run", "--max-failures", "2", "-c", "retries=1", "-r", "dot", cwd=root, timeout=180)
    assert result.code == 2, result.text
    _no_interruption(result.text)
    events = _events(root)
    # a1 failed an attempt and passed (no failure); a2 and b1 failed both attempts: the second stops
    assert _states(events) == {"test_a1": "passed", "test_a2": "failed", "test_b1": "failed",
                               "test_b2": "not_run", "test_c1": "not_run", "test_c2": "not_run"}
    attempts = {e["nodeid"].rsplit("::", 1)[-1]: e["attempts"] for e in events if e["kind"] == "test.ended"}
    assert attempts == {"test_a1": 2, "test_a2": 2, "test_b1": 2, "test_b2": 0, "test_c1": 0, "test_c2": 0}
    stopped = "stopped after 2 failures (--max-failures 2)"
    assert f"Not run: 3 tests in 2 specs ({stopped}):" in result.out, result.out
    assert "    - c_spec.py test_c1" in result.out and "3 not run" in result.out


@pytest.mark.slow
def test_pytests_exitfirst_is_runners_max_failures_1(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_runner("run", "-r", "tap", "--", "-x", cwd=root, timeout=180)
    assert result.code == 1, result.text
    _no_interruption(result.text)
    assert "not ok 1 - a_spec.py test_a1" in result.out
    assert f"ok 2 - a_spec.py test_a2 # SKIP {STOPPED_1}" in result.out
    assert f"ok 6 - c_spec.py test_c2 # SKIP {STOPPED_1}" in result.out
    assert f"# not run 5: {STOPPED_1}" in result.out and "# fail 1" in result.out


@pytest.mark.slow
def test_pytests_exitfirst_in_pytest_addopts_is_runners_max_failures_1(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_runner("run", "-r", "tap", cwd=root, env={"PYTEST_ADDOPTS": "-s -x"}, timeout=180)
    assert result.code == 1, result.text
    _no_interruption(result.text)
    assert "runner: notice: pytest's -x in PYTEST_ADDOPTS is runner's --max-failures 1" in result.err, result.text
    assert "not ok 1 - a_spec.py test_a1" in result.out
    assert f"ok 6 - c_spec.py test_c2 # SKIP {STOPPED_1}" in result.out
    assert f"# not run 5: {STOPPED_1}" in result.out and "# fail 1" in result.out


def test_pytests_verbosity_in_pytest_addopts_is_refused_saying_where(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_runner("run", cwd=root, env={"PYTEST_ADDOPTS": "-v"}, timeout=60)
    assert result.code != 0 and "Traceback" not in result.text, result.text
    assert "pytest's -v (its terminal's verbosity) does not apply" in result.err, result.text
    assert "(It was in PYTEST_ADDOPTS.)" in result.err, result.text


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "group"), [(["--workers", "2"], "-xs"), ([], "-sx")])
def test_x_in_a_group_of_short_flags_is_runners_stop(tmp_path: Path, workers: list[str], group: str) -> None:
    """The new user's finding: `-- -xs` was left to pytest. With workers pytest-xdist's own stop
    ended the run as interrupted (exit 130, a few tests counted); in one process the tests not
    run were left out of the counts."""
    root = _project(tmp_path)
    result = run_runner("run", *workers, "--", group, cwd=root, timeout=240)
    _no_interruption(result.text)
    assert f"runner: notice: pytest's -x (in {group}) is runner's --max-failures 1" in result.err, result.text
    events = _events(root)
    states = _states(events)
    failed = sorted(name for name, state in states.items() if state == "failed")
    assert failed == ["test_a1"] if not workers else failed in (["test_a1"], ["test_b1"], ["test_a1", "test_b1"])
    assert result.code == len(failed), result.text
    assert len(states) == 6 and set(states.values()) == {"failed", "not_run"}, states
    (ended,) = [e for e in events if e["kind"] == "run.ended"]
    assert ended["stopped"] == STOPPED_1 and ended["not_run"] == 6 - len(failed) and ended["interrupted"] is False
    assert f"Not run: {6 - len(failed)} tests in" in result.out, result.out


def test_pytests_verbose_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """`runner run -- -v` reached pytest, which said `unrecognized arguments: -v` (inifile: /dev/null)."""
    root = _project(tmp_path)
    result = run_runner("run", "--", "-sv", cwd=root)
    assert result.code == 1, result.text
    assert result.err.strip() == ("runner: pytest's -sv (its terminal's verbosity) does not apply in a runner run: "
                                  "runner's reporters print the run; choose how with --reporter (spec, the "
                                  "default, lists every test by spec; list lists them in one list; dot and min "
                                  "print less)."), result.text
    assert not (root / "runner/results").exists()


@pytest.mark.parametrize(("args", "flag", "value", "hint"), [
    (["--max-failures", "0"], "--max-failures", "'0'", "; for no limit, leave the flag out"),
    (["--max-failures=-1"], "--max-failures", "'-1'", ""),
    (["--max-failures", "x"], "--max-failures", "'x'", ""),
    (["--max-failures", "1.5"], "--max-failures", "'1.5'", ""),
    (["--", "--maxfail=0"], "pytest's --maxfail (runner's --max-failures)", "'0'", "; for no limit, leave the flag out"),
    (["--", "--maxfail"], "pytest's --maxfail (runner's --max-failures)", "''", ""),
])
def test_a_bad_limit_is_one_line_naming_the_flag(tmp_path: Path, args: list[str], flag: str, value: str,
                                                 hint: str) -> None:
    root = _project(tmp_path)
    result = run_runner("run", *args, cwd=root)
    assert result.code == 1, result.text
    assert result.err.strip() == (f"runner: {flag} {value}: expected a number of failed tests to stop after "
                                  f"(1 or more{hint})."), result.text
    assert not (root / "runner/results").exists()  # refused before anything ran


@pytest.mark.parametrize(("flag", "extra", "expected"), [
    (None, ["-s"], (None, ["-s"], [])),
    (None, ["-x", "-s"], (1, ["-s"], ["-x"])),
    (None, ["--exitfirst"], (1, [], ["--exitfirst"])),
    ("3", ["--maxfail", "2", "-k", "login"], (2, ["-k", "login"], ["--maxfail 2"])),
    ("2", ["--maxfail=5"], (2, [], ["--maxfail=5"])),
    (None, ["-k", "-x", "-m", "--maxfail=1"], (None, ["-k", "-x", "-m", "--maxfail=1"], [])),  # values, not flags
    (None, ["-s", "--", "-x"], (None, ["-s", "--", "-x"], [])),  # after pytest's own --: no option
    # x in a group of short flags (the new user's finding: `-- -xs` was pytest's own stop)
    (None, ["-xs"], (1, ["-s"], ["-x (in -xs)"])),
    (None, ["-sx"], (1, ["-s"], ["-x (in -sx)"])),
    (None, ["-lxs"], (1, ["-ls"], ["-x (in -lxs)"])),
    (None, ["-xx"], (1, [], ["-x (in -xx)"])),
    # a short option that takes a value: the rest of the group, or the next argument, is its value
    (None, ["-kx"], (None, ["-kx"], [])),
    (None, ["-skx"], (None, ["-skx"], [])),
    (None, ["-xk", "login"], (1, ["-k", "login"], ["-x (in -xk)"])),
    (None, ["-sk", "-x"], (None, ["-sk", "-x"], [])),
    (None, ["-sWignore", "-x"], (1, ["-sWignore"], ["-x"])),
    (None, ["-sp", "no:foo"], (None, ["-sp", "no:foo"], [])),
    (None, ["--deselect", "-x", "--override-ini", "-sx"], (None, ["--deselect", "-x", "--override-ini", "-sx"], [])),
])
def test_pytests_stops_become_runners_and_the_smallest_limit_holds(
        flag: str | None, extra: list[str], expected: tuple[int | None, list[str], list[str]]) -> None:
    assert _max_failures(flag, extra) == expected


@pytest.mark.parametrize("arg", ["-v", "-vv", "-q", "-qq", "-sv", "-xv", "--verbose", "--quiet", "--verbosity=2",
                                 "--verbosity"])
def test_pytests_verbosity_is_refused_naming_the_reporters(arg: str) -> None:
    with pytest.raises(UsageError, match=f"pytest's {arg} .*does not apply in a runner run.*--reporter"):
        _max_failures(None, ["-s", arg])


def test_a_value_like_v_is_no_verbosity() -> None:
    assert _max_failures(None, ["-k", "-v", "-kv", "-mq"]) == (None, ["-k", "-v", "-kv", "-mq"], [])


def test_a_limit_that_is_no_number_raises_usage_error() -> None:
    with pytest.raises(UsageError, match="--max-failures '0'"):
        _max_failures("0", [])


@pytest.mark.slow
def test_a_quarantined_failure_does_not_count(tmp_path: Path) -> None:
    root = _project(tmp_path, {
        "runner/integration/a_spec.py": '''
            import pytest

            @pytest.mark.quarantine(reason="known flake")
            def test_a1(runner):
                assert False, "a1 fails in quarantine"

            def test_a2(runner):
                assert False, "a2 fails"

            def test_a3(runner):
                runner.log("a3 ran")
        ''',
    })
    result = run_runner("run", "--max-failures", "1", "-r", "dot", cwd=root, timeout=180)
    assert result.code == 1, result.text  # a2: the quarantined failure fails neither the run nor stops it
    assert _states(_events(root)) == {"test_a1": "failed", "test_a2": "failed", "test_a3": "not_run"}


@pytest.mark.slow
def test_a_stop_while_retries_wait_ends_the_waiting_tests_failed(tmp_path: Path) -> None:
    """Deferred retries wait for their spec's end, which a --max-failures stop never lets come:
    the waiting test was never told as ended."""
    specs = {"runner/integration/d_spec.py": '''
        import pytest

        def test_waits(runner):
            assert False, "fails, its retry waits"

        @pytest.mark.runner(retries=0)
        def test_stops(runner):
            assert False, "the first final failure"

        def test_after(runner):
            runner.log("after ran")
    '''}
    root = write_project(tmp_path, base_project(specs, {"video": False,
                                                        "retries": {"runMode": 1, "openMode": 0, "deferred": True}}))
    result = run_runner("run", "--max-failures", "1", cwd=root, timeout=180)
    assert result.code == 2, result.text  # both failed tests count; the third did not run
    _no_interruption(result.text)
    assert _states(_events(root)) == {"test_waits": "failed", "test_stops": "failed", "test_after": "not_run"}
    attempts = [e for e in _events(root) if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_waits")]
    # it ended by the attempt it had (no retry after the stop), not as a death of the process
    assert len(attempts) == 1 and "fails, its retry waits" in attempts[0]["message"], attempts
    assert "TestProcessDied" not in result.text


@pytest.mark.slow
def test_a_stop_at_the_specs_end_gives_up_the_other_waiting_retries(tmp_path: Path) -> None:
    """At the spec's end the waiting tests retried one after the other: the first reached the
    limit, and the next one's retries still ran (the new user's finding)."""
    specs = {"runner/integration/e_spec.py": '''
        def test_first(runner):
            assert False, "first fails"

        def test_second(runner):
            assert False, "second fails"

        def test_last(runner):
            runner.log("last passes")
    '''}
    root = write_project(tmp_path, base_project(specs, {"video": False,
                                                        "retries": {"runMode": 2, "openMode": 0, "deferred": True}}))
    result = run_runner("run", "--max-failures", "1", cwd=root, timeout=180)
    assert result.code == 2, result.text
    _no_interruption(result.text)
    events = _events(root)
    assert _states(events) == {"test_first": "failed", "test_second": "failed", "test_last": "passed"}
    tried = [e["nodeid"].rsplit("::", 1)[-1] for e in events if e["kind"] == "attempt.ended"]
    # test_first's three attempts reach the limit; test_second keeps the one attempt it had
    assert tried.count("test_first") == 3 and tried.count("test_second") == 1, tried


def test_pytests_lf_and_ff_are_taken_in_the_same_walk_as_its_stops() -> None:
    """--lf and --ff were looked for in a second walk of pytest's arguments that knew neither the
    options taking a value (`-k --lf` selects by "--lf") nor pytest's own `--`."""
    reruns: list[str] = []
    assert _max_failures(None, ["-k", "--lf", "--ff", "-x", "--", "--lf"], reruns) == (
        1, ["-k", "--lf", "--", "--lf"], ["-x"])
    assert reruns == ["--ff"]
