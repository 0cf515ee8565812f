"""A test's intercepted requests at its end: those in flight when its last command returned are
recorded in it (ended within the bound, or open), and what comes after belongs to no test."""

from __future__ import annotations

import json

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.report_events import read_data_file

PAGE = """<html><body><h1>Hi</h1><script>
fetch('/api/soon'); fetch('/api/never'); fetch('/api/big');
setInterval(() => fetch('/api/tick?at=' + performance.now()), 40);
</script></body></html>"""

SPECS = {
    "runner/integration/flight_spec.py": """
        def test_leaves_requests_in_flight(runner):
            runner.intercept("/api/soon", {"body": "soon", "delay": 700}).as_("soon")
            runner.intercept("/api/never", {"body": "never", "delay": 60000}).as_("never")
            runner.intercept("/api/big", {"body": "x" * 200000, "throttleKbps": 100}).as_("big")
            runner.intercept("/api/tick*", lambda req: req.reply("tick")).as_("tick")
            runner.visit("/")
            runner.get("h1").should("have.text", "Hi")

        def test_after_it(runner):
            runner.visit("/plain.html")
            runner.get("h1").should("have.text", "Plain")
        """,
    "site/plain.html": "<html><body><h1>Plain</h1></body></html>",
}
FIRST = "runner/integration/flight_spec.py::test_leaves_requests_in_flight"
SECOND = "runner/integration/flight_spec.py::test_after_it"


@pytest.mark.slow
def test_requests_in_flight_at_a_tests_end_are_its_own_and_later_ones_no_tests(project) -> None:
    root = project(base_project(SPECS, {"video": False, "trace": "on"}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    requests = [e for e in events if e["kind"] == "request.intercepted"]
    ended_at = {e["nodeid"]: i for i, e in enumerate(events) if e["kind"] == "test.ended"}
    # every request event is of a test, before that test ended: none of no test, none later
    assert requests and all(e["nodeid"] == FIRST for e in requests), {e["nodeid"] for e in requests}
    assert max(events.index(e) for e in requests) < ended_at[FIRST]
    by_path = {e["url"].split("/api/")[1].split("?")[0]: e for e in requests}
    soon, never, big = by_path["soon"], by_path["never"], by_path["big"]
    # ended within the bound after the last command: recorded whole in its test
    assert (soon["state"], soon["status"], soon["open"]) == ("Complete", 200, False), soon
    assert soon["timings"]["total"] >= 700, soon["timings"]
    # still in flight at the bound: recorded as such
    assert (never["state"], never["status"], never["open"]) == ("Intercepted", None, True), never
    assert big["open"] is True and big["state"] in ("Intercepted", "ResponseReceived"), big
    # the requests table, the Routes table and the command log say the same as the events
    (attempt,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"] == FIRST]
    assert sorted(r["id"] for r in attempt["requests"]) == sorted(e["id"] for e in requests)
    table = {r["id"]: r for r in attempt["requests"]}
    assert all(table[e["id"]]["state"] == e["state"] for e in requests)
    ticks = [e for e in requests if "/api/tick" in e["url"]]
    matches = {r["alias"]: r["matches"] for r in attempt["routes"]}
    assert matches == {"soon": 1, "never": 1, "big": 1, "tick": len(ticks)}, matches
    logged = [line for line in attempt["log"] if line.startswith("request: ")]
    assert len(logged) == len(requests), logged
    assert any("/api/never @never stubbed (still in flight when the test ended)" in line for line in logged)
    # the report counts the run's two tests, no more
    index = read_data_file(root / "runner" / "report" / "data" / "index.js", "index")
    assert [r[7] for r in index["tests"]] == [FIRST, SECOND]
    assert index["run"]["totals"]["tests"] == 2 and index["run"]["totals"]["unfinished"] == 0
    assert "2 passing" in result.out or "All specs passed" in result.out, result.out
