"""`runner run` writes the HTML report to reportFolder; `runner report --reporter html` builds the
same one from the events file; a folder that is not runner's is never replaced."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.report_events import read_data_file

PAGE = ("<html><body><h1>Hi</h1><p id='total'>?</p><script>fetch('/api/cart').then(r => r.json())"
        ".then(d => { document.querySelector('#total').textContent = '$' + d.total; })</script></body></html>")

SPECS = {
    "runner/integration/shop_spec.py": """
        def test_total_is_shown(runner):
            runner.intercept("GET", "/api/cart", {"total": 41, "items": ["A-1"]}).as_("cart")
            runner.visit("/")
            runner.wait("@cart")
            runner.get("#total").should("have.text", "$42")

        def test_heading(runner):
            runner.visit("/")
            runner.get("h1").should("have.text", "Hi")
        """,
}
FAILED = "runner/integration/shop_spec.py::test_total_is_shown"


def _index(folder: Path) -> dict:
    return read_data_file(folder / "data" / "index.js", "index")


def _page(folder: Path, nodeid: str) -> dict:
    row = next(r for r in _index(folder)["tests"] if r[7] == nodeid)
    return read_data_file(folder / "data" / "t" / f"{row[0]}.js", "test")[1]


@pytest.mark.slow
def test_a_run_writes_its_report_and_a_replay_builds_the_same(project) -> None:
    root = project(base_project(SPECS, {"video": False, "defaultCommandTimeout": 1000}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "runner: the HTML report is in runner/report: open it with runner show-report runner/report" in result.err
    folder = root / "runner" / "report"
    assert (folder / ".runner-report").is_file() and (folder / "index.html").is_file()
    index = _index(folder)
    assert [(r[7], r[3]) for r in index["tests"]] == [(FAILED, "failed"),
                                                    ("runner/integration/shop_spec.py::test_heading", "passed")]
    assert index["run"]["totals"]["failed"] == 1 and index["run"]["browserVersion"]
    attempt = _page(folder, FAILED)["attempts"][0]
    assert "expected <p#total> to have text '$42'" in attempt["message"]
    # the stubbed request is a line of the command log, where it began (during the visit)
    assert [c["name"] for c in attempt["commands"] if c["kind"] == "command"] == ["intercept", "visit", "wait", "should"]
    assert [c["args"].split()[0] for c in attempt["commands"] if c["kind"] == "request"] == ["GET"]
    assert attempt["routes"][0]["alias"] == "cart" and attempt["routes"][0]["matches"] == 1
    (request,) = attempt["requests"]
    assert request["url"].endswith("/api/cart") and request["stubbed"] is True
    assert json.loads(request["responseBody"]["text"]) == {"total": 41, "items": ["A-1"]}
    (shot,) = attempt["screenshots"]
    assert shot["failure"] and (folder / shot["file"]).stat().st_size > 0  # copied into the report
    # the same report, built again from the events file
    replay = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "html",
                        "--reporter-options", "output=again", cwd=root)
    assert replay.code == 1, replay.text
    assert "runner show-report again" in replay.err
    again = root / "again"
    assert _index(again)["tests"] == index["tests"]
    assert _page(again, FAILED) == _page(folder, FAILED)
    # a second run replaces the report (runner's own folder)
    (folder / "stale.txt").write_text("old")
    assert run_runner("run", cwd=root).code == 1
    assert not (folder / "stale.txt").exists() and (folder / "data" / "index.js").is_file()


@pytest.mark.slow
def test_a_failed_tests_commands_are_told_when_they_ran(project) -> None:
    """Every command of a failed test read "+0ms": its attempt's start was taken as its end less
    pytest's durations, which leave out the failure screenshot."""
    root = project(base_project({"runner/integration/a_spec.py": """
        import time

        def test_total(runner):
            runner.visit("/")
            time.sleep(0.4)
            runner.log("checked")
            time.sleep(0.4)
            assert 2 + 2 == 5
        """}, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    rows = _page(root / "runner" / "report", "runner/integration/a_spec.py::test_total")["attempts"][0]["commands"]
    at = {row["name"]: row["at"] for row in rows}
    assert list(at) == ["visit", "log", "assert"], rows
    assert 0 <= at["visit"] < 1000, rows
    assert at["log"] - at["visit"] >= 400 and at["assert"] - at["log"] >= 400, rows


@pytest.mark.slow
def test_report_folder_false_writes_none_and_a_foreign_folder_is_kept(project) -> None:
    specs = {"runner/integration/a_spec.py": SPECS["runner/integration/shop_spec.py"].split("def test_heading")[0]}
    root = project(base_project(specs, {"video": False, "defaultCommandTimeout": 500, "reportFolder": False},
                                page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1 and "HTML report" not in result.err
    assert not (root / "runner" / "report").exists()
    # a folder of the user's: refused with a warning, the run's status unchanged, nothing deleted
    mine = root / "notes"
    mine.mkdir()
    (mine / "keep.md").write_text("mine")
    result = run_runner("run", "--config", "reportFolder=notes", cwd=root)
    assert result.code == 1, result.text
    assert "runner: warning: reportFolder: " in result.err and "not a runner report" in result.err
    assert [p.name for p in mine.iterdir()] == ["keep.md"] and (mine / "keep.md").read_text() == "mine"
    # the project itself is refused before anything is written
    result = run_runner("run", "--config", "reportFolder=.", cwd=root)
    assert result.code == 1 and "is the project" in result.err
    assert (root / "runner.json").is_file() and (root / "site" / "index.html").is_file()
    # "html" is not what a run prints: said, instead of the stdlib's html module being tried
    result = run_runner("run", "--reporter", "html", cwd=root)
    assert result.code == 1 and "every run writes the HTML report to reportFolder" in result.err


@pytest.mark.slow
def test_an_interrupted_run_writes_its_report(tmp_path: Path) -> None:
    from tests.cli.test_interrupt import _project, _start, _wait_for

    root = _project(tmp_path, {"video": False})
    proc = _start(root)
    try:
        _wait_for(root / "started", proc)  # test_slow is running
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal
        _out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert proc.returncode == 130, err
    assert "runner: the HTML report is in runner/report" in err
    index = _index(root / "runner" / "report")
    assert index["run"]["interrupted"] is True
    states = {r[7].rpartition("::")[2]: r[3] for r in index["tests"]}
    assert states["test_first"] == "passed" and "test_after" not in states
    assert states["test_slow"] in ("failed", "unfinished")  # it was running when the signal came
    slow = _page(root / "runner" / "report", "runner/integration/slow_spec.py::test_slow")
    assert [c["name"] for c in slow["attempts"][0]["commands"]] == ["visit", "log"]
