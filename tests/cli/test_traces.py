"""Traces written by the real ``runner run``: which tests keep one under each ``trace`` setting,
where it goes, what reaches the reports, what the trace holds, and that the next run trashes it."""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path
from typing import Any

import pytest
from tests.cli.conftest import base_project, run_runner

PAGE = "<html><body><h1>Hi</h1><button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>"
SPEC = """
    def test_passes(runner):
        runner.visit("/")
        runner.get("#b").click()
        runner.get("#b").should("have.text", "ok")


    def test_fails(runner):
        runner.intercept("GET", "/api/x", {"body": {"a": 1}}).as_("x")
        runner.visit("/")
        runner.get("#b").click()
        runner.get("h1").should("have.text", "Bye", timeout=300)
"""
# fails on its first attempt, passes on the second (a file counts the attempts)
FLAKY = """
    from pathlib import Path


    def test_flaky(runner):
        runner.visit("/")
        count = Path(__file__).with_name("count.txt")
        tries = int(count.read_text()) + 1 if count.exists() else 1
        count.write_text(str(tries))
        runner.get("#b").click()
        runner.get("#b").should("have.text", "ok" if tries > 1 else "never", timeout=300)


    def test_passes(runner):
        runner.visit("/")
"""


def traces(root: Path) -> list[str]:
    folder = root / "runner" / "traces"
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def trace_events(path: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]


@pytest.mark.slow
def test_by_default_only_the_failed_test_keeps_its_trace_and_every_report_says_where(project):
    root = project(base_project({"runner/integration/a_spec.py": SPEC}, {"video": False}, page=PAGE))
    (root / "xdg").mkdir()  # a data home: trashing uses its freedesktop trash
    xdg = {"XDG_DATA_HOME": str(root / "xdg")}
    result = run_runner("run", "--reporter", "json", "-o", "output=results.json", cwd=root, env=xdg)
    assert result.code == 1, result.text
    assert traces(root) == ["a_spec.py/test_fails.zip"]
    kept = str(root / "runner" / "traces" / "a_spec.py" / "test_fails.zip")

    report = json.loads((root / "results.json").read_text())
    tests = {t["title"][-1]: t for t in report["specs"][0]["tests"]}
    assert [a["trace"] for a in tests["test_fails"]["attempts"]] == [kept]
    assert tests["test_fails"]["traces"] == [kept]
    assert [a["trace"] for a in tests["test_passes"]["attempts"]] == [None]
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    ended = {e["nodeid"].rsplit("::", 1)[1]: e["trace"] for e in events if e["kind"] == "attempt.ended"}
    assert ended == {"test_passes": None, "test_fails": kept}

    # the trace: runner's commands as steps at the spec's lines, with DOM snapshots
    lines = (root / "runner/integration/a_spec.py").read_text().splitlines()
    steps = {e["title"]: e for e in trace_events(Path(kept)) if e["type"] == "before" and e.get("title")}
    expected = {"intercept GET /api/x (stubbed) as x": "runner.intercept(", "visit('/')": "runner.visit(",
                "get('#b').click()": "runner.get(\"#b\").click()", "get('h1') should have.text 'Bye'": "Bye"}
    for title, code in expected.items():
        step = steps[title]
        assert step["method"] == "tracingGroup"
        frame = step["stack"][0]
        assert frame["file"] == str(root / "runner/integration/a_spec.py")
        assert code in lines[frame["line"] - 1] and "def test_fails" in "\n".join(lines[:frame["line"]])
    all_events = trace_events(Path(kept))
    clicks = [e for e in all_events if e["type"] == "before" and e.get("method") == "mouseClick"]
    assert clicks and clicks[0]["parentId"] == steps["get('#b').click()"]["callId"]  # the click is in its step
    snapshots = [e for e in all_events if e["type"] == "frame-snapshot"]
    assert any("BUTTON" in json.dumps(s["snapshot"]["html"]) for s in snapshots)

    # the spec reporter names it, with the command that opens it
    spec_run = run_runner("run", "--config", "trashAssetsBeforeRuns=false", cwd=root, env=xdg)
    assert f"trace: {kept}  (runner show-trace {shlex.quote(kept)})" in spec_run.out

    # "off" writes nothing, and the run trashed the last run's traces
    off = run_runner("run", "--config", "trace=off", cwd=root, env=xdg)
    assert off.code == 1, off.text
    assert traces(root) == []
    assert list((root / "xdg" / "Trash" / "files").iterdir())


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "kept"), [
    ("on", ["a_spec.py/test_flaky (attempt 2).zip", "a_spec.py/test_flaky.zip", "a_spec.py/test_passes.zip"]),
    ("on-first-retry", ["a_spec.py/test_flaky (attempt 2).zip"]),
    ("retain-on-failure", ["a_spec.py/test_flaky.zip"]),
])
def test_which_attempts_keep_a_trace(project, mode: str, kept: list[str]):
    root = project(base_project({"runner/integration/a_spec.py": FLAKY},
                                {"video": False, "retries": 1, "trace": mode}, page=PAGE))
    result = run_runner("run", cwd=root, env={"XDG_DATA_HOME": str(root / "xdg")})
    assert result.code == 0, result.text
    assert traces(root) == kept
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    told = sorted(Path(e["trace"]).relative_to(root / "runner/traces").as_posix()
                  for e in events if e["kind"] == "attempt.ended" and e["trace"])
    assert told == kept


@pytest.mark.slow
def test_a_page_replaced_after_it_got_stuck_is_traced_again(project):
    stuck = ("<html><body><h1>Hi</h1><script>addEventListener('load', () => "
             "setTimeout(() => { while (true) {} }, 50))</script></body></html>")
    root = project(base_project({
        "site/stuck.html": stuck,
        "runner/integration/a_spec.py": """
            import time


            def test_stuck(runner):
                runner.visit("/stuck.html")
                time.sleep(0.3)  # the endless loop has begun
                runner.get("h1").should("have.text", "Hi")


            def test_next(runner):
                runner.visit("/")
                runner.get("#b").click()
        """,
    }, {"video": False, "trace": "on", "defaultCommandTimeout": 2000}, page=PAGE))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "✓ test_next" in result.out
    assert "Traceback" not in result.err
    # the stuck page's trace is written or lost with one warning; the new page's is written whole
    lost = [line for line in result.err.splitlines() if "trace of test_stuck" in line]
    assert (root / "runner/traces/a_spec.py/test_stuck.zip").is_file() or len(lost) == 1, result.err
    steps = [e.get("title") for e in trace_events(root / "runner/traces/a_spec.py/test_next.zip")
             if e["type"] == "before" and e.get("method") == "tracingGroup"]
    assert steps == ["visit('/')", "get('#b').click()"]


@pytest.mark.slow
def test_a_trace_lost_with_its_browser_is_one_warning_and_the_run_goes_on(project):
    from tests.cli.test_hangs import PROCESSES

    root = project(base_project({
        "runner/integration/a_spec.py": PROCESSES + '''

def test_killed(runner):
    runner.visit("/")
    (driver,) = processes(b"run-driver")
    os.kill(driver, signal.SIGKILL)  # the browser goes with it
    runner.get("h1").should("exist")


def test_next(runner):
    runner.visit("/")
''',
    }, {"video": False, "trace": "on"}, page=PAGE))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "✓ test_next" in result.out and "Traceback" not in result.text
    lost = str(root / "runner/traces/a_spec.py/test_killed.zip")
    warnings = [line for line in result.err.splitlines() if line.startswith("runner: warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(
        f"runner: warning: the trace of test_killed could not be written to {lost!r}: "), result.err
    assert traces(root) == ["a_spec.py/test_next.zip"]
    attempts = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    assert [e["trace"] is None for e in attempts if e["kind"] == "attempt.ended"] == [True, False]
