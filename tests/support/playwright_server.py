"""A real ``playwright run-server`` on 127.0.0.1, started by the tests as the remote grid."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.servers import free_port

PLAYWRIGHT = str(Path(sys.executable).with_name("playwright"))



@contextmanager
def playwright_server(*, unsafe: bool = True, version: str | None = None) -> Iterator[str]:
    """Start the server (``version`` makes it say another Playwright version, as an older
    install would) and yield its WebSocket URL; it is stopped, with its browsers, at the end."""
    env = dict(os.environ)
    if version:
        env["PW_VERSION_OVERRIDE"] = version
    port = free_port()
    command = [PLAYWRIGHT, "run-server", "--host", "127.0.0.1", "--port", str(port)] + (["--unsafe"] if unsafe else [])
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        line = ""
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            found = re.search(r"ws://\S+", line)
            if found:
                yield found.group(0)
                return
            if not line and process.poll() is not None:
                break
        raise RuntimeError(f"playwright run-server did not start: {line!r}")
    finally:
        try:
            os.killpg(process.pid, 15)
        except ProcessLookupError:
            pass
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait(10)
