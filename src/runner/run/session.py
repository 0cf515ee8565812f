"""One run: the place that wires configuration, plugins file, engine, routes and file server.

A :class:`RunSession` lives as long as the pytest process. The browser is launched lazily, on the
first test that asks for the ``runner`` fixture, and reused by every test after it (each test gets
a reset page). ``close()`` leaves no browser process behind.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from runner import active
from runner.bodies import body_record
from runner.commands.api import RunnerCommands
from runner.commands.context import TestContext
from runner.commands.fixtures import read_fixture_bytes
from runner.commands.mount import MountHost
from runner.commands.steps import failure_step, flush_step
from runner.config import Config, load_config
from runner.config.load import ENV_FILE_NAME
from runner.engine.browser import BrowserSession, LaunchOptions
from runner.engine.discovery import BrowserSpec, find_browser
from runner.engine.loop import EngineBlocked, EngineLoop, EngineTimeout
from runner.engine.remote import RemoteEndpoint
from runner.engine.routing import RoutingTarget
from runner.errors import BrowserNotFoundError, ConfigError
from runner.events import (
    BrowserStarted,
    Event,
    EventBus,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
)
from runner.fileserver import FileServer, artifact_paths
from runner.live_view import LiveView
from runner.match import compile_pattern, pattern_list
from runner.paths import resolve_path
from runner.pluginsfile import PluginEvents, load_module, load_plugins_file
from runner.redaction import Redactor, redact_event
from runner.redaction.traces import scrub_trace
from runner.spec_videos import SpecVideos
from runner.tracebacks import first_line

__all__ = ["RunSession", "check_base_url", "client_certificate_entries"]

# The longest the run waits for the browser to launch (Playwright's own bound comes first).
_LAUNCH_WAIT_S = 120
# The per-test reset bounds each of its steps (engine/browser.py); this bounds them all.
_RESET_WAIT_S = 120
# Turning routing off after a test.
_END_WAIT_S = 10
# The longest a test's end waits for the requests its routes took and that are still in flight
# (bounded by the test's responseTimeout too): one still open then is recorded as open.
_SETTLE_MS = 2000.0
# Starting a test's trace, and ending it (written or discarded): a browser that does not answer
# in time loses the trace, not the test.
_TRACE_WAIT_S = 10
# How long the reset may find the engine's loop running nothing before it is given up, and how
# long a loop a command found blocked is given to answer again (see _abandon_blocked_engine).
_RESET_STALL_S = 10.0
_BLOCKED_WAIT_S = 1.0


class RunSession:
    """Everything one pytest process shares between its tests."""

    def __init__(self, config: Config, *, browser: str | None = None, headed: bool = False,
                 mode: str = "run", loop: EngineLoop | None = None, endpoint: RemoteEndpoint | None = None) -> None:
        self.config = config
        self.browser_choice = browser
        self.endpoint = endpoint  # --browser-endpoint: a Playwright server's browser, not a local one
        self.headed = headed
        self.mode = mode  # "run" (runner run), "open" (interactive), "pytest" (plain pytest)
        # The run's events: every fact of the run is published here (see runner.events).
        self.bus = EventBus(on_error=_report_subscriber_error)
        # what the run hides as [redacted] in every event, before any subscriber sees it
        self.redactor = Redactor.for_config(config)
        self.bus.transform = lambda event: redact_event(self.redactor, event)
        self.events = PluginEvents(publish=self.bus.publish)
        self.videos_enabled = True  # off in pytest-xdist workers (specs are split across them)
        self.shard: dict[str, Any] | None = None  # runner run --shard: which share of the specs (run_shards.py)
        self.support_module: ModuleType | None = None
        self._loop: EngineLoop | None = loop
        self._browser: BrowserSession | None = None
        self._launching: tuple[BrowserSession, Any] | None = None
        self._launch_error: BrowserNotFoundError | None = None
        self._browser_spec: BrowserSpec | None = None
        self._file_server: FileServer | None = None
        self._interceptor: Any = None
        self._current: TestContext | None = None
        self._block_hosts: list[Any] = []
        self.sessions: dict[str, Any] = {}  # runner.session() cache, shared by the run's tests
        self.screenshot_paths: set[Path] = set()  # no two screenshots of the run share a file
        self.trace_paths: set[Path] = set()  # nor two traces
        self._warnings: list[str] = []  # said during a test: the plugin prints them (take_warnings)
        self._videos: SpecVideos | None = None
        #: runner open: the page's screencast streamed to the UI (set by its child process)
        self.live_view: LiveView | None = None
        self._launches_told = 0
        self._certificates: list[Any] = []  # clientCertificates, ready (see _load_certificates)
        # runner.mount's dev server: not asked yet (None), (url, close), or the error it gave
        self._dev_server: tuple[str, Callable[[], Any] | None] | ConfigError | None = None
        self.started = time.monotonic()
        active.activate(self)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def create(cls, *, root: Path | str | None = None, config_file: Any = None,
               cli_config: Any = None, cli_env: Any = None, browser: str | None = None,
               headed: bool = False, mode: str = "run", testing_type: str = "e2e",
               load_plugins: bool = True, loop: EngineLoop | None = None,
               endpoint: RemoteEndpoint | None = None) -> RunSession:
        """Load and validate the configuration, then run the plugins file's ``setup``.

        Raises ``ConfigError`` (bad configuration or plugins file).
        """
        config = load_config(root, config_file=config_file, testing_type=testing_type,
                             cli_config=cli_config, cli_env=cli_env)
        session = cls(config, browser=browser, headed=headed, mode=mode, loop=loop, endpoint=endpoint)
        try:
            if load_plugins:
                session._load_plugins_file()
            session._load_certificates()
        except BaseException:
            session.close()
            raise
        if mode == "run":
            # A headless run never watches files and keeps no per-test snapshots, as in the original.
            session.config = session.config.merged(
                {"watchForFileChanges": False, "numTestsKeptInMemory": 0},
                source="mode", origin="runner run (headless run mode)")  # not "cli": no flag set them
        return session

    def _load_certificates(self) -> None:
        """Read ``clientCertificates``' files now: a missing or broken one stops the run before
        any test, with one message naming the entry."""
        entries = client_certificate_entries(self.config)
        if not entries:
            return
        from runner.engine.client_certs import CertificateError, load_client_certificates

        try:
            self._certificates = load_client_certificates(entries)
        except CertificateError as err:
            raise ConfigError(str(err)) from err

    def _certificate_for(self, url: str) -> Any:
        from runner.engine.client_certs import certificate_for

        return certificate_for(self._certificates, url)

    def _load_plugins_file(self) -> None:
        path = self.config.path("pluginsFile")
        if path is None:
            return
        if not path.is_file():
            if self.config.sources.get("pluginsFile") == "default":
                return  # the default file is optional
            raise ConfigError(
                f"pluginsFile {str(path)!r} does not exist.\n"
                "Expected a Python file defining setup(on, config); create it, fix the path, "
                "or set pluginsFile to false."
            )
        config_file = self.config.config_file
        given = {**self.config.as_dict(), "projectRoot": str(self.config.project_root),
                 "configFile": str(config_file) if config_file else False}
        events, changes = load_plugins_file(path, given, publish=self.bus.publish)
        self.events = events
        if changes:
            self.config = self.config.merged(changes, source="plugin", origin=f"the plugins file {path}")
            self.redactor = Redactor.for_config(self.config, keeping=self.redactor)

    def load_support_file(self) -> ModuleType | None:
        """Import the support file once (the plugin registers it with pytest)."""
        path = self.config.path("supportFile")
        if path is None:
            return None
        if not path.is_file():
            if self.config.sources.get("supportFile") == "default":
                return None
            raise ConfigError(
                f"supportFile {str(path)!r} does not exist.\n"
                "Expected a Python file loaded before the specs; create it, fix the path, "
                "or set supportFile to false."
            )
        self.support_module = load_module(path, "runner_support_file")
        return self.support_module

    # -- resources --------------------------------------------------------------------------
    @property
    def loop(self) -> EngineLoop:
        if self._loop is None:
            self._loop = EngineLoop()
        return self._loop

    @property
    def browser_spec(self) -> BrowserSpec:
        if self._browser_spec is None:
            if self.endpoint is not None:  # the server has the browser: nothing to find here
                choice = self.browser_choice if self.browser_choice in ("chrome", "msedge") else "chromium"
                self._browser_spec = BrowserSpec(choice, self.endpoint.label)
            else:
                self._browser_spec = find_browser(self.browser_choice, headless=not self.headed)
        return self._browser_spec

    def launch_options(self) -> LaunchOptions:
        c = self.config
        downloads = c.path("downloadsFolder")
        return LaunchOptions(
            browser=self.browser_spec,
            headless=not self.headed,
            chrome_web_security=bool(c.chrome_web_security),
            user_agent=c.user_agent,
            viewport=(int(c.viewport_width), int(c.viewport_height)),
            downloads_folder=downloads,
            frame_guard=("parser" if c.experimental_source_rewriting else
                         "patterns" if c.modify_obstructive_code else None),
            endpoint=self.endpoint, browser_choice=self.browser_choice or os.environ.get("RUNNER_BROWSER") or None,
        )

    def prelaunch(self) -> None:
        """Start launching the browser in the background (while pytest starts up)."""
        if self._browser is None and self._launching is None:
            routing = RoutingTarget(
                interceptor=lambda: self._interceptor, blocked=self.blocked,
                certificate=self._certificate_for if self._certificates else (lambda url: None),
                response_timeout_ms=lambda: float(self.current_config().response_timeout),
                warn=lambda message: self._warnings.append(message))  # the list is replaced
            session = BrowserSession(self.launch_options(), routing, early_driver=self.loop.take_early_driver())
            session.launches = self._launches_told  # a browser that replaces another counts on
            self._launching = (session, self.loop.submit(session.start()))

    def browser(self) -> BrowserSession:
        """The running browser, launched on first use. Raises ``BrowserNotFoundError`` (again,
        without a second try, once a launch failed: see :meth:`launch_failure`)."""
        if self._browser is None:
            failure = self.launch_failure()
            if failure is not None:
                raise failure
            assert self._browser is not None
        self._tell_launches()
        return self._browser

    @property
    def launch_error(self) -> BrowserNotFoundError | None:
        """Why the browser could not be launched (or relaunched), when that happened."""
        return self._launch_error

    def launch_failure(self) -> BrowserNotFoundError | None:
        """Why the browser could not be launched, once a launch (started now when none is under
        way) ended; None when it runs."""
        if self._browser is None and self._launch_error is None:
            self.prelaunch()
            assert self._launching is not None
            session, future = self._launching
            self._launching = None
            try:
                future.result(_LAUNCH_WAIT_S)
            except BrowserNotFoundError as err:
                self._launch_error = err
            except Exception as err:  # noqa: BLE001 - the launch's bound ran out, or worse
                self._launch_error = BrowserNotFoundError(
                    f"The browser could not be started: {self.browser_spec.path!r} gave no answer "
                    f"within {_LAUNCH_WAIT_S} s ({type(err).__name__}: {err}).\n"
                    "Expected Chromium or Chrome that runs on this machine; choose another with "
                    "--browser."
                )
                self._launch_error.__cause__ = err
            else:
                self._browser = session
        return self._launch_error

    def launched_version(self) -> str:
        """The browser's version once a launch under way (``prelaunch``) finished; "" when none
        was started (plain pytest launches on first use) or it failed (the run stops then)."""
        if self._browser is None and self._launching is None:
            return ""
        if self.launch_failure() is not None:
            return ""
        assert self._browser is not None
        return self._browser.version

    def _tell_launches(self) -> None:
        """Publish ``browser.started`` for every launch not told yet (relaunches after a crash)."""
        browser = self._browser
        if browser is None or browser.launches == self._launches_told:
            return
        self._launches_told = browser.launches
        spec = self.browser_spec
        self.bus.publish(BrowserStarted(name=spec.name, version=browser.version, path=spec.path,
                                        headless=not self.headed, launch=browser.launches))

    def current_config(self) -> Config:
        """The running test's configuration (its marks included), else the run's."""
        return self._current.config if self._current is not None else self.config

    @property
    def base_url(self) -> str | None:
        if self.config.base_url:
            return str(self.config.base_url)
        return self.file_server_url()

    def file_server_url(self) -> str | None:
        if self._file_server is None:
            folder = self.config.path("fileServerFolder")
            if folder is None or not folder.is_dir():
                return None
            port = self.config.port
            artifact_folders, artifact_patterns = artifact_paths(self.config)
            self._file_server = FileServer(folder, int(port) if port else None, hidden=self._runner_files(),
                                           hidden_folders=artifact_folders, hidden_patterns=artifact_patterns)
        return self._file_server.url

    def _runner_files(self) -> list[Path]:
        """The files of the run the file server never serves: the configuration file, the
        environment file beside it, the plugins and support files (``runner.json`` and
        ``runner.env.json`` are refused by name too)."""
        files = [self.config.project_root / ENV_FILE_NAME]
        if self.config.config_file is not None:
            files.append(self.config.config_file)
        for key in ("pluginsFile", "supportFile"):
            path = self.config.path(key)
            if path is not None:
                files.append(path)
        return files

    @property
    def interceptor(self) -> Any:
        if self._interceptor is None:
            from runner.net import Interceptor

            self._interceptor = Interceptor(
                loop=self.loop.loop,
                config=self._current_config_value,
                load_fixture=self._load_fixture,
                report_error=self._report_error,
                on_change=self._routes_changed,
                observer=_RouteEvents(self.bus.publish, lambda: self._current),
            )
        return self._interceptor

    def _current_config_value(self, key: str) -> Any:
        config = self._current.config if self._current is not None else self.config
        return config[key]

    def _load_fixture(self, spec: str) -> bytes:
        config = self._current.config if self._current is not None else self.config
        data, _path = read_fixture_bytes(config.path("fixturesFolder"), spec)
        return data

    def _report_error(self, error: BaseException) -> None:
        if self._current is not None:
            self._current.report_async_error(error)

    def _routes_changed(self) -> None:
        browser = self._browser
        if browser is None or not browser.alive:
            return  # the next reset replaces the page, routes off
        interceptor = self._interceptor
        route = bool(self._block_hosts) or bool(self._certificates) or bool(interceptor and interceptor.needs_routing())
        watch = bool(interceptor and interceptor.wants_requests())
        preflights = bool(interceptor and interceptor.takes_preflights())
        sockets = bool(interceptor and interceptor.has_ws_routes())

        async def apply() -> None:
            if sockets:
                await browser.route_web_sockets()
            # Spies only watch (no interception, HTTP cache kept); anything else routes, and
            # watches only the hops after a redirect, which Playwright does not route.
            browser.set_watching(watch, revalidations=not route)
            await browser.watching_ready()
            await browser.set_routing(route, preflights=preflights)

        if self.loop.in_loop_thread:
            self.loop.loop.create_task(apply())
        elif self._current is not None:
            self._current.run(apply())  # bounded, and says so when the page does not answer
        else:
            try:
                self.loop.run(apply(), _END_WAIT_S)
            except EngineTimeout:
                browser.stopped_responding("The page did not answer when its routes changed.")

    def blocked(self, url: str) -> bool:
        if not self._block_hosts:
            return False
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = parts.netloc.rsplit("@", 1)[-1]
        return any(match(host) or match(netloc) for match in self._block_hosts)

    # -- tests ------------------------------------------------------------------------------
    def begin_test(self, config: Config, *, spec_relative: str, title: str,
                   screenshot_dir: Any = None, attempt: int = 1, nodeid: str = "",
                   trace: bool = False) -> RunnerCommands:
        """Reset the page for a new test and return the ``runner`` fixture's object. With
        ``trace``, the attempt is recorded in a trace (:meth:`end_test` writes or discards it).

        Raises ``BrowserNotFoundError`` when the browser could not be (re)launched; every later
        test would fail the same way (see :attr:`launch_error`).
        """
        self._block_hosts = [compile_pattern(p) for p in pattern_list(config.block_hosts)]
        browser = self._reset((int(config.viewport_width), int(config.viewport_height)))
        self._tell_launches()
        if self._block_hosts or self._certificates:
            self.loop.run(browser.set_routing(True), 30)
        self.videos.ensure(spec_relative, browser)
        if self.live_view is not None:
            self.live_view.ensure(browser.devtools, (int(config.viewport_width), int(config.viewport_height)))
        ctx = TestContext(
            config=config, loop=self.loop, browser_getter=self.browser, base_url=self.base_url,
            spec_relative=spec_relative, title=title, project_root=config.project_root,
            attempt=attempt, screenshot_paths=self.screenshot_paths, nodeid=nodeid,
            publish=self.bus.publish, redactor=self.redactor,
        )
        if trace:
            ctx.traced = self._start_trace(browser, config, spec_relative, title, attempt)
        self._current = ctx
        if config.strict_network is not False:
            strict = self.interceptor.strict_network(config.strict_network)  # watches the page
            ctx.end_checks.append(strict.failure)
        return RunnerCommands(ctx, events=self.events, interceptor=lambda: self.interceptor,
                              screenshot_dir=screenshot_dir, session_cache=self.sessions,
                              mount_host=MountHost(self.mount_page, self.dev_server_url))

    # -- component testing (runner.mount) ---------------------------------------------------
    def mount_page(self, html: str) -> str:
        """Serve a page ``runner.mount`` built from the file server's origin; its URL.

        Raises ConfigError when there is no ``fileServerFolder`` to serve it from."""
        if self.file_server_url() is None or self._file_server is None:
            raise ConfigError(
                f"runner.mount() serves its page from fileServerFolder, and "
                f"{str(self.config.path('fileServerFolder'))!r} is not a folder.\n"
                "Create it (the project's assets are served from it) or fix fileServerFolder."
            )
        return self._file_server.mount_page(html)

    def dev_server_url(self) -> str | None:
        """The URL of the front end's dev server, started by the plugins file's
        ``dev-server:start`` handler on the first call (once a run); None without a handler.
        Raises ConfigError when the handler fails (again on every call: each mount says so).
        Only a component run starts it (as the original); an e2e run's mounts use the file server."""
        if self.config.testing_type != "component":
            return None
        if self._dev_server is None:
            try:
                started = self.events.start_dev_server(
                    {"testingType": self.config.testing_type, "config": self.config.as_dict(),
                     "projectRoot": str(self.config.project_root)})
            except ConfigError as err:
                self._dev_server = err
            else:
                self._dev_server = started or ("", None)
        if isinstance(self._dev_server, ConfigError):
            raise self._dev_server
        return self._dev_server[0] or None

    def _reset(self, viewport: tuple[int, int]) -> BrowserSession:
        """The browser, its page reset for a new test. An engine loop found blocked (by the last
        test's commands, or now by the reset) is given up first, and the reset done anew."""
        for last in (False, True):
            self._abandon_blocked_engine()
            browser = self.browser()
            if self._interceptor is not None:
                self._interceptor.clear()
            try:
                self.loop.run(browser.reset(viewport), _RESET_WAIT_S, stall=_RESET_STALL_S)
                return browser
            except EngineBlocked:
                if last:
                    raise
            except BrowserNotFoundError as err:
                self._launch_error = err
                raise
        raise AssertionError("unreachable")

    def _abandon_blocked_engine(self, *, unless_answers: bool = False) -> bool:
        """When the engine's loop is still blocked (an ``async def`` handler that does not
        return), give it up: its browser and driver are killed, what was being recorded is lost,
        and the next use makes a new loop and browser. Only a loop a call already found blocked
        is suspected; with ``unless_answers`` any loop that does not answer now. Returns True
        when it had to."""
        loop = self._loop
        if loop is None or not (unless_answers or loop.stalled):
            return False
        blocker = loop.blocker(within=_BLOCKED_WAIT_S)
        if blocker is None:
            return False
        why = f"runner's event loop was blocked by {blocker}"
        print(f"runner: warning: {why}; it was given up, with its browser.", file=sys.stderr)
        for browser in (self._browser, self._launching[0] if self._launching else None):
            if browser is not None:
                browser.kill()
        self._browser = self._launching = self._interceptor = None
        self._loop = None  # left to its blocked thread (a daemon: it keeps no process alive)
        if self._videos is not None:
            self._videos.abandon(why)
        return True

    @property
    def videos(self) -> SpecVideos:
        if self._videos is None:
            self._videos = SpecVideos(
                self.config, lambda: self.loop,
                enabled=self.mode == "run" and not self.headed and self.videos_enabled,
                # an after:spec handler may read the spec's video: finish it before the event
                finish_in_background=lambda: not self.events.has("after:spec"),
                publish=self.bus.publish,
            )
        return self._videos

    def finish_spec(self, spec_relative: str, passed: bool) -> str | None:
        """The spec ``spec_relative`` ended: finish its video. Returns the video's path when one
        is kept (``video.written`` follows when the file is complete)."""
        if self._videos is None:
            return None
        self._abandon_blocked_engine()  # its recording cannot be finished through a blocked loop
        return self._videos.finish(passed=passed)

    def settle_videos(self) -> None:
        """Wait for videos still being written (each publishes ``video.written``)."""
        if self._videos is not None:
            self._abandon_blocked_engine()
            self._videos.settle()

    def _start_trace(self, browser: BrowserSession, config: Config, spec_relative: str, title: str,
                     attempt: int) -> bool:
        """Start tracing the test; False (with a warning) when the browser cannot."""
        name = f"{spec_relative} :: {title}" + (f" (attempt {attempt})" if attempt > 1 else "")
        try:
            self.loop.run(browser.start_trace(name, screenshots=bool(config.trace_screenshots)),
                          _TRACE_WAIT_S, stall=_RESET_STALL_S)
        except Exception as err:  # noqa: BLE001 - the test runs untraced
            self._warnings.append(f"the trace of {title} could not be started: {first_line(err)}")
            return False
        return True

    def take_warnings(self) -> list[str]:
        """The warnings said during the test since the last call (a trace that could not be
        started or written): the plugin prints them where pytest does not capture them."""
        warnings, self._warnings = self._warnings, []
        return warnings

    def _end_trace(self, ctx: TestContext, path: Path | None,
                   error: tuple[BaseException, str | None, int | None] | None = None) -> str | None:
        """Write the test's trace to ``path``, or discard it (None). Returns the path written; a
        trace that cannot be written is lost with a warning (:meth:`take_warnings`), the test's
        result unchanged."""
        flush_step(ctx)
        browser = self._browser
        if browser is None:
            return None
        where = "" if path is None else f" to {str(path)!r}"
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            failure = failure_step(*error) if error is not None and path is not None else None
            written = self.loop.run(browser.stop_trace(path, failure), _TRACE_WAIT_S, stall=_RESET_STALL_S)
        except EngineBlocked as err:
            why = str(err)
        except EngineTimeout:
            why = f"the browser did not answer within {_TRACE_WAIT_S} s"
        except Exception as err:  # noqa: BLE001 - a lost trace must not fail the test
            why = first_line(err)
        else:
            if not written or path is None:
                return None
            problem = self._scrub_trace(path)
            if problem is None:
                return str(path)
            why = problem
        if path is not None:
            self._warnings.append(f"the trace of {ctx.title} could not be written{where}: {why}")
        return None

    def _scrub_trace(self, path: Path) -> str | None:
        """Hide the run's secrets in the trace just written (and drop its bodies when
        ``redact.traceBodies`` is false). Returns why it could not (the trace is then deleted:
        a trace with secrets in clear is not kept)."""
        rules = self.config.get("redact") or {}
        try:
            scrub_trace(path, self.redactor, drop_bodies=rules.get("traceBodies") is False)
        except (OSError, zipfile.BadZipFile) as err:
            path.unlink(missing_ok=True)
            return f"its secrets could not be hidden ({err})"
        return None

    def settle_requests(self) -> None:
        """The test's last command returned: wait (at most ``_SETTLE_MS``, and the test's
        ``responseTimeout``) for the requests its routes took, and record them in the test,
        those still in flight as open (see ``Interceptor.finish``). Later requests belong to no
        test. Called before the test's requests table is read; :meth:`end_test` calls it too."""
        ctx, interceptor = self._current, self._interceptor
        if ctx is None or interceptor is None:
            return
        bound_ms = min(_SETTLE_MS, max(float(ctx.config["responseTimeout"]), 0.0))
        interceptor.finish(bound_ms / 1000)

    def end_test(self, trace_path: Path | None = None,
                 error: tuple[BaseException, str | None, int | None] | None = None) -> str | None:
        """The test ended: its trace (when it was traced) is written to ``trace_path``, or
        discarded when that is None. ``error``: what the test failed with and the spec's file and
        line it was raised at (a trace whose steps do not carry it gets a last step with it).
        Returns the trace's path when one was written."""
        self.settle_requests()
        ctx = self._current
        for close in list(ctx.closers) if ctx is not None else []:
            try:
                said = close()
            except Exception as err:  # noqa: BLE001 - one closer's failure must not lose the others
                said = f"{getattr(close, '__qualname__', 'a closer')} failed at the end of the test: {err}"
            if said:
                self._warnings.append(said)
        self._current = None  # what follows is not the test's: it fails no command
        if self._videos is not None:
            self._videos.catch_up()
        trace = self._end_trace(ctx, trace_path, error) if ctx is not None and ctx.traced else None
        if self._interceptor is not None:
            self._interceptor.clear()
        browser = self._browser
        if browser is not None and browser.alive:
            try:
                self.loop.run(browser.set_routing(False), _END_WAIT_S)
                self.loop.run(browser.wait_downloads(), 60)
            except EngineTimeout:
                browser.stopped_responding("The page did not answer at the end of the test.")
            except Exception:  # noqa: BLE001 - the next reset will relaunch what broke
                pass
        return trace

    def close_browser(self) -> None:
        """Close the browser launched so far (``runner run --workers`` checks a browser endpoint
        in the controlling process, then leaves the browsers to the workers)."""
        browser, self._browser = self._browser, None
        if browser is not None and self._loop is not None:
            try:
                self._loop.run(browser.close(), 30)
            except Exception:  # noqa: BLE001 - closing must not raise
                pass

    def close(self) -> None:
        """Close the browser, the loop and the file server. Safe to call twice."""
        # nothing can be closed through a blocked loop (wrongly suspected, it is killed instead)
        self._abandon_blocked_engine(unless_answers=True)
        if self._launching is not None:
            try:
                self.browser()
            except Exception:  # noqa: BLE001 - it is closed below either way
                pass
        if self._videos is not None:
            self._videos.finish(passed=None)
            self._videos.settle()
        if self._browser is not None and self._loop is not None:
            try:
                self._loop.run(self._browser.close(), 30)
            except Exception:  # noqa: BLE001 - closing must not raise
                pass
            self._browser = None
        certificates, self._certificates = self._certificates, []
        for certificate in certificates:  # their connection pools live on the engine's loop
            if self._loop is not None:
                try:
                    self._loop.run(certificate.close(), 10)
                except Exception:  # noqa: BLE001 - closing must not raise
                    pass
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        if self._file_server is not None:
            self._file_server.close()
            self._file_server = None
        dev_server, self._dev_server = self._dev_server, None
        if isinstance(dev_server, tuple) and dev_server[1] is not None:
            try:
                dev_server[1]()
            except Exception as err:  # noqa: BLE001 - the run is over; say it and go on
                print(f"runner: the dev server's close() raised {type(err).__name__}: {err}", file=sys.stderr)
        active.deactivate(self)


class _RouteEvents:
    """Tells the run's bus what the interception engine did, as events of the running test."""

    def __init__(self, publish: Callable[[Event], None], current: Callable[[], TestContext | None]) -> None:
        self._publish = publish
        self._current = current

    def _test(self) -> tuple[str, int] | None:
        """The running test, or None: what happens between tests belongs to no test (an
        event without one would make the report count a test that never ran)."""
        ctx = self._current()
        return (ctx.nodeid, ctx.attempt) if ctx is not None else None

    def route_added(self, row: dict[str, Any]) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        self._publish(RouteAdded(
            nodeid=nodeid, attempt=attempt, route_id=row["id"], method=row["method"], matcher=row["matcher"],
            stubbed=row["stubbed"], handler=row["handler"], alias=row["alias"], times=row["times"],
            middleware=row["middleware"]))

    def route_aliased(self, row: dict[str, Any]) -> None:
        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        self._publish(RouteAliased(nodeid=nodeid, attempt=attempt, route_id=row["id"], alias=row["alias"]))

    def request_ended(self, row: dict[str, Any]) -> None:
        from runner.net import header_get  # loaded already: the interceptor tells this

        test = self._test()
        if test is None:
            return
        nodeid, attempt = test
        event = RequestIntercepted(
            nodeid=nodeid, attempt=attempt, id=row["id"], method=row["method"], url=row["url"],
            route_ids=list(row["route_ids"]), aliases=list(row["aliases"]), stubbed=row["stubbed"],
            state=row["state"], status=row["status"], error=row["error"], resource_type=row["resource_type"],
            request_headers=dict(row["request_headers"]), response_headers=dict(row["response_headers"]),
            request_body_size=row["request_body_size"], response_body_size=row["response_body_size"],
            timings=dict(row["timings"] or {}),
            request_body=body_record(row.get("request_body"), header_get(row["request_headers"], "content-type")),
            response_body=body_record(row.get("response_body"),
                                      header_get(row["response_headers"], "content-type")),
            log=bool(row["log"]), open=bool(row.get("open")), late=bool(row.get("late")))
        self._publish(event)
        ctx = self._current()
        if ctx is not None and event.log:
            ctx.add_log("request", event.log_line())



def _report_subscriber_error(subscriber: Any, err: BaseException) -> None:
    """A consumer of the run's events raised: it is unsubscribed; the run goes on."""
    name = getattr(subscriber, "__qualname__", None) or type(subscriber).__name__
    print(f"runner: warning: {name} stopped receiving the run's events after it raised "
          f"{type(err).__name__}: {err}", file=sys.stderr)


def client_certificate_entries(config: Config) -> list[dict[str, Any]]:
    """``clientCertificates`` with every path made absolute (relative to the project root)."""
    root = config.project_root
    out: list[dict[str, Any]] = []
    for entry in config.get("clientCertificates") or []:
        certs = []
        for cert in entry.get("certs", []):
            certs.append({key: resolve_path(root, value) for key, value in cert.items() if value})
        out.append({"url": entry["url"], "ca": [resolve_path(root, ca) for ca in entry.get("ca") or []],
                    "certs": certs})
    return out


def check_base_url(url: str, wait_seconds: float = 10.0) -> str | None:
    """Return None when ``url`` answers HTTP (any status), else a message; retries for a while."""
    deadline = time.monotonic() + wait_seconds
    last = ""
    pause = 0.1
    while True:
        try:
            request = urllib.request.Request(url, method="GET", headers={"User-Agent": "runner"})
            with urllib.request.urlopen(request, timeout=2):
                return None
        except urllib.error.HTTPError:
            return None  # it answered; the status is the app's business
        except (urllib.error.URLError, OSError, ValueError) as err:
            last = str(getattr(err, "reason", err))
        if time.monotonic() >= deadline:
            return (
                f"runner could not verify that the server at baseUrl answers:\n\n  {url}\n\n"
                f"Last error: {last}\n"
                f"runner tried for {int(wait_seconds)} seconds. Start your web server first, "
                "or fix baseUrl in runner.json."
            )
        time.sleep(pause)
        pause = min(pause * 2, 1.0)
