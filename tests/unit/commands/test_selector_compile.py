"""Selectors: CSS left as written, jQuery's extensions compiled for dom.js, the rest refused."""

from __future__ import annotations

import pytest

from runner.commands.selectors import (
    SelectorSyntaxError,
    compile_selector,
    invalid_selector_message,
)
from runner.commands.traversal import contains_arguments, contains_label


@pytest.mark.parametrize("css", [
    "li.item",
    "#list > li + li ~ li",
    'a[title=":first"]',  # a pseudo's name inside an attribute value is text
    "a[title=':visible']:hover",
    r"#a\:first",  # an escaped colon is part of the id
    "a:first-child, li:last-of-type, p:nth-child(2n+1 of .x)",
    "ul:has(> li), input:checked, :disabled, :not(.x, .y)",
    "p::first-line",
    "li::slotted(a b)",
    "div[",  # not valid CSS, but the browser's to say (dom.js checks it before any step)
    'p:is([data-x=":eq(1)"])',
])
def test_css_is_never_rewritten(css: str) -> None:
    assert compile_selector(css) is css


def test_a_filter_splits_the_selector_where_jquery_applies_it() -> None:
    assert compile_selector("#list li.item:visible > span") == {
        "source": "#list li.item:visible > span",
        "groups": [[
            {"combinator": None, "css": "#list li.item", "ops": [{"op": "visible"}]},
            {"combinator": ">", "css": "span", "ops": []},
        ]],
    }


@pytest.mark.parametrize(("selector", "ops"), [
    ("li:first", [{"op": "first"}]),
    ("li:last", [{"op": "last"}]),
    ("li:hidden", [{"op": "hidden"}]),
    ("li:EQ( -1 )", [{"op": "eq", "index": -1}]),
    ("li:gt(2)", [{"op": "gt", "index": 2}]),
    ("li:lt(2)", [{"op": "lt", "index": 2}]),
    ("li:even", [{"op": "even"}]),
    ("li:odd", [{"op": "odd"}]),
    ('li:contains("a, b)")', [{"op": "contains", "text": "a, b)"}]),
    ("li:contains(plain)", [{"op": "contains", "text": "plain"}]),
    ("li:first.special", [{"op": "first"}, {"op": "css", "css": ".special"}]),
    ("li.special:first", [{"op": "first"}]),
])
def test_each_extension_is_a_filter_in_the_order_written(selector: str, ops: list[dict[str, object]]) -> None:
    compiled = compile_selector(selector)
    assert isinstance(compiled, dict)
    [[segment]] = compiled["groups"]
    assert segment["css"] in ("li", "li.special") and segment["ops"] == ops


def test_a_pseudo_elements_argument_is_one_token() -> None:
    compiled = compile_selector("li:visible::slotted(a b)")
    assert isinstance(compiled, dict)
    assert compiled["groups"] == [[{"combinator": None, "css": "li",
                                    "ops": [{"op": "visible"}, {"op": "css", "css": "::slotted(a b)"}]}]]


def test_groups_a_leading_combinator_and_not() -> None:
    compiled = compile_selector("ul li:first span, > li, li:not(:last)")
    assert isinstance(compiled, dict)
    first, child, negated = compiled["groups"]
    assert first == [{"combinator": None, "css": "ul li", "ops": [{"op": "first"}]},
                     {"combinator": " ", "css": "span", "ops": []}]
    assert child == [{"combinator": ">", "css": "li", "ops": []}]  # find("> li"), as jQuery allows
    assert negated[0]["ops"][0]["op"] == "not"
    assert negated[0]["ops"][0]["selector"]["groups"] == [[{"combinator": None, "css": "*", "ops": [{"op": "last"}]}]]


@pytest.mark.parametrize(("selector", "words"), [
    ("li:header", "'h1, h2, h3, h4, h5, h6'"),
    ("option:selected", "'option:checked'"),
    ('button:has-text("Save")', "contains(selector, content)"),
    ("div:nth-match(li, 2)", "eq(n)"),
    ("text=Save", "a Playwright selector"),
    ("xpath=//a", "a Playwright selector"),
    ("//div", "a Playwright selector"),
    ("ul >> li", "chain find() instead"),
    ("li:eq(one)", "takes a whole number"),
    ("li:first(1)", "takes no argument"),
    ("li:contains", "needs an argument"),
    ("div:has(li:visible)", "only :not() may hold them"),
    ("li:first,", "an empty part"),
    ("li:first >", "an empty part"),
    ("li:first, , a", "an empty part"),
])
def test_what_is_surely_not_css_is_refused_with_what_to_write(selector: str, words: str) -> None:
    with pytest.raises(SelectorSyntaxError) as caught:
        compile_selector(selector)
    assert repr(selector) in str(caught.value) and words in str(caught.value)


def test_the_invalid_selector_message_names_the_command_the_selector_and_the_part() -> None:
    whole = invalid_selector_message("runner.get('div[').click()", "div[", "div[")
    assert whole.startswith("runner.get('div[').click(): 'div[' is not a valid selector.\n")
    part = invalid_selector_message("q", "li:first, div[", "div[")
    assert "'li:first, div[' is not a valid selector (the browser refused its part 'div[')" in part


@pytest.mark.parametrize(("args", "selector", "content", "chosen"), [
    (("Save",), None, None, (None, "Save")),
    (("button", "Save"), None, None, ("button", "Save")),  # the original's order
    (("button",), None, "Save", ("button", "Save")),
    ((), "button", "Save", ("button", "Save")),
    (("Save",), "button", None, ("button", "Save")),
    ((), None, 42, (None, 42)),
])
def test_contains_takes_the_originals_order(args: tuple[object, ...], selector: str | None, content: object,
                                             chosen: tuple[object, object]) -> None:
    assert contains_arguments("contains", args, selector, content) == chosen


@pytest.mark.parametrize(("args", "selector", "content", "words"), [
    (("a", "b", "c"), None, None, "found 3 arguments"),
    (("a", "b"), "c", None, "twice"),
    (("a", "b"), None, "c", "twice"),
    ((), None, None, "needs the content"),
])
def test_contains_refuses_a_call_that_does_not_say(args: tuple[object, ...], selector: str | None,
                                                   content: object, words: str) -> None:
    from runner.errors import UsageError

    with pytest.raises(UsageError, match=words):
        contains_arguments("contains", args, selector, content)


def test_contains_label_shows_every_argument() -> None:
    import re

    assert contains_label(("li", "two"), None, None, True) == "contains('li', 'two')"
    assert contains_label((re.compile("^t"),), "li", None, False) == "contains(/^t/, selector='li', match_case=False)"
