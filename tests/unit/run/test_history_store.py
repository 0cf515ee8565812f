"""The history store (run/history.py): the file's format, adding runs and shards, reading it back."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from runner.events import AttemptEnded, RunStarted, TestEnded
from runner.run.history import (
    History,
    HistoryError,
    HistoryRecorder,
    HistoryRun,
    Outcome,
    _locked,
    add_run,
    failed_last,
    find_flakes,
    plan_rerun,
    read_history,
    run_from_events,
    update_history,
)

SPEC = "runner/integration/a_spec.py"


def _events(run_id: str, outcomes: dict[str, tuple[str, int, bool]], shard: dict | None = None) -> list:
    events: list = [RunStarted(run_id=run_id, runner_version="0", browser="b", specs=[], shard=shard)]
    for name, (state, attempts, flaky) in outcomes.items():
        nodeid = f"{SPEC}::{name}"
        if state == "failed" or flaky:
            events.append(AttemptEnded(spec="a_spec.py", nodeid=nodeid, attempt=1, state="failed", duration_ms=1,
                                       error="Traceback\n  long", message=f"AssertionError: {name} broke\nmore"))
        events.append(TestEnded(spec="a_spec.py", nodeid=nodeid, title=[name], state=state, duration_ms=1,
                                attempts=attempts, flaky=flaky))
    return events


def test_a_run_from_events_keeps_outcome_attempts_and_the_first_line_of_the_failure() -> None:
    run = run_from_events(_events("r1", {"ok": ("passed", 1, False), "bad": ("failed", 2, False),
                                         "retried": ("passed", 2, True), "later": ("pending", 1, False)}))
    assert run is not None and run.id == "r1" and run.split is None
    assert run.tests[f"{SPEC}::ok"] == Outcome("passed", 1, None)
    assert run.tests[f"{SPEC}::bad"] == Outcome("failed", 2, "AssertionError: bad broke")
    assert run.tests[f"{SPEC}::retried"] == Outcome("flaky", 2, "AssertionError: retried broke")
    assert run.tests[f"{SPEC}::later"].outcome == "pending"
    assert run_from_events(_events("r2", {})) is None  # no test ended: nothing to add


def test_the_file_round_trips_with_its_version_and_keeps_the_last_n_runs(tmp_path: Path) -> None:
    path = tmp_path / "runner" / "history.json"
    for number in range(5):
        update_history(path, HistoryRun(f"r{number}", float(number), {f"{SPEC}::t": Outcome("passed")}), keep=3)
    data = json.loads(path.read_text())
    assert data["version"] == 1 and [run["id"] for run in data["runs"]] == ["r2", "r3", "r4"]
    assert read_history(path).runs[-1].tests[f"{SPEC}::t"] == Outcome("passed")
    assert not list(path.parent.glob("*.partial"))


def test_tests_of_specs_that_no_longer_exist_are_dropped(tmp_path: Path) -> None:
    (tmp_path / SPEC).parent.mkdir(parents=True)
    (tmp_path / SPEC).write_text("")
    history = History([HistoryRun("old", 0, {"runner/integration/gone_spec.py::t": Outcome("failed"),
                                              f"{SPEC}::t": Outcome("passed")})])
    add_run(history, HistoryRun("new", 1, {f"{SPEC}::t": Outcome("passed")}), keep=10, project_root=tmp_path)
    assert [list(run.tests) for run in history.runs] == [[f"{SPEC}::t"], [f"{SPEC}::t"]]


@pytest.mark.parametrize(("text", "says"), [
    ("{torn", "is not JSON"),
    ("[1, 2]", "is not a runner history: expected"),
    ('{"version": 2, "runs": []}', "has format version 2; this runner reads version 1"),
    ('{"version": 1, "runs": [{"id": "x"}]}', "holds a run that is not in the expected shape"),
    ('{"version": 1, "runs": [{"id": "x", "at": 1, "tests": {"t": {"outcome": "won"}}}]}', "outcome 'won'"),
])
def test_a_file_runner_cannot_read_is_named_and_never_replaced(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "history.json"
    path.write_text(text)
    with pytest.raises(HistoryError, match="history.json") as caught:
        update_history(path, HistoryRun("r", 0, {"t": Outcome("passed")}), keep=5)
    assert says in str(caught.value)
    assert path.read_text() == text


def test_shards_of_one_split_join_one_run_and_a_merge_never_counts_them_twice() -> None:
    history = History()
    split = {"index": 1, "total": 2, "plan": "p"}
    one = run_from_events(_events("s1", {"a": ("failed", 1, False)}, shard=split))
    two = run_from_events(_events("s2", {"b": ("passed", 1, False)}, shard={**split, "index": 2}))
    assert one is not None and two is not None
    assert add_run(history, one, keep=10) == "added"
    assert add_run(history, two, keep=10) == "joined"
    assert len(history.runs) == 1 and set(history.runs[0].tests) == {f"{SPEC}::a", f"{SPEC}::b"}
    # the same shard again (the next sharded run) starts a run
    again = run_from_events(_events("s3", {"a": ("passed", 1, False)}, shard=split))
    assert again is not None and add_run(history, again, keep=10) == "added" and len(history.runs) == 2

    merged_events = _events("m", {"a": ("failed", 1, False), "b": ("passed", 1, False)},
                            shard={"total": 2, "plan": "p", "merged": [1, 2], "runs": {"1": "s1", "2": "s2"}})
    merged = run_from_events(merged_events)
    assert merged is not None and add_run(history, merged, keep=10) == "known"
    assert len(history.runs) == 2
    # a history that had only shard 1: the merge fills in shard 2's tests, in the same run
    partial = History()
    first = run_from_events(_events("s1", {"a": ("failed", 1, False)}, shard=split))
    assert first is not None
    add_run(partial, first, keep=10)
    merged = run_from_events(merged_events)
    assert merged is not None and add_run(partial, merged, keep=10) == "filled"
    assert len(partial.runs) == 1 and set(partial.runs[0].tests) == {f"{SPEC}::a", f"{SPEC}::b"}
    # a history that had none: one new run
    empty = History()
    merged = run_from_events(merged_events)
    assert merged is not None and add_run(empty, merged, keep=10) == "added" and len(empty.runs) == 1


def test_flakes_are_tests_that_passed_and_failed_or_passed_on_a_retry() -> None:
    def run(number: int, **tests: str) -> HistoryRun:
        return HistoryRun(f"r{number}", number, {name: Outcome(o, 1, f"E{number}" if o != "passed" else None)
                                                 for name, o in tests.items()})

    history = History([run(1, flip="failed", steady="passed", broken="failed"),
                       run(2, flip="passed", steady="passed", broken="failed", retried="flaky"),
                       run(3, flip="failed", steady="passed", broken="failed")])
    flakes = find_flakes(history, 3)
    assert [f.test for f in flakes] == ["retried", "flip"]  # the always failing one is broken, not flaky
    flip = flakes[1]
    assert (flip.ran, flip.failed, flip.flaky, flip.last_failure) == (3, 2, 0, "E3")
    assert flip.outcomes == ["failed", "passed", "failed"]
    assert flakes[0].outcomes == [None, "flaky", None]
    assert [f.test for f in find_flakes(history, 1)] == []
    assert failed_last(history) == ["flip", "broken"]


def test_rerun_plans_choose_from_the_last_run(tmp_path: Path) -> None:
    specs = [tmp_path / "runner/integration/a_spec.py", tmp_path / "runner/integration/b_spec.py"]
    path = tmp_path / "runner/history.json"
    none_yet = plan_rerun(path, specs, tmp_path, "only")
    assert none_yet.specs == specs and none_yet.select is None and "no history yet" in none_yet.notice
    update_history(path, HistoryRun("r", 0, {"runner/integration/b_spec.py::t": Outcome("failed"),
                                             "runner/integration/b_spec.py::u": Outcome("passed"),
                                             "runner/integration/a_spec.py::v": Outcome("passed")}), keep=5)
    only = plan_rerun(path, specs, tmp_path, "only")
    assert only.specs == specs[1:] and json.loads(only.select or "") == {
        "mode": "only", "tests": ["runner/integration/b_spec.py::t"]}
    first = plan_rerun(path, specs, tmp_path, "first")
    assert first.specs == specs and first.failing_first(specs, tmp_path) == [specs[1], specs[0]]
    narrowed = plan_rerun(path, specs[:1], tmp_path, "only")
    assert narrowed.select is None and "not in the selected specs" in narrowed.notice


def test_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    done = threading.Event()

    def write() -> None:
        update_history(path, HistoryRun("second", 1, {"t": Outcome("passed")}), keep=5)
        done.set()

    with _locked(path):
        update_history_thread = threading.Thread(target=write)
        update_history_thread.start()
        assert not done.wait(0.3)  # held off by the lock
        path.write_text(json.dumps(History([HistoryRun("first", 0, {"t": Outcome("failed")})]).to_json()))
    update_history_thread.join(10)
    assert done.is_set()
    assert [run.id for run in read_history(path).runs] == ["first", "second"]


def test_every_shard_of_a_split_in_progress_chooses_from_the_run_before_it(tmp_path: Path) -> None:
    specs = [tmp_path / "runner/integration/a_spec.py"]
    path = tmp_path / "runner/history.json"
    update_history(path, HistoryRun("before", 0, {"runner/integration/a_spec.py::t": Outcome("failed")}), keep=5)
    # shard 1 of the --last-failed split ran and passed: it is the last run of the file now
    update_history(path, HistoryRun("shard1", 1, {"runner/integration/a_spec.py::t": Outcome("passed")},
                                    split={"total": 2, "plan": "p", "shards": {}, "index": 1}), keep=5)
    second = plan_rerun(path, specs, tmp_path, "only", shard=(2, 2))
    assert second.select is not None and "running only the 1 test(s)" in second.told(specs, tmp_path)
    # a plain run (no shard) takes the last run as it is: nothing failed in it
    plain = plan_rerun(path, specs, tmp_path, "only")
    assert plain.select is None and "no test failed in the last run" in plain.notice


def test_the_reports_data_holds_this_run_after_the_ones_before(tmp_path: Path) -> None:
    (tmp_path / SPEC).parent.mkdir(parents=True)
    (tmp_path / SPEC).write_text("")
    path = tmp_path / "history.json"
    update_history(path, HistoryRun("r0", 0, {f"{SPEC}::flip": Outcome("passed"), f"{SPEC}::ok": Outcome("passed")}),
                   keep=5)
    recorder = HistoryRecorder(path, 5, tmp_path)
    for event in _events("r1", {"flip": ("failed", 1, False), "ok": ("passed", 1, False)}):
        recorder(event)
    assert recorder.report_data() == {
        "runs": 2, "tests": {f"{SPEC}::flip": ["passed", "failed"], f"{SPEC}::ok": ["passed", "passed"]},
        "flaky": {f"{SPEC}::flip": "1 of 2 runs failed"}}
    assert len(read_history(path).runs) == 1  # the file is written by write(), not by the report
    assert recorder.write() is None and len(read_history(path).runs) == 2
    path.write_text("{torn")
    assert recorder.report_data() is None
    assert "is not JSON" in (recorder.write() or "") and path.read_text() == "{torn"
