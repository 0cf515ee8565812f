"""The report a real ``runner run`` wrote, served by ``runner show-report`` and opened in
runner's own browser: the failed test's command log, its request, and its trace opened in the
viewer copied into the report (which reads the trace over the report's own server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.show_trace import run_project, start_serving, stop_serving

pytestmark = pytest.mark.e2e

SPEC = """
    def test_passes(runner):
        runner.visit("/")

    def test_fails(runner):
        runner.intercept("GET", "/api/total", {"body": {"total": 41}}).as_("total")
        runner.visit("/")
        runner.get("#b").click()
        runner.wait("@total")
        runner.get("h1").should("have.text", "42", timeout=300)

    def test_asserts(runner):
        runner.visit("/")
        totals = [1, 2, 3]
        assert totals == [1, 2, 4]
"""
PAGE = ("<html><body><h1>Hi</h1><button id='b' onclick=\"fetch('/api/total').then(r => r.json())"
        ".then(d => document.querySelector('h1').textContent = d.total)\">go</button></body></html>")


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("reported")
    done = run_project(root, SPEC, PAGE)
    assert done.returncode == 2 and (root / "runner" / "report" / "index.html").is_file(), done.stdout + done.stderr
    proc, url = start_serving(["show-report", "--no-open"], root)  # the project's reportFolder
    try:
        yield url
    finally:
        err = stop_serving(proc)
        assert proc.returncode == 0 and "Traceback" not in err, err


@pytest.mark.slow
def test_a_failed_test_of_a_real_run_reads_from_the_served_report(runner, report_url: str) -> None:
    assert report_url.endswith("/index.html")
    runner.visit(report_url)
    runner.get("#list .row:not([hidden])").should("have.length", 3)
    runner.contains("#list .row", "test_fails").click()
    runner.get("#detail pre.error").should("contain", "expected <h1> to have text '42'")
    rows = "#detail table.commands tbody tr"
    runner.get(rows).should("have.length", 6)  # 5 commands and the stubbed request's line
    runner.get(rows).should("contain", "(fetch) GET 200").and_("contain", "/api/total")
    runner.get(rows).eq(5).should("have.class", "s-failed").and_("contain", "get('h1')")
    runner.get("#detail .req").should("have.length", 1).and_("contain", "/api/total").and_("contain", "stubbed")
    href = runner.get("#detail a.button").attr("href") or ""
    assert href.startswith("trace/index.html?trace=")
    runner.visit(report_url.rsplit("/", 1)[0] + "/" + href)  # the viewer copied into the report
    for step in ("intercept GET /api/total (stubbed) as total", "get('#b').click()", "wait @total"):
        runner.contains(".action-title", step).should("be.visible")


@pytest.mark.slow
def test_a_plain_assert_is_the_last_line_of_the_command_log_with_its_explanation(runner, report_url: str) -> None:
    """Every line of the log read green: the failure was in no command."""
    runner.visit(report_url)
    runner.contains("#list .row", "test_asserts").click()
    rows = "#detail table.commands tbody tr"
    runner.get(rows).should("have.length", 2)
    runner.get(rows).eq(0).should("not.have.class", "s-failed").and_("contain", "visit")
    last = runner.get(rows).eq(1)
    last.should("have.class", "s-failed").and_("contain", "assert").and_("contain", "totals == [1, 2, 4]")
    runner.get(rows).eq(1).should("contain", "a_spec.py:15")
    runner.get(f"{rows} .cmd-error").should("contain", "AssertionError: assert [1, 2, 3] == [1, 2, 4]").and_(
        "contain", "At index 2 diff: 3 != 4")
