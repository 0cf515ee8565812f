"""The browser host: the engine's event loop and the one browser a run launches and reuses.

The browser is launched in the background (:meth:`BrowserHost.prelaunch`, while pytest starts up)
and waited for on first use; every test after it reuses it with a reset page. ``runner run``
starts that launch earlier still, as soon as the configuration is read (:func:`launch_early`, while
the rest of runner loads): the host takes it over when it would launch the same browser the same
way, else closes it and launches anew. A launch that failed
is not tried again: every later test fails the same way. A loop found blocked (an ``async def``
handler that never returns) is given up with its browser, and the next use starts both anew.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import Any

from runner.config import Config
from runner.engine.browser import BrowserSession, LaunchOptions
from runner.engine.discovery import BrowserSpec, find_browser
from runner.engine.loop import EngineBlocked, EngineLoop
from runner.engine.remote import RemoteEndpoint
from runner.engine.routing import RoutingTarget
from runner.errors import BrowserNotFoundError
from runner.events import BrowserStarted, Event

__all__ = ["STALL_S", "BrowserHost", "drop_early_launch", "launch_early"]

# The longest the run waits for the browser to launch (Playwright's own bound comes first).
_LAUNCH_WAIT_S = 120
# The per-test reset bounds each of its steps (engine/browser.py); this bounds them all.
_RESET_WAIT_S = 120
# How long the reset (or a trace's start and end) may find the engine's loop running nothing
# before it is given up, and how long a loop a command found blocked is given to answer again
# (see BrowserHost.abandon_blocked).
STALL_S = 10.0
_BLOCKED_WAIT_S = 1.0
# How long closing a browser launched ahead that the run does not use may take.
_DROP_WAIT_S = 30


def _browser_spec(browser_choice: str | None, headed: bool, endpoint: RemoteEndpoint | None) -> BrowserSpec:
    """The browser to launch; raises ``BrowserNotFoundError`` when there is none."""
    if endpoint is not None:  # the server has the browser: nothing to find here
        choice = browser_choice if browser_choice in ("chrome", "msedge") else "chromium"
        return BrowserSpec(choice, endpoint.label)
    return find_browser(browser_choice, headless=not headed)


def _launch_options(c: Config, spec: BrowserSpec, *, headed: bool, endpoint: RemoteEndpoint | None,
                    browser_choice: str | None) -> LaunchOptions:
    return LaunchOptions(
        browser=spec,
        headless=not headed,
        chrome_web_security=bool(c.chrome_web_security),
        user_agent=c.user_agent,
        viewport=(int(c.viewport_width), int(c.viewport_height)),
        downloads_folder=c.path("downloadsFolder"),
        frame_guard=("parser" if c.experimental_source_rewriting else
                     "patterns" if c.modify_obstructive_code else None),
        endpoint=endpoint, browser_choice=browser_choice or os.environ.get("RUNNER_BROWSER") or None,
    )


def launch_early(loop: EngineLoop, config: Config, *, browser_choice: str | None, headed: bool,
                 endpoint: RemoteEndpoint | None) -> None:
    """``runner run`` (and ``runner open``'s spare child): start launching the browser on ``loop``
    for ``config`` now (the configuration before the plugins file), while the rest of runner loads
    and pytest starts; the run's host takes it over (:meth:`BrowserHost.prelaunch`). Nothing is told here: without a
    browser nothing is launched, and the run says so where it checks for one, as it did."""
    try:
        options = _launch_options(config, _browser_spec(browser_choice, headed, endpoint), headed=headed,
                                  endpoint=endpoint, browser_choice=browser_choice)
    except Exception:  # noqa: BLE001 - told in its place by the host's own launch
        return
    session = BrowserSession(options, early_driver=loop.take_early_driver())
    loop.early_launch = (session, loop.submit(session.start()))


def drop_early_launch(loop: EngineLoop) -> None:
    """Close the browser launched ahead on ``loop`` that no host took (the run stopped before it
    needed one), so that none is left behind."""
    _close_launch(loop, loop.take_early_launch())


def _close_launch(loop: EngineLoop, launch: tuple[BrowserSession, Any] | None) -> None:
    """Wait for ``launch`` (a browser session and the future of its start) and close it."""
    if launch is None:
        return
    session, future = launch

    async def _drop() -> None:
        try:
            await asyncio.wrap_future(future)
        except Exception:  # noqa: BLE001 - a launch that failed has nothing to close but its driver
            pass
        await session.close()

    try:
        loop.run(_drop(), _DROP_WAIT_S)
    except Exception:  # noqa: BLE001 - closing must not raise; a frozen one is killed below
        session.kill()


class BrowserHost:
    """The run's engine loop and browser: launched once in the background, reset for each test,
    relaunched after a crash (each launch told as ``browser.started``), given up when blocked."""

    def __init__(self, *, config: Callable[[], Config], browser_choice: str | None, headed: bool,
                 endpoint: RemoteEndpoint | None, loop: EngineLoop | None,
                 routing: Callable[[], RoutingTarget], publish: Callable[[Event], None],
                 on_abandon: Callable[[str], None]) -> None:
        self._config = config  # the run's configuration when the browser is launched
        self.browser_choice = browser_choice
        self.endpoint = endpoint  # --browser-endpoint: a Playwright server's browser, not a local one
        self.headed = headed
        self._routing = routing  # what the route handler needs from the run, made at the launch
        self._publish = publish
        self._on_abandon = on_abandon  # told why, when a blocked loop and its browser were given up
        self._loop: EngineLoop | None = loop
        self._browser: BrowserSession | None = None
        self._launching: tuple[BrowserSession, Any] | None = None
        self._launch_error: BrowserNotFoundError | None = None
        self._browser_spec: BrowserSpec | None = None
        self._launches_told = 0

    @property
    def loop(self) -> EngineLoop:
        """The engine's loop, started on first use (again after one was given up)."""
        if self._loop is None:
            self._loop = EngineLoop()
        return self._loop

    @property
    def started_loop(self) -> EngineLoop | None:
        """The engine's loop when one runs (closing through it must not start one)."""
        return self._loop

    @property
    def launched(self) -> BrowserSession | None:
        """The browser when one was launched (no launch is started or waited for)."""
        return self._browser

    @property
    def browser_spec(self) -> BrowserSpec:
        if self._browser_spec is None:
            self._browser_spec = _browser_spec(self.browser_choice, self.headed, self.endpoint)
        return self._browser_spec

    def launch_options(self) -> LaunchOptions:
        return _launch_options(self._config(), self.browser_spec, headed=self.headed, endpoint=self.endpoint,
                               browser_choice=self.browser_choice)

    def prelaunch(self) -> None:
        """Start launching the browser in the background (while pytest starts up), or take over
        the one :func:`launch_early` started when it was launched with the same options (the
        plugins file can change them: then it is closed and another launched)."""
        if self._browser is None and self._launching is None:
            options = self.launch_options()
            early = self.loop.take_early_launch()
            if early is not None and early[0].options == options:
                early[0].route_to(self._routing())
                self._launching = early  # the first launch: nothing was told before it
                return
            _close_launch(self.loop, early)
            session = BrowserSession(options, self._routing(), early_driver=self.loop.take_early_driver())
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
        self.tell_launches()
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

    def tell_launches(self) -> None:
        """Publish ``browser.started`` for every launch not told yet (relaunches after a crash)."""
        browser = self._browser
        if browser is None or browser.launches == self._launches_told:
            return
        self._launches_told = browser.launches
        spec = self.browser_spec
        self._publish(BrowserStarted(name=spec.name, version=browser.version, path=spec.path,
                                     headless=not self.headed, launch=browser.launches))

    def reset(self, viewport: tuple[int, int], clear_routes: Callable[[], None], *,
              isolate: bool = True) -> BrowserSession:
        """The browser, its page reset for a new test (``clear_routes`` drops the last test's
        routes first; without ``isolate``, the page, cookies and storage stay: testIsolation). An engine loop found blocked (by the last test's commands, or now by the
        reset) is given up first, and the reset done anew."""
        for last in (False, True):
            self.abandon_blocked()
            browser = self.browser()
            clear_routes()
            try:
                self.loop.run(browser.reset(viewport, isolate=isolate), _RESET_WAIT_S, stall=STALL_S)
                return browser
            except EngineBlocked:
                if last:
                    raise
            except BrowserNotFoundError as err:
                self._launch_error = err
                raise
        raise AssertionError("unreachable")

    def abandon_blocked(self, *, unless_answers: bool = False) -> bool:
        """When the engine's loop is still blocked (an ``async def`` handler that does not
        return), give it up: its browser and driver are killed, what was being recorded is lost
        (``on_abandon`` is told why), and the next use makes a new loop and browser. Only a loop
        a call already found blocked is suspected; with ``unless_answers`` any loop that does not
        answer now. Returns True when it had to."""
        loop = self._loop
        if loop is None or not (unless_answers or loop.stalled):
            return False
        blocker = loop.blocker(within=_BLOCKED_WAIT_S)
        if blocker is None:
            return False
        why = f"runner's event loop was blocked by {blocker}"
        print(f"runner: warning: {why}; it was given up, with its browser.", file=sys.stderr)
        early = loop.take_early_launch()
        for browser in (self._browser, self._launching[0] if self._launching else None, early[0] if early else None):
            if browser is not None:
                browser.kill()
        self._browser = self._launching = None
        self._loop = None  # left to its blocked thread (a daemon: it keeps no process alive)
        self._on_abandon(why)
        return True

    def finish_launch(self) -> None:
        """Wait for a launch under way, so that closing finds its browser (a failed one is
        simply not there). A browser launched ahead that was not taken over is closed."""
        if self._loop is not None:
            drop_early_launch(self._loop)
        if self._launching is not None:
            try:
                self.browser()
            except Exception:  # noqa: BLE001 - it is closed by close_browser either way
                pass

    def close_browser(self) -> None:
        """Close the browser launched so far (``runner run --workers`` checks a browser endpoint
        in the controlling process, then leaves the browsers to the workers)."""
        browser, self._browser = self._browser, None
        if browser is not None and self._loop is not None:
            try:
                self._loop.run(browser.close(), 30)
            except Exception:  # noqa: BLE001 - closing must not raise
                pass

    def close_loop(self) -> None:
        """Stop the engine's loop (the browser is closed first: :meth:`close_browser`)."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None
