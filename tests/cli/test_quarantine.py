"""Quarantine and ``--fail-on-flaky`` on real ``runner run``s (issue 27).

A quarantined test (its mark, or a ``quarantine`` entry: an id or a glob) runs and is reported,
and its failure does not fail the run; a test that passed only on a retry fails a run with
``--fail-on-flaky`` (the retry is driven by a file the first attempt leaves behind).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.support.report_events import read_data_file

A_SPEC = '''
import pytest

@pytest.mark.quarantine(reason="known bug <b>#12</b>")
def test_marked_fails(runner):
    assert False, "the marked test fails"

@pytest.mark.quarantine("watched")
def test_marked_passes(runner):
    runner.visit("/")

def test_plain(runner):
    pass
'''
B_SPEC = '''
def test_listed_fails(runner):
    assert 1 == 2

def test_not_listed(runner):
    pass
'''
QUARANTINE = ["**/b_spec.py::test_listed*", "runner/integration/gone_spec.py::test_gone"]


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


def _ended(root: Path) -> dict[str, dict]:
    return {e["nodeid"].rsplit("::", 1)[1]: e for e in _events(root) if e["kind"] == "test.ended"}


@pytest.mark.slow
def test_a_quarantined_failure_does_not_fail_the_run_and_every_report_says_so(project) -> None:
    root = project(base_project({"runner/integration/a_spec.py": A_SPEC, "runner/integration/b_spec.py": B_SPEC},
                                {"quarantine": QUARANTINE, "video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text  # two tests failed, both quarantined
    out = result.out
    assert "test_marked_fails" in out and "the marked test fails" in out  # still run, and its error shown
    assert "[quarantined: known bug <b>#12</b>]" in out
    assert "✓ test_marked_passes" in out and "[quarantined: watched]" in out
    assert "1 failing in quarantine" in out and "Passed; 2 quarantined failed" in out
    assert "b_spec.py test_listed_fails: failed (listed in quarantine ('**/b_spec.py::test_listed*', runner.json))" in out
    # the entry that names no test is told; the one that does is not
    assert "quarantine: 'runner/integration/gone_spec.py::test_gone' (runner.json) names no test" in result.err
    assert "'**/b_spec.py::test_listed*' (runner.json) names no test" not in result.err

    ended = _ended(root)
    assert ended["test_marked_fails"]["state"] == "failed"
    assert ended["test_marked_fails"]["quarantine"] == "known bug <b>#12</b>"
    assert ended["test_marked_passes"]["state"] == "passed" and ended["test_marked_passes"]["quarantine"] == "watched"
    assert ended["test_listed_fails"]["quarantine"].startswith("listed in quarantine (")
    assert ended["test_plain"]["quarantine"] is None and ended["test_not_listed"]["quarantine"] is None
    run_ended = next(e for e in _events(root) if e["kind"] == "run.ended")
    assert (run_ended["failed"], run_ended["quarantined"]) == (2, 2)

    index = read_data_file(root / "runner/report/data/index.js", "index")
    assert index["run"]["totals"]["failed"] == 2 and index["run"]["totals"]["quarantinedFailed"] == 2
    nodeid = "runner/integration/a_spec.py::test_marked_fails"
    assert index["quarantine"][nodeid] == "known bug <b>#12</b>"  # a JS literal: report.js shows it as text
    assert "runner/integration/a_spec.py::test_plain" not in index["quarantine"]

    junit = run_runner("run", "-r", "junit", "-o", "mochaFile=junit.xml", "--spec", "runner/integration/b_spec.py",
                       cwd=root)
    assert junit.code == 0, junit.text
    assert "names no test" not in junit.err  # a run narrowed by --spec does not judge the entries
    suite = ET.parse(root / "junit.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("failures"), suite.get("skipped")) == ("0", "1")
    case = suite.find("testcase[@name='test_listed_fails']")
    assert case is not None and case.find("failure") is None
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("quarantined: listed in quarantine (")
    assert "it failed: AssertionError: assert 1 == 2" in skipped.get("message", "")
    assert "[[PROPERTY|quarantined=" in (case.findtext("system-out") or "")

    as_json = run_runner("run", "-r", "json", "-o", "output=run.json", cwd=root)
    assert as_json.code == 0, as_json.text
    data = json.loads((root / "run.json").read_text())
    assert (data["totalFailed"], data["totalQuarantined"], data["status"]) == (0, 2, "passed")
    tests = {t["title"][-1]: t for spec in data["specs"] for t in spec["tests"]}
    assert tests["test_marked_fails"]["state"] == "failed" and tests["test_marked_fails"]["quarantine"]


@pytest.mark.slow
def test_a_bad_quarantine_value_or_mark_is_one_clear_message(project) -> None:
    root = project(base_project({
        "runner/integration/a_spec.py": '''
import pytest

@pytest.mark.quarantine
def test_no_reason(runner):
    pass

@pytest.mark.quarantine(reason="")
def test_empty_reason(runner):
    pass

@pytest.mark.quarantine("ok", why="x")
def test_unknown_keyword(runner):
    pass

@pytest.mark.runner(bogus=1)
def test_bad_runner_mark(runner):
    pass
''',
    }, {"quarantine": "a_spec.py", "video": False}))
    bad = run_runner("run", cwd=root)
    assert bad.code == 1 and "Traceback" not in bad.text
    assert ("Expected `quarantine` to be an array of test ids or globs (non-empty strings). Instead the value "
            'was: `"a_spec.py"`') in bad.err
    assert not (root / "runner/results/events.jsonl").exists()  # nothing ran
    over = run_runner("run", "--config", '{"quarantine": [""]}', cwd=root)
    assert over.code == 1 and "Expected `quarantine` to be an array" in over.err

    # a mark without a reason fails its test (it is not quarantined: the mistake must show)
    (root / "runner.json").write_text(json.dumps({"fileServerFolder": "site", "video": False}))
    marks = run_runner("run", cwd=root)
    assert marks.code == 4, marks.text
    no_reason = ("@pytest.mark.quarantine on runner/integration/a_spec.py::test_no_reason needs a reason: why the "
                 'test is quarantined, a non-empty string (quarantine(reason="...")); it was given ().')
    assert no_reason in marks.out
    assert "it was given (reason='')" in marks.out
    # it had a reason: what is wrong is the keyword
    unknown = ("@pytest.mark.quarantine on runner/integration/a_spec.py::test_unknown_keyword has an unknown "
               "keyword `why` (expected `reason=`); it was given ('ok', why='x').")
    assert unknown in marks.out
    bad_runner = "The configuration set by the runner mark on runner/integration/a_spec.py::test_bad_runner_mark"
    for message in (no_reason, unknown, bad_runner):  # each said once, after "Failed:", not again below
        assert marks.out.count(message) == 1, marks.out
    assert all(e["quarantine"] is None for e in _ended(root).values())


FLAKY_SPEC = '''
from pathlib import Path

import pytest

def _first_time(name):
    marker = Path(__file__).parent.parent / "marks" / name
    if marker.exists():
        return False
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("seen")
    return True

@pytest.mark.runner(retries=2)
def test_flaky(runner):
    assert not _first_time("{name}"), "the first attempt fails"

def test_steady(runner):
    pass
'''
QUARANTINED_SPEC = '''
from pathlib import Path

import pytest

@pytest.mark.runner(retries=1)
@pytest.mark.quarantine(reason="flaky upstream")
def test_quarantined_flaky(runner):
    marker = Path(__file__).parent.parent / "marks" / "q"
    first = not marker.exists()
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("seen")
    assert not first, "the first attempt fails"

@pytest.mark.quarantine(reason="always broken")
def test_quarantined_fails(runner):
    assert False
'''


def _flaky_project(root: Path) -> Path:
    return write_project(root, base_project({
        "runner/integration/f_spec.py": FLAKY_SPEC.replace("{name}", "f"),
        "runner/integration/q_spec.py": QUARANTINED_SPEC,
    }, {"video": False}))


def _fresh(root: Path) -> None:
    for marker in (root / "runner/marks").glob("*"):
        marker.unlink()


@pytest.mark.slow
def test_fail_on_flaky_fails_a_run_whose_test_needed_a_retry(tmp_path: Path) -> None:
    root = _flaky_project(tmp_path)
    plain = run_runner("run", cwd=root)
    assert plain.code == 0, plain.text  # flaky passes; the quarantined failure does not count
    assert "passed on attempt 2 of 3, flaky" in plain.out

    _fresh(root)
    strict = run_runner("run", "--fail-on-flaky", cwd=root)
    assert strict.code == 1, strict.text  # the one flaky test not under quarantine
    assert ("runner: --fail-on-flaky: 1 test passed only on a retry (flaky), so the run fails: exit status 1, "
            "each flaky test counted as a failure (1 quarantined flaky test not counted):") in strict.err
    assert ("  runner/integration/f_spec.py::test_flaky: passed on attempt 2 of 3; attempt 1 failed: "
            "AssertionError: the first attempt fails") in strict.err
    assert "test_quarantined_flaky:" not in strict.err
    ended = _ended(root)
    assert ended["test_flaky"]["flaky"] and ended["test_quarantined_flaky"]["flaky"]
    _assert_every_report_fails_the_flaky_run(root, strict.out)

    _fresh(root)  # the same with two workers: the quarantine and the retries come from the workers
    workers = run_runner("run", "--workers", "2", "--fail-on-flaky", cwd=root, timeout=240)
    assert workers.code == 1, workers.text
    assert "runner/integration/f_spec.py::test_flaky: passed on attempt 2 of 3" in workers.err
    ended = _ended(root)
    assert ended["test_quarantined_fails"]["quarantine"] == "always broken"
    assert ended["test_quarantined_fails"]["state"] == "failed"

    # nothing flaky this time (the markers stay): the flag fails nothing
    again = run_runner("run", "--fail-on-flaky", "--spec", "runner/integration/f_spec.py", cwd=root)
    assert again.code == 0, again.text
    assert "--fail-on-flaky" not in again.err

    _fresh(root)  # the shards of a --fail-on-flaky split merge into a run that the flaky test fails
    codes = []
    for shard in ("1/2", "2/2"):
        ran = run_runner("run", "--fail-on-flaky", "--shard", shard, "--config",
                         f"eventsFile=runner/results/shard-{shard[0]}.jsonl", "-r", "min", cwd=root)
        codes.append(ran.code)
    assert sorted(codes) == [0, 1], codes  # the shard that ran f_spec.py
    merged = run_runner("merge", "merged.jsonl", "runner/results/shard-1.jsonl", "runner/results/shard-2.jsonl",
                        cwd=root)
    assert merged.code == 1, merged.text
    assert ("4 tests, 3 passed, 1 failed (1 in quarantine: not failing the run), 0 pending, 0 skipped; "
            "1 flaky failing the run (--fail-on-flaky).") in merged.err
    assert json.loads((root / "merged.jsonl").read_text().splitlines()[-1])["fail_on_flaky"] is True


def _assert_every_report_fails_the_flaky_run(root: Path, out: str) -> None:
    """The verdict of every report of a ``--fail-on-flaky`` run whose only failure (but a
    quarantined one) is a flaky test agrees with its exit status: failed."""
    assert "✖    Failed: 1 flaky (--fail-on-flaky)" in out  # not "Passed; 1 quarantined failed"
    assert _events(root)[-1]["fail_on_flaky"] is True  # run.ended carries the flag to the replays
    index = read_data_file(root / "runner/report/data/index.js", "index")
    assert index["run"]["totals"]["failedAsFlaky"] == 1  # the report's verdict: failed
    dot = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "dot", cwd=root)
    assert dot.code == 1, dot.text
    assert "3 passing, 1 flaky failing the run (--fail-on-flaky), 1 failing in quarantine" in dot.out
    tap = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "tap", cwd=root)
    assert "# fail 1\n# fail-on-flaky: 1 of the failures passed only on a retry (flaky)" in tap.out
    as_json = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "json", cwd=root)
    data = json.loads(as_json.out)
    assert (data["status"], data["totalFailedAsFlaky"], as_json.code) == ("failed", 1, 1)
    junit = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "junit", cwd=root)
    assert junit.code == 1, junit.text
    xml = ET.parse(root / "runner/results/junit.xml").getroot()
    assert xml.get("failures") == "1"
    failure = xml.find(".//testcase[@name='test_flaky']/failure")
    assert failure is not None and failure.get("type") == "FlakyTest"
    assert failure.get("message") == ("passed only on attempt 2 of 3: fails the run (--fail-on-flaky); attempt 1 "
                                      "failed: AssertionError: the first attempt fails")
    assert xml.find(".//testcase[@name='test_quarantined_flaky']/failure") is None  # quarantine excuses it


@pytest.mark.slow
def test_shards_merge_into_a_run_whose_quarantined_failure_does_not_fail_it(project) -> None:
    root = project(base_project({"runner/integration/a_spec.py": A_SPEC, "runner/integration/b_spec.py": B_SPEC},
                                {"quarantine": QUARANTINE[:1], "video": False, "reportFolder": False}))
    for shard in ("1/2", "2/2"):
        events = f"runner/results/shard-{shard[0]}.jsonl"
        ran = run_runner("run", "--shard", shard, "--config", f"eventsFile={events}", "-r", "min", cwd=root)
        assert ran.code == 0, ran.text
        assert "names no test" not in ran.err  # a shard is a share of the specs: it judges no entry
    merged = run_runner("merge", "merged.jsonl", "runner/results/shard-1.jsonl", "runner/results/shard-2.jsonl",
                        cwd=root)
    assert merged.code == 0, merged.text  # two failed tests, both quarantined
    assert "5 tests, 3 passed, 2 failed (2 in quarantine: not failing the run), 0 pending" in merged.err
    lines = [json.loads(line) for line in (root / "merged.jsonl").read_text().splitlines()]
    assert (lines[-1]["failed"], lines[-1]["quarantined"]) == (2, 2)
    assert {e["nodeid"].rsplit("::", 1)[1] for e in lines if e["kind"] == "test.ended" and e["quarantine"]} == {
        "test_marked_fails", "test_marked_passes", "test_listed_fails"}
    replayed = run_runner("report", "--from", "merged.jsonl", "-r", "dot", cwd=root)
    assert replayed.code == 0, replayed.text
    assert "2 failing in quarantine" in replayed.out
