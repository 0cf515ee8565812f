"""runner.check_a11y's violations from a real `runner run` to its events file, its terminal
output and its HTML report, which a real Chromium opens: each check a table (rule, impact,
elements, help link), the page's HTML shown as text."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.cli.conftest import run_runner, write_project
from tests.support.report_events import read_data_file
from tests.support.static_files import serve_folder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# an input whose value is markup: its HTML (the snippet axe reports) must stay text in the report
PAGE = """<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="logo">
<input type="text" id="q" value="<img src=x onerror=&quot;window.__pwned=1;document.documentElement.setAttribute('data-pwned','a11y')&quot;>">
</main></body></html>"""

SPEC = """
def test_the_shop_is_accessible(runner):
    runner.visit("/")
    runner.check_a11y()


def test_the_shop_warns(runner):
    runner.visit("/")
    runner.check_a11y(warn=True)
"""
FAILED = "runner/integration/shop_spec.py::test_the_shop_is_accessible"
WARNED = "runner/integration/shop_spec.py::test_the_shop_warns"


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = write_project(tmp_path_factory.mktemp("a11y-run"), {
        "runner.json": json.dumps({"fileServerFolder": "site", "video": False, "screenshotOnRunFailure": False}),
        "site/index.html": PAGE,
        "runner/integration/shop_spec.py": textwrap.dedent(SPEC),
    })
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    return root, result.text


@pytest.fixture(scope="module")
def report_url(ran: tuple[Path, str]) -> Iterator[str]:
    with serve_folder(ran[0] / "runner" / "report") as url:
        yield url + "/index.html"


def test_the_terminal_and_the_events_file_tell_each_violation(ran: tuple[Path, str]) -> None:
    root, output = ran
    assert "runner.check_a11y(): 2 accessibility violations (impact 'minor' and up) in the document:" in output
    assert "image-alt (critical): Images must have alternative text" in output
    assert "/rules/axe/" in output and "label?application=axeAPI" in output
    events = [json.loads(line) for line in (root / "runner" / "results" / "events.jsonl").read_text().splitlines()]
    checks = {e["nodeid"]: e for e in events if e["kind"] == "a11y.checked"}
    assert set(checks) == {FAILED, WARNED}
    assert {v["rule"]: v["outcome"] for v in checks[FAILED]["violations"]} == {"image-alt": "failed", "label": "failed"}
    assert {v["outcome"] for v in checks[WARNED]["violations"]} == {"warned"}
    warned_test = next(e for e in events if e["kind"] == "test.ended" and e["nodeid"] == WARNED)
    assert warned_test["state"] == "passed"
    # the report's data, and the same built again from the events file
    replay = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "html",
                        "--reporter-options", "output=again", cwd=root)
    assert replay.code == 1, replay.text
    for folder in (root / "runner" / "report", root / "again"):
        rows = read_data_file(folder / "data" / "index.js", "index")["tests"]
        number = next(r[0] for r in rows if r[7] == FAILED)
        (check,) = read_data_file(folder / "data" / "t" / f"{number}.js", "test")[1]["attempts"][0]["a11y"]
        assert check["scope"] is None and check["impact"] == "minor" and check["command"] == 2
        assert [v["rule"] for v in check["violations"]] == ["image-alt", "label"]


def test_the_report_shows_each_check_as_a_table(runner, report_url: str) -> None:
    runner.visit(report_url + "#test=" + quote(FAILED, safe=""))
    section = runner.contains("#detail section.part", "Accessibility (1)")
    section.find(".a11y-head").should("contain", "check_a11y").and_("contain", "2 violations")
    rows = "#detail table.a11y tbody tr"
    runner.get(rows).should("have.length", 2)
    runner.get(rows).eq(0).find("td").eq(0).should("have.text", "image-alt")
    runner.get(rows).eq(0).find("td").eq(1).should("have.text", "critical")
    runner.get(rows).eq(0).find("td a").should("have.attr", "href").and_("match", r"^https://dequeuniversity\.com/")
    label = runner.get(rows).eq(1)
    label.find("td").eq(0).should("have.text", "label")
    label.find("code.a11y-target").should("have.text", "#q")
    # the app's markup is text: shown as written (cut short), never made elements or run
    label.find("code.a11y-html").should("contain", '<input type="text" id="q" value="&lt;img src=x onerror=')
    runner.get("#detail table.a11y input, #detail table.a11y img").should("not.exist")
    runner.get("html").should("not.have.attr", "data-pwned")
    runner.visit(report_url + "#test=" + quote(WARNED, safe=""))
    runner.get("#detail table.a11y tbody tr td:nth-child(2)").should("have.length", 2).first().should(
        "have.text", "critical (warned)")
