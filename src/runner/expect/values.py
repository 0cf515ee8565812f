"""Value chainers (any subject but a DOM one): equality (``eq``, ``deep.equal``), identity
(``be.true``, ``be.null``, ``be.ok``, ``be.NaN``), type (``be.a``) and inclusion
(``include``/``deep.include``); and the value side of ``match``, ``be.empty`` and ``satisfy``."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sized
from typing import Any

from .kinds import CHAI_TYPES, SIZED_KINDS, is_number, regex, same, type_label, type_name
from .messages import a_type, article, short
from .spec import BadArgument, Checker, Mismatch, Spec, Verdict, verdict
from .subjects import ElementSnapshot

__all__ = ["SPECS", "val_include", "val_match", "val_empty", "val_satisfy"]


def _identity(pred: Callable[[Any], bool]) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
        return verdict(pred(subject), neg)

    return checker


def _val_ok(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    try:
        truthy = bool(subject)
    except Exception as exc:
        raise Mismatch(f"its truth value cannot be taken ({type(exc).__name__})") from None
    return verdict(truthy, neg)


def _val_eq(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    expected = args[0]
    holds = same(subject, expected)
    but = ""
    if (
        not holds
        and type(subject) is not type(expected)
        and short(subject).strip("'\"") == short(expected).strip("'\"")
    ):
        but = f" (it is {a_type(subject)}, not {a_type(expected)})"
    return verdict(holds, neg, but)


def val_empty(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if not isinstance(subject, Sized) or isinstance(subject, ElementSnapshot):
        raise Mismatch(f"'be.empty' needs {SIZED_KINDS}, and the subject is {a_type(subject)}")
    return verdict(len(subject) == 0, neg)


def _val_type(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    t = args[0]
    holds = isinstance(subject, t) if not isinstance(t, str) else CHAI_TYPES[t](subject)
    name = type_name(subject)
    but = f", but it is {article(name)} {name} ({type(subject).__name__})"
    if subject is None:
        but = ", but it is None"
    return verdict(holds, neg, but)


def _type_arg(args: tuple[Any, ...]) -> None:
    if not args:
        return
    t = args[0]
    if isinstance(t, type) or (isinstance(t, tuple) and t and all(isinstance(x, type) for x in t)):
        return
    if isinstance(t, str) and t in CHAI_TYPES:
        return
    close = difflib.get_close_matches(str(t), list(CHAI_TYPES), n=1) if isinstance(t, str) else []
    mean = f" (did you mean {close[0]!r}?)" if close else ""
    raise BadArgument(
        f"unknown type {t!r}{mean}; use one of {', '.join(CHAI_TYPES)} or a Python type"
    )


def val_include(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    item = args[0]
    if isinstance(subject, str):
        if not isinstance(item, str):
            raise Mismatch(f"a str can only include a str, and {short(item)} is {a_type(item)}")
        holds = item in subject
    elif isinstance(subject, (bytes, bytearray)):
        try:
            holds = item in subject
        except TypeError:
            raise Mismatch(
                f"bytes can only include bytes or an int, not {a_type(item)}"
            ) from None
    elif isinstance(subject, Mapping):
        if isinstance(item, Mapping):
            holds = all(k in subject and same(subject[k], v) for k, v in item.items())
        else:
            holds = item in subject
    elif isinstance(subject, (list, tuple, set, frozenset)):
        holds = any(same(x, item) for x in subject)
    else:
        raise Mismatch(
            f"'include' needs a string, list, tuple, set or dict, and the subject is {a_type(subject)}"
        )
    return verdict(holds, neg)


def val_match(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if is_number(subject):
        subject = str(subject)
    if not isinstance(subject, str):
        raise Mismatch(f"only a str can match a pattern, and the subject is {a_type(subject)}")
    return verdict(regex(args[0]).search(subject) is not None, neg)


def val_satisfy(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    try:
        result = args[0](subject)
    except Exception as exc:
        raise Mismatch(f"the predicate raised {type(exc).__name__}: {exc}") from None
    return verdict(
        bool(result),
        neg,
        f", but it returned {short(result)}",
        f", but it returned {short(result)}",
    )


# fmt: off
SPECS: list[Spec] = [
    Spec(("eq", "equal", "equals"), 1, 1,
         lambda a: f"equal {short(a[0])}", "'eq', 200", value=_val_eq),
    Spec(("deep.equal", "deep.eq", "deep.equals", "eql", "eqls"), 1, 1,
         lambda a: f"deeply equal {short(a[0])}", "'deep.equal', {'a': 1}", value=_val_eq),
    Spec(("be.true",), 0, 0, lambda a: "be True", "'be.true'",
         value=_identity(lambda x: x is True)),
    Spec(("be.false",), 0, 0, lambda a: "be False", "'be.false'",
         value=_identity(lambda x: x is False)),
    Spec(("be.null", "be.None"), 0, 0, lambda a: "be None (null)", "'be.null'",
         value=_identity(lambda x: x is None)),
    Spec(("be.undefined",), 0, 0, lambda a: "be None (undefined)", "'be.undefined'",
         value=_identity(lambda x: x is None)),
    Spec(("be.ok",), 0, 0, lambda a: "be truthy", "'be.ok'", value=_val_ok),
    Spec(("be.NaN",), 0, 0, lambda a: "be NaN", "'be.NaN'",
         value=_identity(lambda x: isinstance(x, float) and math.isnan(x))),
    Spec(("be.a", "be.an"), 1, 1,
         lambda a: f"be {article(type_label(a[0]))} {type_label(a[0])}",
         "'be.a', 'string'", value=_val_type, argcheck=_type_arg),
    Spec(("deep.include", "deep.contain"), 1, 1,
         lambda a: f"deeply include {short(a[0])}", "'deep.include', {'a': 1}",
         value=val_include),
]
# fmt: on
