"""The verbs on elements: ``dom.js`` run in the page, the user's actions on elements, the keyboard.

``dom`` runs ``dom.js``; ``click_element``, ``hover_element``, ``eval_first``, ``call_method``,
``select_options``, ``set_input_files``, ``dispatch_event``, ``element_screenshot`` act on what
it finds; ``type_text`` and ``press_key``
use the keyboard.

Elements are found by ``dom.js`` from a query (``{"steps": [...], "shadow": bool}``, e.g. a
subject's), run again for every verb, so no element handle outlives a verb. A query whose steps
begin with frame steps runs in that iframe's document (``frames.py`` finds the frame each time).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright._impl import channel_owner  # ApiCallOptions: evaluate_untraced
from playwright.async_api import ElementHandle, Frame, JSHandle, Page
from playwright.async_api import Error as PlaywrightError

from runner.engine.actionability import why_not_actionable
from runner.engine.frames import (
    FrameUnavailable,
    frame_label,
    frame_point,
    resolve_frame,
    split_frames,
)
from runner.engine.holder import BrowserHolder, PageError
from runner.engine.page_verbs import NAVIGATING, past_navigation

__all__ = ["ElementVerbs", "DOM_SCRIPT", "InvalidSelector", "evaluate_untraced"]

DOM_SCRIPT = (Path(__file__).with_name("dom.js")).read_text(encoding="utf-8")
_CALL_METHOD_SCRIPT = (
    "(els, [m, a]) => { const el = els[0]; if (!el) return {gone: true};"
    " if (typeof el[m] !== 'function') return {missing: typeof el[m]};"
    " const r = el[m](...a);"
    " try { return {value: JSON.parse(JSON.stringify(r === undefined ? null : r))}; }"
    " catch (e) { return {value: String(r)}; } }"
)
# dom.js's words for a selector the browser refused (checked before any step runs)
_INVALID_SELECTOR = re.compile(r"runner: invalid selector (\{.*\})")



def closed_by_the_action(page: Page | None, err: PlaywrightError) -> bool:
    """Whether ``err`` only says that the action's own page closed under it: a click whose
    handler calls window.close() ends with Playwright's "Target page, context or browser has
    been closed" once the page is gone, although the click was delivered."""
    return page is not None and (page.is_closed() or "has been closed" in str(err))

class InvalidSelector(PageError):
    """A query's selector is not one the browser can read: ``selector`` as the test wrote it,
    ``part`` the CSS the browser refused (the whole selector, or a piece of one with jQuery's
    extensions), ``str()`` the browser's words."""

    def __init__(self, selector: str, part: str, reason: str) -> None:
        super().__init__(reason)
        self.selector = selector
        self.part = part


async def evaluate_untraced(target: Page | Frame, script: str, arg: Any) -> Any:
    """``target.evaluate(script, arg)`` sent as a call internal to Playwright's driver, as its
    own bookkeeping calls are: the same evaluation, waits and errors, but a trace that records
    keeps no action and takes no DOM snapshots for it (two a call otherwise, the larger part of
    what a trace costs a test). Where Playwright's implementation object is not there (another
    Playwright), it is the public, traced call."""
    impl: Any = getattr(target, "_impl_obj", None)
    wrap = getattr(impl, "_wrap_api_call", None)
    options = getattr(channel_owner, "ApiCallOptions", None)
    if wrap is None or options is None:
        return await target.evaluate(script, arg)
    return await wrap(lambda _zone: impl.evaluate(script, arg), options(internal=True))


_HAS_VALUES_SCRIPT = "(s, vals) => vals.every(v => Array.from(s.options).some(o => o.value === v))"


class ElementVerbs(BrowserHolder):
    """The page's elements, found by ``dom.js`` and acted on like a user; the keyboard."""

    async def dom(self, arg: dict[str, Any], *, untraced: bool = False) -> Any:
        """Run ``dom.js`` with ``arg`` (its modes: ``snapshot``, ``prepare``) and return its data;
        ``untraced``: as a call a trace does not record (:func:`evaluate_untraced`).

        Raises ``frames.FrameUnavailable`` when the query's frame cannot be reached now."""
        path, arg = split_frames(arg)
        if untraced:
            return await self._in_page(lambda target: evaluate_untraced(target, DOM_SCRIPT, arg), path)
        return await self._in_page(lambda target: target.evaluate(DOM_SCRIPT, arg), path)

    async def _elements(self, query: dict[str, Any]) -> JSHandle:
        """The elements ``query`` matches now, as one handle (the caller disposes of it)."""
        path, query = split_frames(query)
        arg = {**query, "mode": "elements"}
        handle: JSHandle = await self._in_page(lambda target: target.evaluate_handle(DOM_SCRIPT, arg), path)
        return handle

    async def _in_page(self, call: Callable[[Page | Frame], Awaitable[Any]], path: list[str] | None = None) -> Any:
        """Evaluate in the page, or in the frame at the end of ``path`` (found again at each
        try); a navigation under way is waited out, not reported."""
        page = self._live_page()
        target: Page | Frame = page

        async def attempt() -> Any:
            nonlocal target
            target = await resolve_frame(page, path) if path else page
            return await call(target)

        try:
            return await past_navigation(attempt, lambda: target)
        except PlaywrightError as err:
            text = str(err)
            refused = _INVALID_SELECTOR.search(text)
            if refused:
                facts = json.loads(refused.group(1))
                raise InvalidSelector(facts["selector"], facts["part"], facts["reason"]) from None
            if path and any(s in text for s in NAVIGATING):  # a frame that keeps navigating (or being replaced)
                raise FrameUnavailable(f"{frame_label(path)}: its document kept being replaced "
                                       f"({text.splitlines()[0]})") from err
            raise

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
        except PlaywrightError as err:
            if closed_by_the_action(self.page, err):
                return None  # the click closed its own page: it was done
            return str(err).splitlines()[0]
        except Exception as err:  # Playwright's TimeoutError / Error: the caller reports it
            return str(err).splitlines()[0]
        finally:
            await handle.dispose()

    async def _spot(self, query: dict[str, Any], index: int, timeout_ms: float,
                    enabled: bool = True) -> dict[str, Any] | str:
        """Where element ``index`` of ``query`` takes a pointer event now (its centre, which
        must hit it; and it must be enabled, unless not ``enabled``), measured again until
        ``timeout_ms``, in the page's viewport (an element of a frame too); else why not, in words."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout_ms, 0.0) / 1000
        arg = {**query, "mode": "prepare", "index": index, "scroll": None, "threshold": None, "checkCovered": True,
               "checkEnabled": enabled}
        path = split_frames(query)[0]
        while True:
            # runner's check right before the mouse goes down, not recorded in a trace: the
            # action's own call (Click, Mouse move) has the page and the point at that moment
            spot: dict[str, Any] = await self.dom(arg, untraced=True)
            if spot.get("ok"):
                # dom.js measures in its own document's viewport; the mouse moves in the page's,
                # and the documents around a frame may lay something over its iframe
                x, y, cover = await frame_point(self._live_page(), path, spot["x"], spot["y"])
                if cover is None:
                    return {**spot, "x": x, "y": y}
                spot = {**spot, "ok": False, "reason": "covered", "by": cover}
            if spot.get("reason") == "gone":
                return "the element left the page"
            if loop.time() >= deadline:
                return why_not_actionable(spot)
            await asyncio.sleep(0.02)  # about a frame: the page moves on meanwhile

    async def _click_at_centre(self, query: dict[str, Any], index: int, *, button: str, click_count: int,
                               modifiers: list[str], timeout_ms: float) -> str | None:
        spot = await self._spot(query, index, timeout_ms)
        if isinstance(spot, str):
            return spot
        page = self._live_page()
        for key in modifiers:
            await page.keyboard.down(key)
        try:
            await page.mouse.click(spot["x"], spot["y"], button=button, click_count=click_count)  # type: ignore[arg-type]
        except PlaywrightError as err:
            if not closed_by_the_action(page, err):
                raise
            return None  # the click closed its own page (window.close() in its handler): it was done
        finally:
            if not page.is_closed():
                for key in reversed(modifiers):
                    await page.keyboard.up(key)
        return None

    async def hover_element(self, query: dict[str, Any], index: int, *, force: bool,
                            timeout_ms: float) -> str | None:
        """Move the mouse onto element ``index`` of ``query`` (a real pointer move: CSS
        ``:hover``, ``mouseover``, ``mouseenter``), at its centre measured again right before,
        as a click does (but a disabled element is hovered too); ``force`` hovers through
        Playwright without any check.

        Returns None once there, else why not (as :meth:`click_element` does).
        """
        if force:
            handle = await self._elements(query)
            try:
                element = (await handle.evaluate_handle("(els, i) => els[i]", index)).as_element()
                if element is None:
                    return "the element left the page"
                await element.hover(force=True, timeout=timeout_ms)
                return None
            except PlaywrightError as err:
                return str(err).splitlines()[0]
            finally:
                await handle.dispose()
        spot = await self._spot(query, index, timeout_ms, enabled=False)
        if isinstance(spot, str):
            return spot
        await self._live_page().mouse.move(spot["x"], spot["y"])
        return None

    async def set_input_files(self, query: dict[str, Any], files: list[dict[str, Any]]) -> None:
        """Give the first element of ``query`` (an ``<input type=file>``, or a label of one)
        the files ``files`` (``name``, ``mimeType``, ``buffer``), as a user picking them does:
        ``input`` and ``change`` are dispatched.

        Raises :class:`PageError` when Playwright refuses (or the page failed).
        """
        payloads: list[Any] = [{"name": f["name"], "mimeType": f["mimeType"], "buffer": f["buffer"]} for f in files]
        try:
            handle = await self._elements(query)
            try:
                element = (await handle.evaluate_handle(
                    "els => els[0] && els[0].tagName === 'LABEL' && els[0].control ? els[0].control : els[0]"
                )).as_element()
                assert element is not None
                await element.set_input_files(payloads)
            finally:
                await handle.dispose()
        except PlaywrightError as err:
            raise PageError(str(err).splitlines()[0]) from err

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

    async def type_text(self, text: str, delay: float) -> None:
        """Type ``text`` into the focused element, ``delay`` ms between keys."""
        await self._live_page().keyboard.type(text, delay=delay)

    async def press_key(self, key: str) -> None:
        """Press one key or chord, e.g. ``"Enter"``, ``"ControlOrMeta+A"``."""
        await self._live_page().keyboard.press(key)
