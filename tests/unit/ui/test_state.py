"""UiState: numTestsKeptInMemory bounds what the server keeps (events and trace files), across
runs; 0 keeps only the running test; a trace outside the server's folder is never deleted."""

from __future__ import annotations

from pathlib import Path

from runner.ui.state import UiState


def _test_events(n: int, spec: str = "a_spec.py", trace: Path | None = None) -> list[dict]:
    nodeid = f"runner/integration/{spec}::test_{n}"
    ended = {"kind": "attempt.ended", "spec": spec, "nodeid": nodeid, "attempt": 1, "state": "passed",
             "duration_ms": 5.0, "trace": str(trace) if trace else None}
    return [
        {"kind": "test.started", "spec": spec, "nodeid": nodeid, "title": [f"test_{n}"]},
        {"kind": "command.started", "nodeid": nodeid, "id": 1, "name": "visit", "args": "'/'"},
        {"kind": "command.ended", "nodeid": nodeid, "id": 1, "name": "visit", "state": "passed", "duration_ms": 1},
        ended,
        {"kind": "test.ended", "spec": spec, "nodeid": nodeid, "title": [f"test_{n}"], "state": "passed",
         "duration_ms": 5.0, "attempts": 1},
    ]


def _feed(state: UiState, events: list[dict]) -> list[dict]:
    out = []
    for event in events:
        out += state.apply(event)
    return out


def test_only_the_last_kept_tests_stay_with_their_traces(tmp_path: Path) -> None:
    state = UiState(5, tmp_path)
    traces = []
    drops = []
    for n in range(200):
        trace = tmp_path / f"t{n}.zip"
        trace.write_bytes(b"zip")
        traces.append(trace)
        drops += [m["key"] for m in _feed(state, _test_events(n % 7, trace=trace)) if m["t"] == "drop"]
    assert len(state.kept) == 5 and not state.live
    assert [r.title for r in state.kept.values()] == [[f"test_{n % 7}"] for n in range(195, 200)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"t{n}.zip" for n in range(195, 200))
    assert len(drops) == 195 and len(set(drops)) == 195
    assert len(state.test_status) == 7  # one status per test, however often it ran
    key = next(iter(state.kept))
    assert state.trace(key, 1) == traces[195]
    assert state.trace(drops[0], 1) is None


def test_zero_keeps_only_the_running_test(tmp_path: Path) -> None:
    state = UiState(0, tmp_path)
    trace = tmp_path / "t.zip"
    trace.write_bytes(b"zip")
    events = _test_events(1, trace=trace)
    out = _feed(state, events[:2])
    assert [m.get("key") for m in out] == ["t1", "t1"] and "t1" in {r.key for r in state.live.values()}
    out = _feed(state, events[2:])
    assert out[-1] == {"t": "drop", "key": "t1"}
    assert not state.kept and not state.live and not trace.exists()
    assert state.snapshot()["tests"] == []
    assert state.test_status["runner/integration/a_spec.py::test_1"]["state"] == "passed"


def test_a_quarantined_tests_status_keeps_its_reason(tmp_path: Path) -> None:
    state = UiState(5, tmp_path)
    events = _test_events(1)
    events[-1] = {**events[-1], "state": "failed", "quarantine": "known bug"}
    _feed(state, events + _test_events(2))
    status = state.test_status
    assert status["runner/integration/a_spec.py::test_1"]["quarantine"] == "known bug"  # runner open tags it
    assert status["runner/integration/a_spec.py::test_2"]["quarantine"] is None


def test_a_trace_outside_the_servers_folder_is_never_deleted(tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    ours.mkdir()
    users = tmp_path / "project" / "runner" / "traces" / "t.zip"
    users.parent.mkdir(parents=True)
    users.write_bytes(b"zip")
    state = UiState(1, ours)
    _feed(state, _test_events(1, trace=users))
    _feed(state, _test_events(2))
    assert users.exists()


def test_spec_status_follows_its_tests_and_a_load_error(tmp_path: Path) -> None:
    state = UiState(5, tmp_path)
    _feed(state, [{"kind": "spec.started", "spec": "a_spec.py", "absolute": "/x"}, *_test_events(1)])
    _feed(state, [{"kind": "spec.ended", "spec": "a_spec.py", "duration_ms": 9.0}])
    assert state.spec_status["a_spec.py"]["state"] == "passed"
    _feed(state, [{"kind": "spec.started", "spec": "b_spec.py", "absolute": "/y"},
                  {"kind": "spec.ended", "spec": "b_spec.py", "duration_ms": 1.0, "error": "E",
                   "error_message": "SyntaxError: invalid syntax"}])
    assert state.spec_status["b_spec.py"] == {"state": "failed", "duration_ms": 1.0,
                                              "error": "SyntaxError: invalid syntax"}


def test_output_is_bounded(tmp_path: Path) -> None:
    state = UiState(5, tmp_path)
    for n in range(2000):
        state.add_output(f"line {n}")
    assert len(state.output) == 500 and state.output[-1] == "line 1999"


def _ended(n: int, state: str, *, flaky: bool = False) -> dict:
    return {"kind": "test.ended", "spec": "a_spec.py", "nodeid": f"a_spec.py::test_{n}", "title": [f"test_{n}"],
            "state": state, "duration_ms": 1.0, "attempts": 2 if flaky else 1, "flaky": flaky}


def test_a_run_ends_in_words_not_an_exit_status(tmp_path: Path) -> None:
    """The status bar showed "exit 2" and "exit 130"."""
    state = UiState(5, tmp_path)
    state.new_run(1)
    _feed(state, [_ended(1, "passed"), _ended(2, "passed"), _ended(3, "passed", flaky=True), _ended(4, "failed"),
                  _ended(5, "skipped")])
    assert state.tally.words(1, stopped=False) == "2 passed, 1 failed, 1 flaky, 1 skipped"
    assert state.tally.words(130, stopped=False) == "interrupted: 2 passed, 1 failed, 1 flaky, 1 skipped"
    assert state.tally.words(143, stopped=True) == "2 passed, 1 failed, 1 flaky, 1 skipped"  # the bar says stopped
    _feed(state, [{"kind": "spec.ended", "spec": "b_spec.py", "error": "SyntaxError: ..."}])
    assert state.tally.words(2, stopped=False).endswith("1 skipped, 1 spec could not be loaded")
    state.new_run(2)  # a new run counts from nothing
    assert state.tally.words(0, stopped=False) == "no tests ran"
    assert state.tally.words(3, stopped=False) == "the run ended before any test (see the Output tab)"
    assert state.tally.words(-15, stopped=False) == "interrupted"
    assert state.tally.words(143, stopped=True) == "no test ended"
    _feed(state, [_ended(1, "passed"), {"kind": "run.ended", "interrupted": True}])
    assert state.tally.words(0, stopped=False) == "interrupted: 1 passed"
    state.new_run(3)
    _feed(state, [_ended(1, "passed")])
    assert state.tally.words(1, stopped=False) == "1 passed; the run then failed (see the Output tab)"


def _spec_run(state: UiState, number: int, spec: str, tests: list[int], *, one_test: bool = False,
              traces: Path | None = None) -> list[dict]:
    state.new_run(number, one_test=one_test)
    out = _feed(state, [{"kind": "spec.started", "spec": spec, "absolute": "/x"}])
    for n in tests:
        trace = None
        if traces is not None:
            trace = traces / f"{spec}-{n}-run{number}.zip"
            trace.write_bytes(b"zip")
        out += _feed(state, _test_events(n, spec, trace=trace))
    return out + _feed(state, [{"kind": "spec.ended", "spec": spec, "duration_ms": 1.0}])


def _kept(state: UiState) -> list[tuple[str, str, int]]:
    return [(r.spec, r.title[0], r.run) for r in state.kept.values()]


def test_a_spec_run_again_replaces_its_tests_once_and_keeps_the_others(tmp_path: Path) -> None:
    """Each re-run added a tab per test ("run 2", "run 3", ...) until numTestsKeptInMemory."""
    state = UiState(50, tmp_path)
    _spec_run(state, 1, "b_spec.py", [1], traces=tmp_path)
    for number in (2, 3, 4):
        out = _spec_run(state, number, "a_spec.py", [1, 2], traces=tmp_path)
    assert _kept(state) == [("b_spec.py", "test_1", 1), ("a_spec.py", "test_1", 4), ("a_spec.py", "test_2", 4)]
    assert len([m for m in out if m["t"] == "drop"]) == 2  # run 3's two tests, dropped as run 4 began
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_spec.py-1-run4.zip", "a_spec.py-2-run4.zip",
                                                           "b_spec.py-1-run1.zip"]
    # a test the spec no longer has (renamed) goes with the spec's re-run
    _spec_run(state, 5, "a_spec.py", [2])
    assert _kept(state) == [("b_spec.py", "test_1", 1), ("a_spec.py", "test_2", 5)]
    # one test run alone replaces only its own record
    _spec_run(state, 6, "a_spec.py", [3])
    _spec_run(state, 7, "a_spec.py", [2], one_test=True)
    assert _kept(state) == [("b_spec.py", "test_1", 1), ("a_spec.py", "test_3", 6), ("a_spec.py", "test_2", 7)]
    assert [s["key"] for s in state.snapshot()["tests"]] == list(state.kept)


def test_replacing_honours_the_number_kept(tmp_path: Path) -> None:
    state = UiState(2, tmp_path)
    _spec_run(state, 1, "b_spec.py", [1, 2, 3], traces=tmp_path)
    assert _kept(state) == [("b_spec.py", "test_2", 1), ("b_spec.py", "test_3", 1)]
    _spec_run(state, 2, "a_spec.py", [1], traces=tmp_path)
    _spec_run(state, 3, "a_spec.py", [1], traces=tmp_path)
    assert _kept(state) == [("b_spec.py", "test_3", 1), ("a_spec.py", "test_1", 3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_spec.py-1-run3.zip", "b_spec.py-3-run1.zip"]
    none = UiState(0, tmp_path / "none")
    _spec_run(none, 1, "a_spec.py", [1])
    _spec_run(none, 2, "a_spec.py", [1])
    assert not none.kept and not none.live


def test_a_test_that_never_ended_is_replaced_for_good(tmp_path: Path) -> None:
    """A stopped run whose test never told its end: the spec's re-run drops it from the live
    records too, so a page that connects later does not see it running."""
    state = UiState(5, tmp_path)
    state.new_run(1)
    _feed(state, [{"kind": "spec.started", "spec": "a_spec.py"}, *_test_events(1)[:2]])
    _spec_run(state, 2, "a_spec.py", [2])
    assert [t["title"] for t in state.snapshot()["tests"]] == [["test_2"]]


def test_a_run_that_never_began_says_why_on_one_line(tmp_path: Path) -> None:
    state = UiState(5, tmp_path)
    state.new_run(1)
    state.tally.errors.append("no spec file matches testFiles in runner/integration.")
    assert state.tally.not_run() == "no spec file matches testFiles in runner/integration."
    assert state.tally.words(1, stopped=False) == "could not run: no spec file matches testFiles in runner/integration."
    state.new_run(2)
    assert state.tally.not_run() == ""
    state.tally.errors.append("Your configuration file runner.json is invalid (1 problem):\n- Expected ...")
    assert state.tally.not_run() == "Your configuration file runner.json is invalid (1 problem) (see the Output tab)"
    _feed(state, [{"kind": "run.started"}, _ended(1, "passed")])
    assert state.tally.not_run() == ""  # it began: its tests tell it
    assert state.tally.words(1, stopped=False) == ("1 passed; then: Your configuration file runner.json is invalid "
                                                   "(1 problem) (see the Output tab)")


def test_a_spec_run_again_forgets_the_statuses_of_tests_it_no_longer_runs(tmp_path: Path) -> None:
    """The list kept a renamed test's and a spec's that no longer loads old green dots."""
    state = UiState(50, tmp_path)
    _spec_run(state, 1, "a_spec.py", [1, 2])
    _spec_run(state, 2, "b_spec.py", [1])
    # test_1 renamed to test_3: its status goes, before the spec's end is told
    out = _spec_run(state, 3, "a_spec.py", [2, 3])
    forget = [m for m in out if m["t"] == "forget"]
    assert forget == [{"t": "forget", "nodeids": ["runner/integration/a_spec.py::test_1"]}]
    spec_end = next(i for i, m in enumerate(out) if m.get("event", {}).get("kind") == "spec.ended")
    assert out.index(forget[0]) < spec_end
    assert sorted(state.test_status) == ["runner/integration/a_spec.py::test_2", "runner/integration/a_spec.py::test_3",
                                         "runner/integration/b_spec.py::test_1"]
    # one test run alone forgets nothing
    _spec_run(state, 4, "a_spec.py", [2], one_test=True)
    assert "runner/integration/a_spec.py::test_3" in state.test_status
    # the spec no longer loads: none of its tests has a status; the other spec's stay
    state.new_run(5)
    out = _feed(state, [{"kind": "spec.started", "spec": "a_spec.py", "absolute": "/x"},
                        {"kind": "spec.ended", "spec": "a_spec.py", "duration_ms": 1.0, "error": "E",
                         "error_message": "SyntaxError: invalid syntax"}])
    assert [m["nodeids"] for m in out if m["t"] == "forget"] == [["runner/integration/a_spec.py::test_2",
                                                                  "runner/integration/a_spec.py::test_3"]]
    assert list(state.test_status) == ["runner/integration/b_spec.py::test_1"]
    assert state.spec_status["a_spec.py"]["state"] == "failed"


def test_a_snapshot_comparisons_images_are_served_by_number_only(tmp_path: Path) -> None:
    state = UiState(5, tmp_path / "traces")
    images = {kind: tmp_path / f"card-{kind}.png" for kind in ("expected", "actual", "diff")}
    for path in images.values():
        path.write_bytes(b"\x89PNG")
    events = _test_events(1)
    nodeid = events[0]["nodeid"]
    compared = {"kind": "snapshot.compared", "nodeid": nodeid, "attempt": 1, "what": "screenshot", "name": "card",
                "outcome": "differs", "passed": False, "baseline": "b.png",
                **{kind: str(path) for kind, path in images.items()}}
    out = _feed(state, [*events[:3], compared, *events[3:]])
    told = next(m["event"] for m in out if m["event"]["kind"] == "snapshot.compared")
    assert told["urls"] == {"expected": "/snapshots/t1/1.png", "actual": "/snapshots/t1/2.png",
                            "diff": "/snapshots/t1/3.png"}
    assert [state.image("t1", n) for n in (1, 2, 3)] == list(images.values())
    assert state.image("t1", 0) is None and state.image("t1", 4) is None and state.image("t9", 1) is None
    images["diff"].unlink()
    assert state.image("t1", 3) is None  # gone: not found, never an error
