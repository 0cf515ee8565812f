"""The page's own JavaScript: a dotted path of the window or document read, a method at one called,
a script run (``runner.window()``, ``runner.document()``, ``runner.evaluate()``).

``page_values.js`` does the work in the page and makes what it finds JSON-able data (what is not
data, a DOM node or a function, becomes a marker the commands show in words), so no Playwright
handle leaves this module. A script that throws is told as the page's ``Name: message``, without
Playwright's prefix or the page's stack frames.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from runner.engine.holder import BrowserHolder, PageError
from runner.engine.page_verbs import NAVIGATING, past_navigation

__all__ = ["ScriptVerbs", "PAGE_VALUES", "page_error_text"]

PAGE_VALUES = (Path(__file__).with_name("page_values.js")).read_text(encoding="utf-8")


def page_error_text(err: BaseException) -> str:
    """What the page threw (``TypeError: x is not a function``), from Playwright's message:
    its ``Page.evaluate: `` prefix and the stack frames (``    at ...``) left out."""
    text = getattr(err, "message", None) or str(err)
    lines = []
    for line in str(text).splitlines():
        if line.startswith("    at "):
            break
        lines.append(line)
    first = "\n".join(lines).strip()
    head, sep, rest = first.partition(": ")
    if sep and head.partition(".")[0] in ("Page", "Frame", "JSHandle", "ElementHandle"):
        first = rest  # "Page.evaluate_handle: TypeError: ..." -> "TypeError: ..."
    return first or type(err).__name__


class ScriptVerbs(BrowserHolder):
    """Reads and calls in the page's own JavaScript, and scripts run there."""

    async def page_value(self, root: str, parts: list[str]) -> dict[str, Any]:
        """The value at ``root`` (``"window"`` or ``"document"``) ``.parts``, as data.

        Returns ``{"value": data}``, ``{"missing": why}`` when a part of the path does not
        exist (yet), or ``{"threw": {"name", "message"}, "reading": path}`` when a getter threw.
        Raises :class:`PageError` (the page's words) when the page could not be asked.
        """
        answer: dict[str, Any] = await self._page_values({"mode": "read", "root": root, "parts": parts})
        return answer

    async def call_page_method(self, root: str, parts: list[str], args: list[Any],
                               timeout_ms: float) -> dict[str, Any]:
        """Call the function at ``root.parts`` with ``this`` the object it was read from, once,
        and wait (up to ``timeout_ms``) for the promise it returns.

        Returns ``{"value": data}``, ``{"missing": why}``, ``{"notFunction": why}``,
        ``{"threw": {"name", "message"}}`` (it threw, or its promise was rejected),
        ``{"pending": True}`` when its promise did not settle in time, or ``{"value": None,
        "navigated": why}`` when the page navigated away meanwhile (it is not called again).
        """
        request = {"mode": "call", "root": root, "parts": parts, "args": args, "timeout": timeout_ms}
        try:
            answer: dict[str, Any] = await self._live_page().evaluate(PAGE_VALUES, request)
        except PlaywrightError as err:
            if not any(s in str(err) for s in NAVIGATING):
                raise PageError(page_error_text(err)) from err
            # never asked again (the function may have run: at most once), and its value is lost
            return {"value": None, "navigated": page_error_text(err)}
        return answer

    async def _page_values(self, request: dict[str, Any]) -> Any:
        page = self._live_page()
        try:  # a navigation under way is waited out, not reported: a read only
            return await past_navigation(lambda: page.evaluate(PAGE_VALUES, request), lambda: page)
        except PlaywrightError as err:
            raise PageError(page_error_text(err)) from err

    async def run_script(self, script: str, arg: Any, timeout_ms: float) -> dict[str, Any]:
        """Run ``script`` in the page as Playwright's ``evaluate`` does (an expression, or a
        function's source called with ``arg``; a promise is awaited), once.

        Returns ``{"value": data}``, ``{"threw": "Name: message"}`` (it threw, its promise was
        rejected, or it is not valid JavaScript), ``{"navigated": why}`` when the page navigated
        away meanwhile, or ``{"pending": True}`` when it did not end within ``timeout_ms``.
        Raises :class:`PageError` (the page's words) when its value could not be read.
        """
        page = self._live_page()
        try:
            handle = await asyncio.wait_for(page.evaluate_handle(script, arg), timeout_ms / 1000)
        except TimeoutError:
            return {"pending": True}
        except PlaywrightError as err:
            text = page_error_text(err)
            if any(s in str(err) for s in NAVIGATING):
                return {"navigated": text}
            return {"threw": text}
        try:
            return {"value": await handle.evaluate(PAGE_VALUES, {"mode": "data"})}
        except PlaywrightError as err:
            if any(s in str(err) for s in NAVIGATING):
                return {"navigated": page_error_text(err)}
            raise PageError(page_error_text(err)) from err
        finally:
            try:
                await handle.dispose()
            except PlaywrightError:
                pass  # the page went away meanwhile: so did the handle
