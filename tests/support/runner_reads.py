"""What an e2e test reads back beside runner's commands: the lines of the test's command log (what
a failing test prints) and a value of the page read straight from Playwright, so that a command is
never checked with itself."""

from __future__ import annotations

from typing import Any


def log_lines(runner: Any, name: str | None = None) -> list[str]:
    """The command log's lines as ``name: message`` (only ``name``'s lines when given)."""
    return [f"{e.name}: {e.message}" for e in runner._ctx.log if name is None or e.name == name]


def log_messages(runner: Any, name: str) -> list[str]:
    """The messages of the command log's ``name`` lines."""
    return [e.message for e in runner._ctx.log if e.name == name]


def page_value(runner: Any, script: str) -> Any:
    """What ``script`` evaluates to in the test's page, read without runner's commands."""
    return runner._ctx.run(runner._ctx.browser.page.evaluate(script))
