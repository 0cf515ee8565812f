"""Two `runner run` of one project at once: the second is refused before it trashes or writes
anything, with a message naming the first; once the first ended, runs go on as usual."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from tests.cli.conftest import RUNNER, base_project, run_runner, write_project

SPEC = """
import time
from pathlib import Path

def test_holds_the_run(runner):
    runner.visit("/")
    runner.screenshot("first-run")
    Path({started!r}).write_text("x")
    deadline = time.monotonic() + 60
    while not Path({release!r}).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
"""


@pytest.mark.slow
def test_a_second_run_of_the_project_is_refused_and_trashes_nothing(tmp_path):
    started, release = tmp_path / "started", tmp_path / "release"
    root = write_project(tmp_path / "project", base_project(
        {"runner/integration/hold_spec.py": SPEC.format(started=str(started), release=str(release))},
        {"video": False}))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    first = subprocess.Popen([RUNNER, "run"], cwd=root, env={**env, "NO_COLOR": "1"}, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not started.exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run's test never started"
            time.sleep(0.05)
        shot = root / "runner" / "screenshots" / "hold_spec.py" / "first-run.png"
        assert shot.is_file()

        second = run_runner("run", cwd=root, timeout=60)
        assert second.code == 1, second.text
        assert f"pid {first.pid}" in second.err and "screenshotsFolder" in second.err
        assert "Wait for it to end" in second.err
        assert "Traceback" not in second.text
        assert shot.is_file(), "the second run trashed the first run's screenshot"

        release.write_text("x")
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
    assert first.returncode == 0, out + err
    assert shot.is_file()
    events = [json.loads(line) for line in (root / "runner" / "results" / "events.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in events][0] == "run.started" and events[-1]["kind"] == "run.ended"
    assert sum(1 for e in events if e["kind"] == "run.started") == 1  # one run's events, not two

    # the first run ended: its locks went with it, and the next run goes on as usual
    third = run_runner("run", cwd=root, timeout=90)
    assert third.code == 0, third.text

