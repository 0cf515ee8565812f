"""``runner open`` shows runner.check_a11y's violations under its command: a real `runner open`
on a sample project, its UI opened by runner's own browser."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.open_ui import write_sample
from tests.support.show_trace import served

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN_DONE_MS = 60000  # a child starts Python, pytest and a browser: bounded, generously

# the input's value is markup: the snippet of it the UI shows must stay text
PAGE = ('<!doctype html><html lang="en"><head><title>Form</title></head><body><main><h1>Form</h1>'
        '<input type="text" id="q" value="<b>bold</b>"></main></body></html>')

SPEC = '''
def test_checked(runner):
    runner.visit("/form.html")
    runner.check_a11y(warn=True)
    runner.check_a11y()
'''


@pytest.fixture(scope="module")
def open_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = write_sample(tmp_path_factory.mktemp("open-a11y"), {"watchForFileChanges": False}, spec=SPEC)
    (root / "site" / "form.html").write_text(PAGE, encoding="utf-8")
    with served(["open", "--no-open"], root) as url:
        yield url


def test_the_violations_are_a_table_under_their_command(runner, open_url: str) -> None:
    runner.visit(open_url)
    runner.get("#connection").should("have.attr", "data-state", "open")
    runner.get(".spec[data-spec='a_spec.py'] .run-spec").click()
    runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
    runner.contains(".test-tab", "test_checked").click()
    commands = "#commands .command"
    runner.get(commands).should("have.length", 3)
    first = runner.get(commands).eq(1)
    first.should("have.attr", "data-state", "passed").and_("contain", "\u2192 the document: 1 violation (1 warned)")
    first.find("table.a11y tbody tr").should("have.length", 1)
    first.find("table.a11y td").eq(0).should("have.text", "label")
    first.find("table.a11y td").eq(1).should("have.text", "critical (warned)")
    first.find("table.a11y .a11y-html").should("contain", '<input type="text" id="q" value="&lt;b&gt;bold&lt;/b&gt;">')
    first.find("table.a11y .a11y-url").should("contain", "https://dequeuniversity.com/rules/axe/")
    runner.get(commands).eq(2).should("have.attr", "data-state", "failed").find("table.a11y tr.a11y-failed").should(
        "have.length", 1)
    runner.get("#commands table.a11y b, #commands table.a11y input").should("not.exist")
