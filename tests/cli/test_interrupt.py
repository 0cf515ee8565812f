"""Ctrl-C during a run leaves no browser process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER


def _children(pid: int) -> set[int]:
    """Every descendant of ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow
def test_ctrl_c_mid_test_closes_the_browser(tmp_path):
    stamp = tmp_path / "started"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<h1>x</h1>")
    (tmp_path / "runner.json").write_text(json.dumps({"fileServerFolder": "site"}))
    spec = tmp_path / "runner" / "integration" / "slow_spec.py"
    spec.parent.mkdir(parents=True)
    spec.write_text(
        "import time\nfrom pathlib import Path\n\n"
        "def test_slow(runner):\n"
        "    runner.visit('/')\n"
        f"    Path({str(stamp)!r}).write_text('x')\n"
        "    time.sleep(30)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")}
    proc = subprocess.Popen([RUNNER, "run"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not stamp.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the test body never started"
            time.sleep(0.05)
        family = _children(proc.pid)
        assert family, "expected browser processes under runner"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode != 0
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in family if _alive(p)], "browser processes were left behind"
    assert "Traceback" not in err
