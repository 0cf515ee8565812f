"""``runner open``'s web server (aiohttp), on 127.0.0.1 only: its runs, and the parts it wires.

Safety: every request needs the token printed with the URL, a ``Host`` of this server and, for the
WebSocket, an ``Origin`` of this server (``ui/pages.py``, ``ui/pages_channel.py``). Nothing the
server serves or accepts reads or writes a file outside the project but the UI's files, the trace
viewer and the kept traces, and studio writes only into the spec of the test it recorded on.

The page speaks to the server over one WebSocket (``/ws``), in JSON messages (see
``ui/static/open.js`` for the page's side):

page -> server: ``run`` {spec?, test?}, ``stop``, ``studio-start`` {spec, test}, ``input`` {...},
``studio-save``, ``studio-cancel``, ``scaffold``;
server -> page: ``hello`` (everything, on connect), ``specs``, ``event`` {key?, event}, ``drop``
{key}, ``forget`` {nodeids} (tests of a spec that ran again without them: no status any more),
``frame``, ``run`` {state, spec, test, number, summary}, ``output`` {line}, ``studio``
{...}, ``notice`` {message}, ``servers`` {servers} (the ``webServer`` lines, after a death),
``watch`` {changed, rerun, ignored} (each batch the watcher handled, ``ui/rerun.py``). A run's
``state`` is running, stopping, done, stopped or not-run (it never began); ``summary`` tells its end in words (``ui/state.py``'s ``RunTally``), never
the child's exit status.

:class:`OpenServer` runs one child process at a time (``ui/runs.py``) and keeps what the pages
see of it (``ui/state.py``); the project (``ui/project.py``), studio (``ui/studio.py``), the
watcher (``ui/rerun.py``) and the spare child (:class:`SpareChild`) are its parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from runner.errors import RunnerError
from runner.ui.pages import PageRoutes
from runner.ui.pages_channel import PageChannel
from runner.ui.project import OpenProject
from runner.ui.rerun import WatchRerun
from runner.ui.runs import ChildRun
from runner.ui.state import ServerLines, UiState
from runner.ui.studio import Studio

if TYPE_CHECKING:
    from runner.backend.open_proxy import OpenProxy

__all__ = ["OpenServer"]

#: Seconds a run goes on with no page connected before it is stopped (its browser closed).
ORPHAN_GRACE_S = 60.0


class OpenServer:
    """The server of one ``runner open``: one run at a time, started and stopped by the pages,
    its events kept and told to them."""

    def __init__(self, *, project: Path, config_file: str | None = None, cli_config: list[Any] | None = None,
                 cli_env: list[str] | None = None, browser: str | None = None, headed: bool = False,
                 port: int | None = None, token: str | None = None, orphan_grace: float = ORPHAN_GRACE_S,
                 testing_type: str = "e2e", spare: bool = True, backend: OpenProxy | None = None, servers: ServerLines | None = None) -> None:
        self.backend = backend  # runner open's proxy relay, when its servers send through it
        self.servers = servers or ServerLines()  # webServer's, as the page shows them (ui/command.py)
        self.browser = browser
        self.headed = headed
        self.port = port or 0
        self.token = token or secrets.token_urlsafe(24)
        self.traces = Path(tempfile.mkdtemp(prefix="runner-open-traces-"))
        self.state = UiState(50, self.traces)
        self.project = OpenProject(root=project.resolve(), config_file=config_file, cli_config=list(cli_config or []),
                                   cli_env=list(cli_env or []), testing_type=testing_type,
                                   on_config=self._configured)
        self.pages = PageChannel(port=lambda: self.port, hello=self._hello_anew, handle=self.handle,
                                 has_run=lambda: self.run is not None or self.spare is not None,
                                 stop_orphan=self._left_alone, orphan_grace=orphan_grace)
        self.studio = Studio(project=self.project, run=lambda: self.run, start_run=self.start_run,
                             broadcast=self.pages.broadcast)
        self.watch = WatchRerun(project=self.project, ours=self.studio.wrote, broadcast=self.pages.broadcast,
                                refresh=self._refresh, rerun=self._rerun, last_specs=self._last_specs)
        self.run: ChildRun | None = None
        self.spare = SpareChild(lambda child, ahead: _start_child(self, child, ahead)) if spare else None
        self.last_target: dict[str, Any] | None = None
        self.run_info: dict[str, Any] = {"state": "idle"}
        self._runner: web.AppRunner | None = None
        self._lock = asyncio.Lock()
        self.runs_started = 0
        self.project.reload()

    def _configured(self, config: Any) -> None:
        self.state.keep = max(0, int(config.num_tests_kept_in_memory))

    def hello(self) -> dict[str, Any]:
        return {"t": "hello", "config": self.project.page_config(self.state.keep), "specs": sorted(self.project.specs),
                "state": self.state.snapshot(), "run": self.run_info, "studio": self.studio.recording,
                "servers": self.servers.snapshot()}

    def _hello_anew(self) -> dict[str, Any]:
        self.project.reload()  # a page (re)loaded sees the specs as they are now
        if self.spare is not None:
            self.spare.prepare()  # ended when no page was left (_left_alone)
        return self.hello()

    def _refresh(self) -> None:
        self.project.reload()
        self.pages.broadcast(self.hello())

    # -- messages ---------------------------------------------------------------------------
    async def handle(self, data: dict[str, Any]) -> None:
        """One message of the page. Bad ones get a ``notice``, never an exception."""
        kind = data.get("t")
        try:
            if kind == "run":
                await self.start_run(spec=data.get("spec"), test=data.get("test"))
            elif kind == "stop":
                await self.stop_run()
            elif kind == "studio-start":
                await self.studio.start(str(data.get("spec") or ""), str(data.get("test") or ""))
            elif kind == "input":
                self.studio.input(data)
            elif kind == "studio-save":
                await self.studio.save()
            elif kind == "studio-cancel":
                await self.studio.cancel()
            elif kind == "scaffold":
                await self.scaffold()
        except RunnerError as err:
            self.pages.broadcast({"t": "notice", "level": "error", "message": str(err)})

    # -- runs -------------------------------------------------------------------------------
    async def start_run(self, *, spec: Any = None, test: Any = None, studio: bool = False) -> None:
        """Run every spec (``spec`` None), one spec, or one test (``test``: the node id's part after
        the file). A run in progress is stopped first. Raises ``RunnerError`` for a spec that is
        not one of the project's."""
        specs = self.project.specs
        broken = self.project.config is None or self.project.problem is not None  # no specs listed then
        if spec is not None and (not isinstance(spec, str) or (spec not in specs and not broken)):
            raise RunnerError(f"{spec!r} is not one of the project's specs.")
        if test is not None and (not isinstance(test, str) or spec is None or not test.strip()):
            raise RunnerError("a test is run within its spec: give both.")
        target = {"spec": spec, "spec_path": str(specs[spec]) if spec in specs else None, "test": test,
                  "studio": studio}
        async with self._lock:
            await self._stop_current()
            project = self.project
            if broken:
                problem = project.problem or "the configuration could not be read."
                self.run_info = _not_run_info(target, problem)
                self.pages.broadcast({"t": "run", "run": self.run_info})
                raise RunnerError(problem)
            self.last_target = {k: v for k, v in target.items() if k != "studio"} | {"studio": False}
            self.runs_started += 1
            self.state.new_run(self.runs_started, one_test=test is not None)
            self.run_info = {"state": "running", "spec": spec, "test": test, "studio": studio,
                             "started": time.time(), "number": self.runs_started}
            self.pages.broadcast({"t": "run", "run": self.run_info})
            self.watch.run_started()
            run = await self.spare.claim(target=target, on_message=self._on_child, on_output=self._on_output,
                                         on_exit=self._on_exit, on_gone=_watch_ended(self.watch),
                                         keep=self.state.keep) if self.spare else None
            if run is not None:
                self.run = run
                return
            run = ChildRun(target=target, on_message=self._on_child, on_output=self._on_output,
                           on_exit=self._on_exit, on_gone=_watch_ended(self.watch))
            self.run = run
            try:
                await _start_child(self, run)
            except OSError as err:
                self.run = None
                self.run_info = _not_run_info(target, f"the run could not start: {err}")
                self.pages.broadcast({"t": "run", "run": self.run_info})

    async def stop_run(self) -> None:
        async with self._lock:
            await self._stop_current()

    async def _left_alone(self) -> None:
        """No page for ``orphan_grace``: the run is stopped and the spare ended, so a closed tab
        leaves no browser running (the next page to connect gets a spare again)."""
        await self.stop_run()
        if self.spare is not None:
            await self.spare.discard()

    async def _stop_current(self) -> None:
        run = self.run
        if run is None or run.done.is_set():
            return
        if run.code is not None:  # its run ended: the child closes its browser and ends by itself;
            await run.stop()  # the watcher hears its end (_on_gone) before another run starts
            return
        self.run_info = {**self.run_info, "state": "stopping"}
        self.pages.broadcast({"t": "run", "run": self.run_info})
        await run.stop()

    async def _rerun(self) -> bool:
        """The last run again; False when there is none, its spec is gone or the configuration
        has a problem (then the run in progress stops, and the status bar says why)."""
        target = self.last_target
        if target is None:
            return False
        if self.project.problem is not None:  # the save broke the configuration: the bar says so
            with contextlib.suppress(RunnerError):
                await self.start_run(spec=target.get("spec"), test=target.get("test"))
            return False
        if target.get("spec") is not None and target["spec"] not in self.project.specs:
            self.pages.broadcast({"t": "notice", "level": "info",
                                  "message": f"{target['spec']} is no longer a spec of the project: not re-run."})
            return False
        await self.start_run(spec=target.get("spec"), test=target.get("test"))
        return True

    def _last_specs(self) -> set[Path] | None:
        """The spec files of the last run; None when it ran every spec."""
        path = self.last_target.get("spec_path") if self.last_target else None
        return {Path(os.path.realpath(path))} if path else None

    def _on_child(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if self.spare is not None and kind == "event" and isinstance(message.get("event"), dict) \
                and message["event"].get("kind") == "test.started":
            self.spare.prepare()  # the run's start-up is over: the next run's spare starts now
        if kind == "event" and isinstance(message.get("event"), dict):
            for out in self.state.apply(message["event"]):
                self.pages.broadcast(out)
        elif kind == "frame":
            self.pages.frame(json.dumps(message))
        elif kind == "studio":
            self.studio.heard(message)
        elif kind in ("wrote", "imported", "read"):
            self.watch.heard(message)
        elif kind == "error":
            self.state.tally.errors.append(str(message.get("message")))
            self.pages.broadcast({"t": "notice", "level": "error", "message": str(message.get("message"))})

    def _on_output(self, line: str) -> None:
        self.pages.broadcast(self.state.add_output(line))

    def _on_exit(self, run: ChildRun, code: int) -> None:
        if run is not self.run:
            return
        stopped = run.stopping
        if not stopped:  # a child that died mid-run: its running test fails by it, never green
            for event in self.state.tally.death_tail(code):
                for out in self.state.apply(event):
                    self.pages.broadcast(out)
        # the page is told the end in words, never the exit status
        why = "" if stopped else self.state.tally.not_run()
        self.run_info = {**self.run_info, "state": "stopped" if stopped else "not-run" if why else "done",
                         "summary": why or self.state.tally.words(code, stopped=stopped), "ended": time.time()}
        self.pages.broadcast({"t": "run", "run": self.run_info})
        self.studio.run_ended()
        if self.spare is not None:
            self.spare.prepare()

    # -- first run --------------------------------------------------------------------------
    async def scaffold(self) -> None:
        from runner.scaffold import report_lines, scaffold

        result = await asyncio.to_thread(scaffold, self.project.root)
        self.project.reload()
        self.pages.broadcast({"t": "notice", "level": "info",
                              "message": "runner init:\n" + "\n".join(" ".join(line.split())
                                                                        for line in report_lines(result))})
        self.pages.broadcast(self.hello())
        self.watch.restart()

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> str:
        """Listen on 127.0.0.1; returns the URL to open (with its token). Raises ``OSError``
        when the port cannot be used."""
        routes = PageRoutes(token=self.token, port=lambda: self.port, state=self.state, websocket=self.pages.connect)
        runner = web.AppRunner(routes.app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self.port, reuse_address=False)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self.watch.restart()
        if self.spare is not None:
            self.spare.prepare()
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    async def close(self) -> None:
        """Stop the run (its browser closed), the watcher and the server; remove the traces."""
        self.watch.stop()
        self.pages.cancel_orphan_stop()
        if self.spare is not None:
            await self.spare.close()
        with contextlib.suppress(Exception):
            await self.stop_run()
        if self.run is not None:
            await self.run.stop()  # a child whose run ended, still closing its browser
        await self.pages.close_pages()
        if self._runner is not None:
            await self._runner.cleanup()
        shutil.rmtree(self.traces, ignore_errors=True)


def _not_run_info(target: dict[str, Any], why: str) -> dict[str, Any]:
    """What the status bar tells of a run asked for that did not start: why (its first line)."""
    first = next((line.strip() for line in why.splitlines() if line.strip()), why)
    return {"state": "not-run", "spec": target.get("spec"), "test": target.get("test"),
            "studio": bool(target.get("studio")), "summary": first}


async def _start_child(server: OpenServer, run: ChildRun, spare: bool = False) -> None:
    """Start ``run``'s child (``spare``: one that waits for its run). Raises ``OSError``."""
    project = server.project
    await run.start(project=project.root, config_file=project.config_file, cli_config=project.cli_config,
                    cli_env=project.cli_env, browser=server.browser, headed=server.headed, traces=server.traces,
                    keep=server.state.keep, testing_type=project.testing_type, spare=spare, backend=server.backend)


def _watch_ended(watch: WatchRerun) -> Callable[[ChildRun], None]:
    """What a run's child tells the watcher when it and its processes ended (after the run did,
    when it said so first): what it wrote is as it left it."""
    return lambda run: watch.run_ended(complete=not run.stopping)


class SpareChild:
    """At most one child started ahead of its run (``ui/child.py``'s ``--spare``): prepared while
    the server is idle or a run's tests run, claimed by the next run. One that ended before it was
    claimed (it failed, or was killed) is dropped: that run starts a child of its own."""

    def __init__(self, start: Callable[[ChildRun, bool], Awaitable[None]]) -> None:
        self._start = start
        self.child: ChildRun | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def prepare(self) -> None:
        """Start a spare unless one is there or starting."""
        if self._closed or self.child is not None or (self._task is not None and not self._task.done()):
            return
        self._task = asyncio.create_task(self._start_one())

    async def _start_one(self) -> None:
        child = ChildRun.ahead(on_exit=self._ended)
        self.child = child
        try:
            await self._start(child, True)
        except OSError:
            self.child = None  # the next run starts its own child, and says why it cannot

    def _ended(self, child: ChildRun, _code: int) -> None:
        if self.child is child:
            self.child = None

    async def claim(self, **run: Any) -> ChildRun | None:
        """The spare, given the run (see ``ChildRun.claim``); None when there is no live one."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)  # a spare being started: its process
        child, self.child = self.child, None
        if child is None or child.proc is None or not child.claim(**run):
            if child is not None:
                asyncio.create_task(child.discard())
            return None
        return child

    async def discard(self) -> None:
        """End the spare (its browser closed); :meth:`prepare` starts another."""
        task = self._task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        child, self.child = self.child, None
        if child is not None:
            await child.discard()

    async def close(self) -> None:
        """End the spare, and start no other."""
        self._closed = True
        await self.discard()
