"""A subject's traversal: find, contains, first, last, eq, filter, not_, parent, children, closest,
and the original's (jQuery's) walks: next, prev, siblings, parents, next_all, prev_all and their
``..._until`` forms.

Each adds a step to the subject's recipe and returns a new subject; nothing is read until a
command runs, so a traversal is retried with the command that reads it. Its label (``next('.item')``)
is part of every command-log line, trace step and error of that command. Selectors may use the
jQuery extensions ``selectors.py`` compiles. A new traversal belongs here.
"""

from __future__ import annotations

import re
from typing import Any, Self

from runner.commands.dom_query import DomQuery, checked_selector
from runner.commands.steps import show_args
from runner.errors import UsageError
from runner.expect.messages import regex_text

__all__ = ["Traversal", "Content", "contains_arguments", "contains_step", "contains_label", "swapped"]

#: What ``contains`` looks for: text (a number is its text) or a regular expression.
Content = str | re.Pattern[str] | int | float

_NEEDS_SELECTOR = frozenset({"find", "filter", "not", "closest"})


class Traversal(DomQuery):
    """The subject's steps to other elements."""

    def _walk(self, name: str, op: str, args: tuple[Any, ...], kwargs: dict[str, Any],
              **selectors: str | None) -> Self:
        """The step ``op`` with its ``selectors`` (``selector``, and ``until`` for the
        ``..._until`` walks), labelled as the test called it: ``name(*args, **kwargs)``."""
        step: dict[str, Any] = {"op": op}
        for key, value in selectors.items():
            required = key == "selector" and op in _NEEDS_SELECTOR
            step[key] = checked_selector(self, name, args, kwargs, value, required=required)
        shown = show_args(tuple(a for a in args if a is not None), {k: v for k, v in kwargs.items() if v is not None},
                          self._ctx.redactor)
        return self._derive(step, f"{name}({shown})")

    def find(self, selector: str) -> Self:
        return self._walk("find", "find", (selector,), {}, selector=selector)

    def contains(self, *args: Content, selector: str | None = None, content: Content | None = None,
                 match_case: bool = True) -> Self:
        """The deepest element in the subject containing ``content``: ``contains(content)``, or
        ``contains(selector, content)`` (the original's order: an element matching ``selector``
        that contains it); ``selector=`` and ``content=`` as keywords too."""
        chosen, text = contains_arguments("contains", args, selector, content, self._ctx.redactor)
        step = contains_step(self, text, chosen, match_case, args)
        found = self._derive(step, contains_label(args, selector, content, match_case))
        found._swapped = swapped(chosen, text)
        return found

    def first(self) -> Self:
        return self._derive({"op": "first"}, "first()")

    def last(self) -> Self:
        return self._derive({"op": "last"}, "last()")

    def eq(self, index: int) -> Self:
        if not isinstance(index, int) or isinstance(index, bool):
            raise UsageError(f"eq() expects an integer index; found {index!r}.")
        return self._derive({"op": "eq", "index": index}, f"eq({index})")

    def filter(self, selector: str) -> Self:
        return self._walk("filter", "filter", (selector,), {}, selector=selector)

    def not_(self, selector: str) -> Self:
        return self._walk("not_", "not", (selector,), {}, selector=selector)

    def parent(self, selector: str | None = None) -> Self:
        """Each element's parent (kept when it matches ``selector``)."""
        return self._walk("parent", "parent", (selector,), {}, selector=selector)

    def children(self, selector: str | None = None) -> Self:
        return self._walk("children", "children", (selector,), {}, selector=selector)

    def closest(self, selector: str) -> Self:
        return self._walk("closest", "closest", (selector,), {}, selector=selector)

    def next(self, selector: str | None = None) -> Self:
        """Each element's next sibling element (kept when it matches ``selector``)."""
        return self._walk("next", "next", (selector,), {}, selector=selector)

    def prev(self, selector: str | None = None) -> Self:
        """Each element's previous sibling element (kept when it matches ``selector``)."""
        return self._walk("prev", "prev", (selector,), {}, selector=selector)

    def siblings(self, selector: str | None = None) -> Self:
        """The elements' sibling elements (not themselves), in document order."""
        return self._walk("siblings", "siblings", (selector,), {}, selector=selector)

    def parents(self, selector: str | None = None) -> Self:
        """All ancestors of the elements, nearest first (up to ``<html>``)."""
        return self._walk("parents", "parents", (selector,), {}, selector=selector)

    def next_all(self, selector: str | None = None) -> Self:
        """Every following sibling element, in document order."""
        return self._walk("next_all", "nextAll", (selector,), {}, selector=selector)

    def prev_all(self, selector: str | None = None) -> Self:
        """Every preceding sibling element, nearest first."""
        return self._walk("prev_all", "prevAll", (selector,), {}, selector=selector)

    def next_until(self, selector: str | None = None, filter: str | None = None) -> Self:
        """The following siblings up to (not including) one matching ``selector``, kept when
        they match ``filter``."""
        return self._walk("next_until", "nextUntil", (selector,), {"filter": filter}, until=selector, selector=filter)

    def prev_until(self, selector: str | None = None, filter: str | None = None) -> Self:
        """The preceding siblings (nearest first) up to one matching ``selector``, kept when
        they match ``filter``."""
        return self._walk("prev_until", "prevUntil", (selector,), {"filter": filter}, until=selector, selector=filter)

    def parents_until(self, selector: str | None = None, filter: str | None = None) -> Self:
        """The ancestors (nearest first) up to one matching ``selector``, kept when they match
        ``filter``."""
        return self._walk("parents_until", "parentsUntil", (selector,), {"filter": filter}, until=selector, selector=filter)


def contains_arguments(name: str, args: tuple[Any, ...], selector: str | None,
                       content: Any, redactor: Any = None) -> tuple[str | None, Any]:
    """``contains``'s selector and content from its call: ``(content)``, ``(selector,
    content)`` (the original's order), ``(selector, content=...)`` or keywords. Raises
    ``UsageError`` for a call that gives one of them twice, or none."""
    if len(args) > 2:
        raise UsageError(f"{name}() takes content, or a selector and content; found {len(args)} "
                         f"arguments: {show_args(args, {}, redactor)}.")
    if len(args) == 2 or (len(args) == 1 and content is not None):
        if selector is not None or (len(args) == 2 and content is not None):
            raise UsageError(f"{name}() was given the selector or the content twice: "
                             f"{show_args(args, {'selector': selector, 'content': content}, redactor)}.")
        return args[0], args[1] if len(args) == 2 else content
    if len(args) == 1:
        return selector, args[0]
    if content is None:
        raise UsageError(f"{name}() needs the content to look for: contains('Save') or "
                         "contains('button', 'Save').")
    return selector, content


def swapped(selector: str | None, content: Any) -> tuple[str, str] | None:
    """What a contains subject keeps to tell a call in the old order (content first) when it
    finds nothing: its selector and its content, when the content is a str."""
    return (selector, content) if selector is not None and isinstance(content, str) else None


def contains_label(args: tuple[Any, ...], selector: str | None, content: Any, match_case: bool) -> str:
    """``contains``'s call as labels, logs, trace steps and errors show it: every argument, a
    regular expression as ``/.../``."""
    shown = [_shown(a) for a in args]
    if selector is not None:
        shown.append(f"selector={selector!r}")
    if content is not None:
        shown.append(f"content={_shown(content)}")
    if not match_case:
        shown.append("match_case=False")
    return f"contains({', '.join(shown)})"


def _shown(content: Any) -> str:
    return regex_text(content) if isinstance(content, re.Pattern) else repr(content)  # /^on/i


def contains_step(owner: Any, text: Any, selector: Any, match_case: bool,
                  args: tuple[Any, ...]) -> dict[str, Any]:
    """The ``contains`` step of a recipe: ``text`` (a string, number or regex) in an element
    (matching ``selector`` when given). Raises ``UsageError`` for another kind of content, or a
    selector that is not one."""
    step: dict[str, Any] = {"op": "contains", "matchCase": match_case, "normalize": True,
                            "selector": checked_selector(owner, "contains", args, {}, selector)}
    if isinstance(text, re.Pattern):
        flags = "i" if text.flags & re.IGNORECASE else ""
        step["regex"] = [text.pattern, flags]
        step["text"] = ""
    elif isinstance(text, (str, int, float)) and not isinstance(text, bool):
        step["text"] = " ".join(str(text).split()) if isinstance(text, str) else str(text)
    else:
        raise UsageError(f"contains() expects its content to be a string, number or re.Pattern; "
                         f"found {text!r}.")
    return step
