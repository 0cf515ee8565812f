"""A full disk while a run writes its artifacts: warnings naming each file, never a traceback.

The artifacts go to a tmpfs of 64 KB filled to the last block, mounted in a mount namespace of
the run's own (``unshare``: the mount disappears with the run, nothing to clean up).
"""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest
from tests.cli.conftest import RUNNER, base_project, write_project

SPEC = '''
def test_passes(runner):
    runner.visit("/")
    runner.log("x" * 5000)

def test_fails(runner):
    runner.visit("/")
    assert 1 == 2
'''


@pytest.mark.slow
def test_a_full_disk_costs_the_artifacts_not_the_run(tmp_path):
    full = "full"
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": SPEC}, {
        "video": False, "trace": "on", "eventsFile": f"{full}/events.jsonl", "reportFolder": f"{full}/report",
        "tracesFolder": f"{full}/traces", "screenshotsFolder": f"{full}/shots"}))
    (root / full).mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {full} && "
              f"(dd if=/dev/zero of={full}/fill bs=4k 2>/dev/null; true) && exec {shlex.quote(RUNNER)} run")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script], cwd=root,
                          env={**env, "NO_COLOR": "1"}, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr  # the one failed test: the run itself went on
    assert "1 of 1 failed" in done.stdout or "1 failing" in done.stdout
    said = done.stderr
    assert f"eventsFile {str(root / full / 'events.jsonl')!r} could not be written (No space left on device)" \
        in said
    assert "the HTML report was not written" in said and "No space left on device" in said
    assert not (root / full / "fill").exists()  # the tmpfs went with the run's namespace
