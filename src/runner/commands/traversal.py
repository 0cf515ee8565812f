"""A subject's traversal: find, contains, first, last, eq, filter, not_, parent, children, closest.

Each adds a step to the subject's recipe and returns a new subject; nothing is read until a
command runs. New traversals (``next``, ``siblings``, ``parents``, ``within``, ...) belong here.
"""

from __future__ import annotations

import re
from typing import Any, Self

from runner.commands.dom_query import DomQuery
from runner.errors import UsageError

__all__ = ["Traversal", "contains_step", "shown_content"]


class Traversal(DomQuery):
    """The subject's steps to other elements."""

    def find(self, selector: str) -> Self:
        return self._derive({"op": "find", "selector": selector}, f"find({selector!r})")

    def contains(self, text: str | re.Pattern[str], selector: str | None = None, *,
                 match_case: bool = True) -> Self:
        step = contains_step(text, selector, match_case)
        return self._derive(step, f"contains({shown_content(text)})")

    def first(self) -> Self:
        return self._derive({"op": "first"}, "first()")

    def last(self) -> Self:
        return self._derive({"op": "last"}, "last()")

    def eq(self, index: int) -> Self:
        if not isinstance(index, int) or isinstance(index, bool):
            raise UsageError(f"eq() expects an integer index; found {index!r}.")
        return self._derive({"op": "eq", "index": index}, f"eq({index})")

    def filter(self, selector: str) -> Self:
        return self._derive({"op": "filter", "selector": selector}, f"filter({selector!r})")

    def not_(self, selector: str) -> Self:
        return self._derive({"op": "not", "selector": selector}, f"not_({selector!r})")

    def parent(self) -> Self:
        return self._derive({"op": "parent"}, "parent()")

    def children(self, selector: str | None = None) -> Self:
        return self._derive({"op": "children", "selector": selector}, "children()")

    def closest(self, selector: str) -> Self:
        return self._derive({"op": "closest", "selector": selector}, f"closest({selector!r})")


def shown_content(text: str | re.Pattern[str]) -> str:
    """``contains()``'s content as a label shows it: a regex as ``/.../``."""
    return f"/{text.pattern}/" if isinstance(text, re.Pattern) else repr(text)


def contains_step(text: Any, selector: str | None, match_case: bool) -> dict[str, Any]:
    """The ``contains`` step of a recipe: ``text`` (a string, number or regex) in an element
    (matching ``selector`` when given). Raises ``UsageError`` for another kind of content."""
    step: dict[str, Any] = {"op": "contains", "selector": selector, "matchCase": match_case, "normalize": True}
    if isinstance(text, re.Pattern):
        flags = "i" if text.flags & re.IGNORECASE else ""
        step["regex"] = [text.pattern, flags]
        step["text"] = ""
    elif isinstance(text, (str, int, float)) and not isinstance(text, bool):
        step["text"] = " ".join(str(text).split()) if isinstance(text, str) else str(text)
    else:
        raise UsageError(f"contains() expects a string, number or re.Pattern; found {text!r}.")
    return step

