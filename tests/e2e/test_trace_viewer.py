"""A trace runner wrote, opened in the viewer ``runner show-trace`` serves: the viewer's action
list reads like the test (runner's steps by name). The browser is runner's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.show_trace import run_project, start_show_trace, stop_serving

SPEC = """
    def test_fails(runner):
        runner.intercept("GET", "/api/x", {"body": {"a": 1}}).as_("x")
        runner.visit("/")
        runner.get("#b").click()
        runner.get("h1").should("have.text", "Bye", timeout=300)
"""
PAGE = "<html><body><h1>Hi</h1><button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>"


@pytest.fixture(scope="module")
def trace_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A failed test's trace, written by a real ``runner run``, served by ``runner show-trace``."""
    root = tmp_path_factory.mktemp("traced")
    done = run_project(root, SPEC, PAGE)
    trace = root / "runner" / "traces" / "a_spec.py" / "test_fails.zip"
    assert trace.is_file(), done.stdout + done.stderr
    proc, url = start_show_trace(trace, root)
    try:
        yield url
    finally:
        stop_serving(proc)



@pytest.mark.slow
def test_the_viewer_lists_runners_steps(runner, trace_url: str) -> None:
    runner.visit(trace_url)
    for step in ("intercept GET /api/x (stubbed) as x", "visit('/')", "get('#b').click()",
                 "get('h1') should have.text 'Bye'"):
        runner.contains(".action-title", step).should("be.visible")
    runner.get(".action-title").should("have.length", 5)  # the four steps and the failure screenshot
    runner.contains("a_spec.py :: test_fails").should("be.visible")  # the trace's title


@pytest.mark.slow
def test_the_failed_step_is_marked_and_the_errors_tab_shows_its_error(runner, trace_url: str) -> None:
    runner.visit(trace_url)
    failed = runner.get("[role=tree] .tree-view-entry.error")  # the viewer's mark of a failed call
    failed.should("have.length", 1)
    failed.should("contain.text", "get('h1') should have.text 'Bye'")
    runner.contains("[role=tab]", "Errors").click()
    runner.get(".tab-errors .error-message").should(
        "contain.text", "expected <h1> to have text 'Bye', but the text was 'Hi'")
    runner.get(".tab-errors .action-location").should("contain.text", "a_spec.py:6")  # the spec's line
