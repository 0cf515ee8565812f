"""Framebusting neutralised: the patterns (modifyObstructiveCode) and the parser
(experimentalSourceRewriting) on the forms framed pages use."""

from __future__ import annotations

import pytest

from runner.engine.obstructive import rewrite_html, rewrite_js

BOTH = pytest.mark.parametrize("parse", [False, True], ids=["patterns", "parser"])


@BOTH
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("if (top !== self) { top.location = self.location; }", "if (self !== self) { self.location = self.location; }"),
        ("if (self != top) top.location.href = '/x'", "if (self != self) self.location.href = '/x'"),
        ("if (window.top !== window.self) window.top.location.replace(url)",
         "if (window.self !== window.self) window.self.location.replace(url)"),
        ("if (parent.frames.length > 0) parent.location = '/'", "if (self.frames.length > 0) self.location = '/'"),
        ('window["top"].location = "/"', 'window["self"].location = "/"'),
        ("var x = { top: 10 }; el.style.top = '3px'", "var x = { top: 10 }; el.style.top = '3px'"),  # not windows
    ],
)
def test_the_usual_forms(parse: bool, source: str, expected: str) -> None:
    assert rewrite_js(source, parse=parse) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("const t = top; if (t !== window) t.location = '/'", "const t = self; if (t !== window) t.location = '/'"),
        ("const w = window; w.top.location = '/'", "const w = window; w.self.location = '/'"),
        ("const w = window; w['parent'].location = '/'", "const w = window; w['self'].location = '/'"),
        ("parent.postMessage('hi', '*'); go(top)", "parent.postMessage('hi', '*'); go(top)"),  # not busting
        ("const t = top; t.postMessage('x')", "const t = top; t.postMessage('x')"),
        ("if ((top) != window) (top).location = '/'", "if ((self) != window) (self).location = '/'"),
        ("top['location'].href = '/'", "self['location'].href = '/'"),
        ("function f(top) { return top.location }", "function f(top) { return top.location }"),  # its own
        ("let parent = node.parentNode; parent.remove()", "let parent = node.parentNode; parent.remove()"),
    ],
)
def test_the_parser_catches_indirect_forms_and_leaves_local_names(source: str, expected: str) -> None:
    assert rewrite_js(source, parse=True) == expected


def test_the_patterns_miss_an_alias_which_is_why_the_parser_exists() -> None:
    assert rewrite_js("const t = top; t.location = '/'") == "const t = top; t.location = '/'"


def test_a_script_that_does_not_parse_falls_back_to_the_patterns() -> None:
    assert rewrite_js("if (top !== self) {{{ top.location = '/'", parse=True) == "if (self !== self) {{{ self.location = '/'"


@BOTH
def test_html_inline_scripts_and_handlers(parse: bool) -> None:
    page = ('<script src="app.js"></script><script>if (top != self) top.location = "/"</script>'
            '<script type="text/template">top.location</script><a onclick="top.location=\'/\'">x</a>')
    assert rewrite_html(page, parse=parse) == (
        '<script src="app.js"></script><script>if (self != self) self.location = "/"</script>'
        '<script type="text/template">top.location</script><a onclick="self.location=\'/\'">x</a>')


def test_nothing_to_do_is_free() -> None:
    text = "const a = 1;" * 1000
    assert rewrite_js(text, parse=True) is text
