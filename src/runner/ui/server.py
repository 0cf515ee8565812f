"""``runner open``'s web server (aiohttp), on 127.0.0.1 only.

Safety: every request needs the token printed with the URL (``?token=`` once, then a cookie
scoped to this server), a ``Host`` of 127.0.0.1 or localhost at this port (a page of another
site cannot reach it through DNS tricks), and the WebSocket an ``Origin`` of this server. Files
are served from three places only, each by a name it holds: the UI's own ``static`` folder, the
installed Playwright's trace viewer, and the kept traces by an opaque key. Nothing the server
serves or accepts reads or writes a file outside the project but those, and studio writes only
into the spec of the test it recorded on.

The page speaks to the server over one WebSocket (``/ws``), in JSON messages (see
``ui/static/open.js`` for the page's side):

page -> server: ``run`` {spec?, test?}, ``stop``, ``studio-start`` {spec, test}, ``input`` {...},
``studio-save``, ``studio-cancel``, ``scaffold``;
server -> page: ``hello`` (everything, on connect), ``specs``, ``event`` {key?, event}, ``drop``
{key}, ``frame``, ``run``, ``output`` {line}, ``studio`` {...}, ``notice`` {message}.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from runner.errors import RunnerError
from runner.ui.runs import ChildRun
from runner.ui.state import UiState

__all__ = ["OpenServer", "STATIC"]

STATIC = Path(__file__).with_name("static")
_COOKIE = "runner_open_token"
_CLIENT_BACKLOG = 20000  # messages a page may fall behind before it is made to reconnect
_UI_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'")
#: Seconds studio's recorder gets to stop (and hand over the last typing) before a save.
STUDIO_STOP_S = 10.0
#: Seconds a run goes on with no page connected before it is stopped (its browser closed).
ORPHAN_GRACE_S = 60.0


class _Client:
    """One connected page: its messages in order, and only the newest frame."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.frame: str | None = None
        self.wake = asyncio.Event()

    def put(self, text: str) -> None:
        if self.queue.qsize() > _CLIENT_BACKLOG:
            asyncio.ensure_future(self.ws.close())  # it reconnects and gets everything anew
            return
        self.queue.put_nowait(text)
        self.wake.set()

    def put_frame(self, text: str) -> None:
        self.frame = text
        self.wake.set()

    async def pump(self) -> None:
        while not self.ws.closed:
            await self.wake.wait()
            self.wake.clear()
            while not self.queue.empty():
                await self.ws.send_str(self.queue.get_nowait())
            if self.frame is not None:
                frame, self.frame = self.frame, None
                await self.ws.send_str(frame)


class OpenServer:
    """The server of one ``runner open``."""

    def __init__(self, *, project: Path, config_file: str | None = None, cli_config: list[Any] | None = None,
                 cli_env: list[str] | None = None, browser: str | None = None, headed: bool = False,
                 port: int | None = None, token: str | None = None, orphan_grace: float = ORPHAN_GRACE_S,
                 testing_type: str = "e2e") -> None:
        self.project = project.resolve()
        self.testing_type = testing_type  # "component": componentFolder's specs, the component block
        self.orphan_grace = orphan_grace
        self.config_file = config_file
        self.cli_config = list(cli_config or [])
        self.cli_env = list(cli_env or [])
        self.browser = browser
        self.headed = headed
        self.port = port or 0
        self.token = token or secrets.token_urlsafe(24)
        self.traces = Path(tempfile.mkdtemp(prefix="runner-open-traces-"))
        self.config: Any = None
        self.config_problem: str | None = None
        self.specs: dict[str, Path] = {}
        self.state = UiState(50, self.traces)
        self.clients: set[_Client] = set()
        self.run: ChildRun | None = None
        self.last_target: dict[str, Any] | None = None
        self.run_info: dict[str, Any] = {"state": "idle"}
        self.studio: dict[str, Any] | None = None
        self.frame: str | None = None
        self._saved: dict[Path, int] = {}  # spec -> mtime_ns studio wrote (not a change to re-run on)
        self._runner: web.AppRunner | None = None
        self._watch_task: asyncio.Task[Any] | None = None
        self._orphan_task: asyncio.Task[Any] | None = None
        self._lock = asyncio.Lock()
        self.runs_started = 0
        self.reload_config()

    # -- configuration and specs ---------------------------------------------------------------
    def reload_config(self) -> None:
        """Read runner.json (and the rest) again; a bad one is shown in the UI, not raised."""
        from runner.config import load_config
        from runner.run.specs import select_specs, spec_folder

        try:
            config = load_config(self.project, config_file=self.config_file, cli_config=self.cli_config,
                                 cli_env=self.cli_env or None, testing_type=self.testing_type)
        except RunnerError as err:
            self.config_problem = str(err)
            self.specs = {}
            return
        self.config = config
        self.state.keep = max(0, int(config.num_tests_kept_in_memory))
        try:
            found, _warnings = select_specs(config, None, self.project)
        except RunnerError as err:
            self.config_problem = str(err)
            self.specs = {}
            return
        self.config_problem = None
        _option, folder = spec_folder(config)  # select_specs checked it
        self.specs = {p.relative_to(folder).as_posix(): p for p in found}

    def page_config(self) -> dict[str, Any]:
        config = self.config
        return {
            "project": self.project.name + (" (component)" if self.testing_type == "component" else ""),
            "studio": bool(config and config.experimental_studio),
            "watch": bool(config and config.watch_for_file_changes),
            "keep": self.state.keep,
            "problem": self.config_problem,
            "scaffold": self.needs_scaffold(),
            "viewer": "/viewer/index.html",
        }

    def needs_scaffold(self) -> bool:
        if self.config_file in ("false", False):
            return False
        if not (self.project / (self.config_file or "runner.json")).is_file():
            return True
        if self.testing_type == "component":  # the scaffold is an e2e project's
            return False
        folder = self.config.path("integrationFolder") if self.config is not None else None
        return folder is None or not folder.is_dir()

    # -- the web app ------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=4 * 1024 * 1024)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._ws)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/viewer/{path:.*}", self._viewer)
        app.router.add_get("/traces/{key}/{attempt}.zip", self._trace)
        return app

    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        host = request.headers.get("Host", "")
        if host not in (f"127.0.0.1:{self.port}", f"localhost:{self.port}"):
            return web.Response(status=421, text="runner open answers only on 127.0.0.1.\n")
        given = request.query.get("token")
        cookie = request.cookies.get(_COOKIE, "")
        ok = (given is not None and hmac.compare_digest(given, self.token)) or \
            (bool(cookie) and hmac.compare_digest(cookie, self.token))
        if not ok:
            return web.Response(status=403, text="runner open: this URL needs its token (the URL runner "
                                                 "open printed, with ?token=...).\n")
        response = await handler(request)
        if given is not None:
            response.set_cookie(_COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("token") is not None:
            # the token leaves the address bar (and the history) at once: the cookie carries it
            moved = web.HTTPFound("/")
            moved.set_cookie(_COOKIE, self.token, httponly=True, samesite="Strict", path="/")
            raise moved
        response = web.FileResponse(STATIC / "index.html")
        response.headers["Content-Security-Policy"] = _UI_CSP
        response.headers["X-Frame-Options"] = "DENY"
        return response

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def _viewer(self, request: web.Request) -> web.StreamResponse:
        from runner.engine.trace_viewer import viewer_folder

        folder = viewer_folder()
        if folder is None:
            raise web.HTTPNotFound(text="the installed Playwright has no trace viewer")
        root = folder.resolve()
        path = (root / request.match_info["path"]).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            raise web.HTTPNotFound()
        response = web.FileResponse(path)
        if path.name.startswith("sw"):
            response.headers["Service-Worker-Allowed"] = "/viewer/"
        return response

    async def _trace(self, request: web.Request) -> web.StreamResponse:
        try:
            attempt = int(request.match_info["attempt"])
        except ValueError:
            raise web.HTTPNotFound() from None
        path = self.state.trace(request.match_info["key"], attempt)
        if path is None:
            raise web.HTTPNotFound(text="this test's trace is no longer kept (numTestsKeptInMemory)")
        return web.FileResponse(path, headers={"Content-Type": "application/zip"})

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin", "")
        if origin not in (f"http://127.0.0.1:{self.port}", f"http://localhost:{self.port}"):
            return web.Response(status=403, text="runner open: wrong origin\n")
        ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4 * 1024 * 1024)
        await ws.prepare(request)
        client = _Client(ws)
        self.reload_config()  # a page (re)loaded sees the specs as they are now
        client.put(json.dumps(self.hello()))
        self.clients.add(client)
        if self._orphan_task is not None:
            self._orphan_task.cancel()
            self._orphan_task = None
        pump = asyncio.create_task(client.pump())
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    continue
                if isinstance(data, dict):
                    await self.handle(data)
        finally:
            self.clients.discard(client)
            pump.cancel()
            if not self.clients and self.run is not None:
                self._orphan_task = asyncio.create_task(self._stop_orphan())
        return ws

    async def _stop_orphan(self) -> None:
        await asyncio.sleep(self.orphan_grace)
        if not self.clients:
            await self.stop_run()

    def hello(self) -> dict[str, Any]:
        return {"t": "hello", "config": self.page_config(), "specs": sorted(self.specs),
                "state": self.state.snapshot(), "run": self.run_info, "studio": self.studio}

    # -- messages ---------------------------------------------------------------------------
    def broadcast(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False, default=str)
        for client in list(self.clients):
            client.put(text)

    async def handle(self, data: dict[str, Any]) -> None:
        """One message of the page. Bad ones get a ``notice``, never an exception."""
        kind = data.get("t")
        try:
            if kind == "run":
                await self.start_run(spec=data.get("spec"), test=data.get("test"))
            elif kind == "stop":
                await self.stop_run()
            elif kind == "studio-start":
                await self.start_studio(str(data.get("spec") or ""), str(data.get("test") or ""))
            elif kind == "input":
                if self.run is not None and self.studio is not None:
                    self.run.send(data)
            elif kind == "studio-save":
                await self.save_studio()
            elif kind == "studio-cancel":
                await self.cancel_studio()
            elif kind == "scaffold":
                await self.scaffold()
        except RunnerError as err:
            self.broadcast({"t": "notice", "level": "error", "message": str(err)})

    async def start_run(self, *, spec: Any = None, test: Any = None, studio: bool = False) -> None:
        """Run every spec (``spec`` None), one spec, or one test (``test``: the node id's part after
        the file). A run in progress is stopped first. Raises ``RunnerError`` for a spec that is
        not one of the project's."""
        if spec is not None and (not isinstance(spec, str) or spec not in self.specs):
            raise RunnerError(f"{spec!r} is not one of the project's specs.")
        if test is not None and (not isinstance(test, str) or spec is None or not test.strip()):
            raise RunnerError("a test is run within its spec: give both.")
        target = {"spec": spec, "spec_path": str(self.specs[spec]) if spec else None, "test": test,
                  "studio": studio}
        async with self._lock:
            await self._stop_current()
            if self.config is None:
                raise RunnerError(self.config_problem or "the configuration could not be read.")
            self.last_target = {k: v for k, v in target.items() if k != "studio"} | {"studio": False}
            run = ChildRun(target=target, on_message=self._on_child, on_output=self._on_output,
                           on_exit=self._on_exit)
            self.run = run
            self.runs_started += 1
            self.state.run = self.runs_started
            self.run_info = {"state": "running", "spec": spec, "test": test, "studio": studio,
                             "started": time.time(), "number": self.runs_started}
            self.broadcast({"t": "run", "run": self.run_info})
            try:
                await run.start(project=self.project, config_file=self.config_file,
                                cli_config=self.cli_config, cli_env=self.cli_env, browser=self.browser,
                                headed=self.headed, traces=self.traces, keep=self.state.keep,
                                testing_type=self.testing_type)
            except OSError as err:
                self.run = None
                self.run_info = {"state": "idle", "error": f"the run could not start: {err}"}
                self.broadcast({"t": "run", "run": self.run_info})

    async def stop_run(self) -> None:
        async with self._lock:
            await self._stop_current()

    async def _stop_current(self) -> None:
        run = self.run
        if run is None or run.done.is_set():
            return
        self.run_info = {**self.run_info, "state": "stopping"}
        self.broadcast({"t": "run", "run": self.run_info})
        await run.stop()

    def _on_child(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "event" and isinstance(message.get("event"), dict):
            for out in self.state.apply(message["event"]):
                self.broadcast(out)
        elif kind == "frame":
            self.frame = json.dumps(message)
            for client in list(self.clients):
                client.put_frame(self.frame)
        elif kind == "studio" and self.studio is not None:
            if isinstance(message.get("action"), dict):
                self.studio["actions"].append(message["action"])
            elif isinstance(message.get("state"), str):
                self.studio["state"] = message["state"]
                if message.get("reason"):
                    self.studio["reason"] = str(message["reason"])
            self.broadcast({"t": "studio", "studio": self.studio})
        elif kind == "error":
            self.broadcast({"t": "notice", "level": "error", "message": str(message.get("message"))})

    def _on_output(self, line: str) -> None:
        self.broadcast(self.state.add_output(line))

    def _on_exit(self, run: ChildRun, code: int) -> None:
        if run is not self.run:
            return
        stopped = run.stopping
        if not stopped:  # a child that died mid-run: its running test fails by it, never green
            for event in self.state.tally.death_tail(code):
                for out in self.state.apply(event):
                    self.broadcast(out)
        self.run_info = {**self.run_info, "state": "stopped" if stopped else "done", "code": code,
                         "summary": self.state.tally.words(code, stopped=stopped), "ended": time.time()}
        self.broadcast({"t": "run", "run": self.run_info})
        if self.studio is not None and self.studio.get("state") not in ("saved", "cancelled"):
            if self.studio.get("state") in ("starting", "recording"):
                self.studio["state"] = "ended"
                self.broadcast({"t": "studio", "studio": self.studio})

    # -- studio -----------------------------------------------------------------------------
    async def start_studio(self, spec: str, test: str) -> None:
        if not (self.config and self.config.experimental_studio):
            raise RunnerError("studio is off: set experimentalStudio to true in runner.json.")
        self.studio = {"spec": spec, "test": test, "state": "starting", "actions": []}
        self.broadcast({"t": "studio", "studio": self.studio})
        await self.start_run(spec=spec, test=test, studio=True)

    async def save_studio(self) -> None:
        from runner.ui.studio_edit import insert_commands

        studio = self.studio
        if studio is None:
            raise RunnerError("there is no studio recording to save.")
        if self.run is not None and not self.run.done.is_set() and studio.get("state") == "recording":
            # the recorder hands over what was typed but not yet committed when it stops
            self.run.send({"t": "studio-done"})
            await self._studio_stopped(STUDIO_STOP_S)
        path = self.specs.get(studio["spec"])
        if path is None:
            raise RunnerError(f"the spec {studio['spec']!r} is gone.")
        actions = list(studio["actions"])
        if not actions:
            raise RunnerError("studio recorded nothing to save: click, type, check or select in the app first.")
        result = await asyncio.to_thread(insert_commands, path, studio["test"], actions)
        with contextlib.suppress(OSError):
            self._saved[path.resolve()] = path.stat().st_mtime_ns
        studio.update(state="saved", lines=list(getattr(result, "lines", []) or []))
        self.broadcast({"t": "studio", "studio": studio})
        await self.start_run(spec=studio["spec"], test=studio["test"])

    async def _studio_stopped(self, bound: float) -> None:
        deadline = time.monotonic() + bound
        while self.studio is not None and self.studio.get("state") == "recording" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def cancel_studio(self) -> None:
        if self.studio is None:
            return
        self.studio["state"] = "cancelled"
        self.broadcast({"t": "studio", "studio": self.studio})
        if self.run is not None:
            self.run.send({"t": "studio-done"})
        self.studio = None

    # -- first run --------------------------------------------------------------------------
    async def scaffold(self) -> None:
        from runner.scaffold import report_lines, scaffold

        result = await asyncio.to_thread(scaffold, self.project)
        self.reload_config()
        self.broadcast({"t": "notice", "level": "info",
                        "message": "runner init:\n" + "\n".join(" ".join(line.split()) for line in report_lines(result))})
        self.broadcast(self.hello())
        self._restart_watch()

    # -- watching ---------------------------------------------------------------------------
    def _restart_watch(self) -> None:
        if self._watch_task is not None:
            self._watch_task.cancel()
            self._watch_task = None
        if self.config is not None and self.config.watch_for_file_changes:
            self._watch_task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        from runner.ui.watch import SpecWatcher, affects

        watcher = SpecWatcher(self.config)
        try:
            async for batch in watcher.changes():
                changed = {p for p in batch if not self._written_by_studio(p)}
                if not changed:
                    continue
                kinds = {affects(p, self.config) for p in changed}
                names = ", ".join(sorted(_short(p, self.project) for p in changed))
                self.broadcast({"t": "notice", "level": "info", "message": f"changed: {names}"})
                self.reload_config()  # a new spec, a deleted one, another runner.json
                self.broadcast(self.hello())
                if self.config_problem is None:
                    await self._rerun()
                if "config" in kinds:  # what is watched may have changed with it
                    self._watch_task = None
                    self._restart_watch()
                    return
        finally:
            watcher.stop()

    def _written_by_studio(self, path: Path) -> bool:
        try:
            resolved = path.resolve()
            return self._saved.get(resolved) == resolved.stat().st_mtime_ns
        except OSError:
            return False

    async def _rerun(self) -> None:
        target = self.last_target
        if target is None:
            return
        if target.get("spec") is not None and target["spec"] not in self.specs:
            self.broadcast({"t": "notice", "level": "info",
                            "message": f"{target['spec']} is no longer a spec of the project: not re-run."})
            return
        await self.start_run(spec=target.get("spec"), test=target.get("test"))

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> str:
        """Listen on 127.0.0.1; returns the URL to open (with its token). Raises ``OSError``
        when the port cannot be used."""
        runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
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
        self._restart_watch()
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    async def close(self) -> None:
        """Stop the run (its browser closed), the watcher and the server; remove the traces."""
        if self._watch_task is not None:
            self._watch_task.cancel()
        if self._orphan_task is not None:
            self._orphan_task.cancel()
        with contextlib.suppress(Exception):
            await self.stop_run()
        for client in list(self.clients):
            with contextlib.suppress(Exception):
                await client.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
        shutil.rmtree(self.traces, ignore_errors=True)


def _short(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def log(message: str) -> None:
    print(f"runner: {message}", file=sys.stderr, flush=True)
