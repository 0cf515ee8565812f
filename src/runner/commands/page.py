"""Commands on the loaded page: url, location, title, viewport.

The page's window and document as subjects belong here too; loading a document is
``navigation.py``'s, querying its elements ``queries.py``'s.
"""

from __future__ import annotations

from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.records import Record
from runner.commands.steps import command
from runner.errors import UsageError

__all__ = ["PageCommands", "VIEWPORT_PRESETS"]

VIEWPORT_PRESETS: dict[str, tuple[int, int]] = {
    "macbook-16": (1536, 960), "macbook-15": (1440, 900), "macbook-13": (1280, 800),
    "macbook-11": (1366, 768), "ipad-2": (768, 1024), "ipad-mini": (768, 1024),
    "iphone-xr": (414, 896), "iphone-x": (375, 812), "iphone-6+": (414, 736),
    "iphone-se2": (375, 667), "iphone-8": (375, 667), "iphone-7": (375, 667),
    "iphone-6": (375, 667), "iphone-5": (320, 568), "iphone-4": (320, 480),
    "iphone-3": (320, 480), "samsung-s10": (360, 760), "samsung-note9": (414, 846),
}


class PageCommands(CommandsBase):
    """``url``, ``location``, ``title``, ``viewport``: the loaded page, read or resized."""

    @command("url")
    def url(self) -> str:
        url = self._ctx.browser.page_url
        assert url is not None
        return url

    @command("location")
    def location(self, key: str | None = None) -> Any:
        """``window.location`` as a dict (``href``, ``origin``, ``pathname``, ...), or one part."""
        loc = self._ctx.run(self._ctx.browser.location())
        record = Record(loc)
        if key is None:
            return record
        if key not in record:
            raise UsageError(f"runner.location({key!r}): location has no part {key!r}; it has {', '.join(record)}.")
        return record[key]

    @command("title")
    def title(self) -> str:
        return self._ctx.run(self._ctx.browser.title())

    @command("viewport")
    def viewport(self, width: int | str, height: int | str | None = None) -> None:
        """Resize the viewport: ``viewport(1280, 720)``, or a preset ``viewport("iphone-6")``
        (``viewport("iphone-6", "landscape")`` turns it)."""
        if isinstance(width, str):
            preset = VIEWPORT_PRESETS.get(width)
            if preset is None:
                raise UsageError(
                    f"runner.viewport({width!r}): unknown preset.\nPresets: {', '.join(VIEWPORT_PRESETS)}."
                )
            w, h = preset
            if height == "landscape":
                w, h = h, w
            elif height not in (None, "portrait"):
                raise UsageError(f"runner.viewport({width!r}, {height!r}): orientation must be 'portrait' or 'landscape'.")
        else:
            if not (isinstance(width, int) and isinstance(height, int)) or width <= 0 or height <= 0:
                raise UsageError(
                    f"runner.viewport() expects a positive width and height in pixels; found {width!r}, {height!r}."
                )
            w, h = width, height
        self._ctx.run(self._ctx.browser.set_viewport(w, h))
