"""A run whose test process dies never reads as passed (real `runner run` on temp projects).

A test that ends its process (``os._exit``, SIGKILL as the OOM killer sends it) is told as failed
by the death, in the reporter, the json report, the events file and the HTML report, and the exit
status is not 0; under ``--workers`` the other tests still run and the dead test runs once. A
thread a test leaves running does not keep the finished run alive.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

DYING = '''
import os
import signal

def test_first(runner):
    runner.log("first")

def test_dies(runner):
    runner.log("about to die")
    {death}

def test_after(runner):
    runner.log("after")
'''
OTHER = '''
def test_other(runner):
    runner.log("other")
'''


def _project(tmp_path: Path, death: str) -> Path:
    return write_project(tmp_path, base_project({
        "runner/integration/a_spec.py": DYING.format(death=death),
        "runner/integration/b_spec.py": OTHER,
    }, {"video": False}))


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


def _report_text(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (root / "runner/report/data").rglob("*.js"))


def _assert_told_dead(root: Path, result, how: str) -> None:
    assert result.code != 0, result.text
    assert "All specs passed" not in result.text
    assert "a_spec.py::test_dies' was running" in result.err and how in result.err, result.err
    text = (root / "out.json").read_text()
    assert "TestProcessDied" in text  # the reporter's, written by the watching process
    report = json.loads(text)
    tests = {t["title"][-1]: t for s in report["specs"] for t in s["tests"]}
    assert tests["test_dies"]["state"] == "failed"
    assert tests["test_first"]["state"] == "passed"
    events = _events(root)
    ended = [e for e in events if e["kind"] == "test.ended" and e["nodeid"].endswith("::test_dies")]
    assert [e["state"] for e in ended] == ["failed"]
    assert events[-1]["kind"] == "run.ended" and events[-1]["error"] == "the process running the tests died"
    assert "TestProcessDied" in _report_text(root)


@pytest.mark.slow
@pytest.mark.parametrize(("death", "how"), [
    ("os._exit(0)", "it exited with status 0"),
    ("os.kill(os.getpid(), signal.SIGKILL)", "it was killed by SIGKILL"),
    # the status of a run stopped at once by a second Ctrl-C: it was taken for one, told nothing
    ("os._exit(130)", "it exited with status 130"),
])
def test_a_test_that_ends_its_process_fails_the_run(tmp_path, death, how):
    root = _project(tmp_path, death)
    result = run_runner("run", "--reporter", "json", "--reporter-options", "output=out.json", cwd=root)
    _assert_told_dead(root, result, how)
    assert "The tests after it did not run" in result.err


@pytest.mark.slow
def test_a_worker_that_dies_fails_its_test_and_the_others_run(tmp_path):
    root = _project(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    result = run_runner("run", "--workers", "2", cwd=root, timeout=240)
    assert result.code == 1, result.text
    assert "All specs passed" not in result.text
    assert "TestProcessDied" in result.out and "crashed while running" in result.out
    # told once: its one line is the whole report, not printed again below itself
    assert result.out.count("TestProcessDied: the process running the tests died") == 1, result.out
    events = _events(root)
    started = [e["nodeid"].split("::")[-1] for e in events if e["kind"] == "test.started"]
    assert sorted(started) == ["test_after", "test_dies", "test_first", "test_other"]  # the dead one ran once
    states = {e["nodeid"].split("::")[-1]: e["state"] for e in events if e["kind"] == "test.ended"}
    assert states == {"test_first": "passed", "test_dies": "failed", "test_after": "passed",
                      "test_other": "passed"}
    assert "TestProcessDied" in _report_text(root)


@pytest.mark.slow
def test_a_thread_left_running_does_not_keep_the_run_alive(tmp_path):
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": '''
import threading
import time

def test_leaves_a_thread(runner):
    threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
'''}, {"video": False}))
    result = run_runner("run", cwd=root, timeout=90)
    assert result.code == 0, result.text
    assert "All specs passed" in result.out


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_a_spec_that_exits_at_import_fails_alone(tmp_path, workers):
    root = write_project(tmp_path, base_project({
        "runner/integration/a_spec.py": "import sys\nsys.exit(3)\n\ndef test_never(runner):\n    pass\n",
        "runner/integration/b_spec.py": OTHER,
    }, {"video": False}))
    result = run_runner("run", *workers, cwd=root, timeout=240)
    assert result.code == 1, result.text
    assert "INTERNALERROR" not in result.text
    assert "The spec a_spec.py could not be loaded" in result.out
    assert "the spec called sys.exit(3) while it was imported" in result.out
    assert "✓ test_other" in result.out  # the good spec ran
    specs = {e["spec"]: e for e in _events(root) if e["kind"] == "spec.ended"}
    assert specs["a_spec.py"]["error_type"] == "SystemExit"


def _artifacts(root: Path) -> dict[str, bytes]:
    """Every file of the last run's events file, HTML report and traces, by path."""
    out = {}
    for folder in ("runner/results", "runner/report", "runner/traces"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                out[str(path.relative_to(root))] = path.read_bytes()
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("pytest_args", "said"), [
    (["--nf"], "unrecognized arguments: --nf"),  # pytest's cache is off (--lf, --ff: runner's flags)
    (["-k", "bad ("], "pytest's -k (test names) expression 'bad (' is not valid"),
    (["--workers", "2", "--", "-m", "a b"], "pytest's -m (marks) expression 'a b' is not valid"),
    (["--conftest-refuses"], "conftest refuses"),
])
def test_a_run_pytest_cannot_start_leaves_the_last_runs_artifacts(tmp_path, pytest_args, said):
    files = {"runner/integration/b_spec.py": OTHER}
    if pytest_args == ["--conftest-refuses"]:  # a usage error pytest finds after collecting
        files["runner/integration/conftest.py"] = (
            "import os\nimport pytest\n\ndef pytest_collection_modifyitems(items):\n"
            "    if os.environ.get('REFUSE'):\n        raise pytest.UsageError('conftest refuses')\n")
        pytest_args = []
    root = write_project(tmp_path, base_project(files, {"video": False, "trace": "on"}))
    first = run_runner("run", cwd=root)
    assert first.code == 0, first.text
    before = _artifacts(root)
    assert any(name.startswith("runner/traces/") for name in before)
    assert "runner/results/events.jsonl" in before and "runner/report/index.html" in before
    args = pytest_args if "--workers" in pytest_args else ["--", *pytest_args] if pytest_args else []
    result = run_runner("run", *args, cwd=root, env={"REFUSE": "1"}, timeout=240)
    assert result.code == 1, result.text
    assert said in result.err
    assert "INTERNALERROR" not in result.text and "Run Starting" not in result.out
    assert "left as they were" in result.err or "stay as they were" in result.err
    assert "the HTML report is in" not in result.err  # no report was written, none is pointed at
    assert _artifacts(root) == before


FLAKY_THEN_DIES = '''
import os
import signal
from pathlib import Path

def test_flaky(runner):
    marker = Path(__file__).with_suffix(".ran")
    first = not marker.exists()
    marker.write_text("ran")
    assert not first, "fails on its first attempt only"

def test_dies(runner):
    os.kill(os.getpid(), signal.SIGKILL)
'''


@pytest.mark.slow
def test_the_run_ended_of_a_death_keeps_fail_on_flaky(tmp_path):
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": FLAKY_THEN_DIES},
                                                {"video": False, "retries": 1}))
    result = run_runner("run", "--fail-on-flaky", cwd=root)
    assert result.code != 0, result.text
    assert "it was killed by SIGKILL" in result.err, result.err
    events = _events(root)
    attempts = [e["state"] for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("::test_flaky")]
    assert attempts == ["failed", "passed"], attempts
    ended = events[-1]
    assert ended["kind"] == "run.ended" and ended["error"] == "the process running the tests died"
    assert ended["fail_on_flaky"] is True, ended


VISITS_THEN_DIES = '''
import os
import signal

from runner import Runner

def test_visits_then_dies(runner):
    Runner.backend_environment()  # runner's proxy for the app's server: its CA in a folder
    runner.visit("/")
    os.kill(os.getpid(), signal.SIGKILL)
'''

#: What Playwright's driver and browser, and runner's proxy, put in the temp folder.
_LEFT = ("playwright-artifacts-", "playwright-tracing-", "playwright_chromiumdev_profile-", "runner-proxy-",
         "runner-run-")


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["test process", "worker"])
def test_a_death_leaves_nothing_in_the_temp_folder_but_anothers_is_kept(tmp_path, workers):
    root = write_project(tmp_path / "project", base_project({"runner/integration/a_spec.py": VISITS_THEN_DIES},
                                                            {"video": False}))
    temp = tmp_path / "temp"
    others = [temp / "playwright-artifacts-another", temp / "runner-proxy-1-another"]  # another run's
    for folder in others:
        folder.mkdir(parents=True)
    result = run_runner("run", *workers, cwd=root, env={"TMPDIR": str(temp)}, timeout=240)
    assert result.code != 0, result.text
    assert "TestProcessDied" in result.out, result.text
    left = sorted(p.name for p in temp.iterdir() if p.name.startswith(_LEFT) and p not in others)
    assert left == [], left
    assert all(folder.is_dir() for folder in others)
    (started,) = [e for e in _events(root) if e["kind"] == "run.started"]
    assert started["config"]["env"] == {}, started["config"]["env"]  # the run's folder is runner's, not the tests'
