"""Studio's in-page recorder in a real Chromium with real (trusted) input: what it records for
clicks, typing, checkboxes, radios and selects, the selectors it chooses by selectorPriority
(each matching exactly the element acted on), and that the app's own synthetic events are not
recorded. Driven with Playwright directly: the recorder is what runner open puts in the app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.engine.browser import QUIET_FLAGS
from runner.engine.discovery import find_browser

pytestmark = pytest.mark.e2e

RECORDER = (Path(__file__).parents[2] / "src" / "runner" / "ui" / "studio_recorder.js").read_text()

PAGE = """<html><body>
<button data-cy="save"><span>Save</span></button>
<button data-test="t1">T</button>
<button data-testid="tid">TID</button>
<button id="plain">Plain</button>
<button id="1-bad id">Bad id</button>
<input name="email" value="old@x">
<input id="first">
<input type="checkbox" id="agree">
<label><input type="radio" name="size" value="s" id="s">S</label>
<label><input type="radio" name="size" value="m" id="m">M</label>
<select id="one"><option value="a">A</option><option value="b">B</option></select>
<select id="many" multiple><option value="x">X</option><option value="y">Y</option></select>
<div class="card"><p class="note">one</p></div><div class="card"><p class="note">two</p></div>
<ul><li>a</li><li>b</li></ul>
<button onclick="document.getElementById('plain').click()" id="proxy">Proxy</button>
</body></html>"""


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=find_browser().path, args=list(QUIET_FLAGS),
                                      chromium_sandbox=False)
        try:
            yield chromium
        finally:
            chromium.close()


def _recording(browser, priority: list[str] | None = None):
    page = browser.new_page()
    actions: list[dict] = []
    page.expose_binding("__runnerStudioReport", lambda _source, text: actions.append(json.loads(text)))
    page.set_content(PAGE)
    options = {"report": "__runnerStudioReport", **({"selectorPriority": priority} if priority else {})}
    page.evaluate(f"() => {{ {RECORDER}\n window.__runnerStudioStart({json.dumps(options)}); }}")
    return page, actions


def _settled(page, actions: list[dict], count: int) -> list[dict]:
    page.evaluate("() => true")  # a round trip: bindings called before it have arrived
    for _ in range(100):
        if len(actions) >= count:
            break
        page.wait_for_timeout(20)
    return actions


def _the_one(page, selector: str) -> str:
    """The element a selector matches, which must be exactly one."""
    return page.evaluate("s => { const f = document.querySelectorAll(s); return f.length === 1 ? f[0].outerHTML : 'matches ' + f.length; }", selector)


def test_clicks_typing_checks_and_selects_are_recorded_with_unique_selectors(browser) -> None:
    page, actions = _recording(browser)
    try:
        page.click("[data-cy=save] span")  # lands on the span: the button is recorded
        page.click("[data-test=t1]")
        page.click("[data-testid=tid]")
        page.click("#plain")
        page.click("[id='1-bad id']")
        page.fill("[name=email]", "")  # focus, then a person's typing
        page.click("[name=email]")
        page.keyboard.type("new@x")
        page.click("#first")
        page.keyboard.type("Ada")
        page.keyboard.press("Tab")
        page.click("#agree")
        page.click("#agree")
        page.click("text=M")
        page.focus("#one")  # as in the UI's picture: a select is chosen with the keyboard
        page.keyboard.press("ArrowDown")
        page.click("#many option[value=x]")
        page.click("#many option[value=y]", modifiers=["Control"])
        page.click("li:nth-child(2)")
        page.click("text=two")
        got = _settled(page, actions, 19)
    finally:
        page.close()
    summary = [(a["kind"], a["selector"], a["value"]) for a in got]
    assert summary[:5] == [
        ("click", '[data-cy="save"]', None),
        ("click", '[data-test="t1"]', None),
        ("click", '[data-testid="tid"]', None),
        ("click", "#plain", None),
        ("click", '[id="1-bad id"]', None),
    ]
    assert ("clear", '[name="email"]', None) in summary and ("type", '[name="email"]', "new@x") in summary
    assert ("type", "#first", "Ada") in summary
    assert summary.index(("clear", '[name="email"]', None)) < summary.index(("type", '[name="email"]', "new@x"))
    assert ("check", "#agree", None) in summary and ("uncheck", "#agree", None) in summary
    assert ("check", "#m", None) in summary
    assert not any(kind == "click" and sel in ("#agree", "#m", "#one", "#many") for kind, sel, _ in summary)
    assert ("select", "#one", "b") in summary
    assert ("select", "#many", ["x"]) in summary and ("select", "#many", ["x", "y"]) in summary
    assert ("click", "li:nth-child(2)", None) in summary
    assert summary[-1][0] == "click" and summary[-1][1].endswith("> p:nth-child(1)")
    page2, _ = _recording(browser)
    try:
        page2.set_content(PAGE)
        for kind, selector, _value in summary:
            assert not _the_one(page2, selector).startswith("matches"), (kind, selector)
    finally:
        page2.close()


def test_the_priority_is_configurable_and_synthetic_events_are_not_recorded(browser) -> None:
    page, actions = _recording(browser, ["tag", "attributes", "id"])
    try:
        page.evaluate("() => document.getElementById('plain').click()")  # the app's own click
        page.click("#proxy")  # a person's click, whose handler clicks #plain in turn
        page.click("select#one")  # a select's click is not recorded (its change is)
        page.click("[name=email]")
        got = _settled(page, actions, 2)
    finally:
        page.close()
    # the tag alone is not unique; the name attribute with its tag is, before the default's [name=...]
    assert [(a["kind"], a["selector"]) for a in got] == [("click", "#proxy"), ("click", 'input[name="email"]')]


def test_stopping_hands_over_what_was_typed_but_not_committed(browser) -> None:
    page, actions = _recording(browser)
    try:
        page.click("#first")
        page.keyboard.type("half")
        page.evaluate("() => window.__runnerStudioStop()")
        page.click("#plain")  # after the stop: not recorded
        got = _settled(page, actions, 2)
    finally:
        page.close()
    assert [(a["kind"], a["selector"], a["value"]) for a in got] == [
        ("click", "#first", None), ("type", "#first", "half")]
