"""The verbs of snapshot assertions: steady pictures to compare (``match.screenshot``) and the
accessibility tree as Playwright's aria snapshot YAML, matched as Playwright matches it
(``match.aria_snapshot``).

A picture for a comparison is taken with CSS animations and transitions stopped, the caret
hidden, one picture pixel per CSS pixel (so a baseline does not depend on the screen's device
scale factor) and the ``mask`` selectors' elements painted over in one colour.
"""

from __future__ import annotations

import uuid
from typing import Any

from playwright.async_api import ElementHandle, Locator, Page, expect
from playwright.async_api import Error as PlaywrightError

from runner.engine.element_verbs import ElementVerbs

__all__ = ["MASK_COLOR", "SnapshotVerbs"]

#: What a mask paints over its elements (Playwright's own default colour).
MASK_COLOR = "#FF00FF"
_MARK = "data-runner-aria"


def _steady(page: Page, masks: list[str], timeout_ms: float) -> dict[str, Any]:
    return {"animations": "disabled", "caret": "hide", "scale": "css", "mask": [page.locator(m) for m in masks],
            "mask_color": MASK_COLOR, "timeout": timeout_ms, "type": "png"}


class SnapshotVerbs(ElementVerbs):
    """Pictures and aria snapshots of the page or of a query's first element.

    Each answers a dict: what it read, ``{"missing": True}`` when the query finds no element
    now, ``{"hidden": True}`` when the element to picture is not visible now (``display: none``,
    ``visibility: hidden``, no size), or ``{"error": ...}`` with Playwright's words when the
    browser could not do it: the caller retries these. ``{"bad_mask": selector, "error": ...}``
    names a mask selector the browser cannot parse, which no retry mends."""

    async def snapshot_png(self, query: dict[str, Any] | None, *, masks: list[str], full_page: bool,
                           timeout_ms: float) -> dict[str, Any]:
        """A steady PNG (``{"png": bytes}``) of the first element of ``query``, or of the page
        (``query`` None; the whole page with ``full_page``), ``masks`` (CSS selectors) painted over."""
        page = self._live_page()
        options = _steady(page, masks, timeout_ms)
        for mask in masks:
            try:
                await page.locator(mask).count()
            except PlaywrightError as err:
                return {"bad_mask": mask, "error": _first_line(err)}
        try:
            if query is None:
                return {"png": await page.screenshot(full_page=full_page, **options)}
            handle = await self._elements(query)
            try:
                element = (await handle.evaluate_handle("els => els[0] || null")).as_element()
                if element is None:
                    return {"missing": True}
                if not await element.is_visible():
                    # asked now, so the caller retries at once; element.screenshot would spend
                    # the whole timeout waiting and then say only that it timed out
                    return {"hidden": True}
                return {"png": await element.screenshot(**options)}
            finally:
                await handle.dispose()
        except PlaywrightError as err:
            return {"error": _first_line(err)}

    async def aria_snapshot(self, query: dict[str, Any] | None, expected: str | None,
                            timeout_ms: float) -> dict[str, Any]:
        """The aria snapshot of the first element of ``query`` (the page's body when None) as
        ``{"actual": yaml}``, and with ``expected`` (a template: partial, with regexes)
        ``"matches"`` and Playwright's ``"message"`` when it does not match."""
        page = self._live_page()
        try:
            if query is None:
                return await self._aria_of(page.locator("body"), expected, timeout_ms)
            handle = await self._elements(query)
            try:
                element = (await handle.evaluate_handle("els => els[0] || null")).as_element()
                if element is None:
                    return {"missing": True}
                return await self._aria_of_element(page, element, expected, timeout_ms)
            finally:
                await handle.dispose()
        except PlaywrightError as err:
            return {"error": _first_line(err)}

    async def _aria_of_element(self, page: Page, element: ElementHandle, expected: str | None,
                               timeout_ms: float) -> dict[str, Any]:
        # a locator for this very element: marked for the time of the reading
        token = uuid.uuid4().hex
        frame = await element.owner_frame()
        await element.evaluate("(el, [name, token]) => el.setAttribute(name, token)", [_MARK, token])
        try:
            return await self._aria_of((frame or page).locator(f"[{_MARK}='{token}']"), expected, timeout_ms)
        finally:
            await element.evaluate("(el, name) => el.removeAttribute(name)", _MARK)

    @staticmethod
    async def _aria_of(target: Locator, expected: str | None, timeout_ms: float) -> dict[str, Any]:
        actual = await target.aria_snapshot(timeout=timeout_ms)
        if expected is None:
            return {"actual": actual}
        try:
            # one look (the caller retries): Playwright's matching, partial and with regexes
            await expect(target).to_match_aria_snapshot(expected, timeout=1)
        except AssertionError as err:
            # a template Playwright cannot read says why on a line of its own ("Error: ...")
            lines = str(err).splitlines()
            start = next((i for i, line in enumerate(lines) if line.startswith("Error: ")), None)
            if start is not None:
                words = "\n".join(lines[start:]).split("\nCall log:")[0].strip()
                return {"actual": actual, "matches": False, "template_error": words.removeprefix("Error: ")}
            return {"actual": actual, "matches": False, "message": str(err)}
        return {"actual": actual, "matches": True}


def _first_line(err: PlaywrightError) -> str:
    return (err.message or str(err)).strip().splitlines()[0] if (err.message or str(err)).strip() else repr(err)
