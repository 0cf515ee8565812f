"""The Playwright adapter: one browser, one context and one page, reused from test to test.

Only ``engine/`` imports Playwright, and only its modules hold Playwright objects: the commands
call the verbs :class:`BrowserSession` gets from :class:`~runner.engine.page_verbs.PageVerbs`,
which take and return plain data. Everything here is ``async`` and runs on the engine loop
(``loop.py``); the commands call it through that loop.

Isolation between tests comes from :meth:`BrowserSession.reset`, which is measured at about a
quarter of the cost of a new context and page (see ``shared/notes/engine-facts.md``): routes off,
``about:blank``, cookies and permissions cleared, storage of every origin the test touched
cleared through CDP, the HTTP cache cleared, and the viewport set back.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Download,
    Page,
    Playwright,
    Request,
    Route,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from runner.engine.devtools import DevTools, quietly
from runner.engine.discovery import BrowserSpec
from runner.engine.page_verbs import DOM_SCRIPT, PageVerbs
from runner.engine.processes import cpu_seconds, kill_tree
from runner.engine.studio_verbs import StudioVerbs
from runner.engine.tracing import ContextTracing, FailureStep, StepError
from runner.errors import BrowserNotFoundError
from runner.usercode.tracebacks import first_line

if TYPE_CHECKING:
    from runner.engine.har_recorder import HarRecorder
    from runner.engine.remote import RemoteEndpoint
    from runner.engine.routing import RoutingTarget

__all__ = ["LaunchOptions", "BrowserSession", "QUIET_FLAGS", "DOM_SCRIPT"]

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

# How long the steps that replace a broken page or browser may take (seconds). A page or browser
# that does not answer within them is given up on: its context closed, else its processes killed.
_CLEAN_BOUND = 10.0  # the per-test reset of a page that seemed fine
_CLOSE_BOUND = 5.0  # closing a context or a browser
_OPEN_BOUND = 15.0  # a new context and page
_LAUNCH_TIMEOUT_MS = 60_000  # launching the browser (Playwright's own bound)

# What the test that was running is told (the first line is the one reports show).
_CRASHED = "The browser page crashed while the test was running.\nThe next test gets a fresh page."
_CLOSED = ("The browser closed unexpectedly while the test was running.\n"
          "The next test gets a fresh browser.")
_DRIVER_STOPPED = (
    "The browser's driver stopped (killed?) while the test was running: Playwright's node process "
    "is gone, and the browser with it.\nThe next test starts a new driver and browser. If the "
    "system killed it (out of memory?), see the system log (dmesg)."
)

# Playwright's driver (a node process) takes most of a second to start and needs no
# configuration, so `runner run` starts it first thing, while the rest of runner loads. The
# future is kept on the engine loop that started it, and the session hands it to its browser.
def start_driver_early(loop: Any) -> None:
    """Start Playwright's driver now on ``loop`` (an ``EngineLoop``); its browser session takes
    it with ``loop.take_early_driver()``."""
    if loop.early_driver is None:
        loop.early_driver = loop.submit(async_playwright().start())


async def _driver(early: Any = None) -> Playwright:
    """Playwright's driver: ``early`` (a future from :func:`start_driver_early`) when it came up,
    else a new one."""
    if early is not None:
        try:
            return await asyncio.wrap_future(early)
        except Exception:  # noqa: BLE001 - start one the usual way below
            pass
    try:
        return await async_playwright().start()
    except Exception as err:  # noqa: BLE001 - node missing, out of memory, ...
        raise BrowserNotFoundError(
            f"The browser could not be started: Playwright's driver (node) did not start: "
            f"{first_line(err)}\nReinstall Playwright (pip install --force-reinstall playwright)."
        ) from err


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


class BrowserSession(PageVerbs, StudioVerbs):
    """Owns Playwright, the browser, its one context and page. Not thread-safe: loop only.

    ``routing`` says where the page's requests go while it is routed or watched (see
    :meth:`set_routing`, :meth:`set_watching`); without one, routed requests go on unchanged.
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
        self.frame_guard: Any = None  # modifyObstructiveCode: framed pages' sources rewritten
        self.preflights: Any = None  # while routed: CORS preflights through the routes (preflights.py)
        self._direct: Any = None  # runner's own HTTP client (context_fetch.py), made on first use
        self._agent: str | None = None  # the browser's user agent, once asked
        # Why the page or browser cannot serve the test (the message the test fails with); the
        # next reset replaces what broke.
        self.broken: str | None = None
        self._touched_origins: set[str] = set()
        self._observer: Callable[[Request], None] | None = None  # the request listener while watching
        self._revalidations: Any = None  # while watching: which responses were the server's 304
        self._routed = False
        self._ws_page: Page | None = None  # the page whose WebSockets go to the routes (once set)
        self._downloads: list[asyncio.Task[None]] = []
        self._fresh = False
        self.launches = 0
        self._tracing = ContextTracing()

    # -- lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        """Launch the browser (and Playwright's driver first, when there is none).

        Raises ``BrowserNotFoundError`` saying why the browser or the driver could not start.
        """
        if self._pw is None:
            early, self._early_driver = self._early_driver, None
            pw = self._pw = await _driver(early)
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
        self.page = await self.context.new_page()
        self.cdp = await self.context.new_cdp_session(self.page)
        self.devtools = DevTools(self.cdp)
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
        self._revalidations = None
        self.broken = None
        self._fresh = True  # a new page is clean: the first reset can skip most of its work

    def _on_disconnected(self, browser: Browser) -> None:
        if browser is self.browser and self.broken is None:
            self.broken = _CLOSED

    def _on_crash(self, page: Page) -> None:
        if page is self.page:
            self.broken = _CRASHED

    def _driver_exited(self, pw: Playwright) -> None:
        if pw is self._pw:  # not a driver runner stopped itself
            self._driver_gone = True
            self.broken = _DRIVER_STOPPED

    def driver_cpu(self) -> float | None:
        """The CPU time (seconds) Playwright's driver process has used so far (None where
        unknown): while it climbs, the driver is busy moving data (a large body), not waiting
        for a page that does not answer."""
        return cpu_seconds(self._driver_pid) if self._driver_pid is not None else None

    def stopped_responding(self, message: str) -> str:
        """The page (or the browser) did not answer a command: the test fails with ``message``,
        later commands fail at once, and the next reset replaces the page. Returns ``message``."""
        if self.broken is None:
            self.broken = message
        return self.broken

    def _on_navigated(self, frame: Any) -> None:
        url = frame.url
        if url.startswith(("http://", "https://")):
            parts = urlsplit(url)
            self._touched_origins.add(f"{parts.scheme}://{parts.netloc}")

    def _on_download(self, download: Download) -> None:
        folder = self.options.downloads_folder
        if folder is None:
            return

        async def save() -> None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                await download.save_as(folder / download.suggested_filename)
            except (PlaywrightError, OSError):
                pass  # an unusable downloadsFolder was reported when the run started

        self._downloads.append(asyncio.ensure_future(save()))

    async def wait_downloads(self, timeout: float = 30.0) -> None:
        pending = [t for t in self._downloads if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        self._downloads = [t for t in self._downloads if not t.done()]

    @property
    def version(self) -> str:
        """The browser's version ("" before it is launched)."""
        return self.browser.version if self.browser is not None else ""

    @property
    def alive(self) -> bool:
        return (
            self.broken is None
            and self.browser is not None
            and self.browser.is_connected()
            and self.page is not None
            and not self.page.is_closed()
        )

    async def ensure_alive(self) -> bool:
        """Replace what broke: the page (a new context), else the browser (killed when it does
        not answer), else the driver too. Returns True when something had to be made anew.

        Every step is bounded, so a page stuck in JavaScript or a frozen browser cannot hold it
        up. Raises ``BrowserNotFoundError`` when a new browser cannot be started.
        """
        if self.alive:
            return False
        if self._driver_gone:
            await self._drop_driver()
        elif self.browser is not None and self.browser.is_connected():
            try:
                if self.context is not None:
                    with contextlib.suppress(PlaywrightError):  # closed already
                        await asyncio.wait_for(self.context.close(), _CLOSE_BOUND)
                await asyncio.wait_for(self._new_context(), _OPEN_BOUND)
                return True
            except (PlaywrightError, TimeoutError):
                self._kill_browser()  # it does not answer (frozen), or makes no page
        else:
            self._kill_browser()  # what may be left of it
        await self.start()
        return True

    def _kill_browser(self) -> None:
        """Kill the browser's processes (a frozen browser cannot be closed) and forget it."""
        if self._browser_pid is not None:
            kill_tree(self._browser_pid)
        self._forget_browser()

    def _forget_browser(self) -> None:
        self.browser = self.context = self.page = None
        self.cdp = self.devtools = None
        self._browser_pid = None

    def kill(self) -> None:
        """Kill the driver and the browser without asking them (from any thread): for when the
        engine's loop itself is blocked. The session is unusable afterwards."""
        for pid in (self._browser_pid, self._driver_pid):
            if pid is not None:
                kill_tree(pid)

    async def _drop_driver(self) -> None:
        """Forget a driver that went away (its browser went with it)."""
        pw, self._pw, self._driver_pid = self._pw, None, None
        self._kill_browser()
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), _CLOSE_BOUND)
            except Exception:  # noqa: BLE001 - it is gone already
                pass

    async def reset(self, viewport: tuple[int, int]) -> None:
        """Make the page as clean as a new one, cheaply; replace it when it does not answer
        (within ``_CLEAN_BOUND``) or broke. Raises ``BrowserNotFoundError`` when a browser
        had to be launched and could not be."""
        await self.ensure_alive()
        if not self._fresh:
            try:
                await asyncio.wait_for(self._clean(), _CLEAN_BOUND)
            except (PlaywrightError, TimeoutError):
                self.stopped_responding("The page did not answer its reset between tests.")
                await self.ensure_alive()
        self._fresh = False
        await asyncio.wait_for(self._set_viewport(viewport), _OPEN_BOUND)

    async def _clean(self) -> None:
        assert self.page is not None and self.context is not None and self.cdp is not None
        await self.set_routing(False)
        self.set_watching(False)
        await self._blank()
        await self.context.clear_cookies()
        await self.context.clear_permissions()
        origins, self._touched_origins = self._touched_origins, set()
        for origin in origins:
            await self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        await self.cdp.send("Network.clearBrowserCache")

    async def _set_viewport(self, viewport: tuple[int, int]) -> None:
        assert self.page is not None
        size = self.page.viewport_size
        if not size or (size["width"], size["height"]) != viewport:
            await self.page.set_viewport_size({"width": viewport[0], "height": viewport[1]})

    async def clear_storage(self) -> None:
        """Cookies and the storage of every visited origin cleared; the page at about:blank."""
        assert self.context is not None and self.cdp is not None
        await self._blank()
        await self.context.clear_cookies()
        origins, self._touched_origins = self._touched_origins, set()
        for origin in origins:
            await self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})

    async def capture_storage(self) -> dict[str, Any]:
        """Cookies and local storage of the context (Playwright's storage state)."""
        assert self.context is not None
        state: dict[str, Any] = dict(await self.context.storage_state())
        return state

    async def restore_storage(self, state: dict[str, Any]) -> None:
        """Put back what :meth:`capture_storage` took, leaving the page at about:blank.

        Local storage can only be written from a document of its origin, so each origin is
        opened on a placeholder page answered by runner itself (nothing reaches the server).
        """
        assert self.context is not None and self.page is not None
        await self.clear_storage()
        cookies = state.get("cookies") or []
        if cookies:
            await self.context.add_cookies(cookies)
        origins = [o for o in state.get("origins") or [] if o.get("localStorage")]
        if not origins:
            return
        marker = "/__runner_session_restore__"

        async def placeholder(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>runner</title>")

        await self.page.route(f"**{marker}", placeholder)
        try:
            for origin in origins:
                await self.page.goto(origin["origin"] + marker)
                await self.page.evaluate(
                    "items => { for (const {name, value} of items) localStorage.setItem(name, value); }",
                    origin["localStorage"],
                )
        finally:
            await self.page.unroute(f"**{marker}", placeholder)
            await self._blank()

    async def _blank(self) -> None:
        """Navigate to about:blank; a late error page of the last test can interrupt it once.
        Raises Playwright's ``TimeoutError`` when the page does not answer."""
        assert self.page is not None
        for _ in range(3):
            try:
                await self.page.goto("about:blank", timeout=_CLOSE_BOUND * 1000)
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
                await asyncio.wait_for(closer.close(), _CLOSE_BOUND)
            except TimeoutError:  # frozen
                self._kill_browser()
                break
            except Exception:  # noqa: BLE001 - closed already, or its driver is gone
                pass
        self._forget_browser()
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), _CLOSE_BOUND)
            except Exception:  # noqa: BLE001
                pass

    # -- tracing ----------------------------------------------------------------------------
    async def start_trace(self, title: str, *, screenshots: bool) -> None:
        """Trace what follows (until :meth:`stop_trace`) as the trace ``title``: DOM snapshots,
        network, console, and screenshots when asked. Raises Playwright's error when tracing
        cannot start (the attempt is then not traced)."""
        assert self.context is not None
        await self._tracing.begin(self.context, title, screenshots=screenshots)

    async def stop_trace(self, path: Path | None, failure: FailureStep | None = None) -> bool:
        """End the trace :meth:`start_trace` began: written to ``path`` (its folder must exist),
        or discarded (nothing written) when ``path`` is None; ``failure``, the test's, is its last
        step when no command's step carries it. Returns whether it was written; raises
        Playwright's error when it could not be ended."""
        return await self._tracing.end(self.context, path, failure)

    async def trace_step(self, name: str, file: str | None, line: int | None) -> None:
        """Open a step of the trace (a group in the viewer's action list) at the user's line."""
        await self._tracing.group(self.context, name, file, line)

    async def trace_step_end(self, error: StepError | None = None, *, snapshot: bool = False) -> None:
        """Close the step :meth:`trace_step` opened: failed with ``error``; with ``snapshot``,
        after a DOM snapshot of the page as it is now (for a command that made no browser call)."""
        page = self.page if snapshot and self.alive else None
        await self._tracing.group_end(self.context, error=error, snapshot=page)

    def har_recorder(self, keep: Callable[[str], bool], content: str) -> HarRecorder | None:
        """A recorder of the page's exchanges to a HAR (har_recorder.py), or None with no page."""
        if self.page is None:
            return None
        from runner.engine.har_recorder import HarRecorder

        return HarRecorder(self.page, keep, content)

    # -- routing ----------------------------------------------------------------------------
    def set_watching(self, on: bool, *, revalidations: bool = True) -> None:
        """Show every request the page makes to the routing target, without intercepting it.

        Watching costs next to nothing, unlike routing: spies use it (see net's cost rule).
        ``revalidations``: also learn which responses were the server's 304 (only worth it while
        the page is not routed: routing turns the HTTP cache off).
        """
        page = self.page
        if page is None:
            return
        if self._observer is not None:
            page.remove_listener("request", self._observer)
        self._observer = self._on_request if on else None
        if self._observer is not None:
            page.on("request", self._observer)
        if on and revalidations and self._revalidations is None and self.cdp is not None:
            from runner.engine.revalidations import Revalidations

            self._revalidations = Revalidations(self.cdp)  # listens once a response can be revalidated
            if page.url not in ("", "about:blank"):
                # the page loaded something in this test: a response it cached before the spies
                # watched can be revalidated by the very next request, so listen at once
                self._revalidations.begin()
        elif (not on or not revalidations) and self._revalidations is not None:
            stopped, self._revalidations = self._revalidations, None
            asyncio.ensure_future(quietly(stopped.stop()))

    async def watching_ready(self) -> None:
        """Wait until what :meth:`set_watching` started listens (the next request is seen)."""
        if self._revalidations is not None:
            await self._revalidations.ready()

    def _on_request(self, request: Request) -> None:
        # While routed, the route handler sees every request but the hops after a redirect
        # (Playwright does not route those): they are watched here, the rest there.
        if self._routing is not None and (not self._routed or request.redirected_from is not None):
            from runner.engine.exchange import observe_request

            observe_request(self._routing, request, self.page_url, self._revalidations)

    async def _on_route(self, route: Route, request: Request) -> None:
        if self._routing is None:
            await route.fallback()
            return
        # Imported on the first routed request: the interception engine loads only when used.
        from runner.engine.exchange import handle_route

        await handle_route(self._routing, route, request, self.page_url, self._direct_client())

    async def route_web_sockets(self) -> None:
        """Send the page's WebSockets that a WebSocket route matches to the routing target
        (installed once per page; a socket no route takes connects as usual)."""
        if self.page is None or self._routing is None or self._ws_page is self.page:
            return
        from runner.engine.websocket_routes import route_web_sockets

        await route_web_sockets(self.page, self._routing)
        self._ws_page = self.page

    async def set_routing(self, on: bool, *, preflights: bool = False) -> None:
        """Route the page's requests to the routing target (``on``) or let them go. CORS
        preflights reach the routes while routed (Playwright would answer them itself) and, with
        ``preflights``, while not (a route's method mentions OPTIONS)."""
        if self.page is None:
            return
        guard = on or preflights
        if guard and self._routing is not None:
            await self._preflight_guard().arm()
        if on != self._routed:
            # Routing turns the browser cache off for the context, so route only while needed.
            if on:
                await self.page.route("**/*", self._on_route)
            else:
                await self.page.unroute_all(behavior="ignoreErrors")
            self._routed = on
        if not guard and self.preflights is not None:
            await self.preflights.disarm()

    def _preflight_guard(self) -> Any:
        if self.preflights is None:
            from runner.engine.preflights import PreflightGuard

            assert self._routing is not None and self.context is not None
            self.preflights = PreflightGuard(self.context, self.page, self._routing, lambda: self.page_url)
        return self.preflights

