"""`runner run` in an interactive shell's terminal: Ctrl-Z stops the run and gives the shell its
prompt back, `fg` resumes it (real bash on a real pseudo-terminal, a real run).

The tests run in a child process of `runner run` that has the terminal (run/guard.py): a stop of
that child alone would leave the shell waiting on a job that still runs, and the terminal hung.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import time
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, base_project, write_project

from runner.engine.processes import descendants


class _Shell:
    """An interactive bash on a pseudo-terminal (its own session: the terminal is its)."""

    def __init__(self, cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
        env.update({"NO_COLOR": "1", "PS1": "PROMPT> ", "TERM": "dumb"})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child becomes bash
            os.chdir(cwd)
            os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
        self.seen = ""

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, text: str, bound: float) -> bool:
        """Whether ``text`` appears in the terminal's output within ``bound`` seconds."""
        deadline = time.monotonic() + bound
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    return text in self.seen
        return True

    def close(self) -> None:
        """bash and everything it started (a run stopped by a failed test too)."""
        for pid in [*descendants(self.pid), self.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        os.close(self.fd)
        os.waitpid(self.pid, 0)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ctrl_z_stops_the_run_and_fg_resumes_it(tmp_path):
    stamp = tmp_path / "started"
    root = write_project(tmp_path / "p", base_project({"runner/integration/a_spec.py": f'''
import time
from pathlib import Path

def test_slow(runner):
    Path({str(stamp)!r}).write_text("x")
    time.sleep(3)
'''}, {"video": False}))
    shell = _Shell(root)
    try:
        assert shell.expect("PROMPT> ", 20), shell.seen
        shell.send(f"{RUNNER} run\n")
        deadline = time.monotonic() + 90
        while not stamp.exists():
            assert time.monotonic() < deadline, f"the test never started:\n{shell.seen}"
            time.sleep(0.05)
        shell.send("\x1a")  # Ctrl-Z
        assert shell.expect("Stopped", 10), f"Ctrl-Z did not give the shell its prompt back:\n{shell.seen}"
        shell.send("fg\n")  # its status is the run's
        assert shell.expect("All specs passed!", 60), f"fg did not resume the run to its end:\n{shell.seen}"
        shell.send('echo "EX""IT=$?"\n')
        assert shell.expect("EXIT=0", 20), shell.seen
    finally:
        shell.close()
