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
    :func:`walk_path` is the one reader of ``its("a.b.0.c")`` paths, for the retrying subjects
    and for interceptions alike; it signals a missing segment with :class:`PathMissing`.
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
import re
import reprlib
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NamedTuple

from runner.errors import UsageError

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


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True)
class ElementSnapshot:
    """What the page reported about one matched element at one poll.

    Only ``tag`` is required (handy in tests); an empty ``description`` is built from the tag,
    classes and id, e.g. ``<li.user#u1>``.
    """

    tag: str
    text: str = ""
    inner_text: str = ""
    html: str = ""
    value: str | None = None
    visible: bool = True
    attrs: dict[str, str] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    checked: bool = False
    selected: bool = False
    disabled: bool = False
    focused: bool = False
    css: dict[str, str] = field(default_factory=dict)
    props: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        if not self.description:
            desc = "<" + self.tag.lower()
            desc += "".join("." + c for c in self.classes)
            if self.attrs.get("id"):
                desc += "#" + self.attrs["id"]
            object.__setattr__(self, "description", desc + ">")


@dataclass(frozen=True)
class DomSubject:
    """The result of a query: the selector and the elements it matched (maybe none)."""

    selector: str
    elements: tuple[ElementSnapshot, ...] = ()
    # How many elements matched, when only the first ``elements`` were read: an assertion that
    # only counts (:func:`counts_only`) does not read 200,000 elements to count them.
    total: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.elements, tuple):
            object.__setattr__(self, "elements", tuple(self.elements))

    @property
    def count(self) -> int:
        """How many elements matched."""
        return len(self.elements) if self.total is None else self.total


class Outcome(NamedTuple):
    """The verdict of :func:`check`.

    ``message`` is chai-like. When ``ok`` is False it says what was expected and what was
    found; when ``ok`` is True it describes the assertion that held (for the command log).
    """

    ok: bool
    message: str


# --------------------------------------------------------------------------- formatting

_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlist = 8
_repr.maxtuple = 8
_repr.maxdict = 8
_repr.maxset = 8
_repr.maxfrozenset = 8
_repr.maxlevel = 3
_repr.maxlong = 40

_MAX_LISTED = 5
_MAX_REPR = 120


def _short(value: Any) -> str:
    """A readable, shortened repr of any value (element snapshots by their description)."""
    if isinstance(value, ElementSnapshot):
        return value.description
    if isinstance(value, DomSubject):
        return _describe_dom(value)
    if isinstance(value, re.Pattern):
        return f"/{_repr.repr(value.pattern)[1:-1]}/"
    if callable(value) and not isinstance(value, type):
        return f"[function {getattr(value, '__name__', type(value).__name__)}]"
    try:
        text = _repr.repr(value)
    except Exception:  # a broken __repr__ must not break the message
        return f"<{type(value).__name__} object>"
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 20] + " ... " + text[-15:]
    return text


def _describe_elements(elements: tuple[ElementSnapshot, ...] | list[ElementSnapshot],
                       count: int | None = None) -> str:
    count = len(elements) if count is None else count
    if count == 1:
        return elements[0].description
    shown = ", ".join(e.description for e in elements[:_MAX_LISTED])
    more = count - min(len(elements), _MAX_LISTED)
    if more > 0:
        shown += f", ... {more} more"
    return f"[ {shown} ]"


def _describe_dom(subject: DomSubject) -> str:
    if not subject.count:
        return f"[] matching {subject.selector!r}"
    return _describe_elements(subject.elements, subject.count)


def _describe(subject: Any) -> str:
    return _describe_dom(subject) if isinstance(subject, DomSubject) else _short(subject)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --------------------------------------------------------------------------- equality


def _same(a: Any, b: Any) -> bool:
    """Strict-ish deep equality (see the module docstring)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if len(a) != len(b):
            return False
        return all(k in b and _same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (str, bytes)) != isinstance(b, (str, bytes)):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_comparable(value: Any) -> bool:
    return _is_number(value) or isinstance(value, (date, timedelta))


_SIZED_KINDS = "a string, list, tuple, dict or set"


def _size(value: Any) -> int:
    if isinstance(value, DomSubject):
        return value.count
    if isinstance(value, Sized) and not isinstance(value, ElementSnapshot):
        return len(value)
    raise _Mismatch(f"it has no length: it is {_a_type(value)}, not {_SIZED_KINDS}")


def _a_type(value: Any) -> str:
    name = type(value).__name__
    return f"{_article(name)} {name}"


# --------------------------------------------------------------------------- check machinery


class _Mismatch(Exception):
    """The subject cannot be checked this way; fails the assertion negated or not."""


class _Verdict(NamedTuple):
    passed: bool  # already accounts for negation
    but: str = ""  # appended to the message on failure, with its leading separator
    message: str = ""  # replaces the whole message on failure when set


def _v(holds: bool, neg: bool, but: str = "", but_neg: str = "") -> _Verdict:
    """Verdict of a plainly negatable assertion: ``but`` explains a positive failure."""
    passed = holds != neg
    return _Verdict(passed, but_neg if neg else but)


Checker = Callable[[Any, tuple[Any, ...], bool], _Verdict]
ArgCheck = Callable[[str, tuple[Any, ...]], None]


@dataclass(frozen=True)
class _Spec:
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


# --------------------------------------------------------------------------- argument checks


def _usage(chainer: str, spec: _Spec, problem: str) -> UsageError:
    return UsageError(f".should({chainer!r}, ...): {problem}; e.g. .should({spec.example})")


def _need(pred: Callable[[Any], bool], what: str, index: int = 0) -> ArgCheck:
    def argcheck(chainer: str, args: tuple[Any, ...]) -> None:
        if len(args) > index and not pred(args[index]):
            spec = _lookup(chainer)[0]
            raise _usage(chainer, spec, f"argument {index + 1} must be {what}, got {args[index]!r}")

    return argcheck


def _all(*checks: ArgCheck) -> ArgCheck:
    def argcheck(chainer: str, args: tuple[Any, ...]) -> None:
        for c in checks:
            c(chainer, args)

    return argcheck


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_text(v: Any) -> bool:
    return isinstance(v, str) or _is_number(v)


def _is_name(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_collection(v: Any) -> bool:
    return isinstance(v, (list, tuple, set, frozenset))


_COUNT = _need(_is_count, "a non-negative int")
_NUMBER = _need(_is_number, "a number")
_TEXT = _need(_is_text, "a str (or a number)")
_NAME = _need(_is_name, "a non-empty str")


def _pattern_arg(chainer: str, args: tuple[Any, ...]) -> None:
    if not args:
        return
    pattern = args[0]
    if isinstance(pattern, re.Pattern):
        return
    if not isinstance(pattern, str):
        spec = _lookup(chainer)[0]
        raise _usage(chainer, spec, f"the pattern must be a str or re.Pattern, got {pattern!r}")
    try:
        re.compile(pattern)
    except re.error as exc:
        spec = _lookup(chainer)[0]
        raise _usage(
            chainer, spec, f"{pattern!r} is not a valid regular expression: {exc}"
        ) from None


def _compare_args(count: int) -> ArgCheck:
    return _all(*(_need(_is_comparable, "a number (or a date)", i) for i in range(count)))


def _within_args(chainer: str, args: tuple[Any, ...]) -> None:
    _compare_args(2)(chainer, args)
    if len(args) == 2:
        try:
            wrong = args[0] > args[1]
        except TypeError:
            wrong = True
        if wrong:
            spec = _lookup(chainer)[0]
            raise _usage(chainer, spec, f"the range {args[0]!r}..{args[1]!r} is empty")


def _keys_args(chainer: str, args: tuple[Any, ...]) -> None:
    keys = _key_list(args)
    if not keys:
        spec = _lookup(chainer)[0]
        raise _usage(chainer, spec, "give at least one key")


def _closeto_args(chainer: str, args: tuple[Any, ...]) -> None:
    _NUMBER(chainer, args)
    _need(lambda d: _is_number(d) and d >= 0, "a non-negative number (the delta)", 1)(chainer, args)


# --------------------------------------------------------------------------- type names

_CHAI_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda x: isinstance(x, str),
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "undefined": lambda x: x is None,
    "array": lambda x: isinstance(x, (list, tuple)),
    "object": lambda x: _type_name(x) == "object",
    "function": lambda x: _type_name(x) == "function",
    "regexp": lambda x: isinstance(x, re.Pattern),
    "set": lambda x: isinstance(x, (set, frozenset)),
    "str": lambda x: isinstance(x, str),
    "int": lambda x: isinstance(x, int) and not isinstance(x, bool),
    "float": lambda x: isinstance(x, float),
    "bool": lambda x: isinstance(x, bool),
    "dict": lambda x: isinstance(x, dict),
    "list": lambda x: isinstance(x, list),
    "tuple": lambda x: isinstance(x, tuple),
    "bytes": lambda x: isinstance(x, (bytes, bytearray)),
    "None": lambda x: x is None,
    "NoneType": lambda x: x is None,
}


def _type_name(value: Any) -> str:
    """The chai-style type name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, (set, frozenset)):
        return "set"
    if isinstance(value, re.Pattern):
        return "regexp"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, Mapping):
        return "object"
    if callable(value):
        return "function"
    return "object"


def _type_arg(chainer: str, args: tuple[Any, ...]) -> None:
    if not args:
        return
    t = args[0]
    if isinstance(t, type) or (isinstance(t, tuple) and t and all(isinstance(x, type) for x in t)):
        return
    if isinstance(t, str) and t in _CHAI_TYPES:
        return
    spec = _lookup(chainer)[0]
    close = difflib.get_close_matches(str(t), list(_CHAI_TYPES), n=1) if isinstance(t, str) else []
    mean = f" (did you mean {close[0]!r}?)" if close else ""
    raise _usage(
        chainer,
        spec,
        f"unknown type {t!r}{mean}; use one of {', '.join(_CHAI_TYPES)} or a Python type",
    )


def _type_label(t: Any) -> str:
    if isinstance(t, type):
        return t.__name__
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return str(t)


# --------------------------------------------------------------------------- DOM checkers


def _text_of(subject: DomSubject) -> str:
    return "".join(e.text for e in subject.elements)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _first(subject: DomSubject) -> ElementSnapshot:
    return subject.elements[0]


def _it(subject: DomSubject) -> str:
    """How a 'but' clause names the element read by first-element chainers."""
    if len(subject.elements) == 1:
        return "it"
    return f"the first element {_first(subject).description}"


def _dom_exist(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    n = subject.count
    if neg:
        return _Verdict(
            n == 0, f", but found {_plural(n, 'element')} matching {subject.selector!r}"
        )
    if n:
        return _Verdict(True)
    return _Verdict(
        False, message=f"expected to find element {subject.selector!r}, but never found it"
    )


def _state(pred: Callable[[ElementSnapshot], bool], yes: str, no: str) -> Checker:
    """ALL elements in the state; negated: NONE in it."""

    def checker(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
        offenders = [e for e in subject.elements if pred(e) == neg]
        if not offenders:
            return _Verdict(True)
        word = yes if neg else no
        if len(subject.elements) == 1:
            return _Verdict(False, f", but it was {word}")
        n, k = len(subject.elements), len(offenders)
        verb = "was" if k == 1 else "were"
        return _Verdict(
            False, f", but {k} of {n} elements {verb} {word}: {_describe_elements(offenders)}"
        )

    return checker


def _is_empty_element(e: ElementSnapshot) -> bool:
    return e.html == "" and e.text == ""


def _length(op: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
        size = _size(subject)
        return _v(_compare(op, size, args), neg, f" but got {size}", f" but got {size}")

    return checker


def _compare(op: str, actual: Any, args: tuple[Any, ...]) -> bool:
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
        raise _Mismatch(
            f"{_short(actual)} ({type(actual).__name__}) cannot be compared with "
            f"{_short(args[0])} ({type(args[0]).__name__})"
        ) from None
    raise AssertionError(op)  # pragma: no cover


_COMPARE_WORDS = {
    "eq": "of",
    "gt": "above",
    "gte": "at least",
    "lt": "below",
    "lte": "at most",
}


def _compare_phrase(op: str, args: tuple[Any, ...]) -> str:
    if op == "within":
        return f"within {_short(args[0])}..{_short(args[1])}"
    return f"{_COMPARE_WORDS[op]} {_short(args[0])}"


def _whitespace_hint(actual: str, expected: str) -> str:
    if actual != expected and " ".join(actual.split()) == " ".join(expected.split()):
        return " (they differ only in whitespace: use 'contain', or compare .text() stripped)"
    return ""


def _dom_text(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    expected, actual = _as_text(args[0]), _text_of(subject)
    but = f", but the text was {_short(actual)}{_whitespace_hint(actual, expected)}"
    return _v(actual == expected, neg, but)


def _dom_contain_text(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if not _is_text(args[0]):
        raise _Mismatch(f"DOM elements can only contain text, and {_short(args[0])} is not a str")
    expected, actual = _as_text(args[0]), _text_of(subject)
    but = f", but the text was {_short(actual)}"
    return _v(expected in actual, neg, but, but)


def _dom_match(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    actual = _text_of(subject)
    but = f", but the text was {_short(actual)}"
    return _v(_regex(args[0]).search(actual) is not None, neg, but, but)


def _dom_html(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    expected, actual = _as_text(args[0]), _first(subject).html
    return _v(actual == expected, neg, f", but the HTML of {_it(subject)} was {_short(actual)}")


def _dom_contain_html(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    expected, actual = _as_text(args[0]), _first(subject).html
    but = f", but the HTML of {_it(subject)} was {_short(actual)}"
    return _v(expected in actual, neg, but, but)


def _dom_class(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    wanted = _as_text(args[0]).split()
    having = [e for e in subject.elements if all(c in e.classes for c in wanted)]
    if len(subject.elements) == 1:
        classes = " ".join(_first(subject).classes)
        but = f", but its classes were {classes!r}" if classes else ", but it had no class"
    else:
        but = f", but none of the {len(subject.elements)} elements had it"
    return _v(bool(having), neg, but, f", but {_describe_elements(having)} had it")


def _attr_check(
    subject: DomSubject,
    neg: bool,
    actual: str | None,
    args: tuple[Any, ...],
    what: str,
) -> _Verdict:
    it = _it(subject)
    if len(args) < 2:
        return _v(actual is not None, neg, f", but {it} had no {what}", f", but {it} had it")
    expected = _as_text(args[1]) if _is_number(args[1]) else args[1]
    if actual is None:
        return _v(False, neg, f", but {it} had no {what}")
    return _v(_same(actual, expected), neg, f", but the value of {it} was {_short(actual)}")


def _dom_attr(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    name = args[0]
    return _attr_check(subject, neg, _first(subject).attrs.get(name), args, f"attribute {name!r}")


def _dom_id(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    actual = _first(subject).attrs.get("id")
    it = _it(subject)
    if actual is None:
        return _v(False, neg, f", but {it} had no id")
    return _v(actual == _as_text(args[0]), neg, f", but the id of {it} was {actual!r}")


def _dom_value(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    first = _first(subject)
    it = _it(subject)
    if first.value is None:
        raise _Mismatch(f"{it} has no value: <{first.tag}> is not an input, select or textarea")
    return _v(
        first.value == _as_text(args[0]), neg, f", but the value of {it} was {_short(first.value)}"
    )


def _dom_prop(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    name = args[0]
    actual = _first(subject).props.get(name)
    it = _it(subject)
    if len(args) < 2:
        return _v(
            actual is not None,
            neg,
            f", but {it} had no property {name!r}",
            f", but it was {_short(actual)}",
        )
    if actual is None and args[1] is not None:
        return _v(False, neg, f", but {it} had no property {name!r}")
    return _v(_same(actual, args[1]), neg, f", but the property of {it} was {_short(actual)}")


def _dom_css(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    name = args[0]
    actual = _first(subject).css.get(name)
    it = _it(subject)
    if len(args) < 2:
        present = actual is not None and actual != ""
        return _v(present, neg, f", but {it} had no CSS {name!r}", f", but it was {_short(actual)}")
    if actual is None:
        return _v(
            False,
            neg,
            f", but the snapshot of {it} did not read CSS {name!r} (see css_properties_needed)",
        )
    expected = _as_text(args[1])
    return _v(
        actual.strip() == expected.strip(), neg, f", but the value of {it} was {_short(actual)}"
    )


def _data_attr_name(name: str) -> str:
    if name.startswith("data-"):
        return name
    return "data-" + re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower()


def _jquery_data(raw: str) -> Any:
    """jQuery's ``.data()`` conversion of a ``data-*`` attribute string."""
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw == "null":
        return None
    try:
        number = float(raw)
    except ValueError:
        number = None
    if number is not None and re.fullmatch(r"-?\d+(\.\d+)?", raw):
        return int(raw) if re.fullmatch(r"-?\d+", raw) else number
    if raw[:1] in "{[":
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _dom_data(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    attr = _data_attr_name(args[0])
    raw = _first(subject).attrs.get(attr)
    it = _it(subject)
    if len(args) < 2:
        return _v(
            raw is not None, neg, f", but {it} had no {attr!r} attribute", f", but it was {raw!r}"
        )
    if raw is None:
        return _v(False, neg, f", but {it} had no {attr!r} attribute")
    expected = args[1]
    holds = (isinstance(expected, str) and raw == expected) or _same(_jquery_data(raw), expected)
    return _v(holds, neg, f", but the value of {it} was {raw!r}")


def _dom_satisfy(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> _Verdict:
    return _val_satisfy(subject, args, neg)


# --------------------------------------------------------------------------- value checkers


def _val_exist(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    return _v(subject is not None, neg)


def _identity(pred: Callable[[Any], bool]) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
        return _v(pred(subject), neg)

    return checker


def _val_ok(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    try:
        truthy = bool(subject)
    except Exception as exc:
        raise _Mismatch(f"its truth value cannot be taken ({type(exc).__name__})") from None
    return _v(truthy, neg)


def _val_eq(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    expected = args[0]
    holds = _same(subject, expected)
    but = ""
    if (
        not holds
        and type(subject) is not type(expected)
        and _short(subject).strip("'\"") == _short(expected).strip("'\"")
    ):
        but = f" (it is {_a_type(subject)}, not {_a_type(expected)})"
    return _v(holds, neg, but)


def _val_empty(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if not isinstance(subject, Sized) or isinstance(subject, ElementSnapshot):
        raise _Mismatch(f"'be.empty' needs {_SIZED_KINDS}, and the subject is {_a_type(subject)}")
    return _v(len(subject) == 0, neg)


def _val_type(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    t = args[0]
    holds = isinstance(subject, t) if not isinstance(t, str) else _CHAI_TYPES[t](subject)
    name = _type_name(subject)
    but = f", but it is {_article(name)} {name} ({type(subject).__name__})"
    if subject is None:
        but = ", but it is None"
    return _v(holds, neg, but)


def _val_include(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    item = args[0]
    if isinstance(subject, str):
        if not isinstance(item, str):
            raise _Mismatch(f"a str can only include a str, and {_short(item)} is {_a_type(item)}")
        holds = item in subject
    elif isinstance(subject, (bytes, bytearray)):
        try:
            holds = item in subject
        except TypeError:
            raise _Mismatch(
                f"bytes can only include bytes or an int, not {_a_type(item)}"
            ) from None
    elif isinstance(subject, Mapping):
        if isinstance(item, Mapping):
            holds = all(k in subject and _same(subject[k], v) for k, v in item.items())
        else:
            holds = item in subject
    elif isinstance(subject, (list, tuple, set, frozenset)):
        holds = any(_same(x, item) for x in subject)
    else:
        raise _Mismatch(
            f"'include' needs a string, list, tuple, set or dict, and the subject is {_a_type(subject)}"
        )
    return _v(holds, neg)


_MISSING = object()


def _get_property(subject: Any, name: Any) -> Any:
    if isinstance(subject, Mapping):
        if name in subject:
            return subject[name]
        if isinstance(name, str) and name.isdigit() and int(name) in subject:
            return subject[int(name)]
        return _MISSING
    if isinstance(subject, (list, tuple, str)):
        if name == "length":
            return len(subject)
        try:
            index = int(name)
        except (TypeError, ValueError):
            return _MISSING
        return subject[index] if -len(subject) <= index < len(subject) else _MISSING
    if isinstance(name, str) and subject is not None:
        try:
            return getattr(subject, name, _MISSING)
        except Exception:
            return _MISSING
    return _MISSING


def _split_path(path: str) -> list[str]:
    """``'a.b[0].c'`` -> ``['a', 'b', '0', 'c']``; ``\\.``, ``\\[`` and ``\\]`` escape."""
    parts: list[str] = []
    current = ""
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "\\" and i + 1 < len(path):
            current += path[i + 1]
            i += 2
            continue
        if ch == ".":
            parts.append(current)
            current = ""
        elif ch == "[":
            if current:
                parts.append(current)
            end = path.find("]", i)
            if end == -1:
                end = len(path)
            parts.append(path[i + 1 : end])
            current = ""
            i = end + 1
            if i < len(path) and path[i] == ".":
                i += 1
            continue
        else:
            current += ch
        i += 1
    if current or not parts:
        parts.append(current)
    return parts


def _property_check(subject: Any, actual: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if len(args) < 2:
        return _v(
            actual is not _MISSING,
            neg,
            ", but it had no such property",
            f", but it was {_short(actual)}",
        )
    if actual is _MISSING:
        return _v(False, neg, ", but it had no such property")
    return _v(_same(actual, args[1]), neg, f", but it was {_short(actual)}")


def _val_property(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if subject is None:
        raise _Mismatch("None has no properties")
    return _property_check(subject, _get_property(subject, args[0]), args, neg)


def _val_nested_property(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if subject is None:
        raise _Mismatch("None has no properties")
    current = subject
    for part in _split_path(args[0]):
        current = _get_property(current, part)
        if current is _MISSING:
            break
    return _property_check(subject, current, args, neg)


def _key_list(args: tuple[Any, ...]) -> list[Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return list(args[0].keys())
    if len(args) == 1 and _is_collection(args[0]):
        return list(args[0])
    return list(args)


def _keys(mode: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
        if not isinstance(subject, Mapping):
            raise _Mismatch(f"only a dict has keys, and the subject is {_a_type(subject)}")
        wanted = _key_list(args)
        have = list(subject.keys())
        if mode == "all":
            holds = len(have) == len(set(wanted)) and all(k in subject for k in wanted)
        elif mode == "any":
            holds = any(k in subject for k in wanted)
        else:
            holds = all(k in subject for k in wanted)
        return _v(holds, neg, f", but its keys were {_short(have)}")

    return checker


def _keys_phrase(mode: str) -> Callable[[tuple[Any, ...]], str]:
    def phrase(args: tuple[Any, ...]) -> str:
        keys = ", ".join(_short(k) for k in _key_list(args)[: _MAX_LISTED * 2])
        return {"all": "have keys ", "any": "have any of the keys ", "include": "include keys "}[
            mode
        ] + keys

    return phrase


def _count_in(items: list[Any], item: Any) -> int:
    return sum(1 for x in items if _same(x, item))


def _members(mode: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
        if not _is_collection(subject):
            raise _Mismatch(
                f"'members' needs a list, tuple or set, and the subject is {_a_type(subject)}"
            )
        have, want = list(subject), list(args[0])
        if mode == "same":
            holds = len(have) == len(want) and all(
                _count_in(have, x) == _count_in(want, x) for x in want
            )
        elif mode == "include":
            holds = all(any(_same(h, w) for h in have) for w in want)
        elif mode == "ordered":
            holds = _same(have, want)
        else:  # include ordered: a prefix
            holds = len(want) <= len(have) and _same(have[: len(want)], want)
        return _v(holds, neg)

    return checker


def _regex(pattern: Any) -> re.Pattern[str]:
    return pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)


def _val_match(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if _is_number(subject):
        subject = str(subject)
    if not isinstance(subject, str):
        raise _Mismatch(f"only a str can match a pattern, and the subject is {_a_type(subject)}")
    return _v(_regex(args[0]).search(subject) is not None, neg)


def _val_compare(op: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
        if not _is_comparable(subject):
            raise _Mismatch(
                f"only numbers (or dates) can be compared, and the subject is {_a_type(subject)}"
            )
        return _v(_compare(op, subject, args), neg)

    return checker


def _val_one_of(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    return _v(any(_same(subject, x) for x in args[0]), neg)


def _val_close_to(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    if not _is_number(subject):
        raise _Mismatch(
            f"only a number can be close to another, and the subject is {_a_type(subject)}"
        )
    diff = abs(subject - args[0])
    return _v(
        diff <= args[1],
        neg,
        f", but it differs by {_short(diff)}",
        f", but it differs by {_short(diff)}",
    )


def _val_satisfy(subject: Any, args: tuple[Any, ...], neg: bool) -> _Verdict:
    try:
        result = args[0](subject)
    except Exception as exc:
        raise _Mismatch(f"the predicate raised {type(exc).__name__}: {exc}") from None
    return _v(
        bool(result),
        neg,
        f", but it returned {_short(result)}",
        f", but it returned {_short(result)}",
    )


def _fn_name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


# --------------------------------------------------------------------------- the table

_VALUE_HINT_PROPERTY = (
    "for an element use 'have.prop' (a JS property) or 'have.attr' (an HTML attribute)"
)


def _specs() -> list[_Spec]:
    """The table of chainers. Kept compact on purpose: one assertion per entry."""
    members_arg = _need(_is_collection, "a list, tuple or set")
    sequence_arg = _need(lambda x: isinstance(x, (list, tuple)), "a list or tuple")
    with_value = lambda a: f" with the value {_short(a[1])}" if len(a) > 1 else ""  # noqa: E731
    of_value = lambda a: f" of {_short(a[1])}" if len(a) > 1 else ""  # noqa: E731
    length_specs: list[_Spec] = []
    compare_specs: list[_Spec] = []
    comparisons = {
        "gt": ("gt", "greaterThan", "above"),
        "gte": ("gte", "at.least", "least", "greaterThanOrEqual"),
        "lt": ("lt", "lessThan", "below"),
        "lte": ("lte", "at.most", "most", "lessThanOrEqual"),
        "within": ("within",),
    }
    for op, words in comparisons.items():
        nargs = 2 if op == "within" else 1
        example = ", 1, 3" if op == "within" else ", 2"
        length_specs.append(
            _Spec(
                tuple(f"have.length.{w}" for w in words),
                nargs,
                nargs,
                (lambda o: lambda a: f"have a length {_compare_phrase(o, a)}")(op),
                f"'have.length.{words[0]}'{example}",
                dom=_length(op),
                value=_length(op),
                dom_needs_elements=False,
                argcheck=_within_args if op == "within" else _NUMBER,
            )
        )
        compare_specs.append(
            _Spec(
                tuple(f"be.{w}" for w in words),
                nargs,
                nargs,
                (lambda o: lambda a: f"be {_compare_phrase(o, a)}")(op),
                f"'be.{words[0]}'{example}",
                value=_val_compare(op),
                argcheck=_within_args if op == "within" else _compare_args(1),
            )
        )
    # fmt: off
    specs = [
        # ---- DOM and values
        _Spec(("exist",), 0, 0, lambda a: "exist", "'exist'",
              dom=_dom_exist, value=_val_exist, dom_needs_elements=False),
        _Spec(("have.length", "have.lengthOf"), 1, 1,
              lambda a: f"have a length of {_short(a[0])}", "'have.length', 3",
              dom=_length("eq"), value=_length("eq"), dom_needs_elements=False, argcheck=_COUNT),
        *length_specs,
        _Spec(("contain", "include", "contains", "includes"), 1, 1,
              lambda a: f"contain {_short(a[0])}", "'contain', 'Ada'",
              dom=_dom_contain_text, value=_val_include),
        _Spec(("match", "matches"), 1, 1,
              lambda a: f"match {_short(_regex(a[0]))}", "'match', r'^\\d+$'",
              dom=_dom_match, value=_val_match, argcheck=_pattern_arg),
        _Spec(("be.empty",), 0, 0, lambda a: "be empty", "'be.empty'",
              dom=_state(_is_empty_element, "empty", "not empty"), value=_val_empty),
        _Spec(("satisfy", "satisfies"), 1, 1,
              lambda a: f"satisfy {_fn_name(a[0])}", "'satisfy', lambda x: x > 0",
              dom=_dom_satisfy, value=_val_satisfy, argcheck=_need(callable, "a callable")),
        # ---- DOM only
        _Spec(("be.visible",), 0, 0, lambda a: "be visible", "'be.visible'",
              dom=_state(lambda e: e.visible, "visible", "hidden")),
        _Spec(("be.hidden",), 0, 0, lambda a: "be hidden", "'be.hidden'",
              dom=_state(lambda e: not e.visible, "hidden", "visible")),
        _Spec(("have.text",), 1, 1,
              lambda a: f"have text {_short(_as_text(a[0]))}", "'have.text', 'Hello'",
              dom=_dom_text, argcheck=_TEXT),
        _Spec(("contain.text", "include.text"), 1, 1,
              lambda a: f"contain text {_short(_as_text(a[0]))}", "'contain.text', 'Hel'",
              dom=_dom_contain_text, argcheck=_TEXT),
        _Spec(("have.html",), 1, 1,
              lambda a: f"have HTML {_short(_as_text(a[0]))}", "'have.html', '<b>Hi</b>'",
              dom=_dom_html, argcheck=_TEXT),
        _Spec(("contain.html", "include.html"), 1, 1,
              lambda a: f"contain HTML {_short(_as_text(a[0]))}", "'contain.html', '<b>'",
              dom=_dom_contain_html, argcheck=_TEXT),
        _Spec(("have.class",), 1, 1,
              lambda a: f"have class {_short(a[0])}", "'have.class', 'active'",
              dom=_dom_class, argcheck=_NAME),
        _Spec(("have.attr",), 1, 2,
              lambda a: f"have attribute {_short(a[0])}{with_value(a)}",
              "'have.attr', 'href', '/home'", dom=_dom_attr, argcheck=_NAME),
        _Spec(("have.id",), 1, 1,
              lambda a: f"have id {_short(_as_text(a[0]))}", "'have.id', 'main'",
              dom=_dom_id, argcheck=_NAME),
        _Spec(("have.value",), 1, 1,
              lambda a: f"have value {_short(_as_text(a[0]))}", "'have.value', 'ada@example.com'",
              dom=_dom_value, argcheck=_TEXT),
        _Spec(("have.prop",), 1, 2,
              lambda a: f"have property {_short(a[0])}{with_value(a)}",
              "'have.prop', 'indeterminate', True", dom=_dom_prop, argcheck=_NAME),
        _Spec(("have.css",), 1, 2,
              lambda a: f"have CSS property {_short(a[0])}"
              + (f" with the value {_short(_as_text(a[1]))}" if len(a) > 1 else ""),
              "'have.css', 'display', 'none'", dom=_dom_css,
              argcheck=_all(_NAME, _need(_is_text, "a str (or a number)", 1))),
        _Spec(("have.data",), 1, 2,
              lambda a: f"have data {_short(a[0])}{with_value(a)}",
              "'have.data', 'userId', 7", dom=_dom_data, argcheck=_NAME),
        _Spec(("be.checked",), 0, 0, lambda a: "be checked", "'be.checked'",
              dom=_state(lambda e: e.checked, "checked", "not checked")),
        _Spec(("be.selected",), 0, 0, lambda a: "be selected", "'be.selected'",
              dom=_state(lambda e: e.selected, "selected", "not selected")),
        _Spec(("be.disabled",), 0, 0, lambda a: "be disabled", "'be.disabled'",
              dom=_state(lambda e: e.disabled, "disabled", "enabled")),
        _Spec(("be.enabled",), 0, 0, lambda a: "be enabled", "'be.enabled'",
              dom=_state(lambda e: not e.disabled, "enabled", "disabled")),
        _Spec(("be.focused", "have.focus"), 0, 0, lambda a: "be focused", "'be.focused'",
              dom=_state(lambda e: e.focused, "focused", "not focused")),
        # ---- values only
        _Spec(("eq", "equal", "equals"), 1, 1,
              lambda a: f"equal {_short(a[0])}", "'eq', 200", value=_val_eq),
        _Spec(("deep.equal", "deep.eq", "deep.equals", "eql", "eqls"), 1, 1,
              lambda a: f"deeply equal {_short(a[0])}", "'deep.equal', {'a': 1}", value=_val_eq),
        _Spec(("be.true",), 0, 0, lambda a: "be True", "'be.true'",
              value=_identity(lambda x: x is True)),
        _Spec(("be.false",), 0, 0, lambda a: "be False", "'be.false'",
              value=_identity(lambda x: x is False)),
        _Spec(("be.null", "be.None"), 0, 0, lambda a: "be None (null)", "'be.null'",
              value=_identity(lambda x: x is None)),
        _Spec(("be.undefined",), 0, 0, lambda a: "be None (undefined)", "'be.undefined'",
              value=_identity(lambda x: x is None)),
        _Spec(("be.ok",), 0, 0, lambda a: "be truthy", "'be.ok'", value=_val_ok),
        _Spec(("be.NaN",), 0, 0, lambda a: "be NaN", "'be.NaN'",
              value=_identity(lambda x: isinstance(x, float) and math.isnan(x))),
        _Spec(("be.a", "be.an"), 1, 1,
              lambda a: f"be {_article(_type_label(a[0]))} {_type_label(a[0])}",
              "'be.a', 'string'", value=_val_type, argcheck=_type_arg),
        _Spec(("deep.include", "deep.contain"), 1, 1,
              lambda a: f"deeply include {_short(a[0])}", "'deep.include', {'a': 1}",
              value=_val_include),
        _Spec(("have.property", "have.own.property"), 1, 2,
              lambda a: f"have property {_short(a[0])}{of_value(a)}",
              "'have.property', 'status', 200", value=_val_property,
              dom_hint=_VALUE_HINT_PROPERTY),
        _Spec(("have.nested.property",), 1, 2,
              lambda a: f"have nested property {_short(a[0])}{of_value(a)}",
              "'have.nested.property', 'body.items[0].id', 7", value=_val_nested_property,
              argcheck=_need(lambda p: isinstance(p, str), "a str path like 'a.b[0].c'"),
              dom_hint=_VALUE_HINT_PROPERTY),
        _Spec(("have.keys", "have.all.keys"), 1, None,
              _keys_phrase("all"), "'have.keys', 'a', 'b'",
              value=_keys("all"), argcheck=_keys_args),
        _Spec(("have.any.keys",), 1, None,
              _keys_phrase("any"), "'have.any.keys', 'a', 'b'",
              value=_keys("any"), argcheck=_keys_args),
        _Spec(("include.keys", "contain.keys", "include.all.keys", "contain.all.keys"), 1, None,
              _keys_phrase("include"), "'include.keys', 'a'",
              value=_keys("include"), argcheck=_keys_args),
        _Spec(("have.members", "have.same.members", "have.deep.members", "have.same.deep.members"),
              1, 1, lambda a: f"have the same members as {_short(a[0])}",
              "'have.members', [1, 2]", value=_members("same"), argcheck=members_arg),
        _Spec(("include.members", "contain.members", "include.deep.members"), 1, 1,
              lambda a: f"include members {_short(a[0])}", "'include.members', [1]",
              value=_members("include"), argcheck=members_arg),
        _Spec(("have.ordered.members", "have.same.ordered.members"), 1, 1,
              lambda a: f"have the same ordered members as {_short(a[0])}",
              "'have.ordered.members', [1, 2]", value=_members("ordered"), argcheck=sequence_arg),
        _Spec(("include.ordered.members",), 1, 1,
              lambda a: f"start with the ordered members {_short(a[0])}",
              "'include.ordered.members', [1]", value=_members("include_ordered"),
              argcheck=sequence_arg),
        *compare_specs,
        _Spec(("be.oneOf",), 1, 1,
              lambda a: f"be one of {_short(a[0])}", "'be.oneOf', ['a', 'b']",
              value=_val_one_of, argcheck=members_arg),
        _Spec(("be.closeTo", "be.approximately"), 2, 2,
              lambda a: f"be close to {_short(a[0])} +/- {_short(a[1])}",
              "'be.closeTo', 1.5, 0.1", value=_val_close_to, argcheck=_closeto_args),
    ]
    # fmt: on
    return specs


_LANGUAGE = frozenset("to be been is that which and has have with at of same but does".split())


def _key(words: list[str]) -> str:
    return ".".join(w for w in words if w not in _LANGUAGE)


_SPECS = _specs()
_BY_KEY: dict[str, _Spec] = {}
for _spec in _SPECS:
    for _name in _spec.names:
        _k = _key(_name.split("."))
        if _BY_KEY.get(_k, _spec) is not _spec:  # pragma: no cover - table sanity
            raise RuntimeError(f"chainer spelling {_name!r} is ambiguous")
        _BY_KEY[_k] = _spec
del _spec, _name, _k

#: Every documented chainer spelling; each may also be negated with ``not.``.
SUPPORTED: tuple[str, ...] = tuple(name for spec in _SPECS for name in spec.names)


def _lookup(chainer: str) -> tuple[_Spec, bool]:
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


# --------------------------------------------------------------------------- public API


def validate_chainer(chainer: str, *args: Any) -> None:
    """Raise :class:`UsageError` unless ``.should(chainer, *args)`` is a supported assertion.

    Checks the spelling (with a did-you-mean and the supported list), the number of arguments
    and, where it is knowable without a subject, their types (``have.length`` needs an int,
    ``match`` a valid regex, ``be.a`` a known type name, ...).
    """
    spec, _neg = _lookup(chainer)
    n = len(args)
    if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
        if spec.max_args is None:
            wanted = f"at least {_plural(spec.min_args, 'argument')}"
        elif spec.min_args == spec.max_args:
            wanted = _plural(spec.min_args, "argument") if spec.min_args else "no arguments"
        else:
            wanted = f"{spec.min_args} or {spec.max_args} arguments"
        raise _usage(chainer, spec, f"takes {wanted}, got {n}")
    if spec.argcheck is not None:
        spec.argcheck(chainer, args)


def check(subject: DomSubject | Any, chainer: str, *args: Any) -> Outcome:
    """Whether ``subject`` satisfies ``.should(chainer, *args)`` right now.

    Raises :class:`UsageError` for an unknown chainer or bad arguments (see
    :func:`validate_chainer`); never raises because of the subject.
    """
    validate_chainer(chainer, *args)
    spec, neg = _lookup(chainer)
    if isinstance(subject, ElementSnapshot):
        subject = DomSubject(subject.description, (subject,))
    to = "not to" if neg else "to"
    described = _describe(subject)
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
                f"and the subject is {_a_type(subject)}",
            )
        checker = spec.value
    try:
        verdict = checker(subject, args, neg)
    except _Mismatch as exc:
        return Outcome(False, f"{head}, but {exc}")
    except Exception as exc:  # never let a strange subject escape as a crash
        return Outcome(False, f"{head}, but checking it raised {type(exc).__name__}: {exc}")
    if verdict.passed:
        return Outcome(True, head)
    return Outcome(False, verdict.message or head + verdict.but)


def counts_only(chainer: str) -> bool:
    """Whether the assertion only counts the elements (``exist``, ``have.length`` and its
    comparisons): a snapshot of the first few, for the message, and their number will do."""
    spec, _neg = _lookup(chainer)
    return not spec.dom_needs_elements


#: How many elements a count-only snapshot reads (the failure message lists as many).
LISTED = _MAX_LISTED


def css_properties_needed(chainer: str, *args: Any) -> list[str]:
    """The computed-style properties a snapshot must read for this assertion (``have.css``)."""
    spec, _neg = _lookup(chainer)
    if spec.primary == "have.css" and args and isinstance(args[0], str):
        return [args[0]]
    return []


def props_needed(chainer: str, *args: Any) -> list[str]:
    """The JS properties a snapshot must read into ``props`` for this assertion (``have.prop``)."""
    spec, _neg = _lookup(chainer)
    if spec.primary == "have.prop" and args and isinstance(args[0], str):
        return [args[0]]
    return []


# --------------------------------------------------------------------------- dotted paths


class PathMissing(LookupError):
    """A dotted path could not be followed past ``part`` (the walk's "missing" signal).

    ``walked``: the path up to and including ``part``; ``container``: the value ``part`` was
    looked up in; ``reason``: ``"key"`` (not a key of a mapping), ``"index"`` (an index outside
    a list, tuple or str), ``"none"`` (the value was None) or ``"property"`` (no attribute of
    that name). Callers turn it into their own error: a retrying subject retries, ``its`` on an
    interception fails at once.
    """

    def __init__(self, walked: str, part: str, container: Any, reason: str) -> None:
        super().__init__(f"{walked!r}: {_short(container)} has no {part!r}")
        self.walked = walked
        self.part = part
        self.container = container
        self.reason = reason


_ABSENT = object()
_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")
_INDEX = re.compile(r"-?[0-9]+")


def _spellings(part: str) -> tuple[str, ...]:
    """``part`` as written, then in snake_case, then in camelCase (without repeats)."""
    snake = _CAMEL_BOUNDARY.sub("_", part).lower()
    head, *rest = part.split("_")
    camel = head + "".join(word[:1].upper() + word[1:] for word in rest)
    return tuple(dict.fromkeys((part, snake, camel)))


def _as_index(part: str) -> int | None:
    # ASCII digits with an optional minus only: int() would also take "+1", " 1", "1_0" and
    # other scripts' digits, which no one means as an index.
    return int(part) if _INDEX.fullmatch(part) else None


def walk_path(value: Any, path: str, *, call_accessors: bool = False) -> Any:
    """Follow the dotted path ``path`` (``"body.items.0.name"``) from ``value``; return the end.

    Each segment is read from the value reached so far:

    * a mapping: the key as written, else its snake_case, else its camelCase spelling;
    * a list, tuple or str: ``length`` (its size) or an integer index (negative ones count from
      the end); any other segment is read as an attribute;
    * None: nothing can be read from it;
    * anything else: the attribute as written, else its snake_case, else its camelCase spelling.

    Empty segments are skipped (``"a..b"`` is ``"a.b"``; ``""`` yields ``value``). With
    ``call_accessors``, every callable reached (but not a class) is called without arguments and
    replaced by what it returns, unless the call raises TypeError (it needs arguments).

    Raises PathMissing for the first segment that cannot be followed. Any other error of a
    property or accessor read on the way (a body that cannot load) propagates.
    """
    current = value
    walked: list[str] = []
    for part in path.split("."):
        if not part:
            continue
        walked.append(part)
        current = _walk_step(current, part, walked)
        if call_accessors and callable(current) and not isinstance(current, type):
            try:
                current = current()
            except TypeError:
                pass
    return current


def _walk_step(current: Any, part: str, walked: list[str]) -> Any:
    if isinstance(current, Mapping):
        for key in _spellings(part):
            if key in current:
                return current[key]
        raise PathMissing(".".join(walked), part, current, "key")
    if isinstance(current, (list, tuple, str)):
        if part == "length":
            return len(current)
        index = _as_index(part)
        if index is not None:
            if -len(current) <= index < len(current):
                return current[index]
            raise PathMissing(".".join(walked), part, current, "index")
    if current is None:
        raise PathMissing(".".join(walked), part, current, "none")
    for name in _spellings(part):
        found = getattr(current, name, _ABSENT)
        if found is not _ABSENT:
            return found
    raise PathMissing(".".join(walked), part, current, "property")
