"""runner.exec's shell: past its timeout, or interrupted, nothing the command started survives."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from tests.support.procs import left_after, pid_in

from runner.commands.shell import run_shell

BACKGROUND_CHILD = "sleep 60 & echo $! > {pid_file}; wait"


def test_a_finished_command_gives_its_code_and_output(tmp_path: Path) -> None:
    done = run_shell("echo out; echo err 1>&2; exit 3", cwd=tmp_path, env=os.environ, timeout=10)
    assert (done.code, done.stdout, done.stderr) == (3, b"out\n", b"err\n")


def test_past_the_timeout_the_commands_children_are_killed_too(tmp_path: Path) -> None:
    # the shell starts a child in the background and waits: subprocess.run's timeout killed
    # only the shell, and the child kept running after the test
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_shell(BACKGROUND_CHILD.format(pid_file=pid_file), cwd=tmp_path, env=os.environ, timeout=0.5)
    assert time.monotonic() - started < 8
    child = pid_in(pid_file)
    assert not left_after({child}, 5), f"the command's child {child} outlived the timeout"


def test_an_interrupted_command_is_killed_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    def interrupt() -> None:
        pid_in(pid_file)
        os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C reaches runner, not the command

    thread = threading.Thread(target=interrupt, daemon=True)
    thread.start()
    with pytest.raises(KeyboardInterrupt):
        run_shell(BACKGROUND_CHILD.format(pid_file=pid_file), cwd=tmp_path, env=os.environ, timeout=30)
    thread.join(10)
    child = pid_in(pid_file)
    assert not left_after({child}, 5), f"the command's child {child} outlived the interruption"


def test_a_ctrl_c_while_the_shell_starts_is_held_until_its_group_can_be_killed() -> None:
    # a KeyboardInterrupt raised inside Popen would leave the shell it started unkilled
    from runner.commands.shell import _interrupts_held

    before = signal.getsignal(signal.SIGINT)
    with _interrupts_held() as held:
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 5
        while not held and time.monotonic() < deadline:
            time.sleep(0.01)
    assert held == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is before
