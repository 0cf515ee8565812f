"""Ctrl-C and SIGTERM during `runner run`: the run ends as interrupted, every report is written,
the video is finished, nothing runner started is left running; a second signal stops at once.

Signals are sent the way a terminal (Ctrl-C: SIGINT to the whole foreground process group, so
Playwright's driver gets it too) or a CI system (SIGTERM) sends them: runner runs in a session of
its own and the signal goes to its process group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, base_project, write_project
from tests.support.procs import children, left_after, stop_group
from tests.support.video import probe

# test_first passes; test_slow is running when the signal comes; test_after never starts.
SPEC = """
import time
from pathlib import Path

import pytest


@pytest.fixture
def slow_teardown():
    yield
    # only reached once the run is being ended: the second signal comes meanwhile
    Path({teardown!r}).write_text("x")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.05)


def test_first(runner):
    runner.visit("/")
    runner.get("h1").should("contain", "Hi")


def test_slow(runner{fixture}):
    runner.visit("/")
    runner.log("waiting for the signal")
    Path({stamp!r}).write_text("x")
    time.sleep(60)


def test_after(runner):
    pass
"""


def _project(root: Path, config: dict | None = None, *, slow_teardown: bool = False) -> Path:
    spec = SPEC.format(stamp=str(root / "started"), teardown=str(root / "tearing-down"),
                       fixture=", slow_teardown" if slow_teardown else "")
    return write_project(root, base_project({"runner/integration/slow_spec.py": spec}, config))


def _start(root: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    env["NO_COLOR"] = "1"
    return subprocess.Popen([RUNNER, "run"], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)  # a process group of its own, as in a terminal


def _wait_for(path: Path, proc: subprocess.Popen[str], bound: float = 90) -> None:
    deadline = time.monotonic() + bound
    while not path.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"runner ended ({proc.returncode}) before {path.name}:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)



def _events(root: Path) -> list[dict]:
    path = root / "runner" / "results" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _interrupt(root: Path, signum: int) -> tuple[subprocess.Popen[str], set[int], str, str]:
    """Start the run, send ``signum`` to its process group while test_slow runs; returns the
    process, the processes runner had started, and the output."""
    proc = _start(root)
    try:
        _wait_for(root / "started", proc)
        family = children(proc.pid)
        os.killpg(proc.pid, signum)
        out, err = proc.communicate(timeout=90)
    finally:
        stop_group(proc)
    return proc, family, out, err


def _check_interrupted_events(root: Path, name: str) -> None:
    events = _events(root)
    ended = {e["nodeid"].split("::")[-1]: e for e in events if e["kind"] == "test.ended"}
    assert ended["test_first"]["state"] == "passed"
    assert ended["test_slow"]["state"] == "failed"
    started = [e["nodeid"].split("::")[-1] for e in events if e["kind"] == "test.started"]
    assert "test_after" not in started, "a test started after the signal"
    attempt = next(e for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_slow"))
    assert attempt["error_type"] == "Interrupted" and name in attempt["message"]
    assert "log: waiting for the signal" in attempt["log"]  # the command log up to the signal
    assert events[-1]["kind"] == "run.ended"
    assert events[-1]["interrupted"] is True and events[-1]["error"] == f"interrupted by {name}"
    assert (events[-1]["passed"], events[-1]["failed"]) == (1, 1)


@pytest.mark.slow
def test_ctrl_c_to_the_process_group_ends_the_run_cleanly(tmp_path):
    root = _project(tmp_path)
    proc, family, out, err = _interrupt(root, signal.SIGINT)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err + out
    assert "interrupted by SIGINT" in err
    assert "Interrupted by SIGINT" in out and "All specs passed!" not in out  # the spec summary
    assert family, "expected the driver and the browser under runner"
    assert not left_after(family), "processes runner started were left behind"
    _check_interrupted_events(root, "SIGINT")
    # the spec's video was finished into a playable file (ffmpeg did not get the Ctrl-C)
    video = root / "runner" / "videos" / "slow_spec.py.mp4"
    codec, duration = probe(video)
    assert codec == "h264" and duration > 0
    spec_ended = next(e for e in _events(root) if e["kind"] == "spec.ended")
    assert spec_ended["video"] == str(video)


@pytest.mark.slow
@pytest.mark.parametrize("reporter", ["junit", "json"])
def test_sigterm_ends_the_run_cleanly_and_every_report_is_written(tmp_path, reporter):
    options = {"mochaFile": "results/junit.xml"} if reporter == "junit" else {"output": "results/report.json"}
    root = _project(tmp_path, {"video": False, "reporter": reporter, "reporterOptions": options})
    proc, family, out, err = _interrupt(root, signal.SIGTERM)
    assert proc.returncode == 143, (out, err)  # today: -15, killed before any report
    assert "Traceback" not in err + out
    assert "interrupted by SIGTERM" in err
    assert not left_after(family), "processes runner started were left behind"
    _check_interrupted_events(root, "SIGTERM")
    if reporter == "junit":
        suites = ET.parse(root / "results" / "junit.xml").getroot()
        assert (suites.get("tests"), suites.get("failures")) == ("2", "1")
        failure = next(c for c in suites.iter("testcase") if c.get("name").endswith("test_slow")).find("failure")
        assert failure is not None and "SIGTERM" in failure.get("message")
    else:
        report = json.loads((root / "results" / "report.json").read_text())
        assert (report["totalPassed"], report["totalFailed"], report["status"]) == (1, 1, "failed")
        assert report["error"] == "interrupted by SIGTERM"
        slow = next(t for t in report["specs"][0]["tests"] if t["title"][-1] == "test_slow")
        assert "SIGTERM" in slow["message"]


@pytest.mark.slow
def test_a_second_ctrl_c_stops_at_once_and_leaves_no_process(tmp_path):
    root = _project(tmp_path, slow_teardown=True)
    proc = _start(root)
    try:
        _wait_for(root / "started", proc)
        family = children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        _wait_for(root / "tearing-down", proc, 30)  # the clean ending is under way, and slow
        family |= children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        stop_group(proc)
    assert proc.returncode == 130, (out, err)
    assert took < 10, f"the second Ctrl-C took {took:.1f} s to stop runner"
    assert "stopped at once" in err
    assert "Traceback" not in err + out
    assert family, "expected the driver and the browser under runner"
    assert not left_after(family), "processes runner started were left behind"


@pytest.mark.slow
def test_sigint_to_runner_alone_closes_the_browser(tmp_path):
    # `kill -INT <pid>`: the driver and the browser get no signal; runner closes them
    root = _project(tmp_path, {"video": False})
    proc = _start(root)
    try:
        _wait_for(root / "started", proc)
        family = children(proc.pid)
        assert family, "expected browser processes under runner"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        stop_group(proc)
    assert proc.returncode == 130
    assert not left_after(family), "browser processes were left behind"
    assert "Traceback" not in err
    _check_interrupted_events(root, "SIGINT")
