"""Commands on the loaded page: url, location, hash, title, viewport; its window and document
(``page_js.py``'s subjects) and ``evaluate``, the raw escape hatch into its JavaScript.

Loading a document is ``navigation.py``'s, querying its elements ``queries.py``'s.
"""

from __future__ import annotations

from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.page_js import PageHash, PageValue, from_page, json_arguments
from runner.commands.records import Record
from runner.commands.steps import command
from runner.engine.holder import PageError
from runner.errors import CommandError, UsageError

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
    """``url``, ``location``, ``hash``, ``title``, ``viewport``: the loaded page, read or
    resized; ``window``, ``document``, ``evaluate``: its own JavaScript."""

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

    @command("hash")
    def hash(self) -> PageHash:
        """The URL's hash (``"#/users"``; ``""`` when it has none): a ``str`` whose
        ``should(...)`` reads it again until the assertion holds."""
        value = PageHash.read(self)
        self._ctx.add_log("hash", repr(str(value)))
        return value

    @command("window")
    def window(self) -> PageValue:
        """The page's ``window`` as a retrying subject: ``its("app.store")``,
        ``invoke("app.store.dispatch", action)``, ``should("have.property", "app")``."""
        self._ctx.add_log("window", self._ctx.browser.page_url or "")
        return PageValue(self, "window", [], "window()")

    @command("document")
    def document(self) -> PageValue:
        """The page's ``document`` as a retrying subject (``its("title")``, ``invoke(...)``)."""
        self._ctx.add_log("document", self._ctx.browser.page_url or "")
        return PageValue(self, "document", [], "document()")

    @command("evaluate")
    def evaluate(self, script: str, arg: Any = None, *, timeout: float | None = None) -> Any:
        """Run JavaScript in the page, once, and return its value as data: an expression
        (``"document.title"``) or a function's source called with ``arg``
        (``"n => window.app.add(n)"``); a promise is awaited (up to ``timeout``, else
        defaultCommandTimeout). The window, DOM nodes and functions come back described
        (``<h1#title>``). Raises ``CommandError`` when the script throws, naming its error.
        """
        __tracebackhide__ = True
        if callable(script):
            raise UsageError("runner.evaluate() runs JavaScript source (a str) in the page; found a Python "
                             "callable.\nTo work with the window from Python, use runner.window() "
                             "(its, invoke, then).")
        if not isinstance(script, str) or not script.strip():
            raise UsageError(f"runner.evaluate() needs JavaScript source (a str); found {script!r}.")
        first = _first_line(script)
        json_arguments(arg, f"runner.evaluate({first!r})")
        limit = float(timeout if timeout is not None else self._ctx.config.default_command_timeout)
        self._ctx.add_log("evaluate", first)
        said = f"runner.evaluate({first!r})"
        try:
            answer = self._ctx.run(self._ctx.browser.run_script(script, arg, limit), limit)
        except PageError as err:
            raise CommandError(f"{said}: its value could not be read from the page: {err}") from None
        if "value" in answer:
            return from_page(answer["value"])
        if answer.get("pending"):
            raise CommandError(f"{said} did not end within {limit:g}ms (the promise it returned never "
                               "settled).\nPass timeout= to wait longer.")
        if "navigated" in answer:
            raise CommandError(f"{said} was cut short: the page navigated away while it ran "
                               f"({answer['navigated']}).")
        thrown = str(answer["threw"])
        hint = ("\nThe script must be a JavaScript expression (\"document.title\") or a function's source "
                "(\"() => ...\", \"arg => ...\")." if thrown.startswith("SyntaxError") else "")
        raise CommandError(f"{said} threw in the page: {thrown}{hint}")

    @command("title")
    def title(self) -> str:
        """The page's ``document.title``; a document on its way (a reload under way) is waited
        for, up to defaultCommandTimeout (as long as a retrying read waits: a page that never
        finishes parsing holds title() no longer than that)."""
        limit = float(self._ctx.config.default_command_timeout)
        return self._ctx.run(self._ctx.browser.title(limit), limit)

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


def _first_line(script: str) -> str:
    """The script's first line that says something, cut at 60 characters (``…`` when there is more)."""
    lines = [line.strip() for line in script.strip().splitlines()]
    first = lines[0]
    if len(first) > 60:
        return first[:59] + "…"
    return first + (" …" if len(lines) > 1 else "")
