"""Where a value lies: the comparisons (``be.gt``/``above``, ``be.lte``/``at.most``,
``be.within``, on numbers or dates), ``be.oneOf`` a list, and ``be.closeTo`` a number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .arguments import NUMBER, compare_args, need, within_args
from .counts import COMPARISONS, compare, compare_phrase, comparison_example
from .kinds import is_comparable, is_number, same
from .members import MEMBERS_ARG
from .messages import a_type, short
from .spec import Checker, Mismatch, Spec, Verdict, verdict

__all__ = ["SPECS"]


def _val_compare(op: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
        if not is_comparable(subject):
            raise Mismatch(
                f"only numbers (or dates) can be compared, and the subject is {a_type(subject)}"
            )
        return verdict(compare(op, subject, args), neg)

    return checker


def _val_one_of(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    return verdict(any(same(subject, x) for x in args[0]), neg)


def _val_close_to(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if not is_number(subject):
        raise Mismatch(
            f"only a number can be close to another, and the subject is {a_type(subject)}"
        )
    diff = abs(subject - args[0])
    return verdict(
        diff <= args[1],
        neg,
        f", but it differs by {short(diff)}",
        f", but it differs by {short(diff)}",
    )


def _closeto_args(args: tuple[Any, ...]) -> None:
    NUMBER(args)
    need(lambda d: is_number(d) and d >= 0, "a non-negative number (the delta)", 1)(args)


def _compare_phrase(op: str) -> Callable[[tuple[Any, ...]], str]:
    return lambda a: f"be {compare_phrase(op, a)}"


def _comparison(op: str, words: tuple[str, ...]) -> Spec:
    nargs = 2 if op == "within" else 1
    return Spec(
        tuple(f"be.{w}" for w in words),
        nargs,
        nargs,
        _compare_phrase(op),
        f"'be.{words[0]}'{comparison_example(op)}",
        value=_val_compare(op),
        argcheck=within_args if op == "within" else compare_args(1),
    )


# fmt: off
SPECS: list[Spec] = [
    *(_comparison(op, words) for op, words in COMPARISONS.items()),
    Spec(("be.oneOf",), 1, 1,
         lambda a: f"be one of {short(a[0])}", "'be.oneOf', ['a', 'b']",
         value=_val_one_of, argcheck=MEMBERS_ARG),
    Spec(("be.closeTo", "be.approximately"), 2, 2,
         lambda a: f"be close to {short(a[0])} +/- {short(a[1])}",
         "'be.closeTo', 1.5, 0.1", value=_val_close_to, argcheck=_closeto_args),
]
# fmt: on
