"""How a ``webServer`` entry's end is told: a command the shell runs as its child and a signal
kills makes the shell exit with 128 + the signal's number, and the message names the signal; a
command that ends with status 0 (a server sent to the background) is told to stay in the
foreground."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from tests.support.servers import free_port

from runner.config.web_server import WebServerSpec
from runner.run.web_server import WebServerError, start_web_servers


def _start(tmp_path: Path, command: str) -> str:
    spec = WebServerSpec(index=None, command=command, cwd=tmp_path, port=free_port(), timeout_ms=30_000)
    with pytest.raises(WebServerError) as caught:
        start_web_servers([spec], extra_env={}, tell=lambda _line: None)
    return str(caught.value)


def test_a_command_killed_under_the_shell_names_the_signal(tmp_path: Path) -> None:
    # "; exit $?" keeps the shell as the command's parent, as a compound command does
    kill = shlex.join([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    message = _start(tmp_path, f"{kill}; exit $?")
    assert "exited with status 137 (its command was killed by SIGKILL: the shell exits with 128 + its number)" \
        in message, message


def test_a_plain_exit_status_is_told_as_it_is(tmp_path: Path) -> None:
    message = _start(tmp_path, "exit 3")
    assert "exited with status 3 before it answered" in message and "killed" not in message, message
    assert "foreground" not in message


def test_a_command_that_sends_its_server_to_the_background_is_told_to_keep_it_in_the_foreground(
        tmp_path: Path) -> None:
    message = _start(tmp_path, "sleep 30 &")
    assert "exited with status 0 before it answered" in message, message
    assert ("The command must keep running while the server serves (in the foreground: no `&`, no daemon mode), "
            "so that runner can stop it when the run ends.") in message, message
