"""What a value has: ``have.property`` (one exact name, index or key), ``have.nested.property``
(a path like ``'body.items[0].id'``, read by the path walker's :data:`~.walker.CHAI` rules) and
the key chainers (``have.keys``, ``have.any.keys``, ``include.keys``) of a mapping."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .arguments import need
from .kinds import is_collection, same
from .messages import MAX_LISTED, a_type, short
from .spec import BadArgument, Checker, Mismatch, Spec, Verdict, verdict
from .walker import CHAI, PathMissing, walk_parts, walk_path

__all__ = ["SPECS"]

_MISSING = object()

_VALUE_HINT_PROPERTY = (
    "for an element use 'have.prop' (a JS property) or 'have.attr' (an HTML attribute)"
)


def _property_check(actual: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if len(args) < 2:
        return verdict(
            actual is not _MISSING,
            neg,
            ", but it had no such property",
            f", but it was {short(actual)}",
        )
    if actual is _MISSING:
        return verdict(False, neg, ", but it had no such property")
    return verdict(same(actual, args[1]), neg, f", but it was {short(actual)}")


def _val_property(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if subject is None:
        raise Mismatch("None has no properties")
    try:
        actual = walk_parts(subject, (args[0],), rules=CHAI)
    except PathMissing:
        actual = _MISSING
    return _property_check(actual, args, neg)


def _val_nested_property(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
    if subject is None:
        raise Mismatch("None has no properties")
    try:
        actual = walk_path(subject, args[0], rules=CHAI)
    except PathMissing:
        actual = _MISSING
    return _property_check(actual, args, neg)


def _key_list(args: tuple[Any, ...]) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return list(args[0].keys())
    if len(args) == 1 and is_collection(args[0]):
        return list(args[0])
    return list(args)


def _keys_args(args: tuple[Any, ...]) -> None:
    if not _key_list(args):
        raise BadArgument("give at least one key")


def _keys(mode: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
        if not isinstance(subject, Mapping):
            raise Mismatch(f"only a dict has keys, and the subject is {a_type(subject)}")
        wanted = _key_list(args)
        have = list(subject.keys())
        if mode == "all":
            holds = len(have) == len(set(wanted)) and all(k in subject for k in wanted)
        elif mode == "any":
            holds = any(k in subject for k in wanted)
        else:
            holds = all(k in subject for k in wanted)
        return verdict(holds, neg, f", but its keys were {short(have)}")

    return checker


def _keys_phrase(mode: str) -> Callable[[tuple[Any, ...]], str]:
    def phrase(args: tuple[Any, ...]) -> str:
        keys = ", ".join(short(k) for k in _key_list(args)[: MAX_LISTED * 2])
        return {"all": "have keys ", "any": "have any of the keys ", "include": "include keys "}[
            mode
        ] + keys

    return phrase


def _of_value(a: tuple[Any, ...]) -> str:
    return f" of {short(a[1])}" if len(a) > 1 else ""


# fmt: off
SPECS: list[Spec] = [
    Spec(("have.property", "have.own.property"), 1, 2,
         lambda a: f"have property {short(a[0])}{_of_value(a)}",
         "'have.property', 'status', 200", value=_val_property,
         dom_hint=_VALUE_HINT_PROPERTY),
    Spec(("have.nested.property",), 1, 2,
         lambda a: f"have nested property {short(a[0])}{_of_value(a)}",
         "'have.nested.property', 'body.items[0].id', 7", value=_val_nested_property,
         argcheck=need(lambda p: isinstance(p, str), "a str path like 'a.b[0].c'"),
         dom_hint=_VALUE_HINT_PROPERTY),
    Spec(("have.keys", "have.all.keys"), 1, None,
         _keys_phrase("all"), "'have.keys', 'a', 'b'",
         value=_keys("all"), argcheck=_keys_args),
    Spec(("have.any.keys",), 1, None,
         _keys_phrase("any"), "'have.any.keys', 'a', 'b'",
         value=_keys("any"), argcheck=_keys_args),
    Spec(("include.keys", "contain.keys", "include.all.keys", "contain.all.keys"), 1, None,
         _keys_phrase("include"), "'include.keys', 'a'",
         value=_keys("include"), argcheck=_keys_args),
]
# fmt: on
