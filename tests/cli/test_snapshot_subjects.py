"""match.screenshot and match.aria_snapshot on subjects a new user meets on a real app: an element
that is hidden or has no size, a hidden element's (empty) accessibility tree, a mask selector
the browser cannot parse, options that do not belong, a popup's page (its messages name its tab). Each fails with a message naming the
subject, what was expected and what was found, and no baseline is written from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

pytestmark = pytest.mark.slow

PAGE = """<div id="shown" style="width:40px;height:20px;background:#3366cc"></div>
<div id="hidden" style="display:none">not shown</div>
<div id="empty"></div>
<a id="open" href="/" target="_blank">again</a>"""

SPEC = """
def test_hidden_shot(runner):
    runner.visit("/")
    runner.get("#hidden").should("match.screenshot", "hidden")

def test_empty_shot(runner):
    runner.visit("/")
    runner.get("#empty").should("match.screenshot", "empty")

def test_hidden_tree(runner):
    runner.visit("/")
    runner.get("#hidden").should("match.aria_snapshot", "hidden-tree")

def test_bad_mask(runner):
    runner.visit("/")
    runner.page().should("match.screenshot", "masked", mask=["#shown["], timeout=20000)

def test_element_full_page(runner):
    runner.visit("/")
    runner.get("#shown").should("match.screenshot", "shown", full_page=True)

def test_unknown_option(runner):
    runner.visit("/")
    runner.get("#shown").should("match.screenshot", "shown", maxDiffPixel=3)

def test_tab(runner):
    runner.visit("/")
    with runner.popup() as tab:
        runner.get("#open").click()
    tab.value.page().should("match.aria_snapshot", "tab")

def test_aria_option(runner):
    runner.visit("/")
    runner.get("#shown").should("match.aria_snapshot", "shown", threshold=0.1)
"""


def test_subjects_that_cannot_be_pictured_or_read(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({"runner/integration/subjects_spec.py": SPEC},
                                                {"video": False, "defaultCommandTimeout": 1000}, page=PAGE))
    result = run_runner("run", cwd=root, env={"CI": ""})
    assert result.code == 8, result.text
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    said = {e["nodeid"].rsplit("::", 1)[1]: e["message"] for e in events if e["kind"] == "attempt.ended"}

    # Playwright's element.screenshot would wait the whole timeout and say only "Timeout exceeded"
    for test, subject in (("test_hidden_shot", "#hidden"), ("test_empty_shot", "#empty")):
        assert f"get('{subject}').should('match.screenshot', '{subject[1:]}'): expected element get('{subject}') to " \
               "be visible to picture it, but it is not (display: none, visibility: hidden, or no size)" \
               in said[test], said[test]
        assert "Timeout" not in said[test]

    # an empty tree was written as a baseline no later run could read
    assert "get('#hidden').should('match.aria_snapshot', 'hidden-tree'): get('#hidden') has no accessibility tree " \
           "to compare (it is hidden, or holds nothing a screen reader reads)" in said["test_hidden_tree"]
    snaps = root / "runner/integration/__snapshots__/subjects_spec"
    assert not (snaps / "hidden-tree.aria.yml").exists()
    assert not (snaps / "hidden-chromium-linux.png").exists() and not (snaps / "empty-chromium-linux.png").exists()

    # at once (a UsageError, not a timeout of 20 s) and in our words, with the browser's detail
    assert said["test_bad_mask"].startswith(
        "UsageError: page().should('match.screenshot', 'masked'): the mask '#shown[' is not a valid CSS selector: "), \
        said["test_bad_mask"]
    assert not (snaps / "masked-chromium-linux.png").exists()

    assert said["test_element_full_page"] == "UsageError: get('#shown').should('match.screenshot', 'shown'): " \
                                             "full_page is an option of runner.page(); an element is pictured whole."
    assert said["test_unknown_option"] == (
        "UsageError: get('#shown').should('match.screenshot', 'shown') does not take the option 'maxDiffPixel'. "
        "Did you mean 'max_diff_pixels'? (it takes mask, max_diff_pixel_ratio, max_diff_pixels, threshold, "
        "timeout)")
    assert said["test_aria_option"] == ("UsageError: get('#shown').should('match.aria_snapshot', 'shown') does not "
                                        "take the option 'threshold'. (it takes timeout)")

    # told outside the retry, the message still names the tab, as a timeout's does
    assert said["test_tab"].startswith("CommandError: tab[1].page().should('match.aria_snapshot', 'tab'): the "
                                       "baseline runner/integration/__snapshots__/subjects_spec/tab.aria.yml did "
                                       "not exist; it was written now"), said["test_tab"]
