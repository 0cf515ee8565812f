"""Reporters in real runs: a broken custom reporter, bad reporterOptions, reporter names."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.cli.conftest import base_project, run_runner

PAGE = "<html><body><h1>Hi</h1></body></html>"
PASSING = "def test_passes(runner):\n    runner.visit('/')\n"
TOTALS_PLUGIN = """
import json, pathlib

def setup(on, config):
    out = pathlib.Path(config["projectRoot"]) / "totals.json"
    on("after:run", lambda results: out.write_text(json.dumps(results["totalPassed"])))
"""


def test_a_reporter_that_raises_is_switched_off_and_the_tests_go_on(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PASSING,
        "runner/integration/b_spec.py": PASSING,
        "runner/plugins/index.py": TOTALS_PLUGIN,
        "reporting/bad.py": """
            from runner.reporters import Reporter as Base

            class Reporter(Base):
                def on_test_end(self, spec, test):
                    raise ValueError("no column " + test.full_title)
        """,
        "reporting/late.py": """
            from pathlib import Path
            from runner.reporters import Reporter as Base

            class Reporter(Base):
                def on_run_end(self, run):
                    Path("/nonexistent-dir/summary.json").read_text()
        """,
        "reporting/direct.py": """
            from runner.reporters import Reporter as Base

            class Reporter(Base):
                def on_spec_start(self, spec, index, total):
                    raise RuntimeError("direct")
        """,
    }, {"video": False, "reporter": "./reporting/bad.py"}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert json.loads((root / "totals.json").read_text()) == 2  # both specs ran
    assert result.code == 1, result.text  # every test passed, but a report is missing
    assert result.err.count("raised ValueError") == 1, result.err
    assert ("runner: the reporter './reporting/bad.py' raised ValueError in on_test_end: no column test_passes"
            in result.err)
    assert 'bad.py", line 5, in on_test_end' in result.err
    assert "switched off for the rest of the run" in result.err
    assert "the tests passed, but the reporter './reporting/bad.py' failed" in result.err
    assert "INTERNALERROR" not in result.text and "Traceback" not in result.text
    assert "collector.py" not in result.err  # only the reporter's own code
    direct = run_runner("run", "--reporter", "./reporting/direct.py", cwd=root)
    assert "raised RuntimeError in on_spec_start: direct" in direct.err
    assert 'direct.py", line 5, in on_spec_start' in direct.err and "runner/reporters" not in direct.err
    late = run_runner("run", "--reporter", "./reporting/late.py", cwd=root)
    assert "raised FileNotFoundError in on_run_end" in late.err
    assert 'late.py", line 6, in on_run_end' in late.err and "pathlib" not in late.err
    assert "It is switched off for the rest of the run." in late.err and "the tests go on" not in late.err


def test_bad_reporter_options_stop_the_run_before_the_trash_is_emptied(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PASSING,
        "results/old.xml": "<testsuites/>",
        "runner/screenshots/last run.png": "kept",
    }, {"reporter": "junit", "reporterOptions": {"mochaFile": "results"}}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "reporterOptions.mochaFile of the junit reporter is 'results'" in result.err
    assert "it is a folder" in result.err and "Traceback" not in result.text
    assert (root / "runner/screenshots/last run.png").read_text() == "kept"  # nothing trashed
    assert (root / "results/old.xml").exists()


def test_reporter_options_from_the_command_line_are_checked_too(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PASSING,
    }, {"video": False}, page=PAGE))
    result = run_runner("run", "--reporter", "json", "--reporter-options", "outptu=r.json", cwd=root)
    assert result.code == 0, result.text
    assert ("runner: warning: reporterOptions.outptu is not an option of the json reporter and is ignored. "
            "Did you mean 'output'?") in result.err
    assert json.loads(result.out)["totalPassed"] == 1  # printed, as without an output


def test_a_spec_without_tests_is_listed_and_a_run_of_no_tests_fails(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PASSING,
        "runner/integration/empty_spec.py": "HELPER = 1\n",
    }, {"video": False, "reporter": "json", "reporterOptions": {"output": "report.json"}}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    report = json.loads((root / "report.json").read_text())
    assert [(s["relative"], len(s["tests"])) for s in report["specs"]] == [("a_spec.py", 1), ("empty_spec.py", 0)]
    assert report["status"] == "passed"

    spec_only = run_runner("run", "--reporter", "spec", "--spec", "**/empty_spec.py", cwd=root)
    assert spec_only.code == 1, spec_only.text
    assert "Specs:    1 found (empty_spec.py)" in spec_only.out
    assert "No tests found in this spec." in spec_only.out and "No tests ran" in spec_only.out
    assert "runner: no tests ran: the selected specs hold no tests." in spec_only.err

    deselected = run_runner("run", "--", "-k", "nomatch", cwd=root)
    assert deselected.code == 1, deselected.text
    assert "no test of the selected specs matched the pytest arguments '-k nomatch'" in deselected.err
    report = json.loads((root / "report.json").read_text())
    assert report["status"] == "failed" and report["totalTests"] == 0
    # a spec whose tests were all deselected is not listed; one without tests is
    assert [s["relative"] for s in report["specs"]] == ["empty_spec.py"]


def test_when_pytest_cannot_run_no_report_says_passed(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PASSING,
    }, {"video": False, "reporter": "json", "reporterOptions": {"output": "report.json"}}, page=PAGE))
    result = run_runner("run", "--", "-k", "bad syntax ((", cwd=root)
    assert result.code == 1, result.text
    assert "pytest's -k (test names) expression 'bad syntax ((' is not valid" in result.err
    assert "Nothing was run" in result.err
    assert not (root / "report.json").exists()


def test_skip_and_xfail_reasons_reach_every_report(project):
    root = project(base_project({
        "runner/integration/a_spec.py": """
            import pytest

            @pytest.mark.skip(reason="not now")
            def test_marked(runner):
                pass

            def test_at_runtime(runner):
                pytest.skip("no backend here")

            @pytest.mark.xfail(reason="known bug")
            def test_known(runner):
                assert False
        """,
    }, {"video": False, "reporter": "junit", "reporterOptions": {"mochaFile": "junit.xml"}}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    skipped = [e.get("message") for e in ET.parse(root / "junit.xml").getroot().iter("skipped")]
    assert skipped == ["Skipped: not now", "Skipped: no backend here", "expected to fail: known bug"]
    listing = run_runner("run", "--reporter", "list", cwd=root)
    assert "- a_spec.py test_marked (Skipped: not now)" in listing.out
    assert "- a_spec.py test_at_runtime (Skipped: no backend here)" in listing.out
    tap = run_runner("run", "--reporter", "tap", cwd=root)
    assert "ok 1 - a_spec.py test_marked # SKIP Skipped: not now" in tap.out.splitlines()
    spec = run_runner("run", "--reporter", "spec", cwd=root)
    assert "- test_marked (Skipped: not now)" in spec.out and "- test_known (expected to fail: known bug)" in spec.out
    assert "0 passing, 2 pending, 1 skipped" in spec.out


def test_the_custom_reporter_of_the_docs_works_as_written(project, tmp_path):
    docs = (Path(__file__).parents[2] / "docs" / "reporters.md").read_text(encoding="utf-8")
    code = docs.split("# reporting/slack_summary.py\n", 1)[1].split("```", 1)[0]
    [config_text] = re.findall(r"```json\n(\{ \"reporter\": \"\./reporting/slack_summary\.py\".*?)```", docs, re.S)
    config = json.loads(config_text)
    root = project(base_project({
        "reporting/slack_summary.py": code,
        "runner/integration/a_spec.py": PASSING + "\ndef test_fails(runner):\n    assert 1 == 2\n",
    }, {"video": False, **config}, page=PAGE))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_runner("run", "--project", str(root), cwd=elsewhere)  # not run from the project
    assert result.code == 1, result.text
    assert "FAILED a_spec.py: test_fails: AssertionError: assert 1 == 2" in result.out
    summary = json.loads((root / "results" / "summary.json").read_text())
    assert summary == {"tests": 2, "passed": 1, "failed": ["a_spec.py: test_fails"]}


def test_a_failure_found_when_the_test_ended_reads_once(project):
    # strictNetwork fails a test whose body passed, at no line of it: its message is the failure,
    # said once, without pytest's "E" lines or its "All traceback entries are hidden"
    root = project(base_project({
        "site/data.json": '{"a": 1}',
        "runner/integration/strict_spec.py": """
            def test_unrouted_fetch(runner):
                runner.visit("/")
                runner.get("body").should("have.attr", "data-done", "1")
        """,
    }, {"strictNetwork": True, "video": False},
        page="<html><body><h1>Hi</h1><script>fetch('/data.json')"
             ".then(() => { document.body.dataset.done = '1' })</script></body></html>"))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    headline = "strictNetwork: the page made 1 request that no route matched:"
    failure = result.out[result.out.index("1) test_unrouted_fetch\n     CommandError"):result.out.index("command log:")]
    assert failure.count(headline) == 1, failure
    assert failure.count("/data.json (fetch)") == 1 and "Stub or spy on each" in failure, failure
    assert "All traceback entries are hidden" not in result.out and "E   " not in result.out, result.out
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    [ended] = [e for e in events if e["kind"] == "attempt.ended"]
    assert ended["error"].startswith(headline) and ended["message"] == f"CommandError: {headline}", ended
