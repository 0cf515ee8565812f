"""run/guard.py's watching parent, with real forks: a finished child's exit status comes from the
journal's last line alone; a child that died is read back in full.

``guarded`` forks only a single-threaded process (elsewhere it runs the run in place), and the
test process has threads once an end-to-end test ran (the engine loop), so each case runs in a
fresh Python process of its own, as ``runner run`` does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_PRELUDE = """
import json, os, sys
from runner.run import guard as run_guard
from runner.events import TestStarted

reads = []
real = run_guard._read_journal

def counted(file):
    reads.append(1)
    return real(file)

run_guard._read_journal = counted
parent = os.getpid()
"""


def _guarded(body: str) -> tuple[dict[str, int], str]:
    """Run ``body`` (which defines ``run(journal)``) under ``run_guard.guarded`` in a new process:
    the exit status and how often the journal was read back in full, and what it printed to
    stderr."""
    script = _PRELUDE + textwrap.dedent(body) + """
code = run_guard.guarded(run)
print(json.dumps({"code": code, "reads": len(reads)}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_finished_run_is_not_read_back():
    """Every run's end parsed its whole journal (80,000 events: 2.5 s and their memory)."""
    result, _ = _guarded("""
        def run(journal):
            for number in range(2000):
                journal(TestStarted(spec="a_spec.py", nodeid=f"a_spec.py::test_{number}", title=[f"test_{number}"]))
            return 3 if os.getpid() != parent else 99  # 99: it ran here, not in a child
    """)
    assert result == {"code": 3, "reads": 0}


def test_a_child_that_died_is_read_back_and_fails_the_run():
    result, err = _guarded("""
        def run(journal):
            journal(TestStarted(spec="a_spec.py", nodeid="a_spec.py::test_dies", title=["test_dies"]))
            os._exit(0)
    """)
    assert result == {"code": 1, "reads": 1}
    assert "died while 'a_spec.py::test_dies' was running" in err
