"""The page's values as Python data, paths split, scripts' errors and first lines told (no browser)."""

from __future__ import annotations

from typing import Any

import pytest

from runner.commands.page import _first_line
from runner.commands.page_js import PageObject, from_page, json_arguments, split_path
from runner.engine.script_verbs import page_error_text
from runner.errors import UsageError


@pytest.mark.parametrize(("data", "expected"), [
    (1, 1),
    ("a", "a"),
    (None, None),
    ([1, {"a": 2}], [1, {"a": 2}]),
    ({"__runner_js__": "function", "description": "function dispatch"}, PageObject("function", "function dispatch")),
    ({"el": {"__runner_js__": "node", "description": "<h1#t>"}}, {"el": PageObject("node", "<h1#t>")}),
    ([{"__runner_js__": "circular", "description": "[Circular]"}], [PageObject("circular", "[Circular]")]),
])
def test_from_page_makes_markers_page_objects(data: Any, expected: Any) -> None:
    assert from_page(data) == expected


@pytest.mark.parametrize(("obj", "shown"), [
    (PageObject("window", "<window>"), "<window>"),
    (PageObject("function", "function dispatch"), "<function dispatch>"),
    (PageObject("circular", "[Circular]"), "[Circular]"),
    (PageObject("cut", "Foo object"), "<Foo object>"),
])
def test_a_page_object_shows_what_it_is(obj: PageObject, shown: str) -> None:
    assert repr(obj) == shown


@pytest.mark.parametrize(("path", "parts"), [
    ("app", ["app"]),
    ("app.store.dispatch", ["app", "store", "dispatch"]),
    ("app.items[0].id", ["app", "items", "0", "id"]),
    (" localStorage.token ", ["localStorage", "token"]),
])
def test_split_path(path: str, parts: list[str]) -> None:
    assert split_path(path, "its()") == parts


@pytest.mark.parametrize(("path", "message"), [
    ("", "its() needs a dotted path string like 'app.store'; found ''."),
    (3, "its() needs a dotted path string like 'app.store'; found 3."),
    ("a..b", "its(): the path 'a..b' has an empty part; write it like 'app.items.0.id'."),
    (".a", "its(): the path '.a' has an empty part; write it like 'app.items.0.id'."),
])
def test_split_path_refuses_what_is_not_a_path(path: Any, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        split_path(path, "its()")
    assert str(caught.value) == message


def test_json_arguments() -> None:
    json_arguments([1, "a", {"b": [None, True]}], "invoke()")
    for bad in ([object()], [{1, 2}], [float("nan")]):
        with pytest.raises(UsageError, match=r"^invoke\(\): its arguments must be JSON data"):
            json_arguments(bad, "invoke()")


class _PlaywrightLike(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@pytest.mark.parametrize(("message", "said"), [
    ("Page.evaluate_handle: TypeError: bad thing\n    at eval (eval at evaluate (:370:30), <anonymous>:1:15)\n"
     "    at UtilityScript.evaluate (<anonymous>:377:18)", "TypeError: bad thing"),
    ("Page.evaluate_handle: str", "str"),
    ("Page.evaluate_handle: MyErr: multi\nline\n    at eval (<anonymous>)", "MyErr: multi\nline"),
    ("Page.evaluate_handle: SyntaxError: Unexpected end of input\n    at eval (<anonymous>)",
     "SyntaxError: Unexpected end of input"),
    ("Target page, context or browser has been closed", "Target page, context or browser has been closed"),
])
def test_page_error_text_keeps_the_pages_words_only(message: str, said: str) -> None:
    assert page_error_text(_PlaywrightLike(message)) == said


@pytest.mark.parametrize(("script", "first"), [
    ("document.title", "document.title"),
    ("() => {\n  return 1;\n}", "() => { …"),
    ("\n\n  x => x * 2  \n", "x => x * 2"),
    ("a" * 70, "a" * 59 + "…"),
])
def test_first_line_of_a_script(script: str, first: str) -> None:
    assert _first_line(script) == first
