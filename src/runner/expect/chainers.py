"""The chainer table and its parser: every family's entries in one table (:data:`SUPPORTED`
lists their spellings in its order), and :func:`lookup` reading a chainer string (``not`` at
most once, chai's language words ignored) into its entry, or a UsageError with a did-you-mean."""

from __future__ import annotations

import difflib
from typing import Any

from runner.errors import UsageError

from . import counts, dom, dom_or_value, members, objects, ranges, values
from .spec import Spec

__all__ = ["SUPPORTED", "lookup", "usage"]

_LANGUAGE = frozenset("to be been is that which and has have with at of same but does".split())

# The families in the order of the table as it has always read (the "Supported" list of the
# unknown-assertion message shows it).
_SPECS: tuple[Spec, ...] = (
    *counts.SPECS,
    *dom_or_value.SPECS,
    *dom.SPECS,
    *values.SPECS,
    *objects.SPECS,
    *members.SPECS,
    *ranges.SPECS,
)


def _key(words: list[str]) -> str:
    return ".".join(w for w in words if w not in _LANGUAGE)


def _by_key(specs: tuple[Spec, ...]) -> dict[str, Spec]:
    table: dict[str, Spec] = {}
    for spec in specs:
        for name in spec.names:
            key = _key(name.split("."))
            if table.get(key, spec) is not spec:  # pragma: no cover - table sanity
                raise RuntimeError(f"chainer spelling {name!r} is ambiguous")
            table[key] = spec
    return table


_BY_KEY = _by_key(_SPECS)

#: Every documented chainer spelling; each may also be negated with ``not.``.
SUPPORTED: tuple[str, ...] = tuple(name for spec in _SPECS for name in spec.names)


def lookup(chainer: Any) -> tuple[Spec, bool]:
    """The spec and negation of a chainer, or UsageError with a did-you-mean."""
    if not isinstance(chainer, str):
        raise UsageError(
            f".should() takes the assertion as a str like 'have.length', got {chainer!r}"
        )
    words = chainer.strip().split(".")
    nots = words.count("not")
    rest = [w for w in words if w != "not"]
    if nots > 1:
        raise UsageError(
            f"assertion {chainer!r} has 'not' {nots} times; negate once, e.g. 'not.exist'"
        )
    spec = _BY_KEY.get(_key(rest)) if all(rest) else None
    if spec is None:
        raise UsageError(_unknown_message(chainer, ".".join(rest), nots == 1))
    return spec, nots == 1


def _unknown_message(chainer: str, bare: str, negated: bool) -> str:
    candidates = difflib.get_close_matches(bare, SUPPORTED, n=3, cutoff=0.6)
    if not candidates:
        key = _key(bare.split("."))
        by_key = {_key(n.split(".")): n for n in SUPPORTED}
        candidates = [
            by_key[k] for k in difflib.get_close_matches(key, list(by_key), n=3, cutoff=0.6)
        ]
    prefix = "not." if negated else ""
    message = f"unknown assertion {chainer!r}"
    if candidates:
        message += ": did you mean " + " or ".join(repr(prefix + c) for c in candidates) + "?"
    else:
        message += "."
    return message + " Supported (each also with 'not.'): " + ", ".join(SUPPORTED)


def usage(chainer: str, spec: Spec, problem: str) -> UsageError:
    """The misuse of ``chainer`` (``problem``), ending on the entry's example."""
    return UsageError(f".should({chainer!r}, ...): {problem}; e.g. .should({spec.example})")
