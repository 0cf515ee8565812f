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

from runner.engine.element_verbs import ElementVerbs

__all__ = ["MASK_COLOR", "SnapshotVerbs"]

#: What a mask paints over its elements (Playwright's own default colour).
MASK_COLOR = "#FF00FF"
_MARK = "data-runner-aria"


def _steady(page: Page, masks: list[str], timeout_ms: float) -> dict[str, Any]:
    return {"animations": "disabled", "caret": "hide", "scale": "css", "mask": [page.locator(m) for m in masks],
            "mask_color": MASK_COLOR, "timeout": timeout_ms, "type": "png"}


class SnapshotVerbs(ElementVerbs):
    """Pictures and aria snapshots of the page or of a query's first element."""

    async def snapshot_png(self, query: dict[str, Any] | None, *, masks: list[str], full_page: bool,
                           timeout_ms: float) -> bytes:
        """A steady PNG of the first element of ``query``, or of the page (``query`` None; the
        whole page with ``full_page``), ``masks`` (CSS selectors) painted over."""
        page = self._live_page()
        options = _steady(page, masks, timeout_ms)
        if query is None:
            return await page.screenshot(full_page=full_page, **options)
        shots: list[bytes] = []

        async def shoot(element: ElementHandle) -> None:
            shots.append(await element.screenshot(**options))

        await self._on_first(query, shoot)
        return shots[0]

    async def aria_snapshot(self, query: dict[str, Any] | None, expected: str | None,
                            timeout_ms: float) -> dict[str, Any]:
        """The aria snapshot of the first element of ``query`` (the page's body when None) as
        ``{"actual": yaml}``, and with ``expected`` (a template: partial, with regexes)
        ``"matches"`` and Playwright's ``"message"`` when it does not match."""
        page = self._live_page()
        if query is None:
            return await self._aria_of(page.locator("body"), expected, timeout_ms)
        token = uuid.uuid4().hex
        answers: list[dict[str, Any]] = []

        async def read(element: ElementHandle) -> None:
            # a locator for this very element: marked for the time of the reading
            frame = await element.owner_frame()
            await element.evaluate("(el, [name, token]) => el.setAttribute(name, token)", [_MARK, token])
            try:
                target = (frame or page).locator(f"[{_MARK}='{token}']")
                answers.append(await self._aria_of(target, expected, timeout_ms))
            finally:
                await element.evaluate("(el, name) => el.removeAttribute(name)", _MARK)

        await self._on_first(query, read)
        return answers[0]

    @staticmethod
    async def _aria_of(target: Locator, expected: str | None, timeout_ms: float) -> dict[str, Any]:
        actual = await target.aria_snapshot(timeout=timeout_ms)
        if expected is None:
            return {"actual": actual}
        try:
            # one look (the caller retries): Playwright's matching, partial and with regexes
            await expect(target).to_match_aria_snapshot(expected, timeout=1)
        except AssertionError as err:
            return {"actual": actual, "matches": False, "message": str(err)}
        return {"actual": actual, "matches": True}
