"""The HTML report counts the tests that ran: a request event of no test (between tests) or
of a test that already ended (a request that came after its end) adds no test to it."""

from __future__ import annotations

from pathlib import Path

from tests.support.report_events import read_data_file

from runner.events import (
    RequestIntercepted,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
)
from runner.reporters.html.report import HtmlReport


def test_the_report_counts_no_test_for_requests_of_no_test_or_of_an_ended_test(tmp_path: Path) -> None:
    nodeid = "specs/a_spec.py::test_a"
    request = {"id": "r1", "method": "GET", "url": "http://127.0.0.1:1/api/tick", "route_ids": ["1"],
               "aliases": [], "stubbed": True, "state": "Complete", "status": 200}
    report = HtmlReport(tmp_path / "report")
    for event in (RunStarted(run_id="r", runner_version="0", browser="chromium", specs=["specs/a_spec.py"]), SpecStarted(spec="specs/a_spec.py", absolute="/a"),
                  TestStarted(spec="specs/a_spec.py", nodeid=nodeid, title=["test_a"]),
                  RequestIntercepted(nodeid=nodeid, **request),
                  TestEnded(spec="specs/a_spec.py", nodeid=nodeid, title=["test_a"], state="passed", duration_ms=5,
                            attempts=1),
                  RequestIntercepted(nodeid=nodeid, **{**request, "id": "r2"}),  # after its test ended
                  RequestIntercepted(nodeid="", **{**request, "id": "r3"}),  # between tests
                  SpecEnded(spec="specs/a_spec.py", duration_ms=10), RunEnded(duration_ms=20, tests=1, passed=1, failed=0, pending=0, skipped=0)):
        report(event)
    folder = report.finish()
    index = read_data_file(folder / "data" / "index.js", "index")
    assert [r[7] for r in index["tests"]] == [nodeid]
    assert index["run"]["totals"]["tests"] == 1 and index["run"]["totals"]["unfinished"] == 0
