"""A trace runner wrote, opened in the viewer ``runner show-trace`` serves: the viewer's action
list reads like the test (runner's steps by name). The browser is runner's own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.show_trace import BOUND, start_show_trace

SPEC = """
    def test_fails(runner):
        runner.intercept("GET", "/api/x", {"body": {"a": 1}}).as_("x")
        runner.visit("/")
        runner.get("#b").click()
        runner.get("h1").should("have.text", "Bye", timeout=300)
"""
PAGE = "<html><body><h1>Hi</h1><button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>"


@pytest.fixture(scope="module")
def trace_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A failed test's trace, written by a real ``runner run``, served by ``runner show-trace``."""
    root = tmp_path_factory.mktemp("traced")
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text(PAGE)
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner" / "integration" / "a_spec.py").write_text(textwrap.dedent(SPEC))
    (root / "runner.json").write_text('{"fileServerFolder": "site", "video": false}')
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    done = subprocess.run([str(Path(sys.executable).with_name("runner")), "run"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    trace = root / "runner" / "traces" / "a_spec.py" / "test_fails.zip"
    assert trace.is_file(), done.stdout + done.stderr
    proc, url = start_show_trace(trace, root)
    try:
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=BOUND)
        finally:
            if proc.poll() is None:
                proc.kill()


@pytest.mark.slow
def test_the_viewer_lists_runners_steps(runner, trace_url: str) -> None:
    runner.visit(trace_url)
    for step in ("intercept GET /api/x (stubbed) as x", "visit('/')", "get('#b').click()",
                 "get('h1') should have.text 'Bye'"):
        runner.contains(step, ".action-title").should("be.visible")
    runner.get(".action-title").should("have.length", 5)  # the four steps and the failure screenshot
    runner.contains("a_spec.py :: test_fails").should("be.visible")  # the trace's title
