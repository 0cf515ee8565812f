"""One entry of the chainer table (:class:`Spec`: its spellings, arguments, phrase, example and
checkers) and what its checkers return (:class:`Verdict`) or raise (:class:`Mismatch`: the
subject cannot be checked this way; :class:`BadArgument`: the assertion is misused)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["Spec", "Verdict", "verdict", "Mismatch", "BadArgument", "Checker", "ArgCheck"]


class Mismatch(Exception):
    """The subject cannot be checked this way; fails the assertion negated or not."""


class BadArgument(Exception):
    """An argument the chainer cannot take; the message says why (the caller adds the example)."""


class Verdict(NamedTuple):
    passed: bool  # already accounts for negation
    but: str = ""  # appended to the message on failure, with its leading separator
    message: str = ""  # replaces the whole message on failure when set


def verdict(holds: bool, neg: bool, but: str = "", but_neg: str = "") -> Verdict:
    """Verdict of a plainly negatable assertion: ``but`` explains a positive failure."""
    passed = holds != neg
    return Verdict(passed, but_neg if neg else but)


Checker = Callable[[Any, tuple[Any, ...], bool], Verdict]
ArgCheck = Callable[[tuple[Any, ...]], None]  # raises BadArgument


@dataclass(frozen=True)
class Spec:
    names: tuple[str, ...]  # documented spellings, primary first
    min_args: int
    max_args: int | None
    phrase: Callable[[tuple[Any, ...]], str]
    example: str  # e.g. "'have.length', 3"
    dom: Checker | None = None
    value: Checker | None = None
    dom_needs_elements: bool = True
    argcheck: ArgCheck | None = None
    dom_hint: str = (
        "use 'have.text' or 'contain' to check their text, or take the text first with .text()"
    )

    @property
    def primary(self) -> str:
        return self.names[0]
