"""Chainers that check a DOM subject or a value, each its own way: ``contain``/``include`` (the
elements' text, or membership), ``match`` (the elements' text, or a str), ``be.empty`` (no text
and no HTML in every element, or no items) and ``satisfy`` (a predicate on either)."""

from __future__ import annotations

from typing import Any

from .arguments import need, pattern_arg
from .dom import dom_contain_text, dom_match, is_empty_element, state
from .kinds import regex
from .messages import short
from .spec import Spec
from .values import val_empty, val_include, val_match, val_satisfy

__all__ = ["SPECS"]


def _fn_name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


# fmt: off
SPECS: list[Spec] = [
    Spec(("contain", "include", "contains", "includes"), 1, 1,
         lambda a: f"contain {short(a[0])}", "'contain', 'Ada'",
         dom=dom_contain_text, value=val_include),
    Spec(("match", "matches"), 1, 1,
         lambda a: f"match {short(regex(a[0]))}", "'match', r'^\\d+$'",
         dom=dom_match, value=val_match, argcheck=pattern_arg),
    Spec(("be.empty",), 0, 0, lambda a: "be empty", "'be.empty'",
         dom=state(is_empty_element, "empty", "not empty"), value=val_empty),
    Spec(("satisfy", "satisfies"), 1, 1,
         lambda a: f"satisfy {_fn_name(a[0])}", "'satisfy', lambda x: x > 0",
         dom=val_satisfy, value=val_satisfy, argcheck=need(callable, "a callable")),
]
# fmt: on
