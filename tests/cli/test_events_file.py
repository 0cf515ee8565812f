"""`runner run` writes its events as they happen; `runner report --from` replays them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, base_project, run_runner

SPECS = {
    "runner/integration/a_spec.py": """
        def test_passes(runner):
            runner.intercept("/data.json").as_("data")
            runner.visit("/")
            runner.log("hello from a")
            runner.get("h1").should("have.text", "Hi")
            assert runner.wait("@data").response.status_code == 200
        """,
    "site/data.json": '{"n": 1}',
    "runner/plugins/index.py": """
        def setup(on, config):
            on("before:run", lambda details: None)

            def broken(spec):
                raise ValueError("listener broke")

            on("before:spec", broken)
        """,
    "runner/integration/b_spec.py": """
        import pytest

        @pytest.mark.runner(retries=1)
        def test_fails_twice(runner):
            runner.intercept("GET", "/api/x", {"statusCode": 500}).as_("x")
            runner.visit("/")
            assert 1 == 2, "numbers differ"

        def test_skipped():
            pytest.skip("not today")
        """,
}


FETCHING_PAGE = "<html><body><h1>Hi</h1><script>fetch('/data.json')</script></body></html>"


def _kinds(path: Path) -> list[str]:
    return [json.loads(line)["kind"] for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_a_run_writes_its_events_and_a_replay_prints_the_same(project):
    root = project(base_project(SPECS, {"video": False, "reporterOptions": {"mochaFile": "results/junit.xml"}},
                                page=FETCHING_PAGE))
    live = run_runner("run", cwd=root)
    assert live.code == 1, live.text
    events = root / "runner" / "results" / "events.jsonl"
    kinds = _kinds(events)
    assert kinds[0] == "run.started" and kinds[-1] == "run.ended"
    assert kinds.count("spec.started") == 2 and kinds.count("spec.ended") == 2
    assert kinds.count("test.ended") == 3 and kinds.count("attempt.ended") == 4  # a retry: 2 attempts
    plugin_events = [(e["name"], e["errors"]) for e in map(json.loads, events.read_text().splitlines())
                     if e["kind"] == "plugin.event"]
    assert plugin_events[0] == ("before:run", [])  # after run.started: the file starts with it
    assert [name for name, errors in plugin_events[1:]] == ["before:spec", "before:spec"]
    assert all("ValueError: listener broke" in errors[0] for _, errors in plugin_events[1:])
    assert {"browser.started", "log", "screenshot.taken", "route.added", "route.aliased",
            "request.intercepted", "command.started", "command.ended"} <= set(kinds)
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    request = next(e for e in lines if e["kind"] == "request.intercepted")
    assert request["url"].endswith("/data.json") and request["aliases"] == ["data"] and request["status"] == 200
    assert set(request["timings"]) == {"queued", "handler", "upstream", "total"}
    assert request["nodeid"].endswith("a_spec.py::test_passes")
    visit = next(e for e in lines if e["kind"] == "command.started" and e["name"] == "visit")
    assert visit["args"] == "'/'" and visit["file"].endswith("a_spec.py") and visit["line"] == 3

    replay = run_runner("report", "--from", str(events), cwd=root)
    assert replay.code == 1, replay.text
    assert replay.out == live.out  # the spec reporter prints the same, timings included
    assert "AssertionError: numbers differ" in replay.out and "attempt 2:" in replay.out

    # another reporter, from the same file, writes the same junit as a live run with it would
    live_junit = run_runner("run", "--reporter", "junit", cwd=root)
    assert live_junit.code == 1
    written = (root / "results" / "junit.xml").read_text(encoding="utf-8")
    (root / "results" / "junit.xml").unlink()
    again = run_runner("report", "--from", str(events), "--reporter", "junit", cwd=root)
    assert again.code == 1, again.text
    replayed = (root / "results" / "junit.xml").read_text(encoding="utf-8")
    assert replayed == written
    assert replayed.count("<testcase") == 3 and 'message="AssertionError: numbers differ' in replayed


@pytest.mark.slow
def test_a_killed_run_leaves_every_event_up_to_the_kill(project, tmp_path):
    stamp = tmp_path / "in-second-test"
    root = project(base_project({
        "runner/integration/a_spec.py": f"""
            import time
            from pathlib import Path

            def test_quick(runner):
                runner.visit("/")

            def test_hangs(runner):
                runner.visit("/")
                Path({str(stamp)!r}).write_text("x")
                time.sleep(60)
            """,
    }, {"video": False}))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    proc = subprocess.Popen([RUNNER, "run"], cwd=root, env={**env, "NO_COLOR": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not stamp.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the second test never started"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)  # as the OOM killer or a CI timeout would
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    events = root / "runner" / "results" / "events.jsonl"
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    kinds = [e["kind"] for e in lines]
    assert "run.ended" not in kinds and kinds.count("test.ended") == 1
    last_start = max(i for i, kind in enumerate(kinds) if kind == "test.started")
    assert lines[last_start]["nodeid"].endswith("::test_hangs")
    # the hanging test's visit (a command that ended) is in the file: everything up to the kill
    assert [e["name"] for e in lines[last_start:] if e["kind"] == "command.ended"] == ["visit"]
    replay = run_runner("report", "--from", str(events), cwd=root)
    assert replay.code == 1
    assert "test_quick" in replay.out
    assert "ends before the run did (it has no run.ended event)" in replay.err
    assert "The run was cut short" in replay.out
    assert "Traceback" not in replay.text


def _events_file(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


STARTED = json.dumps({"v": 1, "kind": "run.started", "at": 1.0, "run_id": "r", "runner_version": "0.1.0",
                      "browser": "chromium", "specs": ["a_spec.py"]})


def _event(kind: str, **fields: object) -> str:
    return json.dumps({"v": 1, "kind": kind, "at": 2.0, **fields})


def test_a_corrupt_line_is_named_and_the_report_covers_the_events_before_it(tmp_path):
    path = _events_file(tmp_path / "events.jsonl", [
        STARTED,
        _event("spec.started", spec="a_spec.py", absolute="/p/a_spec.py"),
        _event("test.started", spec="a_spec.py", nodeid="a_spec.py::test_one", title=["test_one"]),
        _event("attempt.ended", spec="a_spec.py", nodeid="a_spec.py::test_one", attempt=1, state="passed",
               duration_ms=5.0),
        _event("test.ended", spec="a_spec.py", nodeid="a_spec.py::test_one", title=["test_one"],
               state="passed", duration_ms=5.0, attempts=1),
        '{"v": 1, "kind": "test.started", "spec": ',
        _event("run.ended", duration_ms=9.0, tests=1, passed=1, failed=0, pending=0, skipped=0),
    ])
    done = run_runner("report", "--from", str(path), cwd=tmp_path)
    assert done.code == 1
    assert "✓ test_one" in done.out
    assert f"runner: {path}, line 6: not valid JSON" in done.err
    assert "The report covers the events before that line" in done.err
    assert "Traceback" not in done.text


@pytest.mark.parametrize("lines, message", [
    ([], "is empty: it holds no events"),
    (['{"hello": 1}'], "is not an events file runner can read"),
    ([_event("log", nodeid="n", message="m")], "does not start with a run.started event (it starts with log)"),
    (['{"v": 7, "kind": "run.started"}'], "schema version 7, newer than the 1 this runner reads"),
])
def test_files_that_are_not_a_runs_events_get_one_clear_message(tmp_path, lines, message):
    path = _events_file(tmp_path / "events.jsonl", lines)
    done = run_runner("report", "--from", str(path), cwd=tmp_path)
    assert done.code == 1
    assert message in done.err
    assert "Traceback" not in done.text


def test_report_misuse_is_one_line_each(tmp_path):
    missing = run_runner("report", "--from", "nope.jsonl", cwd=tmp_path)
    assert missing.code == 1 and "--from 'nope.jsonl': no such file" in missing.err
    folder = run_runner("report", "--from", str(tmp_path), cwd=tmp_path)
    assert folder.code == 1 and "is a folder" in folder.err
    path = _events_file(tmp_path / "e.jsonl", [STARTED])
    unknown = run_runner("report", "--from", str(path), "--reporter", "spek", cwd=tmp_path)
    assert unknown.code == 1 and "spec" in unknown.err and "Traceback" not in unknown.text
    no_from = run_runner("report", cwd=tmp_path)
    assert no_from.code == 1 and "--from" in no_from.err


@pytest.mark.slow
def test_the_older_events_file_is_trashed_or_kept_aside_never_lost(project, tmp_path):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n"},
                                {"video": False}))
    events = root / "runner" / "results" / "events.jsonl"
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    (tmp_path / "data").mkdir()  # a data home exists: the freedesktop trash is used
    assert run_runner("run", cwd=root, env=env).code == 0
    first = events.read_text(encoding="utf-8")
    assert run_runner("run", cwd=root, env=env).code == 0  # trashAssetsBeforeRuns: true (default)
    trashed = list((tmp_path / "data" / "Trash" / "files").glob("events*.jsonl"))
    assert [p.read_text(encoding="utf-8") for p in trashed] == [first]
    second = events.read_text(encoding="utf-8")
    assert run_runner("run", "--config", "trashAssetsBeforeRuns=false", cwd=root, env=env).code == 0
    kept = [p for p in events.parent.glob("events.*.jsonl")]
    assert [p.read_text(encoding="utf-8") for p in kept] == [second]
    assert _kinds(events)[-1] == "run.ended"


def test_an_events_file_path_runner_did_not_write_is_refused_before_the_run(project):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
                                 "notes.txt": "my notes\n"}, {"eventsFile": "notes.txt", "video": False}))
    done = run_runner("run", cwd=root)
    assert done.code == 1
    assert "eventsFile" in done.err and "not a runner events file" in done.err
    assert (root / "notes.txt").read_text() == "my notes\n"
    folder = run_runner("run", "--config", "eventsFile=runner", cwd=root)
    assert folder.code == 1 and "is a folder" in folder.err


@pytest.mark.slow
def test_events_file_false_writes_none(project):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"},
                                {"eventsFile": False, "video": False}))
    done = run_runner("run", cwd=root)
    assert done.code == 0, done.text
    assert not (root / "runner" / "results").exists()


def test_line_separators_in_test_ids_do_not_split_an_events_line(project):
    """U+2028/U+2029 (and U+0085) are kept raw by JSON, yet Python's splitlines and old JavaScript end
    a line there: a test id holding one cut its events in two."""
    root = project(base_project({"runner/integration/a_spec.py": """
        import pytest

        @pytest.mark.parametrize("name", ["line\\u2028sep", "para\\u2029sep", "next\\u0085line"])
        def test_named(runner, name):
            runner.log(name)
            assert name != "para\\u2029sep", name
        """,
        # pytest escapes ids unless told not to: the probe that found this had them raw
        "pytest.ini": "[pytest]\ndisable_test_id_escaping_and_forfeit_all_rights_to_community_support = true\n",
    }, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    text = (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8")
    assert not any(ch in text for ch in "\u2028\u2029\x85")
    events = [json.loads(line) for line in text.splitlines()]  # every line whole
    titles = {e["title"][-1] for e in events if e["kind"] == "test.ended"}
    assert titles == {"test_named[line\u2028sep]", "test_named[para\u2029sep]", "test_named[next\x85line]"}
    logs = [e for e in events if e["kind"] == "log"]
    assert sorted(e["message"] for e in logs) == sorted(["line\u2028sep", "para\u2029sep", "next\x85line"])
    replay = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "json",
                        "--reporter-options", "output=replayed.json", cwd=root)
    assert replay.code == 1, replay.text


@pytest.mark.slow
def test_a_failure_with_megabytes_of_text_is_cut_where_it_says(project):
    """A failure whose assertion held 20 MB made a 40 MB JSON report and a 20 MB events file."""
    root = project(base_project({"runner/integration/a_spec.py": """
        def test_big(runner):
            page = "<p>" + "x" * 20_000_000 + "</p>"
            runner.log("y" * 1_000_000)
            assert False, page
        """}, {"video": False, "reporter": "json", "reporterOptions": {"output": "results/report.json"}}))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    events_file = root / "runner" / "results" / "events.jsonl"
    assert events_file.stat().st_size < 1_000_000
    assert (root / "results" / "report.json").stat().st_size < 1_000_000
    report_data = root / "runner" / "report" / "data"
    assert sum(p.stat().st_size for p in report_data.rglob("*") if p.is_file()) < 1_000_000
    events = [json.loads(line) for line in events_file.read_text(encoding="utf-8").splitlines()]
    attempt = next(e for e in events if e["kind"] == "attempt.ended")
    error = attempt["error"]
    assert error.startswith("runner = <runner for test_big>")  # the code frame stays
    assert error.endswith("runner/integration/a_spec.py:4: AssertionError")  # and the end
    assert "[... runner cut 19,934," in error and "characters of the failure's report here: it keeps 65,536 of" in error
    assert len(error) < 66_000
    assert attempt["message"].endswith(" more characters cut by runner]") and len(attempt["message"]) < 4_200
    log = next(e for e in events if e["kind"] == "log")["message"]
    assert "runner cut 934,464 characters of the runner.log() message here" in log and len(log) < 66_000
    report = json.loads((root / "results" / "report.json").read_text(encoding="utf-8"))
    assert report["specs"][0]["tests"][0]["error"] == error
