"""The HTML report in a real Chromium, driven by runner itself: a report built from crafted
events (tests/support/report_events.py), served on 127.0.0.1, opened with ``runner.visit``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.support.report_events import FAILED_ID, XSS_BODY, XSS_HEADER, XSS_TITLE, crafted_run
from tests.support.static_files import serve_folder

from runner.reporters.html import HtmlReport

pytestmark = pytest.mark.e2e

VISIBLE_ROWS = "#list .row:not([hidden])"


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("html-report")
    viewer = base / "viewer"
    viewer.mkdir()
    (viewer / "index.html").write_text("<!doctype html><title>trace viewer</title>", encoding="utf-8")
    report = HtmlReport(base / "report", viewer=viewer)
    for event in crafted_run(base / "artifacts"):
        report(event)
    return report.finish()


@pytest.fixture(scope="module")
def report_url(report_folder: Path) -> Iterator[str]:
    with serve_folder(report_folder) as url:
        yield url + "/index.html"


def fragment(nodeid: str) -> str:
    return "#test=" + quote(nodeid, safe="")


def test_the_list_filters_by_status_and_text(runner, report_url: str) -> None:
    runner.visit(report_url)
    runner.get(VISIBLE_ROWS).should("have.length", 7)
    runner.get("#summary").should("contain", "156.0.1").and_("contain", "9.9.9")
    # each test in one outcome: the chips and the filters add up to the 7 tests (flaky was passed too)
    runner.get("#summary .chip.c-passed b").should("have.text", "1")
    runner.get("#summary .chip.c-flaky b").should("have.text", "1")
    runner.contains("#statusFilters button", "Passed").should("contain", "1").click()
    runner.get(VISIBLE_ROWS).should("have.length", 1).and_("contain", "page loads")
    runner.contains("#statusFilters button", "Failed").click()
    runner.get(VISIBLE_ROWS).should("have.length", 3)
    runner.get(f"{VISIBLE_ROWS} .title").first().should("have.text", "checkout › shows the total")
    runner.contains("#statusFilters button", "Flaky").click()
    runner.get(VISIBLE_ROWS).should("have.length", 1).and_("contain", "coupon applies")
    runner.contains("#statusFilters button", "Skipped").click()
    runner.get(VISIBLE_ROWS).should("have.length", 1).and_("contain", "refunds")
    runner.contains("#statusFilters button", "All").click()
    runner.get("#filter").type("odd_spec")  # a spec's name
    runner.get(VISIBLE_ROWS).should("have.length", 2)
    runner.get("#filter").clear().type("COUPON")  # a title, any case
    runner.get(VISIBLE_ROWS).should("have.length", 1)
    runner.get("#count").should("have.text", "Showing 1 of 7 tests")
    # a spec that could not be loaded is shown with its error
    runner.get("#filter").clear()
    runner.contains(".spec", "broken_spec.py").should("contain", "could not be loaded")


def test_a_failed_test_shows_its_error_command_log_and_routes(runner, report_url: str) -> None:
    runner.visit(report_url)
    runner.contains(".row", "shows the total").click()
    runner.get("#detail h2").should("have.text", "checkout › shows the total")
    runner.get("#detail .message").should("contain", "but the text was '$41.00'")
    runner.get("#detail pre.error .line.hl").should("contain", "runner.get('#total').should('have.text', '$42.00')")
    rows = "#detail table.commands tbody tr"
    runner.get(rows).should("have.length", 8)
    runner.get(rows).eq(2).should("contain", "(fetch) GET 200 http://127.0.0.1:9/api/cart").and_(
        "contain", "@cart").and_("contain", "stubbed")
    runner.get(rows).eq(6).should("have.class", "s-failed").and_("contain", "get('#total').should")
    runner.get(rows).eq(6).should("contain", "specs/shop_spec.py:7").and_("contain", "4.00s")
    runner.get(rows).eq(7).should("contain", "the cart was loaded")
    runner.get(rows).should("not.contain", "/unread")  # its route said log: False
    runner.get("#detail table.routes tbody tr").should("have.length", 1).and_(
        "contain", '{"method": "GET", "url": "/api/cart"}').and_("contain", "cart")
    runner.get("#detail figure.shot img").its("naturalWidth").should("eq", 4)  # copied, and loads
    runner.get("#detail .missing").should("contain", "gone.png")
    runner.get("#detail a.button").invoke("attr", "href").should(
        "match", r"^trace/index\.html\?trace=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Ftraces%2Ftrace\.zip$")


def test_requests_show_timings_and_bodies(runner, report_url: str) -> None:
    runner.visit(report_url + fragment(FAILED_ID))
    runner.get("#detail .req").should("have.length", 5)
    runner.get("#detail .req .req-by").first().should("have.text", "stubbed")
    runner.get("#detail .req .req-by").eq(1).should("have.text", "server")
    runner.get("#detail .req .wf-bar .seg.upstream").should("have.length", 4)
    runner.contains("#detail .req", "/api/cart").click()
    runner.get("#detail .req-item[open] pre.body.json").should("contain", '"total": 41')  # pretty-printed
    runner.contains("#detail .req", "/logo.png").click()
    runner.get("#detail .req-item[open] img.body-image").its("naturalWidth").should("eq", 3)
    runner.contains("#detail .req", "/big.txt").click()
    runner.get("#detail .req-item[open] .body-meta").should("contain", "showing the first 64 KB")
    runner.get("#detail .req-item[open] .body-meta a").should("have.attr", "download")
    runner.contains("#detail .req", "/unread").click()
    runner.get("#detail .req-item[open] .unrecorded").should(
        "contain", "not recorded: the test did not read this server response; the trace has it")


def test_the_fragment_opens_a_test_and_the_keys_work(runner, report_url: str) -> None:
    runner.visit(report_url + fragment("specs/shop_spec.py::test_coupon_applies"))
    runner.get("#detail h2").should("have.text", "checkout › coupon applies")
    runner.get("#detail .tab").should("have.length", 2)
    runner.get("#detail a.permalink").should("have.attr", "href", fragment("specs/shop_spec.py::test_coupon_applies"))
    runner.get("body").type("{esc}")
    runner.get("#detail").should("not.be.visible")
    runner.get("body").type("/refunds")  # "/" moves to the filter, the rest is typed there
    runner.get("#filter").should("have.value", "refunds")
    runner.get(VISIBLE_ROWS).should("have.length", 1)
    runner.get("#filter").type("{selectall}{backspace}{downarrow}")  # back to the list, first row
    runner.get("#list .row.selected").should("have.length", 1).and_("contain", "home › page loads")
    runner.get("body").type("jj")
    runner.get("#list .row.selected").should("contain", "coupon applies")
    runner.get("body").type("k{enter}")
    runner.get("#detail h2").should("have.text", "checkout › shows the total")
    assert runner.url().endswith(fragment(FAILED_ID))
    runner.get("body").type("{downarrow}")  # with a test open, moving opens the next one
    runner.get("#detail h2").should("have.text", "checkout › coupon applies")


def test_payloads_stay_text(runner, report_url: str) -> None:
    runner.visit(report_url + fragment("specs/odd_spec.py::test_xss"))
    runner.get("#detail h2").should("have.text", XSS_TITLE)
    runner.get("#list .row .title").should("contain", XSS_TITLE)
    runner.get("#detail .message").should("contain", "<img src=x onerror=")
    runner.get("#detail pre.error").should("contain", "</script><script>window.__pwned=5</script>")
    runner.get("#detail .req").click()
    runner.get("#detail .req-item[open] pre.body").should("have.length", 2).first().should("contain", XSS_BODY[:40])
    runner.get("#detail .req-item[open] table.headers").should("contain", XSS_HEADER)
    runner.get("#detail .req-item[open] .url-full").should("contain", "<script>window.__pwned=4</script>")
    runner.get("#runDetails").click()
    runner.get("#runInfo").should("contain", XSS_TITLE.replace('"', '\\"'))  # a config value, as JSON text
    runner.get("img[src='x']").should("not.exist")  # no payload became an element
    runner.get("html").should("not.have.attr", "data-pwned")  # and none ran


def test_the_report_opens_from_disk_too(runner, report_folder: Path) -> None:
    runner.visit((report_folder / "index.html").as_uri() + fragment(FAILED_ID))
    runner.get("#detail h2").should("have.text", "checkout › shows the total")
    runner.get("#detail table.commands tbody tr").should("have.length", 8)
    runner.get("#detail").should("contain", "open the report with runner show-report to view the trace")
    runner.get("#detail a[download]").first().invoke("attr", "href").should("eq", "traces/trace.zip")


@pytest.mark.slow
def test_a_failed_test_reads_well_on_a_desktop_and_a_phone(runner, report_url: str) -> None:
    runner.viewport(1280, 900)
    runner.visit(report_url + fragment(FAILED_ID))
    runner.get("#detail table.commands").should("be.visible")
    desktop = runner.screenshot("report-failed-test-desktop", full_page=False)
    runner.viewport(390, 844)
    runner.get("#detail h2").should("be.visible")
    runner.get("#listPane").should("not.be.visible")  # the test covers the list on a phone
    phone = runner.screenshot("report-failed-test-phone", full_page=True)
    runner.get("body").type("{esc}")
    runner.get("#listPane").should("be.visible")
    print(f"screenshots: {desktop} {phone}")
