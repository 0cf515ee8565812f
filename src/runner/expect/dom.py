"""DOM chainers (a ``runner.get(...)`` subject): states (``be.visible``, ``be.checked``, ...) that
hold for ALL elements and whose negation holds for NONE; text (``have.text``, ``contain.text``,
``match``) of all elements joined; ``have.class`` on ANY element; and the first-element readers
(``have.html``, ``have.attr``, ``have.id``, ``have.value``, ``have.prop``, ``have.css``,
``have.data``), as jQuery reads them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .arguments import NAME, TEXT, all_of, is_text, need
from .kinds import is_number, regex, same
from .messages import describe_elements, short
from .spec import Checker, Mismatch, Spec, Verdict, verdict
from .subjects import DomSubject, ElementSnapshot

__all__ = ["SPECS", "state", "is_empty_element", "as_text", "dom_contain_text", "dom_match"]


def _text_of(subject: DomSubject) -> str:
    return "".join(e.text for e in subject.elements)


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _first(subject: DomSubject) -> ElementSnapshot:
    return subject.elements[0]


def _it(subject: DomSubject) -> str:
    """How a 'but' clause names the element read by first-element chainers."""
    if len(subject.elements) == 1:
        return "it"
    return f"the first element {_first(subject).description}"


# --------------------------------------------------------------------------- states


def state(pred: Callable[[ElementSnapshot], bool], yes: str, no: str) -> Checker:
    """ALL elements in the state; negated: NONE in it."""

    def checker(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
        offenders = [e for e in subject.elements if pred(e) == neg]
        if not offenders:
            return Verdict(True)
        word = yes if neg else no
        if len(subject.elements) == 1:
            return Verdict(False, f", but it was {word}")
        n, k = len(subject.elements), len(offenders)
        verb = "was" if k == 1 else "were"
        return Verdict(
            False, f", but {k} of {n} elements {verb} {word}: {describe_elements(offenders)}"
        )

    return checker


def is_empty_element(e: ElementSnapshot) -> bool:
    return e.html == "" and e.text == ""


# --------------------------------------------------------------------------- text and HTML


def _whitespace_hint(actual: str, expected: str) -> str:
    if actual != expected and " ".join(actual.split()) == " ".join(expected.split()):
        return " (they differ only in whitespace: use 'contain', or compare .text() stripped)"
    return ""


def _dom_text(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    expected, actual = as_text(args[0]), _text_of(subject)
    but = f", but the text was {short(actual)}{_whitespace_hint(actual, expected)}"
    return verdict(actual == expected, neg, but)


def dom_contain_text(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    if not is_text(args[0]):
        raise Mismatch(f"DOM elements can only contain text, and {short(args[0])} is not a str")
    expected, actual = as_text(args[0]), _text_of(subject)
    but = f", but the text was {short(actual)}"
    return verdict(expected in actual, neg, but, but)


def dom_match(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    actual = _text_of(subject)
    but = f", but the text was {short(actual)}"
    return verdict(regex(args[0]).search(actual) is not None, neg, but, but)


def _dom_html(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    expected, actual = as_text(args[0]), _first(subject).html
    return verdict(actual == expected, neg, f", but the HTML of {_it(subject)} was {short(actual)}")


def _dom_contain_html(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    expected, actual = as_text(args[0]), _first(subject).html
    but = f", but the HTML of {_it(subject)} was {short(actual)}"
    return verdict(expected in actual, neg, but, but)


def _dom_class(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    wanted = as_text(args[0]).split()
    having = [e for e in subject.elements if all(c in e.classes for c in wanted)]
    if len(subject.elements) == 1:
        classes = " ".join(_first(subject).classes)
        but = f", but its classes were {classes!r}" if classes else ", but it had no class"
    else:
        but = f", but none of the {len(subject.elements)} elements had it"
    return verdict(bool(having), neg, but, f", but {describe_elements(having)} had it")


# --------------------------------------------------------------------------- first-element readers


def _attr_check(
    subject: DomSubject,
    neg: bool,
    actual: str | None,
    args: tuple[Any, ...],
    what: str,
) -> Verdict:
    it = _it(subject)
    if len(args) < 2:
        return verdict(actual is not None, neg, f", but {it} had no {what}", f", but {it} had it")
    expected = as_text(args[1]) if is_number(args[1]) else args[1]
    if actual is None:
        return verdict(False, neg, f", but {it} had no {what}")
    return verdict(same(actual, expected), neg, f", but the value of {it} was {short(actual)}")


def _dom_attr(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    name = args[0]
    return _attr_check(subject, neg, _first(subject).attrs.get(name), args, f"attribute {name!r}")


def _dom_id(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    actual = _first(subject).attrs.get("id")
    it = _it(subject)
    if actual is None:
        return verdict(False, neg, f", but {it} had no id")
    return verdict(actual == as_text(args[0]), neg, f", but the id of {it} was {actual!r}")


def _dom_value(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    first = _first(subject)
    it = _it(subject)
    if first.value is None:
        raise Mismatch(f"{it} has no value: <{first.tag}> is not an input, select or textarea")
    return verdict(
        first.value == as_text(args[0]), neg, f", but the value of {it} was {short(first.value)}"
    )


def _dom_prop(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    name = args[0]
    actual = _first(subject).props.get(name)
    it = _it(subject)
    if len(args) < 2:
        return verdict(
            actual is not None,
            neg,
            f", but {it} had no property {name!r}",
            f", but it was {short(actual)}",
        )
    if actual is None and args[1] is not None:
        return verdict(False, neg, f", but {it} had no property {name!r}")
    return verdict(same(actual, args[1]), neg, f", but the property of {it} was {short(actual)}")


def _dom_css(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    name = args[0]
    actual = _first(subject).css.get(name)
    it = _it(subject)
    if len(args) < 2:
        present = actual is not None and actual != ""
        return verdict(present, neg, f", but {it} had no CSS {name!r}", f", but it was {short(actual)}")
    if actual is None:
        return verdict(
            False,
            neg,
            f", but the snapshot of {it} did not read CSS {name!r} (see css_properties_needed)",
        )
    expected = as_text(args[1])
    return verdict(
        actual.strip() == expected.strip(), neg, f", but the value of {it} was {short(actual)}"
    )


def _data_attr_name(name: str) -> str:
    # jQuery's data name -> attribute rule (``userId`` -> ``data-user-id``), kebab-case, not
    # snake_case: runner.casing's converter is not this one
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


def _dom_data(subject: DomSubject, args: tuple[Any, ...], neg: bool) -> Verdict:
    attr = _data_attr_name(args[0])
    raw = _first(subject).attrs.get(attr)
    it = _it(subject)
    if len(args) < 2:
        return verdict(
            raw is not None, neg, f", but {it} had no {attr!r} attribute", f", but it was {raw!r}"
        )
    if raw is None:
        return verdict(False, neg, f", but {it} had no {attr!r} attribute")
    expected = args[1]
    holds = (isinstance(expected, str) and raw == expected) or same(_jquery_data(raw), expected)
    return verdict(holds, neg, f", but the value of {it} was {raw!r}")


# --------------------------------------------------------------------------- the DOM-only chainers


def _with_value(a: tuple[Any, ...]) -> str:
    return f" with the value {short(a[1])}" if len(a) > 1 else ""


def _css_phrase(a: tuple[Any, ...]) -> str:
    return f"have CSS property {short(a[0])}" + (
        f" with the value {short(as_text(a[1]))}" if len(a) > 1 else ""
    )


# fmt: off
SPECS: list[Spec] = [
    Spec(("be.visible",), 0, 0, lambda a: "be visible", "'be.visible'",
         dom=state(lambda e: e.visible, "visible", "hidden")),
    Spec(("be.hidden",), 0, 0, lambda a: "be hidden", "'be.hidden'",
         dom=state(lambda e: not e.visible, "hidden", "visible")),
    Spec(("have.text",), 1, 1,
         lambda a: f"have text {short(as_text(a[0]))}", "'have.text', 'Hello'",
         dom=_dom_text, argcheck=TEXT),
    Spec(("contain.text", "include.text"), 1, 1,
         lambda a: f"contain text {short(as_text(a[0]))}", "'contain.text', 'Hel'",
         dom=dom_contain_text, argcheck=TEXT),
    Spec(("have.html",), 1, 1,
         lambda a: f"have HTML {short(as_text(a[0]))}", "'have.html', '<b>Hi</b>'",
         dom=_dom_html, argcheck=TEXT),
    Spec(("contain.html", "include.html"), 1, 1,
         lambda a: f"contain HTML {short(as_text(a[0]))}", "'contain.html', '<b>'",
         dom=_dom_contain_html, argcheck=TEXT),
    Spec(("have.class",), 1, 1,
         lambda a: f"have class {short(a[0])}", "'have.class', 'active'",
         dom=_dom_class, argcheck=NAME),
    Spec(("have.attr",), 1, 2,
         lambda a: f"have attribute {short(a[0])}{_with_value(a)}",
         "'have.attr', 'href', '/home'", dom=_dom_attr, argcheck=NAME),
    Spec(("have.id",), 1, 1,
         lambda a: f"have id {short(as_text(a[0]))}", "'have.id', 'main'",
         dom=_dom_id, argcheck=NAME),
    Spec(("have.value",), 1, 1,
         lambda a: f"have value {short(as_text(a[0]))}", "'have.value', 'ada@example.com'",
         dom=_dom_value, argcheck=TEXT),
    Spec(("have.prop",), 1, 2,
         lambda a: f"have property {short(a[0])}{_with_value(a)}",
         "'have.prop', 'indeterminate', True", dom=_dom_prop, argcheck=NAME),
    Spec(("have.css",), 1, 2, _css_phrase,
         "'have.css', 'display', 'none'", dom=_dom_css,
         argcheck=all_of(NAME, need(is_text, "a str (or a number)", 1))),
    Spec(("have.data",), 1, 2,
         lambda a: f"have data {short(a[0])}{_with_value(a)}",
         "'have.data', 'userId', 7", dom=_dom_data, argcheck=NAME),
    Spec(("be.checked",), 0, 0, lambda a: "be checked", "'be.checked'",
         dom=state(lambda e: e.checked, "checked", "not checked")),
    Spec(("be.selected",), 0, 0, lambda a: "be selected", "'be.selected'",
         dom=state(lambda e: e.selected, "selected", "not selected")),
    Spec(("be.disabled",), 0, 0, lambda a: "be disabled", "'be.disabled'",
         dom=state(lambda e: e.disabled, "disabled", "enabled")),
    Spec(("be.enabled",), 0, 0, lambda a: "be enabled", "'be.enabled'",
         dom=state(lambda e: not e.disabled, "enabled", "disabled")),
    Spec(("be.focused", "have.focus"), 0, 0, lambda a: "be focused", "'be.focused'",
         dom=state(lambda e: e.focused, "focused", "not focused")),
]
# fmt: on
