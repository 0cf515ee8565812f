"""Query commands: get, contains, wrap, frame (where a chain starts) and get("@alias").

A new way to start a chain (the page's frames, the window, ...) belongs here; what a chain does
once started is the subject's (``subject.py``).
"""

from __future__ import annotations

import re
from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.frames import Frame, frame_steps
from runner.commands.steps import command
from runner.commands.subject import Subject
from runner.commands.traversal import contains_step, shown_content
from runner.commands.values import Value
from runner.errors import UsageError

__all__ = ["QueryCommands"]


class QueryCommands(CommandsBase):
    """``get``, ``contains``, ``wrap``, ``frame``: the subjects a chain starts from."""

    def get(self, selector: str, *, timeout: float | None = None,
            include_shadow_dom: bool | None = None) -> Any:
        """Query elements by CSS selector, or read an alias: ``get("@name")``, ``"@name.all"``,
        ``"@name.<n>"``. Returns a retrying :class:`Subject` for selectors."""
        if not isinstance(selector, str) or not selector:
            raise UsageError(f"runner.get() needs a selector string; found {selector!r}.")
        if selector.startswith("@"):
            return self._get_alias(selector)
        return Subject(self, [{"op": "get", "selector": selector}], f"get({selector!r})",
                       timeout, include_shadow_dom)

    def _get_alias(self, name: str) -> Any:
        bare = name[1:]
        if bare in self._dom_aliases:
            return self._dom_aliases[bare]
        if self._interceptor_getter is None:
            raise UsageError(f"runner.get({name!r}): no alias {bare!r} was defined in this test.")
        return self._interceptor_getter().get(name)

    def contains(self, content: str | re.Pattern[str] | int, selector: str | None = None, *,
                 match_case: bool = True, timeout: float | None = None) -> Subject:
        """The deepest element containing ``content`` (text or ``re.Pattern``)."""
        if selector is not None and not isinstance(selector, str):
            raise UsageError(f"runner.contains(): selector must be a string; found {selector!r}.")
        step = contains_step(content, selector, match_case)
        return Subject(self, [step], f"contains({shown_content(content)})", timeout)  # type: ignore[arg-type]

    @command("frame")
    def frame(self, selector: str, *, timeout: float | None = None,
              include_shadow_dom: bool | None = None) -> Frame:
        """The iframe ``selector``'s document (same origin or not): a subject whose elements are
        its ``<body>``, with ``get``, ``frame`` (nested iframes) and ``its`` (its window's
        properties) starting from that document. Nothing is read here: each command on it finds
        the iframe and its document again, until its timeout."""
        steps = frame_steps(selector, "runner.frame()")
        return Frame.at(self, steps, f"frame({selector!r})", timeout, include_shadow_dom)

    def wrap(self, value: Any) -> Value:
        """A retrying subject over any Python value."""
        return Value.wrapping(self, value)
