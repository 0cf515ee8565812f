"""Which attempts are traced, which traces are kept, and where they go."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from runner.artifacts.traces import (
    StepError,
    claim_trace_path,
    keeps_trace,
    mark_failed_steps,
    records_trace,
)

FOLDER = Path("/project/runner/traces")

# mode, attempt, recorded, kept when it failed, kept when it passed
TABLE = [
    ("off", 1, False, False, False),
    ("off", 2, False, False, False),
    ("on", 1, True, True, True),
    ("on", 2, True, True, True),
    ("on", 3, True, True, True),
    ("retain-on-failure", 1, True, True, False),
    ("retain-on-failure", 2, True, True, False),
    ("on-first-retry", 1, False, False, False),
    ("on-first-retry", 2, True, True, True),
    ("on-first-retry", 3, False, False, False),
]


@pytest.mark.parametrize(("mode", "attempt", "recorded", "kept_failed", "kept_passed"), TABLE)
def test_the_decision_table(mode: str, attempt: int, recorded: bool, kept_failed: bool, kept_passed: bool) -> None:
    assert records_trace(mode, attempt) is recorded
    assert keeps_trace(mode, attempt, failed=True) is kept_failed
    assert keeps_trace(mode, attempt, failed=False) is kept_passed


def test_a_trace_goes_under_its_spec_named_by_the_test() -> None:
    taken: set[Path] = set()
    path = claim_trace_path(FOLDER, "login/a_spec.py", "Suite -- test_x", attempt=1, taken=taken)
    assert path == FOLDER / "login" / "a_spec.py" / "Suite -- test_x.zip"
    assert taken == {path}


def test_later_attempts_say_which_and_names_are_made_safe_and_unique() -> None:
    taken: set[Path] = set()
    retry = claim_trace_path(FOLDER, "a_spec.py", "test_x", attempt=2, taken=taken)
    assert retry.name == "test_x (attempt 2).zip"
    first = claim_trace_path(FOLDER, "a_spec.py", "test_p[a/b]", attempt=1, taken=taken)
    second = claim_trace_path(FOLDER, "a_spec.py", "test_p[a:b]", attempt=1, taken=taken)
    assert first.name == "test_p[a_b].zip" and second.name == "test_p[a_b] (2).zip"
    assert first.parent == second.parent == FOLDER / "a_spec.py"  # a "/" in a title makes no folder
    long = claim_trace_path(FOLDER, "a_spec.py", "x" * 400, attempt=3, taken=taken)
    assert long.name.endswith("x (attempt 3).zip") and len(long.stem.encode()) <= 200


def _trace(path: Path, events: list[dict]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.trace", "".join(json.dumps(e) + "\n" for e in events))
        archive.writestr("resources/abc", b"\x00binary")


def _events(path: Path) -> list[dict]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]


def test_a_failed_step_gets_its_error_on_its_end_and_runners_snapshot_call_loses_its_own(tmp_path: Path) -> None:
    group = {"type": "before", "class": "Tracing", "method": "tracingGroup", "params": {}}
    events = [
        {"type": "context-options", "version": 10},
        {**group, "callId": "c@1", "title": "visit('/')"},
        {"type": "before", "callId": "c@2", "parentId": "c@1", "method": "goto", "params": {"url": "/"}},
        {"type": "after", "callId": "c@2", "endTime": 2},
        {"type": "after", "callId": "c@1", "endTime": 3},
        {**group, "callId": "c@3", "title": "wait @x"},
        {"type": "before", "callId": "c@4", "parentId": "c@3", "method": "evaluateExpression",
         "params": {"expression": "0"}},
        {"type": "after", "callId": "c@4", "endTime": 5, "error": {"message": "Execution context was destroyed"}},
        {"type": "after", "callId": "c@3", "endTime": 6},
        {"type": "before", "callId": "c@5", "method": "evaluateExpression", "params": {"expression": "0"}},
        {"type": "after", "callId": "c@5", "endTime": 7, "error": {"message": "the user's own"}},
    ]
    path = tmp_path / "t.zip"
    _trace(path, events)
    mark_failed_steps(path, {2: StepError("CommandError", "Timed out\nsecond line", "  File x")}, quiet="0")
    ends = {e["callId"]: e for e in _events(path) if e["type"] == "after"}
    assert ends["c@3"]["error"] == {"name": "CommandError", "message": "Timed out\nsecond line", "stack": "  File x"}
    assert "error" not in ends["c@1"] and "error" not in ends["c@2"]
    assert "error" not in ends["c@4"]  # runner's snapshot call, in a step
    assert ends["c@5"]["error"] == {"message": "the user's own"}  # not in a step: not runner's
    with zipfile.ZipFile(path) as archive:
        assert archive.read("resources/abc") == b"\x00binary"  # the rest of the zip as it was


def test_an_evaluation_runner_waited_out_past_a_navigation_is_no_error_of_the_trace(tmp_path: Path) -> None:
    # get('h1').should(...) right after a click that navigates: the DOM query's evaluation met
    # the old page's end, runner waited for the new page and asked again, and the command passed.
    group = {"type": "before", "class": "Tracing", "method": "tracingGroup", "params": {}}
    destroyed = {"message": "Execution context was destroyed, most likely because of a navigation"}
    events = [
        {"type": "context-options", "version": 10},
        {**group, "callId": "c@1", "title": "get('h1') should have.text 'Hi'"},
        {"type": "before", "callId": "c@2", "parentId": "c@1", "method": "evaluateExpression",
         "params": {"expression": "(arg) => query(arg)"}},
        {"type": "after", "callId": "c@2", "endTime": 2, "error": destroyed},
        {"type": "before", "callId": "c@3", "parentId": "c@1", "method": "evaluateExpressionHandle",
         "params": {"expression": "(arg) => query(arg)"}},
        {"type": "after", "callId": "c@3", "endTime": 3, "error": {"message": "Cannot find context with specified id"}},
        {"type": "after", "callId": "c@1", "endTime": 4},
        {**group, "callId": "c@4", "title": "visit('/x')"},
        {"type": "before", "callId": "c@5", "parentId": "c@4", "method": "goto", "params": {"url": "/x"}},
        {"type": "after", "callId": "c@5", "endTime": 5, "error": {"message": "net::ERR_ABORTED; navigation"}},
        {"type": "before", "callId": "c@6", "parentId": "c@4", "method": "evaluateExpression",
         "params": {"expression": "1"}},
        {"type": "after", "callId": "c@6", "endTime": 6, "error": {"message": "TypeError: x is undefined"}},
        {"type": "after", "callId": "c@4", "endTime": 7},
        {"type": "before", "callId": "c@7", "method": "evaluateExpression", "params": {"expression": "1"}},
        {"type": "after", "callId": "c@7", "endTime": 8, "error": destroyed},
    ]
    path = tmp_path / "t.zip"
    _trace(path, events)
    mark_failed_steps(path, {}, waited_out=("Execution context was destroyed", "Cannot find context"))
    ends = {e["callId"]: e for e in _events(path) if e["type"] == "after"}
    assert "error" not in ends["c@2"] and "error" not in ends["c@3"]  # retried: the Errors tab stays empty
    assert ends["c@5"]["error"]["message"].startswith("net::ERR_ABORTED")  # not an evaluation: kept
    assert ends["c@6"]["error"] == {"message": "TypeError: x is undefined"}  # another error: kept
    assert ends["c@7"]["error"] == destroyed  # no step's: the user's own call


def test_a_trace_that_is_not_a_zip_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "t.zip"
    path.write_bytes(b"not a zip")
    mark_failed_steps(path, {1: StepError("E", "m")})
    assert path.read_bytes() == b"not a zip"
