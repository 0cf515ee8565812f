"""Counting chainers: ``exist`` and ``have.length`` with its comparisons (``have.length.gt``,
``.within``, ...), on a DOM subject (how many elements matched, zero allowed) or a sized value;
and the comparison words and operators that ``be.gt`` and friends share with them."""

from __future__ import annotations

from collections.abc import Callable, Sized
from typing import Any

from .arguments import COUNT, NUMBER, within_args
from .kinds import SIZED_KINDS
from .messages import a_type, plural, short
from .spec import Checker, Mismatch, Spec, Verdict, verdict
from .subjects import DomSubject, ElementSnapshot

__all__ = ["SPECS", "COMPARISONS", "compare", "compare_phrase", "comparison_example"]

#: The comparison operators and their spellings (primary first), for lengths and for values.
COMPARISONS: dict[str, tuple[str, ...]] = {
    "gt": ("gt", "greaterThan", "above"),
    "gte": ("gte", "at.least", "least", "greaterThanOrEqual"),
    "lt": ("lt", "lessThan", "below"),
    "lte": ("lte", "at.most", "most", "lessThanOrEqual"),
    "within": ("within",),
}

_COMPARE_WORDS = {
    "eq": "of",
    "gt": "above",
    "gte": "at least",
    "lt": "below",
    "lte": "at most",
}


def compare(op: str, actual: Any, args: tuple[Any, ...]) -> bool:
    try:
        if op == "eq":
            return bool(actual == args[0])
        if op == "gt":
            return bool(actual > args[0])
        if op == "gte":
            return bool(actual >= args[0])
        if op == "lt":
            return bool(actual < args[0])
        if op == "lte":
            return bool(actual <= args[0])
        if op == "within":
            return bool(args[0] <= actual <= args[1])
    except TypeError:
        raise Mismatch(
            f"{short(actual)} ({type(actual).__name__}) cannot be compared with "
            f"{short(args[0])} ({type(args[0]).__name__})"
        ) from None
    raise AssertionError(op)  # pragma: no cover


def compare_phrase(op: str, args: tuple[Any, ...]) -> str:
    if op == "within":
        return f"within {short(args[0])}..{short(args[1])}"
    return f"{_COMPARE_WORDS[op]} {short(args[0])}"


def comparison_example(op: str) -> str:
    """The arguments of a comparison's example (after the chainer)."""
    return ", 1, 3" if op == "within" else ", 2"


def _size(value: Any) -> int:
    if isinstance(value, DomSubject):
        return value.count
    if isinstance(value, Sized) and not isinstance(value, ElementSnapshot):
        return len(value)
    raise Mismatch(f"it has no length: it is {a_type(value)}, not {SIZED_KINDS}")


def _length(op: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
        size = _size(subject)
        return verdict(compare(op, size, args), neg, f" but got {size}", f" but got {size}")

    return checker


def _dom_exist(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    n = subject.count
    if neg:
        return Verdict(
            n == 0, f", but found {plural(n, 'element')} matching {subject.selector!r}"
        )
    if n:
        return Verdict(True)
    return Verdict(
        False, message=f"expected to find element {subject.selector!r}, but never found it"
    )


def _val_exist(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    return verdict(subject is not None, neg)


def _length_phrase(op: str) -> Callable[[tuple[Any, ...]], str]:
    return lambda a: f"have a length {compare_phrase(op, a)}"


def _length_comparison(op: str, words: tuple[str, ...]) -> Spec:
    nargs = 2 if op == "within" else 1
    return Spec(
        tuple(f"have.length.{w}" for w in words),
        nargs,
        nargs,
        _length_phrase(op),
        f"'have.length.{words[0]}'{comparison_example(op)}",
        dom=_length(op),
        value=_length(op),
        dom_needs_elements=False,
        argcheck=within_args if op == "within" else NUMBER,
    )


# fmt: off
SPECS: list[Spec] = [
    Spec(("exist",), 0, 0, lambda a: "exist", "'exist'",
         dom=_dom_exist, value=_val_exist, dom_needs_elements=False),
    Spec(("have.length", "have.lengthOf"), 1, 1,
         lambda a: f"have a length of {short(a[0])}", "'have.length', 3",
         dom=_length("eq"), value=_length("eq"), dom_needs_elements=False, argcheck=COUNT),
    *(_length_comparison(op, words) for op, words in COMPARISONS.items()),
]
# fmt: on
