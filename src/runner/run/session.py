"""One run: the coordinator that wires configuration, plugins file, bus and the run's parts.

A :class:`RunSession` lives as long as the pytest process. It loads the configuration and the
plugins file, makes the run's event bus (every event redacted before any subscriber sees it), and
hands each test its ``runner`` object, reset page and recordings. The parts do the work:

- ``host`` (:mod:`runner.run.browser_host`): the engine's loop and the browser, launched lazily on
  the first test that asks for it (or in the background) and reused by every test after it;
- ``network`` (:mod:`runner.run.network`): the interceptor, blocked hosts and client certificates,
  the page's routing kept in step (route events told through :mod:`runner.run.route_events`);
- ``recordings`` (:mod:`runner.run.recordings`): spec videos and test traces;
- ``site`` (:mod:`runner.run.site`) and ``component`` (:mod:`runner.run.component`): the file
  server, and ``runner.mount``'s hosts.

The session makes itself the active run (``runner.active``) while it lives; ``close()`` leaves no
browser process behind.
"""

from __future__ import annotations

import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

from runner import active
from runner.commands.api import RunnerCommands
from runner.commands.context import TestContext
from runner.commands.custom import forget_commands
from runner.config import Config, load_config
from runner.config.network_conditions import read_conditions
from runner.engine.loop import EngineLoop, EngineTimeout
from runner.engine.remote import RemoteEndpoint
from runner.errors import ConfigError
from runner.events import EventBus
from runner.redaction import Redactor, redact_event
from runner.run.browser_host import BrowserHost
from runner.run.component import ComponentMode
from runner.run.live_view import LiveView
from runner.run.network import END_WAIT_S, RunNetwork
from runner.run.recordings import Recordings
from runner.run.site import ProjectSite
from runner.usercode.plugins_file import PluginEvents, load_plugins_file
from runner.usercode.support import forget_support, install_support, load_support

__all__ = ["RunSession", "check_base_url"]


class RunSession:
    """Everything one pytest process shares between its tests."""

    def __init__(self, config: Config, *, browser: str | None = None, headed: bool = False,
                 mode: str = "run", loop: EngineLoop | None = None, endpoint: RemoteEndpoint | None = None) -> None:
        self.config = config
        self.headed = headed
        self.mode = mode  # "run" (runner run), "open" (interactive), "pytest" (plain pytest)
        # The run's events: every fact of the run is published here (see runner.events).
        self.bus = EventBus(on_error=_report_subscriber_error)
        # what the run hides as [redacted] in every event, before any subscriber sees it
        self.redactor = Redactor.for_config(config)
        self.bus.transform = lambda event: redact_event(self.redactor, event)
        self.events = PluginEvents(publish=self.bus.publish)
        self.videos_enabled = True  # off in pytest-xdist workers (specs are split across them)
        self.shard: dict[str, Any] | None = None  # runner run --shard: which share of the specs (run/shards.py)
        self.only_changed: dict[str, Any] | None = None  # runner run --only-changed: what it kept, why (run/changed)
        self.support_module: ModuleType | None = None
        self._current: TestContext | None = None
        self.sessions: dict[str, Any] = {}  # runner.session() cache, shared by the run's tests
        self.screenshot_paths: set[Path] = set()  # no two screenshots of the run share a file
        self.trace_paths: set[Path] = set()  # nor two traces
        self._warnings: list[str] = []  # said during a test: the plugin prints them (take_warnings)
        #: runner open: the page's screencast streamed to the UI (set by its child process)
        self.live_view: LiveView | None = None
        self.host = BrowserHost(config=lambda: self.config, browser_choice=browser, headed=headed,
                                endpoint=endpoint, loop=loop, routing=lambda: self.network.routing_target(),
                                publish=self.bus.publish, on_abandon=self._engine_abandoned)
        self.network = RunNetwork(host=self.host, config=lambda: self.config, current=lambda: self._current,
                                  publish=self.bus.publish, warn=self._warn)
        self.recordings = Recordings(
            host=self.host, config=lambda: self.config, redactor=lambda: self.redactor,
            videos_enabled=lambda: self.mode == "run" and not self.headed and self.videos_enabled,
            # an after:spec handler may read the spec's video: finish it before the event
            finish_in_background=lambda: not self.events.has("after:spec"),
            publish=self.bus.publish, warn=self._warn)
        self.site = ProjectSite(lambda: self.config)
        self.component = ComponentMode(config=lambda: self.config, site=self.site, events=lambda: self.events)
        self.started = time.monotonic()
        active.activate(self)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def create(cls, *, root: Path | str | None = None, config_file: Any = None,
               cli_config: Any = None, cli_env: Any = None, browser: str | None = None,
               headed: bool = False, mode: str = "run", testing_type: str = "e2e",
               load_plugins: bool = True, loop: EngineLoop | None = None,
               endpoint: RemoteEndpoint | None = None, config: Config | None = None) -> RunSession:
        """Load and validate the configuration (unless ``config`` is given, loaded already),
        then run the plugins file's ``setup``.

        Raises ``ConfigError`` (bad configuration or plugins file).
        """
        if config is None:
            config = load_config(root, config_file=config_file, testing_type=testing_type,
                                 cli_config=cli_config, cli_env=cli_env)
        session = cls(config, browser=browser, headed=headed, mode=mode, loop=loop, endpoint=endpoint)
        try:
            if load_plugins:
                session._load_plugins_file()
            session.network.load_certificates(session.config)
        except BaseException:
            session.close()
            raise
        if mode == "run":
            # A headless run never watches files and keeps no per-test snapshots, as in the original.
            session.config = session.config.merged(
                {"watchForFileChanges": False, "numTestsKeptInMemory": 0},
                source="mode", origin="runner run (headless run mode)")  # not "cli": no flag set them
        return session

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
        """Import the support file once (the plugin registers it with pytest), its folder
        installed as the package ``support`` (``usercode/support.py``); the custom commands it
        adds replace those of an earlier load."""
        forget_commands()
        forget_support()
        path = self.config.path("supportFile")
        if path is None:
            return None
        if not path.is_file():
            if self.config.sources.get("supportFile") == "default":
                if path.parent.is_dir():  # helpers without a support file are importable all the same
                    install_support(path.parent)
                return None
            raise ConfigError(
                f"supportFile {str(path)!r} does not exist.\n"
                "Expected a Python file loaded before the specs; create it, fix the path, "
                "or set supportFile to false."
            )
        self.support_module = load_support(path)
        return self.support_module

    def current_config(self) -> Config:
        """The running test's configuration (its marks included), else the run's."""
        return self._current.config if self._current is not None else self.config

    def backend_environment(self) -> dict[str, str]:
        """The environment that sends the app's server's requests through runner's proxy
        (``Runner.backend_environment()``; see ``RunNetwork.backend_environment``)."""
        return self.network.backend_environment()

    def _warn(self, message: str) -> None:
        self._warnings.append(message)  # the list is replaced by take_warnings

    def take_warnings(self) -> list[str]:
        """The warnings said during the test since the last call (a trace that could not be
        started or written): the plugin prints them where pytest does not capture them."""
        warnings, self._warnings = self._warnings, []
        return warnings

    def _engine_abandoned(self, why: str) -> None:
        """The browser host gave up a blocked loop: what lived on it goes with it."""
        self.network.forget_interceptor()
        self.recordings.abandon(why)

    # -- tests ------------------------------------------------------------------------------
    def begin_test(self, config: Config, *, spec_relative: str, title: str,
                   screenshot_dir: Any = None, attempt: int = 1, nodeid: str = "",
                   trace: bool = False, spec_file: Path | None = None) -> RunnerCommands:
        """Reset the page for a new test and return the ``runner`` fixture's object. With
        ``trace``, the attempt is recorded in a trace (:meth:`end_test` writes or discards it).
        ``spec_file``: the spec's file (where its snapshot baselines live).

        Raises ``BrowserNotFoundError`` when the browser could not be (re)launched; every later
        test would fail the same way (see ``host.launch_error``).
        """
        routed = self.network.begin_test(config)
        viewport = (int(config.viewport_width), int(config.viewport_height))
        # Component tests always start clean, as in the original (its schema refuses
        # `component.testIsolation: false`; a top-level false is for e2e tests only).
        isolate = config.test_isolation or config.testing_type == "component"
        self.recordings.settle_last_test()
        browser = self.host.reset(viewport, self.network.clear, isolate=isolate)
        self.recordings.settle_discarded_trace()  # the reset and the last trace's discarding overlap
        self.host.tell_launches()
        loop = self.host.loop
        if routed:
            loop.run(browser.set_routing(True), 30)
        # networkConditions: every test starts with the option's (a test's own end with it); no
        # trip to the loop when the page has them already (the network as it is, mostly)
        conditions = read_conditions(config.network_conditions, "networkConditions")
        if conditions != browser.network_conditions:
            loop.run(browser.set_network_conditions(conditions), 30)
        self.recordings.videos.ensure(spec_relative, browser)
        if self.live_view is not None:
            self.live_view.ensure(browser.devtools, viewport)
        ctx = TestContext(
            config=config, loop=loop, browser_getter=self.host.browser, base_url=self.site.base_url,
            spec_relative=spec_relative, title=title, project_root=config.project_root,
            attempt=attempt, screenshot_paths=self.screenshot_paths, nodeid=nodeid,
            publish=self.bus.publish, redactor=self.redactor, spec_file=spec_file,
        )
        if trace:
            ctx.traced = self.recordings.start_trace(browser, config, spec_relative, title, attempt)
        self._current = ctx
        if config.strict_network is not False:
            strict = self.network.interceptor.strict_network(config.strict_network)  # watches the page
            ctx.end_checks.append(strict.failure)
        return RunnerCommands(ctx, events=self.events, interceptor=lambda: self.network.interceptor,
                              screenshot_dir=screenshot_dir, session_cache=self.sessions,
                              mount_host=self.component.mount_host(),
                              backend_proxy=lambda: self.network.backend_proxy_started)

    def settle_requests(self) -> None:
        """The test's last command returned: its requests still in flight are waited for (a
        little) and recorded in it (see ``RunNetwork.settle``). Called before the test's requests
        table is read; :meth:`end_test` calls it too."""
        self.network.settle()

    def run_closers(self) -> None:
        """Run the test's closers (a HAR written when the test ends), once: before its command log
        is read, so the lines they add are the test's. :meth:`end_test` calls it too."""
        ctx = self._current
        while ctx is not None and ctx.closers:
            close = ctx.closers.pop(0)
            try:
                said = close()
            except Exception as err:  # noqa: BLE001 - one closer's failure must not lose the others
                said = f"{getattr(close, '__qualname__', 'a closer')} failed at the end of the test: {err}"
            if said:
                self._warnings.append(said)

    def end_test(self, trace_path: Path | None = None,
                 error: tuple[BaseException, str | None, int | None] | None = None) -> str | None:
        """The test ended: its trace (when it was traced) is written to ``trace_path``, or
        discarded when that is None. ``error``: what the test failed with and the spec's file and
        line it was raised at (a trace whose steps do not carry it gets a last step with it).
        Returns the trace's path when one was written."""
        self.settle_requests()
        ctx = self._current
        self.run_closers()
        self._current = None  # what follows is not the test's: it fails no command
        self.recordings.catch_up()
        trace = self.recordings.end_trace(ctx, trace_path, error) if ctx is not None and ctx.traced else None
        self.network.clear()
        browser = self.host.launched
        if browser is not None and browser.alive:
            try:
                self.host.loop.run(browser.set_routing(False), END_WAIT_S)
                if browser.network_conditions is not None:
                    self.host.loop.run(browser.set_network_conditions(None), END_WAIT_S)
                self.host.loop.run(browser.wait_downloads(), 60)
            except EngineTimeout:
                browser.stopped_responding("The page did not answer at the end of the test.")
            except Exception:  # noqa: BLE001 - the next reset will relaunch what broke
                pass
        return trace

    def close(self) -> None:
        """Close the browser, the loop, the file server and the dev server. Safe to call twice."""
        # nothing can be closed through a blocked loop (wrongly suspected, it is killed instead)
        self.host.abandon_blocked(unless_answers=True)
        self.recordings.settle_last_test()
        self.recordings.settle_discarded_trace()
        self.host.finish_launch()
        self.recordings.close_videos()
        self.host.close_browser()
        self.network.close(self.host.started_loop)  # their connection pools live on the engine's loop
        self.host.close_loop()
        self.site.close()
        self.component.close()
        active.deactivate(self)


def _report_subscriber_error(subscriber: Any, err: BaseException) -> None:
    """A consumer of the run's events raised: it is unsubscribed; the run goes on."""
    name = getattr(subscriber, "__qualname__", None) or type(subscriber).__name__
    print(f"runner: warning: {name} stopped receiving the run's events after it raised "
          f"{type(err).__name__}: {err}", file=sys.stderr)


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
