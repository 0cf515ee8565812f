"""The Playwright adapter: one browser, one context and one page, reused from test to test.

Only ``engine/`` imports Playwright, and only its modules hold Playwright objects: the commands
call the verbs :class:`BrowserSession` gets from its families (``page_verbs``, ``element_verbs``,
``network_verbs``, ``storage_verbs``, ``capture_verbs``, ``studio_verbs``, ``script_verbs``,
``a11y_verbs``, ``clock_verbs``, ``conditions_verbs``; see ``holder.py``), which take and return
plain data. This module launches the browser (or connects to a remote one), makes its context
and page, replaces what broke, resets the page between tests and closes it all. Everything here is ``async`` and runs on the engine loop (``loop.py``); the commands call
it through that loop.

Isolation between tests comes from :meth:`BrowserSession.reset`, which is measured at about a
quarter of the cost of a new context and page (see ``shared/notes/engine-facts.md``): routes off,
``about:blank``, cookies and permissions cleared, storage of every origin the test touched
cleared through CDP, the HTTP cache cleared, and the viewport set back.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Page,
    Playwright,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from runner.engine.a11y_verbs import A11yVerbs
from runner.engine.capture_verbs import CaptureVerbs
from runner.engine.clock_verbs import ClockVerbs
from runner.engine.conditions_verbs import ConditionsVerbs
from runner.engine.devtools import DevTools, quietly
from runner.engine.discovery import BrowserSpec
from runner.engine.driver import driver
from runner.engine.element_verbs import ElementVerbs
from runner.engine.network_verbs import NetworkVerbs
from runner.engine.page_verbs import PageVerbs
from runner.engine.popups import PopupPages
from runner.engine.recovery import CLOSE_BOUND, OPEN_BOUND, Recovery
from runner.engine.script_verbs import ScriptVerbs
from runner.engine.snapshot_verbs import SnapshotVerbs
from runner.engine.storage_verbs import StorageVerbs, all_of
from runner.engine.studio_verbs import StudioVerbs
from runner.engine.tracing import ContextTracing
from runner.errors import BrowserNotFoundError
from runner.usercode.tracebacks import first_line

if TYPE_CHECKING:
    from runner.engine.remote import RemoteEndpoint
    from runner.engine.routing import RoutingTarget

__all__ = ["LaunchOptions", "BrowserSession", "QUIET_FLAGS"]

# Keep Chromium from phoning home on a closed network (each of these was seen to matter).
QUIET_FLAGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
    "--no-pings",
)

# How long the per-test reset of a page that seemed fine may take (seconds); the other steps
# that replace a page or browser are bounded in recovery.py.
_CLEAN_BOUND = 10.0
_LAUNCH_TIMEOUT_MS = 60_000  # launching the browser (Playwright's own bound)


def _watch_driver(pw: Playwright, on_exit: Callable[[], None]) -> int | None:
    """Call ``on_exit`` when ``pw``'s driver process goes away (killed, crashed, stopped), and
    return its process id (None when it cannot be known).

    Playwright tells neither (its browser even stays "connected"), so this reads its internals:
    the connection's ``close`` event and the transport's process. It also reads the transport's
    error, which asyncio would otherwise log at exit as "Future exception was never retrieved".
    """
    connection = getattr(getattr(pw, "_impl_obj", None), "_connection", None)
    if connection is not None:
        connection.on("close", on_exit)
    transport = getattr(getattr(getattr(pw.stop, "__self__", None), "_client", None), "_transport", None)
    error = getattr(transport, "on_error_future", None)
    if isinstance(error, asyncio.Future):
        error.add_done_callback(lambda f: f.cancelled() or f.exception())
    pid = getattr(getattr(transport, "_proc", None), "pid", None)
    return pid if isinstance(pid, int) else None



def _launch_failure(path: str, err: BaseException) -> str:
    """What to tell when Playwright could not launch the browser at ``path``: how it ended and
    the last lines it wrote on stderr (Playwright's log holds them), then the fix."""
    text = str(err)
    said: list[str] = []
    for line in re.findall(r"\[pid=\d+\]\[err\] (.*)", text):
        if line.strip() and line.strip() not in said:
            said.append(line.strip())
    ended = re.search(r"<process did exit: exitCode=(\w+), signal=(\w+)>", text)
    if ended and ended.group(2) not in ("null", "None"):
        how = f"it was killed by {ended.group(2)}"
    elif ended:
        how = f"it exited with code {ended.group(1)} before it answered"
    elif "Timeout" in first_line(err):
        how = f"it did not answer within {_LAUNCH_TIMEOUT_MS // 1000} s"
    else:
        how = first_line(err)
    last_words = "".join(f"\n  {line}" for line in said[-3:])
    return (
        f"The browser could not be started: {path!r}: {how}.{last_words}\n"
        f"Expected Chromium or Chrome that runs on this machine: run `{path} --version` to see "
        "what it lacks, or point runner at another browser with --browser PATH (or "
        "RUNNER_BROWSER=PATH)."
    )


@dataclass
class LaunchOptions:
    """What the browser, context and page are created with (from the configuration)."""

    browser: BrowserSpec
    headless: bool = True
    chrome_web_security: bool = True
    user_agent: str | None = None
    viewport: tuple[int, int] = (1000, 660)
    downloads_folder: Path | None = None
    # modifyObstructiveCode / experimentalSourceRewriting: None (off), "patterns" or "parser"
    frame_guard: str | None = None
    extra_args: tuple[str, ...] = ()
    # --browser-endpoint: connect to a Playwright server's browser instead of launching one
    endpoint: RemoteEndpoint | None = None
    browser_choice: str | None = None  # what --browser said (sent to the server), None: its default


class BrowserSession(Recovery, PageVerbs, SnapshotVerbs, ElementVerbs, NetworkVerbs, StorageVerbs, CaptureVerbs,
                     StudioVerbs, ScriptVerbs, A11yVerbs, ClockVerbs, ConditionsVerbs):
    """Owns Playwright, the browser, its one context and page. Not thread-safe: loop only.

    ``routing`` says where the page's requests go while it is routed or watched (see
    :meth:`set_routing`, :meth:`set_watching`); without one, routed requests go on unchanged.

    The verbs come in families, each a base class (the commands and the plugin call
    ``browser.goto``, ``browser.cookies``, ``browser.set_routing`` on this one object): they
    use what this class holds (``holder.BrowserHolder``), and only this class makes and
    replaces it.
    """

    def __init__(self, options: LaunchOptions, routing: RoutingTarget | None = None,
                 early_driver: Any = None) -> None:
        self.options = options
        self._routing = routing
        self._early_driver = early_driver  # the driver started ahead (used by the first start)
        self._pw: Playwright | None = None
        self._driver_gone = False
        self._driver_pid: int | None = None
        self.browser: Browser | None = None
        self._browser_pid: int | None = None
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.cdp: CDPSession | None = None
        self.devtools: DevTools | None = None  # what the video recorder gets instead of `cdp`
        self.frame_guard = None
        self.popups: PopupPages | None = None  # the other pages of the context (popups.py)
        self.preflights: Any = None  # while routed: CORS preflights through the routes (preflights.py)
        self._direct: Any = None  # runner's own HTTP client (context_fetch.py), made on first use
        self._agent: str | None = None  # the browser's user agent, once asked
        # Why the page or browser cannot serve the test (the message the test fails with); the
        # next reset replaces what broke.
        self.broken: str | None = None
        self._touched_origins: set[str] = set()
        self._observer: Callable[[], object] | None = None  # stops the request listener while watching
        self._observer_quiet = False
        self._ends: Any = None  # the ends of the context's requests (request_events.py)
        self._revalidations: Any = None  # while watching: which responses were the server's 304
        self._routed = False
        self._ws_page: Page | None = None  # the page whose WebSockets go to the routes (once set)
        self._downloads: list[asyncio.Task[None]] = []
        self._fresh = False
        self.launches = 0
        self._tracing = ContextTracing()
        self.clock_installed = False
        self.context_generation = 0
        self.network_conditions = None
        self._condition_sessions = {}
        self._conditions_heard = None
        self._condition_tasks = set()

    def route_to(self, routing: RoutingTarget) -> None:
        """Where the page's requests go from now on (a browser launched before its run's routing
        was made gets it here)."""
        self._routing = routing

    # -- lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        """Launch the browser (and Playwright's driver first, when there is none).

        Raises ``BrowserNotFoundError`` saying why the browser or the driver could not start.
        """
        if self._pw is None:
            early, self._early_driver = self._early_driver, None
            pw = self._pw = await driver(early)
            self._driver_gone = False
            self._driver_pid = _watch_driver(pw, lambda: self._driver_exited(pw))
        args = list(QUIET_FLAGS) + list(self.options.extra_args)
        if not self.options.chrome_web_security:
            args += ["--disable-web-security", "--disable-site-isolation-trials"]
        path = self.options.browser.path
        if self.options.endpoint is not None:
            from runner.engine.remote import connect_remote

            browser = await connect_remote(self._pw.chromium, self.options.endpoint, headless=self.options.headless,
                                           args=args, browser_choice=self.options.browser_choice,
                                           timeout_ms=_LAUNCH_TIMEOUT_MS)
            self.browser, self._browser_pid = browser, None  # its process is on the server: never ours to kill
            self.launches += 1
            browser.on("disconnected", self._on_disconnected)
            await self._new_context()
            return
        try:
            browser = await self._pw.chromium.launch(
                executable_path=path, headless=self.options.headless, args=args,
                chromium_sandbox=False, timeout=_LAUNCH_TIMEOUT_MS,
                # A terminal's Ctrl-C reaches the driver too (it is in runner's process group); by
                # default it then closes the browser under the running test. runner ends the run
                # itself (the failure report, the video's last frame) and closes the browser after.
                handle_sigint=False,
            )
        except PlaywrightError as err:
            raise BrowserNotFoundError(_launch_failure(path, err)) from err
        self.browser, self._browser_pid = browser, None
        self.launches += 1
        browser.on("disconnected", self._on_disconnected)
        await asyncio.gather(self._new_context(), self._find_browser_pid(browser))

    async def _find_browser_pid(self, browser: Browser) -> None:
        """Learn the browser's process id (Playwright does not tell it), to kill it should it
        freeze. Asked while the first page opens, so it costs no time."""
        try:
            cdp = await browser.new_browser_cdp_session()
            info = await cdp.send("SystemInfo.getProcessInfo")
            await cdp.detach()
        except PlaywrightError:
            return
        pid = next((p["id"] for p in info.get("processInfo", []) if p.get("type") == "browser"), None)
        if browser is self.browser and isinstance(pid, int):
            self._browser_pid = pid

    async def _new_context(self) -> None:
        assert self.browser is not None
        self._agent = None  # a new context may have another user agent: asked again when needed
        width, height = self.options.viewport
        kwargs: dict[str, Any] = {
            "viewport": {"width": width, "height": height},
            "accept_downloads": True,
            # Like the original, certificate errors of the app's servers (self-signed local
            # HTTPS) do not stop a test.
            "ignore_https_errors": True,
            "bypass_csp": not self.options.chrome_web_security,
        }
        if self.options.user_agent:
            kwargs["user_agent"] = self.options.user_agent
        self.context = await self.browser.new_context(**kwargs)
        self.context_generation += 1
        self.clock_installed = False
        self.network_conditions = None  # a new context's pages have the network as it is
        self._condition_sessions = {}
        self.page = await self.context.new_page()
        self.cdp = await self.context.new_cdp_session(self.page)
        self.devtools = DevTools(self.cdp)
        self.popups = PopupPages(self.context, self, self._direct_client)
        self.frame_guard = None
        if self.options.frame_guard is not None:
            from runner.engine.frame_guard import FrameGuard

            self.frame_guard = FrameGuard(self.context, self.page, parse=self.options.frame_guard == "parser")
            await self.frame_guard.start()
        old, self.preflights = self.preflights, None  # its session went with the old context
        if old is not None:
            asyncio.ensure_future(old.stop())
        self.page.on("crash", self._on_crash)
        self.page.on("framenavigated", self._on_navigated)
        self.page.on("download", self._on_download)
        self._routed = False
        self._observer = None
        self._ends = None  # its listeners went with the old context
        self._revalidations = None
        self.broken = None
        self._fresh = True  # a new page is clean: the first reset can skip most of its work

    @property
    def version(self) -> str:
        """The browser's version ("" before it is launched)."""
        return self.browser.version if self.browser is not None else ""

    async def reset(self, viewport: tuple[int, int], *, isolate: bool = True) -> None:
        """Make the page as clean as a new one, cheaply; replace it when it does not answer
        (within ``_CLEAN_BOUND``) or broke. Without ``isolate`` (``testIsolation: false``) the
        page stays where it is, with its cookies and storage; routing and the viewport are
        reset all the same. Raises ``BrowserNotFoundError`` when a browser had to be launched
        and could not be."""
        if self.clock_installed and self.broken is None:
            # Playwright cannot take a clock out of a context (its script stays in every document):
            # the next test gets a new context, as after a crash, and real time
            self.broken = "The last test installed a clock."
        await self.ensure_alive()
        if not self._fresh:
            try:
                await asyncio.wait_for(self._clean(isolate), _CLEAN_BOUND)
            except (PlaywrightError, TimeoutError):
                self.stopped_responding("The page did not answer its reset between tests.")
                await self.ensure_alive()
        self._fresh = False
        await asyncio.wait_for(self._set_viewport(viewport), OPEN_BOUND)

    async def _clean(self, isolate: bool) -> None:
        assert self.page is not None and self.context is not None and self.cdp is not None
        await self.set_routing(False)
        self.set_watching(False)
        if self.popups is not None:
            await self.popups.close_all()
        if not isolate:
            return
        await self._blank()
        # Independent of one another once the page has left the test's origins: sent together,
        # they cost about one round trip instead of four (each waits its turn behind the
        # screencast's frames and the trace's traffic when those run).
        await all_of(self.context.clear_cookies(), self.context.clear_permissions(),
                     self._forget_origins(), self.cdp.send("Network.clearBrowserCache"))

    async def _set_viewport(self, viewport: tuple[int, int]) -> None:
        assert self.page is not None
        size = self.page.viewport_size
        if not size or (size["width"], size["height"]) != viewport:
            await self.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})


    async def _blank(self) -> None:
        """Navigate to about:blank; a late error page of the last test can interrupt it once.
        Raises Playwright's ``TimeoutError`` when the page does not answer."""
        assert self.page is not None
        for _ in range(3):
            try:
                await self.page.goto("about:blank", timeout=CLOSE_BOUND * 1000)
                return
            except PlaywrightTimeoutError:
                raise
            except PlaywrightError:
                await asyncio.sleep(0.01)
        # The page will not settle: a fresh context is as clean and only slower.
        assert self.context is not None
        await self.context.close()
        await self._new_context()

    async def close(self) -> None:
        """Close the browser and stop the driver. Each step is bounded: a browser that does not
        close in time is killed, so none is left behind."""
        guard, self.preflights = self.preflights, None
        if guard is not None:
            await guard.stop()
        client, self._direct = self._direct, None
        if client is not None:
            await quietly(client.close())
        if "runner.engine.body_stream" in sys.modules:  # loaded only when a body was throttled
            await sys.modules["runner.engine.body_stream"].close_streams()
        for closer in (self.context, self.browser):
            if closer is None:
                continue
            try:
                await asyncio.wait_for(closer.close(), CLOSE_BOUND)
            except TimeoutError:  # frozen
                self._kill_browser()
                break
            except Exception:  # noqa: BLE001 - closed already, or its driver is gone
                pass
        self._forget_browser()
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), CLOSE_BOUND)
            except Exception:  # noqa: BLE001
                pass
