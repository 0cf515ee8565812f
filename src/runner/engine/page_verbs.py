"""The verbs of navigation: goto, history_go, reload, location, title, set_viewport.

Every verb of the browser session takes and returns plain data; ``commands/`` and the plugin
call them (through the engine loop) and never hold a Playwright object. The session's other
families: elements and keys (``element_verbs``), the network (``network_verbs``), cookies and
storage (``storage_verbs``), screenshots, traces and downloads (``capture_verbs``).

Errors: where a command reports a failure in its own words, the verb hands over what it needs,
either as an error string in its result (``goto``, ``click_element``) or as
:class:`~runner.engine.holder.PageError`, whose ``str()`` is Playwright's message unchanged
(``select_options``, ``fetch``). Everywhere else Playwright's error reaches the test as it
always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from runner.engine.devtools import quietly
from runner.engine.document_heads import DocumentHeads
from runner.engine.holder import BrowserHolder
from runner.engine.raw_http import INVALID_HTTP
from runner.engine.visit_hooks import BeforeLoad, BeforeLoadPause, evaluate_source

__all__ = ["PageVerbs", "NAVIGATING", "past_navigation"]

_LOCATION_SCRIPT = (
    "() => { const l = window.location; return {hash: l.hash, host: l.host, hostname: l.hostname,"
    " href: l.href, origin: l.origin, pathname: l.pathname, port: l.port, protocol: l.protocol,"
    " search: l.search}; }"
)

# How much later than its own timeout a navigation's wait is cut (see goto).
_GOTO_GRACE_S = 0.5
_DETACH_BOUND_S = 2.0  # a DevTools session of evaluate_on_page's own, let go

_NAVIGATION_WAIT_S = 5.0  # how long a read waits out documents replacing each other
# Playwright's title of a page whose next document has not committed yet (frames.ts, _title)
_PENDING_TITLE = re.compile(r"Loading [a-z][a-z0-9+.-]*:\S*")
# Playwright's messages while a navigation replaces the document under an evaluation.
NAVIGATING = ("Execution context was destroyed", "Cannot find context", "frame was detached",
               "navigation")

_T = TypeVar("_T")


async def past_navigation(read: Callable[[], Awaitable[_T]], target: Callable[[], Page | Frame]) -> _T:
    """``read()``, with a navigation under way (a document replacing another right after a
    click) waited out on ``target()`` (the page or frame ``read`` last evaluated in), not
    reported as Playwright's "Execution context was destroyed". Any other error, or a
    navigating one past ``_NAVIGATION_WAIT_S``, is raised as it came.
    """
    loop = asyncio.get_running_loop()
    # bounded by time, not by a count of tries: a page that replaces its document again and
    # again (a reload loop) destroyed twenty reads in a row in well under a second
    deadline = loop.time() + _NAVIGATION_WAIT_S
    while True:
        try:
            return await read()
        except PlaywrightError as err:
            left = deadline - loop.time()
            if left <= 0 or not any(s in str(err) for s in NAVIGATING):
                raise
            try:
                await target().wait_for_load_state("domcontentloaded", timeout=left * 1000)
            except PlaywrightError:
                await asyncio.sleep(0.02)


class PageVerbs(BrowserHolder):
    """Navigation of the session's one page, and what it says of itself."""

    async def goto(self, url: str, *, wait_until: str, timeout_ms: float,
                   headers: dict[str, str] | None = None,
                   before_load: BeforeLoad | None = None) -> tuple[int | None, str, str | None]:
        """Load ``url`` and wait for ``wait_until``, sending ``headers`` with the page's requests
        meanwhile; ``before_load`` runs in the new document before its first script (see
        ``visit_hooks``: it says there whether it ran and what it raised).

        Returns ``(status, status text, None)`` (``(200, "", None)`` when the browser had no
        response to show, e.g. a same-document navigation), or ``(None, "", first line of the
        error)`` when the load failed or timed out, or ``(status, status text, INVALID_HTTP +
        why)`` when the document's response was not valid HTTP (see ``raw_http``). Raises
        Playwright's ``Error`` when the headers cannot be set.
        """
        page = self._live_page()
        if headers:
            await page.set_extra_http_headers(headers)
        await self._arm_frame_guard()
        await self._widen_preflight_guard(url)
        heads = await DocumentHeads.open(self._live_context(), page)
        pause: BeforeLoadPause | None = None
        loaded = False  # the navigation ended without an error
        try:
            if before_load is not None:
                pause = await BeforeLoadPause.arm(self._live_context(), page, before_load)
            outcome = await self._goto(page, url, wait_until, timeout_ms, headers, heads)
            loaded = outcome[2] is None
            return outcome
        finally:
            if pause is not None:
                await pause.settle(at_commit=loaded and wait_until == "commit")
            if heads is not None:
                heads.close()

    async def evaluate_on_page(self, source: str, args: list[Any]) -> Any:
        """Evaluate ``source`` in the page's main frame as ``visit_hooks.evaluate_source`` says
        (statements or an expression; a function is called with the window and ``args``;
        promises awaited) and return the result as JSON data.

        Raises ``visit_hooks.PageScriptError`` when the script throws.
        """
        page = self._live_page()
        # a popup's view (popups.PageView) holds no DevTools session: one of its own, for this call
        cdp = self.cdp if self.cdp is not None else await self._live_context().new_cdp_session(page)

        async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
            reply: dict[str, Any] = await cdp.send(method, params)
            return reply

        try:
            return await evaluate_source(send, ("Runtime.evaluate", {}), source, args, await_promise=True)
        finally:
            if cdp is not self.cdp:
                with contextlib.suppress(TimeoutError):  # a page stuck in a script: it goes with the page
                    await asyncio.wait_for(quietly(cdp.detach()), _DETACH_BOUND_S)

    async def _goto(self, page: Page, url: str, wait_until: str, timeout_ms: float,
                    headers: dict[str, str] | None,
                    heads: DocumentHeads | None) -> tuple[int | None, str, str | None]:
        try:
            # Playwright's own timeout can end its wait seconds late when the page is stuck in
            # JavaScript (it tidies up in the page first): the wait is cut here as well
            response = await asyncio.wait_for(
                page.goto(url, wait_until=wait_until, timeout=timeout_ms),  # type: ignore[arg-type]
                timeout_ms / 1000 + _GOTO_GRACE_S)
        except TimeoutError:
            return None, "", f"Timeout {timeout_ms:g}ms exceeded."
        except Exception as err:  # Playwright's Error/TimeoutError: the caller words the failure
            return None, "", str(err).splitlines()[0]
        finally:
            await self._settle_frame_guard()
            if headers:
                await page.set_extra_http_headers({})
        if response is None:
            return 200, "", None
        invalid = heads.problem() if heads is not None else None
        if invalid is not None:
            return response.status, response.status_text, INVALID_HTTP + invalid
        return response.status, response.status_text, None

    async def history_go(self, steps: int, timeout_ms: float) -> None:
        """Go ``steps`` back (negative) or forward in history and wait for the load event.

        Raises Playwright's ``TimeoutError`` when no page loads within ``timeout_ms``.
        """
        page = self._live_page()
        await self._arm_frame_guard()
        if self.preflights is not None:
            await self.preflights.before_history(steps)
        try:
            if steps == -1:
                await page.go_back(timeout=timeout_ms, wait_until="load")
            elif steps == 1:
                await page.go_forward(timeout=timeout_ms, wait_until="load")
            else:
                async with page.expect_event("load", timeout=timeout_ms):
                    await page.evaluate("n => history.go(n)", steps)
        finally:
            await self._settle_frame_guard()

    async def reload(self, timeout_ms: float) -> None:
        """Reload the page and wait for the load event. Raises Playwright's ``TimeoutError``."""
        await self._arm_frame_guard()
        try:
            await self._live_page().reload(timeout=timeout_ms, wait_until="load")
        finally:
            await self._settle_frame_guard()

    async def _arm_frame_guard(self) -> None:
        guard = self.frame_guard
        if guard is not None:
            await guard.arm_for_navigation()

    async def _widen_preflight_guard(self, url: str) -> None:
        """Before runner navigates the page to ``url``: a document that comes without an HTTP
        response of its own (``data:``, ``about:blank``) is not seen coming by the preflight guard,
        which pauses every fetch and XHR until it commits (preflights.py). An http(s) document's
        response tells the guard."""
        if self.preflights is not None and not url.startswith(("http:", "https:")):
            await self.preflights.before_navigation(main=True)

    async def _settle_frame_guard(self) -> None:
        guard = self.frame_guard
        if guard is not None:
            try:
                await guard.settle()
            except Exception:  # noqa: BLE001 - the page went away meanwhile
                pass

    async def location(self) -> dict[str, str]:
        """``window.location``'s parts: ``hash``, ``host``, ..., ``search``."""
        location: dict[str, str] = await self._past_navigation(lambda page: page.evaluate(_LOCATION_SCRIPT))
        return location

    async def title(self, timeout_ms: float) -> str:
        """``document.title``. While a document is on its way (a reload, a link's page not yet
        committed) Playwright's ``page.title()`` answers ``Loading <its url>``, a placeholder
        of its own: then the title is read again once that document committed and its head was
        parsed (within ``timeout_ms``; past it, what is read then). A document committed but
        still loading is read once its head was parsed."""
        page = self._live_page()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000

        async def parsed() -> None:  # the committed document's head parsed (at once when it is)
            try:
                await page.wait_for_load_state("domcontentloaded", timeout=max(1.0, (deadline - loop.time()) * 1000))
            except PlaywrightError:
                pass  # read what there is

        while True:
            committed: asyncio.Future[None] = loop.create_future()

            def on_navigated(frame: Any, committed: asyncio.Future[None] = committed) -> None:
                if frame == page.main_frame and not committed.done():
                    committed.set_result(None)

            page.on("framenavigated", on_navigated)  # before the read: a commit right after it is seen
            try:
                await parsed()
                title: str = await self._past_navigation(lambda page: page.title())
                if title == "":  # also Playwright's answer when the read raced a commit: the document's own
                    await parsed()
                    return str(await self._past_navigation(lambda page: page.evaluate("document.title")))
                left = deadline - loop.time()
                if _PENDING_TITLE.fullmatch(title) is None or left <= 0:
                    return title
                try:
                    await asyncio.wait_for(committed, left)
                except TimeoutError:
                    return str(await self._past_navigation(lambda page: page.title()))
            finally:
                page.remove_listener("framenavigated", on_navigated)

    async def _past_navigation(self, read: Callable[[Page], Awaitable[Any]]) -> Any:
        """``read(page)`` on the session's page, a navigation under way waited out."""
        page = self._live_page()
        return await past_navigation(lambda: read(page), lambda: page)

    async def set_viewport(self, width: int, height: int) -> None:
        await self._live_page().set_viewport_size({"width": width, "height": height})
