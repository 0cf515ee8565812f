"""The HTML report's command rows built from a real test's events (a real popup, a real
``runner.log``), opened in the real Chromium: what the command log says is in the row too."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.static_files import serve_folder

from runner.events import (
    AttemptEnded,
    CommandEnded,
    LogLine,
    RunStarted,
    SpecStarted,
    TestEnded,
    TestStarted,
)
from runner.reporters.html import HtmlReport

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
HERE = Path(__file__).relative_to(ROOT).as_posix()
ROWS = "#detail table.commands tbody tr"


def told(runner: Any) -> tuple[list[Any], Any]:
    """The events the test publishes from now on (kept, and published as before), and the
    publisher to put back when done."""
    events: list[Any] = []
    publish = runner._ctx.publish

    def keep(event: Any) -> None:
        events.append(event)
        publish(event)

    runner._ctx.publish = keep
    return events, publish


def line_of(text: str) -> int:
    """The line of this file that holds ``text`` (where a command was called)."""
    lines = (ROOT / HERE).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line and "line_of" not in line)


def report_of(events: list[Any], nodeid: str, folder: Path) -> Path:
    """The HTML report of one test that ran ``events``."""
    spec, title, now = "test_report_rows.py", ["rows"], time.time()
    report = HtmlReport(folder, project_root=ROOT)
    for event in [RunStarted(at=now, run_id="run-1", runner_version="9.9.9", browser="chromium", specs=[spec],
                             project_root=str(ROOT)),
                  SpecStarted(at=now, spec=spec, absolute=str(ROOT / HERE)),
                  TestStarted(at=now, spec=spec, nodeid=nodeid, title=title), *events,
                  AttemptEnded(at=now + 1, spec=spec, nodeid=nodeid, attempt=1, state="passed", duration_ms=1000),
                  TestEnded(at=now + 1, spec=spec, nodeid=nodeid, title=title, state="passed", duration_ms=1000,
                            attempts=1)]:
        report(event)
    return report.finish()


def test_a_popups_row_tells_the_tab_and_its_url_as_the_command_log_does(runner, tmp_path: Path) -> None:
    runner.visit("/tabs.html")
    events, publish = told(runner)
    with runner.popup(timeout=3000) as tab:
        runner.get("#receipt-link").click()
    runner._ctx.publish = publish  # the report's own page is not part of the test it reports
    receipt = tab.value.url()
    assert receipt.endswith("/receipt.html")
    assert f"popup: tab[1] {receipt}" in [f"{e.name}: {e.message}" for e in runner._ctx.log]
    ended = [e for e in events if isinstance(e, CommandEnded) and e.name == "popup"]
    assert [e.result for e in ended] == [f"tab[1] {receipt}"]

    with serve_folder(report_of(events, runner._ctx.nodeid, tmp_path / "report")) as url:
        runner.visit(url + "/index.html")
        runner.get("#list .row").first().click()
        runner.get(ROWS).should("have.length", 2)  # click, popup
        runner.get(ROWS).eq(1).should("contain", f"popup(timeout=3000) \u2192 tab[1] {receipt}")


def test_a_logs_row_tells_the_line_that_logged(runner, tmp_path: Path) -> None:
    runner.visit("/tabs.html")
    events, publish = told(runner)
    runner.get("h1").should("have.text", "Shop")
    runner.log("<b>cart</b> loaded")
    runner._ctx.publish = publish
    log_at = line_of('runner.log("<b>cart</b> loaded")')
    assert [(e.file, e.line) for e in events if isinstance(e, LogLine)] == [(str(ROOT / HERE), log_at)]

    with serve_folder(report_of(events, runner._ctx.nodeid, tmp_path / "report")) as url:
        runner.visit(url + "/index.html")
        runner.get("#list .row").first().click()
        runner.get(ROWS).should("have.length", 2)  # should, log
        runner.get(ROWS).eq(0).should("contain", f"{HERE}:{log_at - 1}")  # as a command's row
        runner.get(ROWS).eq(1).should("contain", "<b>cart</b> loaded").and_("contain", f"{HERE}:{log_at}")
        runner.get(f"{ROWS} b").should("not.contain", "cart")  # the message is told as text, not markup
