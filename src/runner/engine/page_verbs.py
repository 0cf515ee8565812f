"""The verbs the commands ask of the browser: plain data in, plain data out.

:class:`PageVerbs` is mixed into :class:`~runner.engine.browser.BrowserSession`; ``commands/`` and
the plugin call these methods (through the engine loop) and never hold a Playwright object. Every
verb is ``async`` and runs on the engine loop.

Errors: where a command reports a failure in its own words, the verb hands over what it needs,
either as an error string in its result (``goto``, ``click_element``) or as :class:`PageError`,
whose ``str()`` is Playwright's message unchanged (``select_options``, ``fetch``). Everywhere
else Playwright's error reaches the test as it always did.

Elements are found by ``dom.js`` from a query (``{"steps": [...], "shadow": bool}``, e.g. a
subject's), run again for every verb, so no element handle outlives a verb.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypedDict

from playwright.async_api import BrowserContext, ElementHandle, JSHandle, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from runner.engine.actionability import why_not_actionable
from runner.engine.document_heads import DocumentHeads
from runner.engine.raw_http import INVALID_HTTP

__all__ = ["PageVerbs", "PageError", "FetchedResponse", "DOM_SCRIPT"]

DOM_SCRIPT = (Path(__file__).with_name("dom.js")).read_text(encoding="utf-8")

_LOCATION_SCRIPT = (
    "() => { const l = window.location; return {hash: l.hash, host: l.host, hostname: l.hostname,"
    " href: l.href, origin: l.origin, pathname: l.pathname, port: l.port, protocol: l.protocol,"
    " search: l.search}; }"
)
_CALL_METHOD_SCRIPT = (
    "(els, [m, a]) => { const el = els[0]; if (!el) return {gone: true};"
    " if (typeof el[m] !== 'function') return {missing: typeof el[m]};"
    " const r = el[m](...a);"
    " try { return {value: JSON.parse(JSON.stringify(r === undefined ? null : r))}; }"
    " catch (e) { return {value: String(r)}; } }"
)
_HAS_VALUES_SCRIPT = "(s, vals) => vals.every(v => Array.from(s.options).some(o => o.value === v))"

# How much later than its own timeout a navigation's wait is cut (see goto).
_GOTO_GRACE_S = 0.5

# Playwright's messages while a navigation replaces the document under an evaluation.
NAVIGATING = ("Execution context was destroyed", "Cannot find context", "frame was detached",
               "navigation")


class PageError(Exception):
    """A verb failed in the browser; ``str()`` is Playwright's message, unchanged."""


class BodyRefusedError(PageError):
    """:meth:`PageVerbs.fetch` got an answer whose body runner refused to read (too large)."""


class FetchedResponse(TypedDict):
    """The answer to :meth:`PageVerbs.fetch`."""

    status: int
    status_text: str
    headers: dict[str, str]
    body: bytes
    url: str


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class PageVerbs:
    """Navigation, cookies, screenshots, keys, elements and HTTP of the session's one page."""

    page: Page | None
    context: BrowserContext | None
    cdp: Any
    options: Any
    _direct: Any
    _agent: str | None

    def _live_page(self) -> Page:
        assert self.page is not None
        return self.page

    def _live_context(self) -> BrowserContext:
        assert self.context is not None
        return self.context

    # -- navigation -------------------------------------------------------------------------
    @property
    def page_url(self) -> str | None:
        """The page's URL now (Playwright keeps it: no trip to the browser); None without a page."""
        return self.page.url if self.page is not None else None

    async def goto(self, url: str, *, wait_until: str, timeout_ms: float,
                   headers: dict[str, str] | None = None) -> tuple[int | None, str, str | None]:
        """Load ``url`` and wait for ``wait_until``, sending ``headers`` with the page's requests
        meanwhile.

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
        heads = await DocumentHeads.open(self._live_context(), page)
        try:
            return await self._goto(page, url, wait_until, timeout_ms, headers, heads)
        finally:
            if heads is not None:
                heads.close()

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
        guard = getattr(self, "frame_guard", None)
        if guard is not None:
            await guard.arm_for_navigation()

    async def _settle_frame_guard(self) -> None:
        guard = getattr(self, "frame_guard", None)
        if guard is not None:
            try:
                await guard.settle()
            except Exception:  # noqa: BLE001 - the page went away meanwhile
                pass

    async def location(self) -> dict[str, str]:
        """``window.location``'s parts: ``hash``, ``host``, ..., ``search``."""
        location: dict[str, str] = await self._live_page().evaluate(_LOCATION_SCRIPT)
        return location

    async def title(self) -> str:
        return await self._live_page().title()

    async def set_viewport(self, width: int, height: int) -> None:
        await self._live_page().set_viewport_size({"width": width, "height": height})

    # -- cookies ----------------------------------------------------------------------------
    async def cookies(self) -> list[dict[str, Any]]:
        """Every cookie of the context, as Playwright describes them (``name``, ``value``,
        ``domain``, ``path``, ``expires``, ``httpOnly``, ``secure``, ``sameSite``)."""
        return [dict(cookie) for cookie in await self._live_context().cookies()]

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        """Set cookies (same keys as :meth:`cookies` gives). Raises Playwright's ``Error`` for
        a cookie the browser refuses."""
        await self._live_context().add_cookies(cookies)  # type: ignore[arg-type]

    async def clear_cookies(self, name: str | None = None) -> None:
        """Delete the cookies called ``name``, or all of them."""
        await self._live_context().clear_cookies(name=name)

    # -- screenshots and keys ---------------------------------------------------------------
    async def screenshot(self, path: Path | str, *, full_page: bool) -> None:
        """Save a PNG of the page (the whole page with ``full_page``) at ``path``."""
        await self._live_page().screenshot(path=str(path), full_page=full_page)

    async def failure_screenshot(self, path: Path | str, *, timeout_ms: float) -> bool:
        """Save a full-page PNG at ``path`` for a failed test, within about ``timeout_ms``.

        A page still loading a document that never comes cannot be captured (the screenshot
        waits for the navigation): after half the time its load is stopped, as the browser's
        stop button does, and the page as it stands is captured. Returns False when the page
        did not answer at all (its JavaScript stuck: Playwright's own screenshot timeout does
        not end that wait, so each step is cut here); raises Playwright's ``Error`` otherwise.
        """
        page = self._live_page()
        half = max(timeout_ms / 2, 1.0) / 1000

        async def shot() -> bool:
            try:
                await asyncio.wait_for(page.screenshot(path=str(path), full_page=True, timeout=half * 1000), half)
            except (PlaywrightTimeoutError, TimeoutError):
                return False
            return True

        if await shot():
            return True
        cdp = getattr(self, "cdp", None)
        if cdp is None:
            return False
        try:
            await asyncio.wait_for(cdp.send("Page.stopLoading"), half)
        except (PlaywrightError, TimeoutError):
            return False
        return await shot()

    async def type_text(self, text: str, delay: float) -> None:
        """Type ``text`` into the focused element, ``delay`` ms between keys."""
        await self._live_page().keyboard.type(text, delay=delay)

    async def press_key(self, key: str) -> None:
        """Press one key or chord, e.g. ``"Enter"``, ``"ControlOrMeta+A"``."""
        await self._live_page().keyboard.press(key)

    # -- HTTP from the test -----------------------------------------------------------------
    async def fetch(self, url: str, *, method: str, headers: dict[str, str], timeout_ms: float,
                    max_redirects: int, params: dict[str, Any] | None = None,
                    form: dict[str, str | float | bool] | None = None,
                    data: str | bytes | None = None) -> FetchedResponse:
        """Send a request with the context's cookies, outside the page (so never routed).

        Sent by runner's own client (``context_fetch.py``): the body is read within
        ``MAX_READ_BODY_BYTES`` once decompressed. A 4xx/5xx status is an answer, not an error.
        Raises :class:`PageError` when no answer came (connection refused, timeout: the message
        then contains ``Timeout``) or the body was refused.
        """
        from urllib.parse import urlencode, urlsplit, urlunsplit

        from runner.engine.context_fetch import fetch_in_context
        from runner.engine.direct_fetch import BodyTooLarge
        from runner.net import UpstreamError

        sent = dict(headers)
        have = {k.lower() for k in sent}
        if "user-agent" not in have:
            sent["user-agent"] = await self._user_agent()
        if params:
            parts = urlsplit(url)
            extra = urlencode([(k, _param_text(v)) for k, v in params.items()])
            url = urlunsplit(parts._replace(query=f"{parts.query}&{extra}" if parts.query else extra))
        body: bytes | None = None
        if form is not None:
            body = urlencode([(k, _param_text(v)) for k, v in form.items()]).encode("utf-8")
            if "content-type" not in have:
                sent["content-type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = data.encode("utf-8") if isinstance(data, str) else data
        try:
            response = await fetch_in_context(self._direct_client(), self._live_context(), method, url, sent, body,
                                              timeout_ms, max_redirects=max_redirects)
        except BodyTooLarge as err:
            raise BodyRefusedError(err.message) from err
        except UpstreamError as err:
            raise PageError(f"Timeout: {err.message}" if err.timed_out else err.message) from err
        return FetchedResponse(status=response.status, status_text=response.status_text,
                               headers=dict(response.headers), body=response.body, url=response.url)

    def _direct_client(self) -> Any:
        """runner's own HTTP client (direct_fetch.py), made on first use, closed with the browser."""
        client = self._direct
        if client is None:
            from runner.engine.direct_fetch import DirectClient

            client = DirectClient(False)  # like the browser: a server's certificate is not checked
            self._direct = client
        return client

    async def _user_agent(self) -> str:
        """The context's user agent (the ``userAgent`` option, else the browser's own), asked of
        the browser once, not of the page (a page busy in JavaScript must not stop a request)."""
        agent = self._agent
        if agent is None:
            agent = getattr(self.options, "user_agent", None)
            if not agent:
                info = await asyncio.wait_for(self.cdp.send("Browser.getVersion"), 5)
                agent = str(info.get("userAgent") or "runner")
            self._agent = agent
        return agent

    # -- DOM --------------------------------------------------------------------------------
    async def dom(self, arg: dict[str, Any]) -> Any:
        """Run ``dom.js`` with ``arg`` (its modes: ``snapshot``, ``prepare``) and return its data."""
        return await self._in_page(lambda page: page.evaluate(DOM_SCRIPT, arg))

    async def _elements(self, query: dict[str, Any]) -> JSHandle:
        """The elements ``query`` matches now, as one handle (the caller disposes of it)."""
        arg = {**query, "mode": "elements"}
        handle: JSHandle = await self._in_page(lambda page: page.evaluate_handle(DOM_SCRIPT, arg))
        return handle

    async def _in_page(self, call: Callable[[Page], Awaitable[Any]]) -> Any:
        """Evaluate in the page; a navigation under way is waited out, not reported."""
        page = self._live_page()
        for attempt in range(20):
            try:
                return await call(page)
            except PlaywrightError as err:
                text = str(err)
                if attempt == 19 or not any(s in text for s in NAVIGATING):
                    raise
                try:
                    await page.wait_for_load_state("domcontentloaded", timeout=5_000)
                except PlaywrightError:
                    await asyncio.sleep(0.02)
        raise AssertionError("unreachable")

    async def click_element(self, query: dict[str, Any], index: int, *, button: str,
                            click_count: int, modifiers: list[str], force: bool,
                            timeout_ms: float) -> str | None:
        """Click element ``index`` of ``query`` like a user: right before the mouse goes down,
        the element's centre is measured again and must hit the element (a layout shift or a
        cover is retried until ``timeout_ms``). The caller has already waited for motion as
        ``waitForAnimations`` and ``animationDistanceThreshold`` say; Playwright's own
        stability wait is not used (it knows no threshold: an element creeping by less than it
        could never be clicked). ``force`` clicks through Playwright without any check.

        Returns None once clicked, else why not (the first line of Playwright's error, or
        ``"the element left the page"``).
        """
        if not force:
            return await self._click_at_centre(query, index, button=button, click_count=click_count,
                                               modifiers=modifiers, timeout_ms=timeout_ms)
        handle = await self._elements(query)
        try:
            element = (await handle.evaluate_handle("(els, i) => els[i]", index)).as_element()
            if element is None:
                return "the element left the page"
            await element.click(button=button, click_count=click_count, modifiers=modifiers,  # type: ignore[arg-type]
                                force=force, timeout=timeout_ms)
            return None
        except Exception as err:  # Playwright's TimeoutError / Error: the caller reports it
            return str(err).splitlines()[0]
        finally:
            await handle.dispose()

    async def _click_at_centre(self, query: dict[str, Any], index: int, *, button: str, click_count: int,
                               modifiers: list[str], timeout_ms: float) -> str | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout_ms, 0.0) / 1000
        arg = {**query, "mode": "prepare", "index": index, "scroll": None, "threshold": None, "checkCovered": True}
        while True:
            spot = await self.dom(arg)
            if spot.get("ok"):
                break
            if spot.get("reason") == "gone":
                return "the element left the page"
            if loop.time() >= deadline:
                return why_not_actionable(spot)
            await asyncio.sleep(0.02)  # about a frame: the page moves on meanwhile
        page = self._live_page()
        for key in modifiers:
            await page.keyboard.down(key)
        try:
            await page.mouse.click(spot["x"], spot["y"], button=button, click_count=click_count)  # type: ignore[arg-type]
        finally:
            for key in reversed(modifiers):
                await page.keyboard.up(key)
        return None

    async def eval_first(self, query: dict[str, Any], function: str, arg: Any = None) -> Any:
        """Call the JavaScript ``function(element, arg)`` on the first element of ``query``
        and return its result (JSON data)."""
        handle = await self._elements(query)
        try:
            return await handle.evaluate(f"(els, arg) => ({function})(els[0], arg)", arg)
        finally:
            await handle.dispose()

    async def call_method(self, query: dict[str, Any], method: str, args: list[Any]) -> dict[str, Any]:
        """Call the DOM method ``method(*args)`` of the first element of ``query``, once.

        Returns ``{"value": result}`` (JSON data; ``String(result)`` when it is not JSON, None
        for undefined), ``{"gone": True}`` when no element matches, or ``{"missing": type}``
        when the element's ``method`` is not a function (``"undefined"``, ``"string"``...).
        Raises :class:`PageError` when the method throws (or the page failed).
        """
        try:
            handle = await self._elements(query)
            try:
                answer: dict[str, Any] = await handle.evaluate(_CALL_METHOD_SCRIPT, [method, args])
                return answer
            finally:
                await handle.dispose()
        except PlaywrightError as err:
            raise PageError(str(err)) from err

    async def select_options(self, query: dict[str, Any], values: list[str]) -> list[str]:
        """Select the options of the first ``<select>`` of ``query`` whose values are
        ``values``, else those whose labels are; returns the selected values.

        Raises :class:`PageError` when an option is missing (or the page failed).
        """
        try:
            handle = await self._elements(query)
            try:
                element = await handle.evaluate_handle("els => els[0]")
                select = element.as_element()
                assert select is not None
                if await select.evaluate(_HAS_VALUES_SCRIPT, values):
                    return await select.select_option(value=values)
                return await select.select_option(label=values)
            finally:
                await handle.dispose()
        except PlaywrightError as err:
            raise PageError(str(err)) from err

    async def dispatch_event(self, query: dict[str, Any], event: str,
                             init: dict[str, Any] | None) -> None:
        """Dispatch the DOM event ``event`` (with ``init``) on the first element of ``query``."""
        await self._on_first(query, lambda element: element.dispatch_event(event, init))

    async def element_screenshot(self, query: dict[str, Any], path: Path | str) -> None:
        """Save a PNG of the first element of ``query`` at ``path``."""
        await self._on_first(query, lambda element: element.screenshot(path=str(path)))

    async def _on_first(self, query: dict[str, Any],
                        act: Callable[[ElementHandle], Awaitable[Any]]) -> None:
        handle = await self._elements(query)
        try:
            element = (await handle.evaluate_handle("els => els[0]")).as_element()
            assert element is not None
            await act(element)
        finally:
            await handle.dispose()
