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
        drops += [m["key"] for m in _feed(state, _test_events(n % 3, trace=trace)) if m["t"] == "drop"]
    assert len(state.kept) == 5 and not state.live
    assert [r.title for r in state.kept.values()] == [[f"test_{n % 3}"] for n in range(195, 200)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"t{n}.zip" for n in range(195, 200))
    assert len(drops) == 195 and len(set(drops)) == 195
    assert len(state.test_status) == 3  # one status per test, however often it ran
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
    state.run = 1
    _feed(state, [_ended(1, "passed"), _ended(2, "passed"), _ended(3, "passed", flaky=True), _ended(4, "failed"),
                  _ended(5, "skipped")])
    assert state.tally.words(1, stopped=False) == "2 passed, 1 failed, 1 flaky, 1 skipped"
    assert state.tally.words(130, stopped=False) == "interrupted: 2 passed, 1 failed, 1 flaky, 1 skipped"
    assert state.tally.words(143, stopped=True) == "2 passed, 1 failed, 1 flaky, 1 skipped"  # the bar says stopped
    _feed(state, [{"kind": "spec.ended", "spec": "b_spec.py", "error": "SyntaxError: ..."}])
    assert state.tally.words(2, stopped=False).endswith("1 skipped, 1 spec could not be loaded")
    state.run = 2  # a new run counts from nothing
    assert state.tally.words(0, stopped=False) == "no tests ran"
    assert state.tally.words(3, stopped=False) == "the run ended before any test (see the Output tab)"
    assert state.tally.words(-15, stopped=False) == "interrupted"
    assert state.tally.words(143, stopped=True) == "no test ended"
    _feed(state, [_ended(1, "passed"), {"kind": "run.ended", "interrupted": True}])
    assert state.tally.words(0, stopped=False) == "interrupted: 1 passed"
    state.run = 3
    _feed(state, [_ended(1, "passed")])
    assert state.tally.words(1, stopped=False) == "1 passed; the run then failed (see the Output tab)"
