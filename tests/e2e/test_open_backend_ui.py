"""``runner open``'s page shows the requests of the app's server as the server's: runner drives
the real command's UI on a project whose ``webServer`` app calls a service that the spec stubs
with ``runner.intercept_backend`` (the command log's request lines, the Routes panel, the
Requests panel)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.open_backend import backend_project
from tests.support.show_trace import served

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN_DONE_MS = 60000  # a child starts Python, pytest and a browser: bounded, generously


@pytest.fixture(scope="module")
def open_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(["open", "--no-open"], backend_project(tmp_path_factory.mktemp("open-backend"))) as url:
        yield url


def test_the_servers_requests_are_marked_in_the_command_log_routes_and_requests(runner, open_url: str) -> None:
    runner.visit(open_url)
    runner.get("#connection").should("have.attr", "data-state", "open")
    runner.get(".spec[data-spec='price_spec.py'] .run-spec").click()
    runner.get("#run-state").should("have.attr", "data-state", "running")
    runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
    runner.get("#run-state").should("have.text", "done: price_spec.py · 3 passed")
    runner.contains(".test-tab", "test_stubbed").click()
    lines = "#commands .request-line"
    runner.get(lines).should("have.length", 2)
    runner.get(lines).eq(0).should("contain", "(server)").and_("contain", "/price").and_("contain", "@price").and_(
        "contain", "stubbed")
    runner.get(lines).eq(1).should("contain", "(server)").and_("contain", "https://payments.invalid/charge")
    runner.get("[data-tab=routes]").click()
    runner.get("#routes tbody tr").should("have.length", 2).each(
        lambda row: row.should("contain", "(the app's server)"))
    runner.get("[data-tab=requests]").click()
    runner.get("#requests .request[data-server=yes]").should("have.length", 2)
    runner.get("#requests .request .made-by").eq(0).should("have.text", "(server)")
    # the test without routes made no request runner records
    runner.contains(".test-tab", "test_unrouted").click()
    runner.get("[data-tab=requests]").click()
    runner.get("#requests .request").should("have.length", 0)
    # a server's request a route only watched went on to the service it called
    runner.contains(".test-tab", "test_spied").click()
    runner.get("[data-tab=commands]").click()
    runner.get("#commands .request-line").should("have.length", 1).and_("contain", "@real to the service")
    runner.get("[data-tab=requests]").click()
    runner.get("#requests .request[data-server=yes] .fill").should(
        "have.attr", "title", "went to the service (the app's server made it)").click()
    runner.get("#request-detail p").first().should("contain", "went to the service (the app's server made it)")
