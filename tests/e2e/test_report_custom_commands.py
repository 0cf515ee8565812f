"""The HTML report in a real Chromium: the commands a custom command ran are shown under it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from tests.support.report_events import FAILED_ID, crafted_run
from tests.support.static_files import serve_folder

from runner.events import CommandStarted
from runner.reporters.html import HtmlReport

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("html-report-custom")
    report = HtmlReport(base / "report", viewer=None)
    for event in crafted_run(base / "artifacts", trace=False):
        if isinstance(event, CommandStarted) and event.nodeid == FAILED_ID and event.id == 3:
            event = dataclasses.replace(event, parent=2)  # the visit (2) as a custom command, the should in it
        report(event)
    with serve_folder(report.finish()) as url:
        yield url + "/index.html"


def test_a_command_of_a_custom_command_is_marked_under_it(runner, report_url: str) -> None:
    runner.visit(report_url + "#test=" + quote(FAILED_ID, safe=""))
    rows = "#detail table.commands tbody tr"
    runner.get(rows).eq(1).should("contain", "visit").find(".nested").should("not.exist")
    runner.get(rows).eq(6).should("contain", "get('#total').should").find(".nested").should("have.text", "\u21b3 ")
