"""One run of ``runner open`` at a time, in a child process (``ui/child.py``).

:class:`ChildRun` starts the child in a process group of its own, with two pipes besides its
stdout and stderr: the channel (child to server) and the control pipe (server to child, studio's
input). Every line it hears goes to ``on_message`` (channel) or ``on_output`` (stdout/stderr);
``on_exit`` gets the exit status, once: when the child says its run ended (``{"t": "ended"}``,
before it closes its browser) or when it ends, whichever comes first; ``on_gone`` is told, and
``done`` set, when the process has ended and its group was killed. :meth:`ChildRun.stop` ends it cleanly (SIGINT: the test stops,
the browser closes) and, when that takes longer than ``STOP_GRACE_S``, kills its whole group (the
driver, the browser, whatever the test started), so no stop leaves a process behind.

A child started as a spare (``start(..., spare=True)``) has no run yet: what it says is held until
:meth:`ChildRun.claim` gives it its run (then told, in order, to the run's callbacks) and the run
is sent on the control pipe. :meth:`ChildRun.discard` ends a spare that is not needed (its pipe
closed: it closes its browser), its process group killed when it takes longer than
``DISCARD_GRACE_S``. Given runner open's proxy relay (``backend/open_proxy.py``), a child's run
has the servers' connections from the moment it tells its proxy's port until its run ends.
Every child's pid is the server's own (``ui/reaper.py``) until it is waited
for, so that reaping orphans never takes a child asyncio waits for.
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
from typing import TYPE_CHECKING, Any

from runner.ui import reaper
from runner.ui.channel import MAX_LINE, parse_line
from runner.ui.child import child_args

if TYPE_CHECKING:
    from runner.backend.open_proxy import OpenProxy

__all__ = ["ChildRun", "STOP_GRACE_S", "DISCARD_GRACE_S"]

#: Seconds a stopped child gets to close its browser before its process group is killed.
STOP_GRACE_S = 10.0
#: Seconds a discarded spare gets to close its browser before its process group is killed.
DISCARD_GRACE_S = 5.0
#: Lines a spare may say before its run (kept for the run's Output tab); more are dropped.
_HELD_LINES = 200


class ChildRun:
    def __init__(self, *, target: dict[str, Any], on_message: Callable[[dict[str, Any]], None],
                 on_output: Callable[[str], None], on_exit: Callable[[ChildRun, int], None],
                 on_gone: Callable[[ChildRun], None] | None = None) -> None:
        self.target = target
        self.on_message = on_message
        self.on_output = on_output
        self.on_exit = on_exit
        self.on_gone = on_gone  # told when the process (and its group) ended, before ``done``
        self.proc: asyncio.subprocess.Process | None = None
        self.started = time.time()
        self.stopping = False
        self.code: int | None = None
        self._control_w: int | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self.done = asyncio.Event()
        self.spare = False  # started ahead of its run, and not claimed yet
        self._held: list[tuple[str, Any]] = []  # what a spare said before its run
        self._backend: OpenProxy | None = None

    @classmethod
    def ahead(cls, on_exit: Callable[[ChildRun, int], None]) -> ChildRun:
        """A spare: a child for a run not known yet (start it with ``spare=True``)."""
        run = cls(target={}, on_message=lambda m: run._held.append(("message", m)),
                  on_output=lambda line: run._hold_output(line), on_exit=on_exit)
        run.spare = True
        return run

    def _hold_output(self, line: str) -> None:
        if len(self._held) < _HELD_LINES:
            self._held.append(("output", line))

    async def start(self, *, project: Path, config_file: str | None, cli_config: list[Any],
                    cli_env: list[str], browser: str | None, headed: bool, traces: Path, keep: int,
                    testing_type: str = "e2e", spare: bool = False, backend: OpenProxy | None = None) -> None:
        """Start the child (``spare``: one that waits for :meth:`claim`; ``backend``: runner
        open's proxy relay, sending its servers' connections to this child's proxy while its run
        runs). Raises ``OSError`` when it cannot be started."""
        self._backend = backend
        channel_r, channel_w = os.pipe()
        control_r, control_w = os.pipe()
        specs = [self.target["spec_path"]] if self.target.get("spec_path") else []
        args = child_args(project=project, config_file=config_file, cli_config=cli_config, cli_env=cli_env,
                          browser=browser, headed=headed, channel_fd=channel_w, control_fd=control_r,
                          specs=specs, test=self.target.get("test"), studio=bool(self.target.get("studio")),
                          traces=traces, keep=keep, testing_type=testing_type, spare=spare,
                          backend_ca=backend.ca if backend is not None else None)
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        try:
            with reaper.starting():
                self.proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "runner.ui.child", *args,
                    stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE, pass_fds=(channel_w, control_r),
                    start_new_session=True, cwd=str(project), env=env)
                reaper.own(self.proc.pid)
        except BaseException:
            os.close(control_w)
            os.close(channel_r)
            raise
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
            if message is None:
                continue
            if message.get("t") == "backend-proxy" and isinstance(message.get("port"), int) and self._backend:
                self._backend.route(self, message["port"])  # the run's proxy is up: it gets the servers' calls
                self.send({"t": "backend-routed"})  # its tests start now (ui/child.py)
            elif message.get("t") == "ended" and isinstance(message.get("code"), int) and not self.spare:
                self._tell_end(message["code"])
            else:
                self.on_message(message)

    def _tell_end(self, code: int) -> None:
        """``on_exit`` once per child: when it says its run ended, or when it ends."""
        if self.code is None:
            self.code = code
            if self._backend is not None:
                self._backend.unroute(self)  # the run's routes ended: the servers' calls go by untouched
            self.on_exit(self, code)

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
        reaper.disown(self.proc.pid)
        # what the child said before it ended is heard before its end is told
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 5)
        self._kill_group()  # whatever it left behind (a test's own processes)
        self._close_control()
        if self.on_gone is not None:
            self.on_gone(self)
        self.done.set()
        self._tell_end(code)

    def claim(self, *, target: dict[str, Any], on_message: Callable[[dict[str, Any]], None],
              on_output: Callable[[str], None], on_exit: Callable[[ChildRun, int], None],
              on_gone: Callable[[ChildRun], None] | None, keep: int) -> bool:
        """Give a spare its run: what it said so far goes to the run's callbacks, the run to the
        child. False (nothing changed) when it is not a live spare any more."""
        if not self.spare or self.done.is_set() or self._control_w is None:
            return False
        specs = [target["spec_path"]] if target.get("spec_path") else []
        if not self.send({"t": "run", "specs": specs, "test": target.get("test"),
                          "studio": bool(target.get("studio")), "keep": keep}):
            return False
        self.spare = False
        self.target, self.on_message, self.on_output, self.on_exit = target, on_message, on_output, on_exit
        self.on_gone = on_gone
        self.started = time.time()
        held, self._held = self._held, []
        for kind, what in held:
            if kind == "message":
                on_message(what)
            else:
                on_output(what)
        return True

    async def discard(self, grace: float = DISCARD_GRACE_S) -> None:
        """End a spare that is not needed: its pipe closed (it closes its browser and ends),
        its process group killed when that takes longer than ``grace`` seconds."""
        if self.proc is None or self.done.is_set():
            return
        self.stopping = True
        self._close_control()
        await self._wait_done_or_kill(grace)

    async def _wait_done_or_kill(self, grace: float) -> None:
        try:
            await asyncio.wait_for(self.done.wait(), grace)
        except TimeoutError:
            self._kill_group()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.done.wait(), 5)

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
        if self.code is not None:  # its run ended: it is closing its browser, and ends by itself
            await self._wait_done_or_kill(grace)
            return
        self.stopping = True
        self._close_control()  # a studio waiting for input ends its recording
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        await self._wait_done_or_kill(grace)

    def _kill_group(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
