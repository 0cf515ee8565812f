"""Query commands: get, contains, wrap, frame (where a chain starts) and get("@alias").

A new way to start a chain (the page's frames, the window, ...) belongs here; what a chain does
once started is the subject's (``subject.py``). Inside ``with runner.within(subject):`` both
queries start from that subject (``within.py``'s ``scoped``).
"""

from __future__ import annotations

from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.dom_query import checked_selector
from runner.commands.frames import Frame, frame_steps
from runner.commands.steps import command
from runner.commands.subject import Subject
from runner.commands.traversal import (
    Content,
    contains_arguments,
    contains_label,
    contains_step,
    swapped,
)
from runner.commands.values import Value
from runner.commands.within import scoped
from runner.errors import UsageError

__all__ = ["QueryCommands"]


class QueryCommands(CommandsBase):
    """``get``, ``contains``, ``wrap``, ``frame``: the subjects a chain starts from."""

    def get(self, selector: str, *, timeout: float | None = None,
            include_shadow_dom: bool | None = None) -> Any:
        """Query elements by CSS selector (with jQuery's ``:visible``, ``:first``, ... as in the
        original: ``selectors.py``), or read an alias: ``get("@name")``, ``"@name.all"``,
        ``"@name.<n>"``. Returns a retrying :class:`Subject` for selectors."""
        if isinstance(selector, str) and selector.startswith("@"):
            return self._get_alias(selector)
        step = {"op": "get", "selector": checked_selector(self, "get", (selector,), {}, selector, required=True)}
        steps, label = scoped(self, step, f"get({selector!r})")
        return Subject(self, steps, label, timeout, include_shadow_dom)

    def _get_alias(self, name: str) -> Any:
        bare = name[1:]
        if bare in self._dom_aliases:
            return self._dom_aliases[bare]
        if self._interceptor_getter is None:
            raise UsageError(f"runner.get({name!r}): no alias {bare!r} was defined in this test.")
        return self._interceptor_getter().get(name)

    def contains(self, *args: Content, selector: str | None = None, content: Content | None = None,
                 match_case: bool = True, timeout: float | None = None) -> Subject:
        """The deepest element containing ``content`` (text, a number, or ``re.Pattern``):
        ``contains(content)``, or ``contains(selector, content)`` (the original's order: the
        element matching ``selector`` that contains it); ``selector=`` and ``content=`` as
        keywords too. A ``button``, ``a`` or ``label`` holding the text is preferred."""
        chosen, text = contains_arguments("runner.contains", args, selector, content, self._ctx.redactor)
        step = contains_step(self, text, chosen, match_case, args)
        steps, label = scoped(self, step, contains_label(args, selector, content, match_case))
        found = Subject(self, steps, label, timeout)
        found._swapped = swapped(chosen, text)
        return found

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
