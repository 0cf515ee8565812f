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
from collections.abc import Callable
from dataclasses import dataclass, field
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

from runner.engine.devtools import DevTools
from runner.engine.discovery import BrowserSpec
from runner.engine.page_verbs import DOM_SCRIPT, PageVerbs

if TYPE_CHECKING:
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

# Playwright's driver (a node process) takes most of a second to start and needs no
# configuration, so `runner run` starts it first thing, while the rest of runner loads.
_early_driver: Any = None


def start_driver_early(submit: Callable[[Any], Any]) -> None:
    """Start Playwright's driver now on the engine loop (``submit`` = ``EngineLoop.submit``)."""
    global _early_driver
    if _early_driver is None:
        _early_driver = submit(async_playwright().start())


async def _driver() -> Playwright:
    global _early_driver
    early, _early_driver = _early_driver, None
    if early is not None:
        try:
            return await asyncio.wrap_future(early)
        except Exception:  # noqa: BLE001 - start one the usual way below
            pass
    return await async_playwright().start()


@dataclass
class LaunchOptions:
    """What the browser, context and page are created with (from the configuration)."""

    browser: BrowserSpec
    headless: bool = True
    chrome_web_security: bool = True
    user_agent: str | None = None
    viewport: tuple[int, int] = (1000, 660)
    downloads_folder: Path | None = None
    client_certificates: list[dict[str, Any]] = field(default_factory=list)
    extra_args: tuple[str, ...] = ()


class BrowserSession(PageVerbs):
    """Owns Playwright, the browser, its one context and page. Not thread-safe: loop only.

    ``routing`` says where the page's requests go while it is routed or watched (see
    :meth:`set_routing`, :meth:`set_watching`); without one, routed requests go on unchanged.
    """

    def __init__(self, options: LaunchOptions, routing: RoutingTarget | None = None) -> None:
        self.options = options
        self._routing = routing
        self._pw: Playwright | None = None
        self.browser: Browser | None = None
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.cdp: CDPSession | None = None
        self.devtools: DevTools | None = None  # what the video recorder gets instead of `cdp`
        self.crash_message: str | None = None
        self._touched_origins: set[str] = set()
        self._observer: Callable[[Request], None] | None = None  # the request listener while watching
        self._routed = False
        self._downloads: list[asyncio.Task[None]] = []
        self._fresh = False
        self.launches = 0

    # -- lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        if self._pw is None:
            self._pw = await _driver()
        args = list(QUIET_FLAGS) + list(self.options.extra_args)
        if not self.options.chrome_web_security:
            args += ["--disable-web-security", "--disable-site-isolation-trials"]
        self.browser = await self._pw.chromium.launch(
            executable_path=self.options.browser.path,
            headless=self.options.headless,
            args=args,
            chromium_sandbox=False,
            # A terminal's Ctrl-C reaches the driver too (it is in runner's process group); by
            # default it then closes the browser under the running test. runner ends the run
            # itself (the failure report, the video's last frame) and closes the browser after.
            handle_sigint=False,
        )
        self.launches += 1
        self.browser.on("disconnected", self._on_disconnected)
        await self._new_context()

    async def _new_context(self) -> None:
        assert self.browser is not None
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
        if self.options.client_certificates:
            kwargs["client_certificates"] = self.options.client_certificates
        self.context = await self.browser.new_context(**kwargs)
        self.page = await self.context.new_page()
        self.cdp = await self.context.new_cdp_session(self.page)
        self.devtools = DevTools(self.cdp)
        self.page.on("crash", self._on_crash)
        self.page.on("framenavigated", self._on_navigated)
        self.page.on("download", self._on_download)
        self._routed = False
        self._observer = None
        self.crash_message = None
        self._fresh = True  # a new page is clean: the first reset can skip most of its work

    def _on_disconnected(self, _browser: Browser) -> None:
        if self.crash_message is None:
            self.crash_message = "The browser closed unexpectedly while the test was running."

    def _on_crash(self, _page: Page) -> None:
        self.crash_message = "The browser page crashed while the test was running."

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
            self.browser is not None
            and self.browser.is_connected()
            and self.page is not None
            and not self.page.is_closed()
            and self.crash_message is None
        )

    async def ensure_alive(self) -> bool:
        """Relaunch what broke. Returns True when a new browser or page had to be made."""
        if self.alive:
            return False
        if self.browser is not None and self.browser.is_connected():
            try:
                if self.context is not None:
                    await self.context.close()
            except PlaywrightError:
                pass
            await self._new_context()
        else:
            self.browser = None
            await self.start()
        return True

    async def reset(self, viewport: tuple[int, int]) -> None:
        """Make the page as clean as a new one, cheaply."""
        await self.ensure_alive()
        assert self.page is not None and self.context is not None and self.cdp is not None
        if self._fresh:
            self._fresh = False
            await self._set_viewport(viewport)
            return
        await self.set_routing(False)
        self.set_watching(False)
        await self._blank()
        await self.context.clear_cookies()
        await self.context.clear_permissions()
        origins, self._touched_origins = self._touched_origins, set()
        for origin in origins:
            await self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        await self.cdp.send("Network.clearBrowserCache")
        await self._set_viewport(viewport)

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
        """Navigate to about:blank; a late error page of the last test can interrupt it once."""
        assert self.page is not None
        for _ in range(3):
            try:
                await self.page.goto("about:blank", timeout=10_000)
                return
            except PlaywrightError:
                await asyncio.sleep(0.01)
        # The page will not settle: a fresh context is as clean and only slower.
        assert self.context is not None
        await self.context.close()
        await self._new_context()

    async def close(self) -> None:
        for closer in (self.context, self.browser):
            if closer is not None:
                try:
                    await closer.close()
                except Exception:  # noqa: BLE001 - closing a dead browser is fine
                    pass
        self.context = self.browser = None
        self.page = None
        if self._pw is not None:
            try:
                await self._pw.stop()
            except Exception:  # noqa: BLE001
                pass
            self._pw = None

    # -- routing ----------------------------------------------------------------------------
    def set_watching(self, on: bool) -> None:
        """Show every request the page makes to the routing target, without intercepting it.

        Watching costs next to nothing, unlike routing: spies use it (see net's cost rule).
        """
        page = self.page
        if page is None:
            return
        if self._observer is not None:
            page.remove_listener("request", self._observer)
        self._observer = self._on_request if on else None
        if self._observer is not None:
            page.on("request", self._observer)

    def _on_request(self, request: Request) -> None:
        if self._routing is not None:
            from runner.engine.exchange import observe_request

            observe_request(self._routing, request, self.page_url)

    async def _on_route(self, route: Route, request: Request) -> None:
        if self._routing is None:
            await route.fallback()
            return
        # Imported on the first routed request: the interception engine loads only when used.
        from runner.engine.exchange import handle_route

        await handle_route(self._routing, route, request, self.page_url)

    async def set_routing(self, on: bool) -> None:
        if self.page is None or on == self._routed:
            return
        # Routing turns the browser cache off for the context, so route only while needed.
        if on:
            await self.page.route("**/*", self._on_route)
        else:
            await self.page.unroute_all(behavior="ignoreErrors")
        self._routed = on
