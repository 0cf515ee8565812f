"""Starting ``runner show-trace`` / ``runner show-report`` in a subprocess and reading the URL it
prints (bounded)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RUNNER = str(Path(sys.executable).with_name("runner"))
BOUND = 20.0  # seconds: the longest show-trace may take to print its URL, or to stop


def start_show_trace(trace: Path, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``runner show-trace --no-open`` and wait (bounded) for the URL it prints."""
    return start_serving(["show-trace", str(trace), "--no-open"], cwd)


def start_serving(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``runner <args>`` (a command that serves until Ctrl-C) and wait (bounded) for the
    URL it prints."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    proc = subprocess.Popen([RUNNER, *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + BOUND
    seen = ""
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if not line:
            break
        seen += line
        if line.strip().startswith("http://127.0.0.1:"):
            return proc, line.strip()
    proc.kill()
    raise AssertionError(f"runner {args[0]} printed no URL within {BOUND} s: {seen!r}")


def stop_serving(proc: subprocess.Popen[str]) -> str:
    """Ctrl-C a serving command; returns what it wrote to stderr (it is killed when it does not
    stop within BOUND: the caller's check of its exit status then fails)."""
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=BOUND)
    finally:
        if proc.poll() is None:
            proc.kill()
    return err


@contextmanager
def served(args: list[str], cwd: Path) -> Iterator[str]:
    """``runner <args>`` serving for the block (its URL); stopped at the end, and it must have
    stopped cleanly: exit status 0, no traceback."""
    proc, url = start_serving(args, cwd)
    try:
        yield url
    finally:
        err = stop_serving(proc)
        assert proc.returncode == 0 and "Traceback" not in err, err


def run_project(root: Path, spec: str, page: str) -> subprocess.CompletedProcess[str]:
    """Write a project (``page`` served as its site's index.html, ``spec`` its one spec, videos
    off) and run it with ``runner run`` (bounded)."""
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text(page)
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner" / "integration" / "a_spec.py").write_text(textwrap.dedent(spec))
    (root / "runner.json").write_text('{"fileServerFolder": "site", "video": false}')
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    return subprocess.run([RUNNER, "run"], cwd=root, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
