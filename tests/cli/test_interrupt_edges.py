"""Signals at the edges of a run (real `runner run`, real signals to its process group).

SIGTERM twice always ends with 143, even when the second comes as the process ends; a signal
while the reports are written lets them be finished and never contradicts them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, base_project, write_project
from tests.support.procs import stop_group


def _start(root: Path, err: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    env["NO_COLOR"] = "1"
    return subprocess.Popen([RUNNER, "run"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=err.open("w"),
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)


def _wait_until(check, proc: subprocess.Popen[str], what: str, bound: float = 90) -> None:
    deadline = time.monotonic() + bound
    while not check():
        assert proc.poll() is None, f"runner ended ({proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"{what}: not within {bound} s"
        time.sleep(0.05)



@pytest.mark.slow
def test_sigterm_twice_exits_143_even_as_the_process_ends(tmp_path):
    # The test leaves a thread that notes when the process starts to shut down (after the run's
    # signal handlers are gone): the second SIGTERM is sent then, where Python's own would kill.
    stamp, shutting = tmp_path / "started", tmp_path / "shutting-down"
    root = write_project(tmp_path / "p", base_project({"runner/integration/a_spec.py": f'''
import threading
import time
from pathlib import Path

def _note_shutdown():
    threading.main_thread().join()
    Path({str(shutting)!r}).write_text("x")
    time.sleep(3600)

def test_slow(runner):
    threading.Thread(target=_note_shutdown).start()
    Path({str(stamp)!r}).write_text("x")
    time.sleep(60)
'''}, {"video": False}))
    err = tmp_path / "err.txt"
    proc = _start(root, err)
    try:
        _wait_until(stamp.exists, proc, "the test started")
        os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while proc.poll() is None and not shutting.exists():
            assert time.monotonic() < deadline, "the run neither ended nor shut down after SIGTERM"
            time.sleep(0.05)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        stop_group(proc)
    assert proc.returncode == 143, err.read_text()
    assert "interrupted by SIGTERM" in err.read_text()


REPORTER = '''
import time
from pathlib import Path

from runner.reporters.base import Reporter as Base


class Reporter(Base):
    def on_run_end(self, run):
        Path("writing").write_text("x")
        deadline = time.monotonic() + 60
        while not Path("go").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self._print(f"report finished: {run.tests} tests")
'''


@pytest.mark.slow
def test_sigint_while_the_reports_are_written_lets_them_finish(tmp_path):
    root = write_project(tmp_path, base_project({
        "runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n",
        "slow_reporter.py": REPORTER,
    }, {"video": False, "reporter": "./slow_reporter.py"}))
    err = tmp_path / "err.txt"
    proc = _start(root, err)
    try:
        _wait_until((root / "writing").exists, proc, "the reporter began its report")
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        _wait_until(lambda: "the run has ended" in err.read_text(), proc, "runner told the signal", 30)
        (root / "go").write_text("x")
        out, _ = proc.communicate(timeout=60)
    finally:
        stop_group(proc)
    said = err.read_text()
    assert proc.returncode == 0, said  # the run's own status: its test passed
    assert "report finished: 1 tests" in out
    assert "Traceback" not in said and "the HTML report is in" in said
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    assert events[-1]["kind"] == "run.ended" and events[-1]["interrupted"] is False

