"""Truth tables for the chai-style assertion strings of ``runner.expect``."""

from __future__ import annotations

import math
import re
from datetime import date
from types import MappingProxyType
from typing import Any

import pytest

from runner.errors import UsageError
from runner.expect import (
    SUPPORTED,
    DomSubject,
    ElementSnapshot,
    Outcome,
    PathMissing,
    check,
    css_properties_needed,
    props_needed,
    validate_chainer,
    walk_path,
)

# --------------------------------------------------------------------------- factories


def el(tag: str = "li", **kw: Any) -> ElementSnapshot:
    return ElementSnapshot(tag, **kw)


def dom(*elements: ElementSnapshot, selector: str = "li.user") -> DomSubject:
    return DomSubject(selector, tuple(elements))


ADA = el(
    "li",
    text="Ada",
    inner_text="Ada",
    html="<b>Ada</b>",
    attrs={"id": "u1", "href": "/users/1", "data-user-id": "7", "data-flag": "true"},
    classes=("user", "active"),
    css={"display": "list-item", "color": "rgb(0, 0, 0)"},
    props={"indeterminate": False, "tabIndex": 0},
)
BOB = el("li", text="Bob", html="Bob", attrs={"id": "u2"}, classes=("user",))
HIDDEN = el("li", text="Eve", html="Eve", classes=("user",), visible=False)
EMPTY_DIV = el("div")
INPUT = el(
    "input",
    value="ada@example.com",
    checked=True,
    focused=True,
    attrs={"type": "checkbox", "name": "email"},
)
SELECT_OPT = el("option", text="One", html="One", value="1", selected=True)
DISABLED = el("button", text="Go", html="Go", disabled=True)
H1 = el("h1", text="Hello", html="Hello")

ONE = dom(ADA)
TWO = dom(ADA, BOB)
THREE = dom(ADA, BOB, HIDDEN)
NONE = dom()


def ok(subject: Any, chainer: str, *args: Any) -> bool:
    out = check(subject, chainer, *args)
    assert isinstance(out, Outcome)
    assert isinstance(out.message, str) and out.message
    return out.ok


# --------------------------------------------------------------------------- DOM truth table

DOM_CASES: list[tuple[DomSubject, str, tuple[Any, ...], bool]] = [
    # exist
    (ONE, "exist", (), True),
    (NONE, "exist", (), False),
    (NONE, "not.exist", (), True),
    (TWO, "not.exist", (), False),
    (NONE, "does.not.exist", (), True),
    # length
    (TWO, "have.length", (2,), True),
    (TWO, "have.length", (3,), False),
    (TWO, "not.have.length", (3,), True),
    (NONE, "have.length", (0,), True),
    (TWO, "have.lengthOf", (2,), True),
    (TWO, "to.have.length", (2,), True),
    (THREE, "have.length.gt", (2,), True),
    (THREE, "have.length.greaterThan", (3,), False),
    (THREE, "have.length.above", (1,), True),
    (THREE, "have.length.gte", (3,), True),
    (THREE, "have.length.at.least", (4,), False),
    (THREE, "have.length.least", (3,), True),
    (THREE, "have.length.of.at.least", (3,), True),
    (THREE, "have.length.lt", (3,), False),
    (THREE, "have.length.lessThan", (4,), True),
    (THREE, "have.length.below", (4,), True),
    (THREE, "have.length.lte", (3,), True),
    (THREE, "have.length.at.most", (2,), False),
    (THREE, "have.length.most", (3,), True),
    (THREE, "have.length.within", (1, 3), True),
    (THREE, "have.length.within", (4, 9), False),
    (THREE, "not.have.length.gt", (5,), True),
    (NONE, "have.length.lt", (1,), True),
    # visibility: all visible / none visible
    (ONE, "be.visible", (), True),
    (dom(HIDDEN), "be.visible", (), False),
    (dom(HIDDEN), "not.be.visible", (), True),
    (ONE, "not.be.visible", (), False),
    (THREE, "be.visible", (), False),
    (THREE, "not.be.visible", (), False),
    (dom(HIDDEN), "be.hidden", (), True),
    (ONE, "be.hidden", (), False),
    (ONE, "not.be.hidden", (), True),
    (THREE, "be.hidden", (), False),
    (THREE, "not.be.hidden", (), False),
    # text: jQuery .text() joins all elements
    (ONE, "have.text", ("Ada",), True),
    (ONE, "have.text", ("Ad",), False),
    (TWO, "have.text", ("AdaBob",), True),
    (ONE, "not.have.text", ("Bob",), True),
    (ONE, "not.have.text", ("Ada",), False),
    (TWO, "contain.text", ("aBo",), True),
    (TWO, "include.text", ("Eve",), False),
    (TWO, "contain", ("Bob",), True),
    (TWO, "include", ("Bob",), True),
    (TWO, "contains", ("Zed",), False),
    (TWO, "not.contain", ("Zed",), True),
    (TWO, "not.contain", ("Ada",), False),
    (dom(el("p", text="li.user here")), "contain", ("li.user",), True),
    (dom(el("p", text="3 items")), "contain", (3,), True),
    (dom(el("p", text="42")), "have.text", (42,), True),
    (TWO, "match", (r"^Ada",), True),
    (TWO, "match", (re.compile(r"bob$", re.I),), True),
    (TWO, "match", (r"^Bob",), False),
    (TWO, "not.match", (r"\d",), True),
    # html (first element)
    (TWO, "have.html", ("<b>Ada</b>",), True),
    (TWO, "have.html", ("Bob",), False),
    (TWO, "contain.html", ("<b>",), True),
    (TWO, "include.html", ("<i>",), False),
    (TWO, "not.contain.html", ("<i>",), True),
    # class: any element
    (ONE, "have.class", ("active",), True),
    (TWO, "have.class", ("active",), True),
    (ONE, "have.class", ("user active",), True),
    (ONE, "have.class", ("missing",), False),
    (TWO, "not.have.class", ("missing",), True),
    (TWO, "not.have.class", ("active",), False),
    (dom(BOB, ADA), "have.class", ("active",), True),
    # attr (first element)
    (ONE, "have.attr", ("href",), True),
    (ONE, "have.attr", ("target",), False),
    (ONE, "have.attr", ("href", "/users/1"), True),
    (ONE, "have.attr", ("href", "/users/2"), False),
    (ONE, "not.have.attr", ("target",), True),
    (ONE, "not.have.attr", ("href", "/users/2"), True),
    (ONE, "not.have.attr", ("href", "/users/1"), False),
    (dom(BOB, ADA), "have.attr", ("href",), False),
    (ONE, "have.attr", ("data-user-id", 7), True),
    # id
    (ONE, "have.id", ("u1",), True),
    (TWO, "have.id", ("u2",), False),
    (ONE, "not.have.id", ("u2",), True),
    (dom(EMPTY_DIV), "have.id", ("u1",), False),
    # value
    (dom(INPUT), "have.value", ("ada@example.com",), True),
    (dom(INPUT), "have.value", ("bob",), False),
    (dom(INPUT), "not.have.value", ("bob",), True),
    (dom(SELECT_OPT), "have.value", (1,), True),
    # prop
    (ONE, "have.prop", ("tabIndex",), True),
    (ONE, "have.prop", ("tabIndex", 0), True),
    (ONE, "have.prop", ("tabIndex", False), False),
    (ONE, "have.prop", ("indeterminate", False), True),
    (ONE, "have.prop", ("nope",), False),
    (ONE, "not.have.prop", ("nope",), True),
    (ONE, "not.have.prop", ("tabIndex", 1), True),
    # css
    (ONE, "have.css", ("display",), True),
    (ONE, "have.css", ("display", "list-item"), True),
    (ONE, "have.css", ("display", "none"), False),
    (ONE, "not.have.css", ("display", "none"), True),
    (ONE, "have.css", ("visibility", "visible"), False),
    # data
    (ONE, "have.data", ("userId",), True),
    (ONE, "have.data", ("user-id", 7), True),
    (ONE, "have.data", ("userId", "7"), True),
    (ONE, "have.data", ("userId", 8), False),
    (ONE, "have.data", ("flag", True), True),
    (ONE, "have.data", ("missing",), False),
    (ONE, "not.have.data", ("missing",), True),
    # states: all / none
    (dom(INPUT), "be.checked", (), True),
    (ONE, "be.checked", (), False),
    (ONE, "not.be.checked", (), True),
    (dom(INPUT, ADA), "be.checked", (), False),
    (dom(INPUT, ADA), "not.be.checked", (), False),
    (dom(SELECT_OPT), "be.selected", (), True),
    (ONE, "be.selected", (), False),
    (dom(DISABLED), "be.disabled", (), True),
    (dom(DISABLED), "be.enabled", (), False),
    (dom(DISABLED), "not.be.enabled", (), True),
    (ONE, "be.enabled", (), True),
    (ONE, "not.be.disabled", (), True),
    (dom(INPUT), "be.focused", (), True),
    (dom(INPUT), "have.focus", (), True),
    (ONE, "be.focused", (), False),
    (ONE, "not.have.focus", (), True),
    (dom(EMPTY_DIV), "be.empty", (), True),
    (ONE, "be.empty", (), False),
    (ONE, "not.be.empty", (), True),
    (dom(el("div", html=" ", text=" ")), "be.empty", (), False),
    # satisfy gets the DomSubject
    (TWO, "satisfy", (lambda s: len(s.elements) == 2,), True),
    (TWO, "satisfy", (lambda s: len(s.elements) == 3,), False),
    # a single ElementSnapshot is a one-element DomSubject
    (ADA, "have.class", ("user",), True),  # type: ignore[list-item]
    (ADA, "have.text", ("Bob",), False),  # type: ignore[list-item]
]


def _plainly_negatable(subject: Any, chainer: str) -> bool:
    """'not.' is logical negation, except for sets under all/none state chainers."""
    if "not" in chainer.split("."):
        return False
    return not isinstance(subject, DomSubject) or len(subject.elements) == 1


@pytest.mark.parametrize(
    ("subject", "chainer", "args", "expected"),
    DOM_CASES,
    ids=[f"{i}-{c[1]}" for i, c in enumerate(DOM_CASES)],
)
def test_dom_truth_table(subject: Any, chainer: str, args: tuple[Any, ...], expected: bool) -> None:
    assert ok(subject, chainer, *args) is expected
    if _plainly_negatable(subject, chainer):
        assert ok(subject, "not." + chainer, *args) is not expected


@pytest.mark.parametrize(
    ("chainer", "args"),
    [
        ("be.visible", ()),
        ("not.be.visible", ()),
        ("have.class", ("a",)),
        ("not.have.class", ("a",)),
        ("have.text", ("",)),
        ("not.contain", ("x",)),
        ("have.attr", ("href",)),
        ("be.empty", ()),
        ("not.be.checked", ()),
    ],
)
def test_dom_chainers_need_an_element_negated_or_not(chainer: str, args: tuple[Any, ...]) -> None:
    out = check(NONE, chainer, *args)
    assert not out.ok
    assert "expected to find element 'li.user'" in out.message
    assert "never found" in out.message


@pytest.mark.parametrize(
    ("chainer", "args"),
    [
        ("eq", ("Ada",)),
        ("deep.equal", ("Ada",)),
        ("be.gt", (1,)),
        ("have.property", ("x",)),
        ("have.keys", ("a",)),
        ("be.true", ()),
        ("be.a", ("string",)),
        ("not.eq", ("x",)),
    ],
)
def test_value_chainers_on_dom_fail_with_a_hint(chainer: str, args: tuple[Any, ...]) -> None:
    out = check(ONE, chainer, *args)
    assert not out.ok
    assert "DOM element" in out.message
    assert "have." in out.message


# --------------------------------------------------------------------------- value truth table


class Obj:
    status = 200

    def __init__(self) -> None:
        self.body = {"items": [{"id": 7}]}


VALUE_CASES: list[tuple[Any, str, tuple[Any, ...], bool]] = [
    # equality
    (200, "eq", (200,), True),
    (404, "eq", (200,), False),
    (404, "not.eq", (200,), True),
    (200, "equal", (200.0,), True),
    ("200", "eq", (200,), False),
    (True, "eq", (1,), False),
    (1, "eq", (True,), False),
    (0, "equals", (False,), False),
    (None, "eq", (None,), True),
    (None, "eq", (0,), False),
    ([1, 2], "eq", ([1, 2],), True),
    ([1, 2], "eq", ((1, 2),), True),
    ([True], "eq", ([1],), False),
    ({"a": 1}, "deep.equal", ({"a": 1},), True),
    ({"a": 1}, "deep.equal", ({"a": 1, "b": 2},), False),
    ({"a": [1, {"b": True}]}, "deep.eq", ({"a": [1, {"b": True}]},), True),
    ({"a": [1, {"b": True}]}, "eql", ({"a": [1, {"b": 1}]},), False),
    ({"a": 1}, "not.deep.equal", ({"a": 2},), True),
    (float("nan"), "deep.equal", (float("nan"),), True),
    # literals
    (True, "be.true", (), True),
    (1, "be.true", (), False),
    (False, "be.false", (), True),
    (0, "be.false", (), False),
    (None, "be.null", (), True),
    (0, "be.null", (), False),
    (None, "be.None", (), True),
    (None, "be.undefined", (), True),
    ("", "be.undefined", (), False),
    (1, "not.be.null", (), True),
    ("x", "be.ok", (), True),
    ("", "be.ok", (), False),
    ([], "not.be.ok", (), True),
    (float("nan"), "be.NaN", (), True),
    (1.0, "be.NaN", (), False),
    (0, "exist", (), True),
    (None, "exist", (), False),
    (None, "not.exist", (), True),
    # emptiness
    ("", "be.empty", (), True),
    ([], "be.empty", (), True),
    ({}, "be.empty", (), True),
    (set(), "be.empty", (), True),
    ("a", "be.empty", (), False),
    ([0], "not.be.empty", (), True),
    # types
    ("s", "be.a", ("string",), True),
    (1, "be.a", ("number",), True),
    (1.5, "be.a", ("number",), True),
    (True, "be.a", ("number",), False),
    (True, "be.a", ("boolean",), True),
    ({}, "be.an", ("object",), True),
    ([], "be.an", ("object",), False),
    ([], "be.an", ("array",), True),
    ((1,), "be.an", ("array",), True),
    (None, "be.a", ("null",), True),
    (None, "be.an", ("undefined",), True),
    (len, "be.a", ("function",), True),
    (re.compile("x"), "be.a", ("regexp",), True),
    (1, "be.an", ("int",), True),
    (True, "be.an", ("int",), False),
    ({}, "be.a", ("dict",), True),
    (1, "be.a", (int,), True),
    ("x", "be.a", ((int, str),), True),
    ("x", "not.be.a", ("number",), True),
    # length
    ([1, 2, 3], "have.length", (3,), True),
    ("abc", "have.length", (2,), False),
    ({"a": 1}, "have.length", (1,), True),
    ([1, 2, 3], "not.have.length", (2,), True),
    ([1, 2, 3], "have.length.gt", (2,), True),
    ([1, 2, 3], "have.length.lte", (2,), False),
    ("abc", "have.length.within", (1, 3), True),
    # include
    ("hello world", "include", ("lo w",), True),
    ("hello", "contain", ("z",), False),
    ([1, 2, 3], "include", (2,), True),
    ([1, 2, 3], "contains", (4,), False),
    ([1, True], "includes", (True,), True),
    ([1], "include", (True,), False),
    ({"a": 1, "b": 2}, "include", ({"a": 1},), True),
    ({"a": 1, "b": 2}, "include", ({"a": 2},), False),
    ({"a": 1}, "include", ("a",), True),
    ([{"a": 1}], "deep.include", ({"a": 1},), True),
    ([{"a": 1}], "deep.contain", ({"a": 2},), False),
    ({"a": {"b": 1}}, "deep.include", ({"a": {"b": 1}},), True),
    ("abc", "not.include", ("z",), True),
    # property
    ({"status": 200}, "have.property", ("status",), True),
    ({"status": 200}, "have.property", ("status", 200), True),
    ({"status": 200}, "have.property", ("status", 404), False),
    ({"status": 200}, "have.property", ("body",), False),
    ({"a.b": 1}, "have.property", ("a.b",), True),
    ({"a": {"b": 1}}, "have.property", ("a.b",), False),
    ({"status": 200}, "not.have.property", ("body",), True),
    ({"status": 200}, "have.own.property", ("status",), True),
    (Obj(), "have.property", ("status", 200), True),
    ([1, 2], "have.property", ("length", 2), True),
    ({"a": {"b": [1, {"c": 2}]}}, "have.nested.property", ("a.b[1].c",), True),
    ({"a": {"b": [1, {"c": 2}]}}, "have.nested.property", ("a.b[1].c", 2), True),
    ({"a": {"b": [1, {"c": 2}]}}, "have.nested.property", ("a.b.1.c", 2), True),
    ({"a": {"b": [1, {"c": 2}]}}, "have.nested.property", ("a.b[2].c",), False),
    ({"a.b": 1}, "have.nested.property", ("a\\.b", 1), True),
    (Obj(), "have.nested.property", ("body.items[0].id", 7), True),
    ({"a": {}}, "not.have.nested.property", ("a.b",), True),
    # keys
    ({"a": 1, "b": 2}, "have.keys", ("a", "b"), True),
    ({"a": 1, "b": 2}, "have.keys", (["b", "a"],), True),
    ({"a": 1, "b": 2}, "have.all.keys", ("a",), False),
    ({"a": 1, "b": 2}, "have.any.keys", ("a", "z"), True),
    ({"a": 1, "b": 2}, "have.any.keys", ("y", "z"), False),
    ({"a": 1, "b": 2}, "include.keys", ("a",), True),
    ({"a": 1, "b": 2}, "contain.keys", ("a", "z"), False),
    ({"a": 1, "b": 2}, "not.have.keys", ("a",), True),
    ({"a": 1}, "have.keys", ({"a": 0},), True),
    # members
    ([1, 2, 3], "have.members", ([3, 2, 1],), True),
    ([1, 2, 2], "have.members", ([2, 1, 2],), True),
    ([1, 2, 2], "have.members", ([1, 1, 2],), False),
    ([1, 2, 3], "have.same.members", ([1, 2],), False),
    ([{"a": 1}], "have.deep.members", ([{"a": 1}],), True),
    ([1, 2, 3], "include.members", ([1, 3],), True),
    ([1, 2, 3], "contain.members", ([1, 4],), False),
    ([1, 2, 3], "have.ordered.members", ([1, 2, 3],), True),
    ([1, 2, 3], "have.ordered.members", ([3, 2, 1],), False),
    ([1, 2, 3], "include.ordered.members", ([1, 2],), True),
    ([1, 2, 3], "include.ordered.members", ([2, 3],), False),
    ([1, 2], "not.have.members", ([1, 3],), True),
    # match
    ("abc123", "match", (r"\d+$",), True),
    ("abc", "match", (re.compile("^A", re.I),), True),
    ("abc", "matches", ("^b",), False),
    (204, "match", (r"^2\d\d$",), True),
    ("abc", "not.match", (r"\d",), True),
    # comparisons
    (5, "be.gt", (3,), True),
    (3, "be.greaterThan", (3,), False),
    (4, "be.above", (3,), True),
    (3, "be.gte", (3,), True),
    (3, "be.at.least", (4,), False),
    (3, "be.least", (3,), True),
    (3, "be.greaterThanOrEqual", (3,), True),
    (2, "be.lt", (3,), True),
    (3, "be.lessThan", (3,), False),
    (2, "be.below", (3,), True),
    (3, "be.lte", (3,), True),
    (4, "be.at.most", (3,), False),
    (3, "be.most", (3,), True),
    (3, "be.lessThanOrEqual", (3.5,), True),
    (3, "be.within", (1, 3), True),
    (4, "be.within", (1, 3), False),
    (4, "not.be.within", (1, 3), True),
    (date(2024, 5, 1), "be.gt", (date(2024, 1, 1),), True),
    (5, "not.be.gt", (3,), False),
    # oneOf / closeTo / satisfy
    ("b", "be.oneOf", (["a", "b"],), True),
    ("c", "be.oneOf", (("a", "b"),), False),
    (1, "be.oneOf", ([True],), False),
    ("c", "not.be.oneOf", (["a", "b"],), True),
    (1.5, "be.closeTo", (1.45, 0.1), True),
    (1.5, "be.closeTo", (1.0, 0.1), False),
    (1.5, "be.approximately", (1.5, 0), True),
    (3, "satisfy", (lambda x: x > 2,), True),
    (1, "satisfy", (lambda x: x > 2,), False),
    (1, "not.satisfy", (lambda x: x > 2,), True),
]


@pytest.mark.parametrize(
    ("subject", "chainer", "args", "expected"),
    VALUE_CASES,
    ids=[f"{i}-{c[1]}" for i, c in enumerate(VALUE_CASES)],
)
def test_value_truth_table(
    subject: Any, chainer: str, args: tuple[Any, ...], expected: bool
) -> None:
    assert ok(subject, chainer, *args) is expected
    if _plainly_negatable(subject, chainer):
        assert ok(subject, "not." + chainer, *args) is not expected


# --------------------------------------------------------------------------- bad subject types


@pytest.mark.parametrize(
    ("subject", "chainer", "args", "words"),
    [
        (3, "have.length", (3,), ["length", "int"]),
        (3, "not.have.length", (3,), ["length", "int"]),
        (None, "be.empty", (), ["be.empty", "NoneType"]),
        (5, "not.be.empty", (), ["be.empty", "int"]),
        (3, "include", (3,), ["include", "int"]),
        ("abc", "include", (1,), ["str"]),
        ([1], "have.keys", ("a",), ["dict", "list"]),
        ({"a": 1}, "have.members", ([1],), ["members", "dict"]),
        ({}, "match", ("x",), ["str", "dict"]),
        ("5", "be.gt", (3,), ["compared", "str"]),
        ("5", "not.be.gt", (3,), ["compared", "str"]),
        (date(2024, 1, 1), "be.gt", (3,), ["compared"]),
        ("x", "be.closeTo", (1, 1), ["number", "str"]),
        (None, "have.property", ("a",), ["None"]),
        ({"a": 1}, "be.visible", (), ["DOM", "dict"]),
        (3, "not.have.class", ("a",), ["DOM", "int"]),
        ("Ada", "have.text", ("Ada",), ["DOM", "str"]),
        (1, "satisfy", (lambda x: 1 / 0,), ["ZeroDivisionError"]),
        (dom(INPUT), "contain", ([1],), ["str"]),
        (ONE, "have.value", ("x",), ["no value", "<li>"]),
    ],
)
def test_wrong_subject_type_fails_without_raising(
    subject: Any, chainer: str, args: tuple[Any, ...], words: list[str]
) -> None:
    out = check(subject, chainer, *args)
    assert out.ok is False
    assert out.message.startswith("expected ")
    for word in words:
        assert word in out.message


def test_strange_objects_never_raise() -> None:
    class Weird:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("boom")

        def __bool__(self) -> bool:
            raise RuntimeError("boom")

        def __repr__(self) -> str:
            raise RuntimeError("boom")

    assert check(Weird(), "eq", 1).ok is False
    assert check(Weird(), "be.ok").ok is False
    assert check([Weird()], "include", 1).ok is False
    assert "Weird" in check(Weird(), "be.ok").message


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    ("subject", "chainer", "args", "message"),
    [
        (
            dom(el("li", classes=("user",)), el("li", classes=("user",))),
            "have.length",
            (3,),
            "expected [ <li.user>, <li.user> ] to have a length of 3 but got 2",
        ),
        (
            dom(H1, selector="h1"),
            "have.text",
            ("Hi",),
            "expected <h1> to have text 'Hi', but the text was 'Hello'",
        ),
        (404, "eq", (200,), "expected 404 to equal 200"),
        (
            dom(el("button"), selector="button"),
            "not.be.visible",
            (),
            "expected <button> not to be visible, but it was visible",
        ),
        (NONE, "exist", (), "expected to find element 'li.user', but never found it"),
        ("200", "eq", (200,), "expected '200' to equal 200 (it is a str, not an int)"),
        ([1, 2], "have.length.gt", (3,), "expected [1, 2] to have a length above 3 but got 2"),
        (2, "be.within", (3, 5), "expected 2 to be within 3..5"),
        ("x", "be.a", ("number",), "expected 'x' to be a number, but it is a string (str)"),
    ],
)
def test_messages(subject: Any, chainer: str, args: tuple[Any, ...], message: str) -> None:
    out = check(subject, chainer, *args)
    assert out == Outcome(False, message)


@pytest.mark.parametrize(
    ("subject", "chainer", "args", "words"),
    [
        (
            ONE,
            "have.attr",
            ("href", "/x"),
            ["expected", "<li.user.active#u1>", "'href'", "'/x'", "'/users/1'"],
        ),
        (TWO, "have.attr", ("href", "/x"), ["first element", "'/users/1'"]),
        (ONE, "have.attr", ("target",), ["attribute 'target'", "had no"]),
        (ONE, "not.have.attr", ("href",), ["not to have attribute 'href'"]),
        (TWO, "not.exist", (), ["not to exist", "found 2 elements"]),
        (THREE, "be.visible", (), ["1 of 3 elements was hidden", "<li.user>"]),
        (ONE, "have.class", ("x",), ["class 'x'", "'user active'"]),
        (ONE, "have.css", ("display", "none"), ["CSS property 'display'", "'none'", "'list-item'"]),
        (ONE, "have.data", ("userId", 8), ["data 'userId'", "'7'"]),
        (dom(INPUT), "have.value", ("x",), ["value 'x'", "'ada@example.com'"]),
        (ONE, "have.prop", ("tabIndex", 3), ["property 'tabIndex'", "3", "0"]),
        (ONE, "be.checked", (), ["be checked", "not checked"]),
        (dom(el("p", text="  Hi\n")), "have.text", ("Hi",), ["whitespace"]),
        ({"a": 1}, "have.keys", ("b",), ["keys 'b'", "['a']"]),
        ({"s": 200}, "have.property", ("s", 404), ["property 's' of 404", "but it was 200"]),
        (1.5, "be.closeTo", (1.0, 0.1), ["close to 1.0 +/- 0.1", "differs by 0.5"]),
        ("abc", "match", (r"\d",), ["match /\\d/"]),
        ("abc", "match", (re.compile("x", re.I),), ["to match /x/i"]),  # its flags, as contains shows them
        (ONE, "match", (r"\d",), ["the text was 'Ada'"]),
        (1, "satisfy", (lambda x: x > 2,), ["satisfy <lambda>", "returned False"]),
    ],
)
def test_message_words(subject: Any, chainer: str, args: tuple[Any, ...], words: list[str]) -> None:
    out = check(subject, chainer, *args)
    assert not out.ok
    for word in words:
        assert word in out.message, out.message


def test_long_values_are_shortened() -> None:
    out = check("x" * 5000, "eq", "y" * 5000)
    assert not out.ok
    assert len(out.message) < 300
    many = dom(*[el("li", classes=("user",)) for _ in range(50)])
    out = check(many, "have.length", 3)
    assert "45 more" in out.message
    assert len(out.message) < 200
    big = {f"k{i}": list(range(100)) for i in range(100)}
    assert len(check(big, "eq", {}).message) < 300


def test_ok_outcome_describes_the_assertion() -> None:
    assert check(TWO, "have.length", 2) == Outcome(
        True, "expected [ <li.user.active#u1>, <li.user#u2> ] to have a length of 2"
    )
    assert check(1, "not.eq", 2) == Outcome(True, "expected 1 not to equal 2")


# --------------------------------------------------------------------------- usage errors


def test_unknown_chainer_did_you_mean() -> None:
    with pytest.raises(UsageError) as info:
        validate_chainer("have.lenght", 3)
    message = str(info.value)
    assert "'have.length'" in message
    assert "did you mean" in message
    assert "be.visible" in message  # the supported list


def test_unknown_negated_chainer_suggests_negated() -> None:
    with pytest.raises(UsageError, match="'not.be.visible'"):
        validate_chainer("not.be.visibel")


@pytest.mark.parametrize(
    "chainer",
    [
        "have.lenght",
        "be.shown",
        "",
        "have..length",
        "have",
        "not",
        "not.not.exist",
        "equalz",
        "be.oneof",
    ],
)
def test_unknown_chainers_raise_in_check_too(chainer: str) -> None:
    with pytest.raises(UsageError):
        check(1, chainer, 1)


def test_non_string_chainer() -> None:
    with pytest.raises(UsageError, match="str"):
        validate_chainer(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("chainer", "args", "words"),
    [
        ("have.length", (), ["takes 1 argument", "got 0"]),
        ("have.length", (1, 2), ["takes 1 argument", "got 2"]),
        ("exist", (1,), ["no arguments", "got 1"]),
        ("not.be.visible", (True,), ["no arguments"]),
        ("have.attr", (), ["1 or 2 arguments"]),
        ("have.attr", ("a", "b", "c"), ["1 or 2 arguments"]),
        ("be.within", (1,), ["2 arguments"]),
        ("have.keys", (), ["at least 1 argument"]),
        ("have.length", ("3",), ["non-negative int"]),
        ("have.length", (True,), ["non-negative int"]),
        ("have.length", (-1,), ["non-negative int"]),
        ("be.gt", ("3",), ["number"]),
        ("be.within", (5, 1), ["empty"]),
        ("match", ("(",), ["regular expression"]),
        ("match", (3,), ["re.Pattern"]),
        ("be.a", ("strng",), ["unknown type", "'string'"]),
        ("have.class", ("",), ["non-empty str"]),
        ("have.text", (None,), ["str"]),
        ("satisfy", (3,), ["callable"]),
        ("be.oneOf", ("ab",), ["list"]),
        ("have.members", (1,), ["list"]),
        ("be.closeTo", (1, -1), ["delta"]),
        ("have.keys", ([],), ["at least one key"]),
    ],
)
def test_bad_arguments(chainer: str, args: tuple[Any, ...], words: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        validate_chainer(chainer, *args)
    message = str(info.value)
    assert ".should(" in message  # ends with an example
    for word in words:
        assert word in message, message
    with pytest.raises(UsageError):
        check(1, chainer, *args)


def test_every_supported_spelling_validates() -> None:
    for name in SUPPORTED:
        spelled = _example_args(name)
        validate_chainer(name, *spelled)
        validate_chainer("not." + name, *spelled)


def _example_args(name: str) -> tuple[Any, ...]:
    two = {
        "be.within": (1, 2),
        "have.length.within": (1, 2),
        "be.closeTo": (1, 0.1),
        "be.approximately": (1, 0.1),
    }
    if name in two:
        return two[name]
    none = {
        "exist",
        "be.visible",
        "be.hidden",
        "be.empty",
        "be.checked",
        "be.selected",
        "be.disabled",
        "be.enabled",
        "be.focused",
        "have.focus",
        "be.true",
        "be.false",
        "be.null",
        "be.None",
        "be.undefined",
        "be.ok",
        "be.NaN",
    }
    if name in none:
        return ()
    if name in {"satisfy", "satisfies"}:
        return (callable,)
    if name in {"be.a", "be.an"}:
        return ("string",)
    if "members" in name or name == "be.oneOf":
        return ([1],)
    if "length" in name or name.startswith("be."):
        return (1,)
    return ("x",)


def test_supported_is_documented_and_unique() -> None:
    assert len(SUPPORTED) == len(set(SUPPORTED))
    for name in (
        "exist",
        "have.length",
        "be.visible",
        "contain",
        "deep.equal",
        "have.nested.property",
        "have.any.keys",
        "include.members",
        "be.closeTo",
        "have.focus",
        "eq",
    ):
        assert name in SUPPORTED


def test_language_words_and_not_position() -> None:
    assert ok(TWO, "to.have.length", 2)
    assert ok(TWO, "have.length.of", 2)
    assert ok(1, "to.not.equal", 2)
    assert ok(1, "is.not.eq", 2)
    assert ok(NONE, "does.not.exist")
    assert ok(5, "to.be.at.least", 5)


# --------------------------------------------------------------------------- snapshot needs


def test_css_properties_needed() -> None:
    assert css_properties_needed("have.css", "display") == ["display"]
    assert css_properties_needed("not.have.css", "color", "red") == ["color"]
    assert css_properties_needed("have.text", "x") == []
    assert css_properties_needed("be.visible") == []
    with pytest.raises(UsageError):
        css_properties_needed("have.cs", "display")


def test_props_needed() -> None:
    assert props_needed("have.prop", "checked") == ["checked"]
    assert props_needed("not.have.prop", "indeterminate", True) == ["indeterminate"]
    assert props_needed("have.attr", "href") == []
    with pytest.raises(UsageError):
        props_needed("have.propp", "x")


# --------------------------------------------------------------------------- snapshot types


def test_element_description_default_and_explicit() -> None:
    assert el("LI", classes=("user",), attrs={"id": "u1"}).description == "<li.user#u1>"
    assert el("p").description == "<p>"
    assert el("p", description="<p#intro>").description == "<p#intro>"


def test_dom_subject_accepts_a_list() -> None:
    subject = DomSubject("li", [ADA, BOB])  # type: ignore[arg-type]
    assert subject.elements == (ADA, BOB)
    assert ok(subject, "have.length", 2)


def test_nan_is_not_close() -> None:
    assert not ok(math.nan, "be.closeTo", 1, 1)
    assert not ok(math.nan, "be.gt", 1)


# --------------------------------------------------------------------------- dotted paths


class _Thing:
    """An object with snake_case and camelCase attributes and two methods."""

    def __init__(self) -> None:
        self.status_code = 200
        self.contentType = "text/plain"
        self.nothing = None

    def text(self) -> str:
        return "hi"

    def add(self, a: int, b: int) -> int:
        return a + b


THING = _Thing()
NESTED = {"user": {"name": "Ada", "tags": ["a", "b"]}, "items": [{"id": 7}, {"id": 8}]}


@pytest.mark.parametrize(("value", "path", "expected"), [
    (NESTED, "user.name", "Ada"),
    (NESTED, "items.1.id", 8),
    (NESTED, "items.-1.id", 8),
    (NESTED, "user.tags.length", 2),
    (NESTED, "user..name", "Ada"),
    (NESTED, "user.name.", "Ada"),
    (NESTED, "", NESTED),
    ({"status_code": 1}, "statusCode", 1),
    ({"statusCode": 1}, "status_code", 1),
    ({"statusCode": 1, "status_code": 2}, "statusCode", 1),
    (MappingProxyType({"a": 1}), "a", 1),
    ((1, 2, 3), "length", 3),
    ((1, 2, 3), "0", 1),
    ("abc", "length", 3),
    ("abc", "-1", "c"),
    (THING, "status_code", 200),
    (THING, "statusCode", 200),
    (THING, "content_type", "text/plain"),
    (THING, "nothing", None),
    ({"thing": THING}, "thing.statusCode", 200),
    ([[1, [2, 3]]], "0.1.0", 2),
])
def test_walk_path(value: Any, path: str, expected: Any) -> None:
    assert walk_path(value, path) == expected


@pytest.mark.parametrize(("value", "path", "walked", "part", "reason"), [
    ({"a": 1}, "b", "b", "b", "key"),
    (NESTED, "user.age", "user.age", "age", "key"),
    (NESTED, "items.2.id", "items.2", "2", "index"),
    (NESTED, "items.-3", "items.-3", "-3", "index"),
    ("ab", "2", "2", "2", "index"),
    ([1], "+0", "+0", "+0", "property"),
    ([1], " 0", " 0", " 0", "property"),
    ([1], "first", "first", "first", "property"),
    ({"a": None}, "a.b", "a.b", "b", "none"),
    (THING, "nothing.x", "nothing.x", "x", "none"),
    (THING, "nope", "nope", "nope", "property"),
    (NESTED, "items..9", "items.9", "9", "index"),
])
def test_walk_path_missing(value: Any, path: str, walked: str, part: str, reason: str) -> None:
    with pytest.raises(PathMissing) as caught:
        walk_path(value, path)
    err = caught.value
    assert (err.walked, err.part, err.reason) == (walked, part, reason)


def test_walk_path_reads_attributes_of_lists_for_other_segments() -> None:
    assert walk_path([3, 1, 3], "count")(3) == 2


def test_walk_path_calls_zero_argument_accessors_only_when_asked() -> None:
    assert walk_path(THING, "text", call_accessors=True) == "hi"
    assert walk_path(THING, "text")() == "hi"
    assert walk_path({"f": lambda: {"g": 5}}, "f.g", call_accessors=True) == 5
    assert walk_path(THING, "add", call_accessors=True)(1, 2) == 3  # needs arguments: kept
    assert walk_path({"cls": int}, "cls", call_accessors=True) is int  # a class is not called


def test_walk_path_lets_a_failing_property_raise() -> None:
    class Broken:
        @property
        def body(self) -> Any:
            raise RuntimeError("the page went away")

    with pytest.raises(RuntimeError, match="the page went away"):
        walk_path({"r": Broken()}, "r.body")
