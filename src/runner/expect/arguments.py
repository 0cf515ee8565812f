"""Checks of a chainer's arguments that need no subject (``have.length`` takes a non-negative
int, ``match`` a valid pattern, ...): each raises :class:`~runner.expect.spec.BadArgument`
saying what is wrong; :func:`~runner.expect.checks.validate_chainer` adds the example."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .kinds import is_comparable, is_number
from .spec import ArgCheck, BadArgument

__all__ = [
    "need", "all_of", "is_text", "COUNT", "NUMBER", "TEXT", "NAME",
    "pattern_arg", "compare_args", "within_args",
]


def need(pred: Callable[[Any], bool], what: str, index: int = 0) -> ArgCheck:
    """Argument ``index + 1``, when given, must satisfy ``pred`` (``what`` names the wanted kind)."""

    def argcheck(args: tuple[Any, ...]) -> None:
        if len(args) > index and not pred(args[index]):
            raise BadArgument(f"argument {index + 1} must be {what}, got {args[index]!r}")

    return argcheck


def all_of(*checks: ArgCheck) -> ArgCheck:
    def argcheck(args: tuple[Any, ...]) -> None:
        for c in checks:
            c(args)

    return argcheck


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_text(v: Any) -> bool:
    return isinstance(v, str) or is_number(v)


def _is_name(v: Any) -> bool:
    return isinstance(v, str) and v != ""


COUNT = need(_is_count, "a non-negative int")
NUMBER = need(is_number, "a number")
TEXT = need(is_text, "a str (or a number)")
NAME = need(_is_name, "a non-empty str")


def pattern_arg(args: tuple[Any, ...]) -> None:
    if not args:
        return
    pattern = args[0]
    if isinstance(pattern, re.Pattern):
        return
    if not isinstance(pattern, str):
        raise BadArgument(f"the pattern must be a str or re.Pattern, got {pattern!r}")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise BadArgument(f"{pattern!r} is not a valid regular expression: {exc}") from None


def compare_args(count: int) -> ArgCheck:
    return all_of(*(need(is_comparable, "a number (or a date)", i) for i in range(count)))


def within_args(args: tuple[Any, ...]) -> None:
    compare_args(2)(args)
    if len(args) == 2:
        try:
            wrong = args[0] > args[1]
        except TypeError:
            wrong = True
        if wrong:
            raise BadArgument(f"the range {args[0]!r}..{args[1]!r} is empty")
