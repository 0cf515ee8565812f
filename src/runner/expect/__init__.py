"""Chai-style assertion strings for ``.should(...)``: pure checks on snapshots, no browser.

Tests write the chainers of the original JS runner (chai + chai-jquery), e.g.::

    runner.get("li.user").should("have.length", 3)
    runner.get("h1").should("contain", "Ada")
    runner.get("button").should("not.be.visible")
    runner.wrap({"a": 1}).should("deep.equal", {"a": 1})

The retrying subject polls the page, takes a snapshot (:class:`DomSubject` of
:class:`ElementSnapshot`) and calls :func:`check` until the assertion holds or the timeout
passes; then it raises with :attr:`Outcome.message`. Before the first poll it may call
:func:`validate_chainer` (misuse fails at once with :class:`~runner.errors.UsageError`) and
:func:`css_properties_needed` / :func:`props_needed` to know what the snapshot must read.

Spelling
    A chainer is a dotted chain of words. A ``not`` anywhere in it (at most once) negates it:
    ``not.exist``, ``not.have.class``, ``does.not.exist``. The chai language words ``to be been
    is that which and has have with at of same but does`` carry no meaning and may appear
    anywhere (``to.have.length`` == ``have.length``); every other word must spell one of
    :data:`SUPPORTED`. Anything else raises :class:`UsageError` with a did-you-mean.

DOM subjects (:class:`DomSubject`, or a single :class:`ElementSnapshot`)
    * ``exist``: at least one element; ``not.exist``: no element.
    * ``have.length`` and its comparisons count the elements (zero elements allowed).
    * Every other DOM chainer needs at least one element: on an empty set it fails, negated or
      not ("expected to find element ..., but never found it"), as in the original runner.
      Use ``not.exist`` to assert absence.
    * State chainers (``be.visible``, ``be.hidden``, ``be.checked``, ``be.selected``,
      ``be.disabled``, ``be.enabled``, ``be.focused``/``have.focus``, ``be.empty``) hold when
      ALL elements are in that state, and their negation holds when NONE is (so
      ``not.be.visible`` on a set means "no element visible", not "some element hidden").
      For the common single element this is plain negation.
    * Text chainers (``have.text``, ``contain.text``, ``contain``/``include``, ``match``) use
      the text of all elements joined, like jQuery ``.text()`` (``textContent``).
      ``contain`` with a selector-like string still looks for that text.
    * ``have.html``/``contain.html``, ``have.attr``, ``have.id``, ``have.value``,
      ``have.prop``, ``have.css``, ``have.data`` read the FIRST element (jQuery semantics);
      ``have.class`` holds when ANY element has the class(es) (jQuery ``hasClass``).
    * Value-only chainers (``eq``, ``deep.equal``, ``have.property``, ``be.gt``, ...) fail on DOM
      subjects with a hint to use ``have.text``/``contain`` or to take ``.text()`` first.

Values (any other subject)
    ``eq``/``equal`` and ``deep.equal``/``eql`` both compare structurally with ``==`` except
    that booleans only equal booleans (``True`` != ``1``), ``None`` only equals ``None``,
    lists equal tuples with the same items, and NaN equals NaN. ``include``, ``be.oneOf`` and
    the ``members`` family use that same equality. ``be.null`` and ``be.undefined`` both mean
    ``None``. ``be.a``/``be.an`` take a chai type name (``string number boolean object array
    null undefined function regexp set``), a Python type name (``str int float bool dict
    list tuple set bytes None NoneType``) or a Python type.

A subject of the wrong type (``have.length`` on an ``int``, ``be.visible`` on a ``dict``)
never raises: :func:`check` returns ``Outcome(False, ...)`` naming the problem, negated or not.

Dotted paths
    :func:`walk_path` is the one reader of dotted paths: ``its("a.b.0.c")`` for the retrying
    subjects and for interceptions alike, and ``have.nested.property``'s ``'a.b[0].c'`` (by
    chai's rules, :data:`~runner.expect.walker.CHAI`); it signals a missing segment with
    :class:`PathMissing`.

The package: :mod:`.subjects` (snapshots and outcomes), :mod:`.checks` (the public questions),
:mod:`.chainers` (the table and its parser), one module per family of chainers (:mod:`.counts`,
:mod:`.dom`, :mod:`.dom_or_value`, :mod:`.values`, :mod:`.objects`, :mod:`.members`,
:mod:`.ranges`), and what they share (:mod:`.spec`, :mod:`.arguments`, :mod:`.kinds`,
:mod:`.messages`, :mod:`.walker`).
"""

from __future__ import annotations

from .chainers import SUPPORTED
from .checks import (
    LISTED,
    check,
    counts_only,
    css_properties_needed,
    props_needed,
    validate_chainer,
)
from .subjects import DomSubject, ElementSnapshot, Outcome
from .walker import PathMissing, walk_path

__all__ = [
    "ElementSnapshot",
    "DomSubject",
    "Outcome",
    "check",
    "counts_only",
    "LISTED",
    "css_properties_needed",
    "props_needed",
    "validate_chainer",
    "SUPPORTED",
    "walk_path",
    "PathMissing",
]
