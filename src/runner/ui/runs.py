"""One run of ``runner open`` at a time, in a child process (``ui/child.py``).

:class:`ChildRun` starts the child in a process group of its own, with two pipes besides its
stdout and stderr: the channel (child to server) and the control pipe (server to child, studio's
input). Every line it hears goes to ``on_message`` (channel) or ``on_output`` (stdout/stderr);
``on_exit`` gets the exit status. :meth:`ChildRun.stop` ends it cleanly (SIGINT: the test stops,
the browser closes) and, when that takes longer than ``STOP_GRACE_S``, kills its whole group (the
driver, the browser, whatever the test started), so no stop leaves a process behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.ui.channel import MAX_LINE, parse_line
from runner.ui.child import child_args

__all__ = ["ChildRun", "STOP_GRACE_S"]

#: Seconds a stopped child gets to close its browser before its process group is killed.
STOP_GRACE_S = 10.0


class ChildRun:
    def __init__(self, *, target: dict[str, Any], on_message: Callable[[dict[str, Any]], None],
                 on_output: Callable[[str], None], on_exit: Callable[[ChildRun, int], None]) -> None:
        self.target = target
        self.on_message = on_message
        self.on_output = on_output
        self.on_exit = on_exit
        self.proc: asyncio.subprocess.Process | None = None
        self.started = time.time()
        self.stopping = False
        self.code: int | None = None
        self._control_w: int | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self.done = asyncio.Event()

    async def start(self, *, project: Path, config_file: str | None, cli_config: list[Any],
                    cli_env: list[str], browser: str | None, headed: bool, traces: Path, keep: int,
                    testing_type: str = "e2e") -> None:
        """Start the child. Raises ``OSError`` when it cannot be started."""
        channel_r, channel_w = os.pipe()
        control_r, control_w = os.pipe()
        specs = [self.target["spec_path"]] if self.target.get("spec_path") else []
        args = child_args(project=project, config_file=config_file, cli_config=cli_config, cli_env=cli_env,
                          browser=browser, headed=headed, channel_fd=channel_w, control_fd=control_r,
                          specs=specs, test=self.target.get("test"), studio=bool(self.target.get("studio")),
                          traces=traces, keep=keep, testing_type=testing_type)
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "runner.ui.child", *args,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, pass_fds=(channel_w, control_r),
                start_new_session=True, cwd=str(project), env=env)
        finally:
            os.close(channel_w)
            os.close(control_r)
        self._control_w = control_w
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(channel_r, "rb", 0))
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._tasks = [
            asyncio.create_task(self._read_channel(reader)),
            asyncio.create_task(self._read_output(self.proc.stdout)),
            asyncio.create_task(self._read_output(self.proc.stderr)),
        ]
        asyncio.create_task(self._wait())

    async def _read_channel(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await reader.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue  # a line too long to be a message: skipped
            if not line:
                return
            message = parse_line(line)
            if message is not None:
                self.on_message(message)

    async def _read_output(self, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            self.on_output(line.decode("utf-8", "replace").rstrip("\n"))

    async def _wait(self) -> None:
        assert self.proc is not None
        code = await self.proc.wait()
        # what the child said before it ended is heard before its end is told
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 5)
        self._kill_group()  # whatever it left behind (a test's own processes)
        self._close_control()
        self.code = code
        self.done.set()
        self.on_exit(self, code)

    def send(self, message: dict[str, Any]) -> bool:
        """A message to the child on the control pipe; False when it cannot be heard any more."""
        import json

        fd = self._control_w
        if fd is None:
            return False
        try:
            os.write(fd, (json.dumps(message) + "\n").encode())
        except OSError:
            return False
        return True

    def _close_control(self) -> None:
        fd, self._control_w = self._control_w, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    async def stop(self, grace: float = STOP_GRACE_S) -> None:
        """End the run: cleanly within ``grace`` seconds, else by killing its process group."""
        proc = self.proc
        if proc is None or self.done.is_set():
            return
        self.stopping = True
        self._close_control()  # a studio waiting for input ends its recording
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self.done.wait(), grace)
        except TimeoutError:
            self._kill_group()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.done.wait(), 5)

    def _kill_group(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
