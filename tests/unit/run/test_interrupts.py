"""`runner run`'s signal handling, on real processes and real signals (no browser): the first
SIGINT/SIGTERM becomes KeyboardInterrupt, the second kills every descendant (orphans included)
and exits with 128 + the first signal."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.support.procs import left_after, pid_in

# The child: takes the handlers, starts a direct child and an orphan (its shell exits at once, so
# without the subreaper the orphan would go to init), then waits for signals.
CHILD = textwrap.dedent("""
    import subprocess, sys, time
    from pathlib import Path
    from runner.run.interrupts import RunInterrupts

    folder = Path(sys.argv[1])
    with RunInterrupts() as interrupts:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # the test reads ours
        subprocess.Popen(["sh", "-c", f"echo $$ > {folder / 'direct'}; exec sleep 60"], **quiet)
        subprocess.run(["sh", "-c", f"sleep 60 & echo $! > {folder / 'orphan'}"], check=True, **quiet)
        try:
            # inside the try: the test's signal may come as soon as the file is there
            (folder / "ready").write_text("x")
            time.sleep(60)
        except KeyboardInterrupt:
            print("first:", interrupts.name, interrupts.exit_code, flush=True)
            (folder / "cleaning").write_text("x")
            if sys.argv[2] == "slow-cleanup":
                time.sleep(60)  # a clean ending that takes long: the second signal cuts it
            sys.exit(interrupts.exit_code)
""")


def _start(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), mode], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _wait(path: Path, proc: subprocess.Popen[str], bound: float = 30) -> None:
    deadline = time.monotonic() + bound
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_the_first_signal_interrupts_cleanly(tmp_path, signum, code):
    proc = _start(tmp_path, "quick-cleanup")
    try:
        _wait(tmp_path / "ready", proc)
        os.killpg(proc.pid, signum)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    name = signal.Signals(signum).name
    assert out.strip() == f"first: {name} {code}"
    assert proc.returncode == code and "Traceback" not in err  # SIGTERM's default: -15, no cleanup
    for pid_file in ("direct", "orphan"):
        # the first signal leaves them to the run's own ending (a SIGTERM to the group ended them)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid_in(tmp_path / pid_file), signal.SIGKILL)


@pytest.mark.parametrize(("first", "second", "code"), [
    (signal.SIGINT, signal.SIGINT, 130), (signal.SIGTERM, signal.SIGINT, 143)],
    ids=["SIGINT-SIGINT", "SIGTERM-SIGINT"])
def test_a_second_signal_kills_every_descendant_and_exits_at_once(tmp_path, first, second, code):
    proc = _start(tmp_path, "slow-cleanup")
    try:
        _wait(tmp_path / "ready", proc)
        direct, orphan = pid_in(tmp_path / "direct"), pid_in(tmp_path / "orphan")
        os.kill(proc.pid, first)
        _wait(tmp_path / "cleaning", proc)
        sent = time.monotonic()
        os.kill(proc.pid, second)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    assert proc.returncode == code, err
    assert took < 5
    assert "stopped at once" in err and "Traceback" not in err
    # the orphan's shell had exited: it reached the subreaper, which killed it too
    assert not left_after({direct, orphan}, 5)


def test_the_handlers_are_taken_back_afterwards():
    from runner.run.interrupts import RunInterrupts

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with RunInterrupts():
        assert signal.getsignal(signal.SIGTERM) is not before[0]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_a_signal_inside_the_import_machinery_is_acted_on_a_moment_later(tmp_path):
    from runner.run.interrupts import RunInterrupts

    # a real frame of Python's import machinery: the one that runs a module's body
    (tmp_path / "grab_import_frame.py").write_text("import sys\nFRAME = sys._getframe(1)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import grab_import_frame  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("grab_import_frame", None)
    frame = grab_import_frame.FRAME
    assert frame.f_code.co_filename.startswith("<frozen importlib")
    with RunInterrupts() as interrupts:
        try:
            interrupts._handle(signal.SIGINT, frame)
        except KeyboardInterrupt:
            pytest.fail("KeyboardInterrupt raised inside the import machinery (it can leave the import lock held)")
        assert interrupts.signum is None
        with pytest.raises(KeyboardInterrupt):  # the signal again, a moment later, at a safe point
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)
        assert interrupts.signum == signal.SIGINT
