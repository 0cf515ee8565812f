"""Screenshot commands: ``runner.screenshot()``, a subject's ``screenshot()``, and ``runner.page()``
(the page as the subject of ``match.screenshot``, commands/snapshots.py).

Both claim a file under ``screenshotsFolder`` and tell ``screenshot.taken``; a subject's goes
through :func:`element_screenshot`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner.artifacts.screenshots import claim_screenshot_path
from runner.commands.base import CommandsBase
from runner.commands.snapshots import PageSubject
from runner.commands.steps import command
from runner.events import ScreenshotTaken

__all__ = ["ScreenshotCommands", "element_screenshot"]


class ScreenshotCommands(CommandsBase):
    """``screenshot``: a PNG of the page."""

    @command("screenshot")
    def screenshot(self, name: str | None = None, *, full_page: bool = True) -> Path:
        """Save a PNG of the page under ``screenshotsFolder/<spec>/<name>.png`` and return its path."""
        path = _screenshot_path(self, name)
        self._ctx.run(self._ctx.browser.screenshot(path, full_page=full_page), self._ctx.config.response_timeout)
        _taken(self, path)
        return path

    @command("page")
    def page(self) -> PageSubject:
        """The page as a subject of snapshot assertions: ``runner.page().should("match.screenshot",
        "home", full_page=True)``, ``should("match.aria_snapshot", "home")`` (docs/snapshots.md)."""
        self._ctx.add_log("page", self._ctx.browser.page_url or "")
        return PageSubject(self)


def element_screenshot(commands: CommandsBase, query: dict[str, Any], name: str | None) -> Path:
    """Save a PNG of the first element of ``query`` (a subject's) as ``name``; its path."""
    ctx = commands._ctx
    path = _screenshot_path(commands, name)
    ctx.run(ctx.browser.element_screenshot(query, path), ctx.config.response_timeout)
    _taken(commands, path)
    return path


def _taken(commands: CommandsBase, path: Path) -> None:
    ctx = commands._ctx
    ctx.add_log("screenshot", str(path))
    ctx.screenshots.append(path)
    ctx.tell(ScreenshotTaken(nodeid=ctx.nodeid, path=str(path), attempt=ctx.attempt))


def _screenshot_path(commands: CommandsBase, name: str | None) -> Path:
    ctx = commands._ctx
    folder = commands._screenshot_dir() if commands._screenshot_dir else Path(ctx.config.path("screenshotsFolder") or ".")
    base = name or ctx.title or "screenshot"
    # "/" in a name makes sub-folders, as in the original; nothing else unsafe survives.
    path = claim_screenshot_path(folder, base, taken=ctx.screenshot_paths, attempt=ctx.attempt,
                                 subfolders=True)
    from runner.artifacts.folders import make_artifact_folder

    make_artifact_folder(path.parent, option="screenshotsFolder", what=f"The screenshot {path.name!r}",
                         root=ctx.config.path("screenshotsFolder") or folder)
    return path
