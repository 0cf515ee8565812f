"""The assertion's questions, as the retrying subjects ask them: is ``.should(chainer, *args)``
well formed (:func:`validate_chainer`), does a subject satisfy it now (:func:`check`), and what
must a snapshot read for it (:func:`counts_only`, :func:`css_properties_needed`,
:func:`props_needed`)."""

from __future__ import annotations

from typing import Any

from .chainers import lookup, usage
from .messages import MAX_LISTED, a_type, describe, plural
from .spec import BadArgument, Mismatch
from .subjects import DomSubject, ElementSnapshot, Outcome

__all__ = ["validate_chainer", "check", "counts_only", "LISTED", "css_properties_needed",
           "props_needed"]


def validate_chainer(chainer: str, *args: Any) -> None:
    """Raise :class:`UsageError` unless ``.should(chainer, *args)`` is a supported assertion.

    Checks the spelling (with a did-you-mean and the supported list), the number of arguments
    and, where it is knowable without a subject, their types (``have.length`` needs an int,
    ``match`` a valid regex, ``be.a`` a known type name, ...).
    """
    spec, _neg = lookup(chainer)
    n = len(args)
    if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
        if spec.max_args is None:
            wanted = f"at least {plural(spec.min_args, 'argument')}"
        elif spec.min_args == spec.max_args:
            wanted = plural(spec.min_args, "argument") if spec.min_args else "no arguments"
        else:
            wanted = f"{spec.min_args} or {spec.max_args} arguments"
        raise usage(chainer, spec, f"takes {wanted}, got {n}")
    if spec.argcheck is not None:
        try:
            spec.argcheck(args)
        except BadArgument as bad:
            raise usage(chainer, spec, str(bad)) from None


def check(subject: DomSubject | Any, chainer: str, *args: Any) -> Outcome:
    """Whether ``subject`` satisfies ``.should(chainer, *args)`` right now.

    Raises :class:`UsageError` for an unknown chainer or bad arguments (see
    :func:`validate_chainer`); never raises because of the subject.
    """
    validate_chainer(chainer, *args)
    spec, neg = lookup(chainer)
    if isinstance(subject, ElementSnapshot):
        subject = DomSubject(subject.description, (subject,))
    to = "not to" if neg else "to"
    described = describe(subject)
    phrase = spec.phrase(args)
    head = f"expected {described} {to} {phrase}"
    if isinstance(subject, DomSubject):
        if spec.dom is None:
            return Outcome(
                False,
                f"{head}, but {chainer!r} checks plain values and the subject is DOM "
                f"element(s) matching {subject.selector!r}: {spec.dom_hint}",
            )
        if spec.dom_needs_elements and not subject.elements:
            return Outcome(
                False,
                f"expected to find element {subject.selector!r}, but never found it "
                f"({chainer!r} needs at least one element; use 'not.exist' to assert absence)",
            )
        checker = spec.dom
    else:
        if spec.value is None:
            return Outcome(
                False,
                f"{head}, but {chainer!r} checks DOM elements (a runner.get(...) subject) "
                f"and the subject is {a_type(subject)}",
            )
        checker = spec.value
    try:
        verdict = checker(subject, args, neg)
    except Mismatch as exc:
        return Outcome(False, f"{head}, but {exc}")
    except Exception as exc:  # never let a strange subject escape as a crash
        return Outcome(False, f"{head}, but checking it raised {type(exc).__name__}: {exc}")
    if verdict.passed:
        return Outcome(True, head)
    return Outcome(False, verdict.message or head + verdict.but)


def counts_only(chainer: str) -> bool:
    """Whether the assertion only counts the elements (``exist``, ``have.length`` and its
    comparisons): a snapshot of the first few, for the message, and their number will do."""
    spec, _neg = lookup(chainer)
    return not spec.dom_needs_elements


#: How many elements a count-only snapshot reads (the failure message lists as many).
LISTED = MAX_LISTED


def css_properties_needed(chainer: str, *args: Any) -> list[str]:
    """The computed-style properties a snapshot must read for this assertion (``have.css``)."""
    spec, _neg = lookup(chainer)
    if spec.primary == "have.css" and args and isinstance(args[0], str):
        return [args[0]]
    return []


def props_needed(chainer: str, *args: Any) -> list[str]:
    """The JS properties a snapshot must read into ``props`` for this assertion (``have.prop``)."""
    spec, _neg = lookup(chainer)
    if spec.primary == "have.prop" and args and isinstance(args[0], str):
        return [args[0]]
    return []
