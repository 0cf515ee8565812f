"""What ``runner open``'s studio asks of the page: the recorder put in, and a person's input
passed on from the UI's picture of the page.

:class:`StudioVerbs` is mixed into :class:`~runner.engine.browser.BrowserSession` beside the page
verbs. The recorder script (``ui/studio_recorder.js``) is handed in as text: the engine does not
know what it records, only that it reports each action through one binding, and that it must be
there again in every document the page loads (an init script) and at once in the current one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

__all__ = ["StudioVerbs", "INPUT_KINDS"]

#: The kinds of input event :meth:`StudioVerbs.dispatch_input` passes on.
INPUT_KINDS = ("click", "dblclick", "move", "wheel", "key", "text")

_BINDING = "__runnerStudioReport"


class StudioVerbs:
    page: Page | None

    async def start_recorder(self, script: str, options: dict[str, Any],
                             on_action: Callable[[str], None]) -> None:
        """Put the recorder in the page (now, and in every document loaded later) and start it
        with ``options``; each recorded action reaches ``on_action`` as the JSON text the
        recorder reported. Raises Playwright's ``Error`` when the page is gone."""
        page = self.page
        assert page is not None
        opts = {**options, "report": _BINDING}
        start = f"\n;window.__runnerStudioStart && window.__runnerStudioStart({json.dumps(opts)});"
        installed = getattr(page, "_runner_studio_binding", False)
        if not installed:
            await page.expose_binding(_BINDING, lambda _source, text: on_action(str(text)))
            await page.add_init_script(script + start)
            page._runner_studio_binding = True  # type: ignore[attr-defined]
        await page.evaluate(f"() => {{ {script}\n{start} }}")

    async def stop_recorder(self) -> None:
        """Stop recording in the current document (a page that is gone has nothing to stop)."""
        page = self.page
        if page is None:
            return
        try:
            await page.evaluate("() => window.__runnerStudioStop && window.__runnerStudioStop()")
        except PlaywrightError:
            pass

    async def dispatch_input(self, event: dict[str, Any]) -> None:
        """Pass on one input event of the UI (``kind`` in :data:`INPUT_KINDS`; ``x``/``y`` in the
        page's CSS pixels; ``key`` a key name as Playwright spells it; ``text`` typed text).
        Raises ``ValueError`` for an unknown kind, Playwright's ``Error`` when the page is gone."""
        page = self.page
        assert page is not None
        kind = event.get("kind")
        x, y = float(event.get("x") or 0), float(event.get("y") or 0)
        if kind == "click":
            await page.mouse.click(x, y)
        elif kind == "dblclick":
            await page.mouse.dblclick(x, y)
        elif kind == "move":
            await page.mouse.move(x, y)
        elif kind == "wheel":
            await page.mouse.move(x, y)
            await page.mouse.wheel(float(event.get("dx") or 0), float(event.get("dy") or 0))
        elif kind == "key":
            await page.keyboard.press(str(event.get("key") or ""))
        elif kind == "text":
            await page.keyboard.insert_text(str(event.get("text") or ""))
        else:
            raise ValueError(f"input kind {kind!r} is not one of {', '.join(INPUT_KINDS)}")
