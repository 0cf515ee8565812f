"""The reporters' feed: events in, reporter hooks out, live or replayed alike."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from runner.events import (
    AttemptEnded,
    Event,
    EventsFileWriter,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    VideoWritten,
    read_events,
)
from runner.reporters import make_reporter
from runner.reporters.base import Reporter
from runner.reporters.feed import ReporterFeed


def _test(spec: str, name: str, state: str = "passed", at: float = 100.0) -> list[Event]:
    nodeid = f"{spec}::{name}"
    attempt: dict[str, Any] = {"state": state, "duration_ms": 12.0}
    if state == "failed":
        attempt.update(error="E   AssertionError: no", error_type="AssertionError", message="AssertionError: no",
                       log=["visit: http://127.0.0.1/"], routes=[{"method": "GET", "matcher": "/api", "matches": 1}])
    return [TestStarted(at=at, spec=spec, nodeid=nodeid, title=[name]),
            AttemptEnded(at=at, spec=spec, nodeid=nodeid, attempt=1, **attempt),
            TestEnded(at=at, spec=spec, nodeid=nodeid, title=[name], state=state, duration_ms=12.0, attempts=1)]


def _run(specs: list[str], body: list[Event]) -> list[Event]:
    return [RunStarted(at=100.0, run_id="r", runner_version="9.9", browser="chromium (headless) /c", specs=specs),
            *body,
            RunEnded(at=101.0, duration_ms=1000.0, tests=0, passed=0, failed=0, pending=0, skipped=0)]


class Recording(Reporter):
    def __init__(self) -> None:
        super().__init__({}, io.StringIO())
        self.calls: list[str] = []

    def on_run_start(self, run: Any, spec_paths: list[str]) -> None:
        self.calls.append(f"run_start {spec_paths}")

    def on_spec_start(self, spec: Any, index: int, total: int) -> None:
        self.calls.append(f"spec_start {spec.relative} {index}/{total}")

    def on_test_start(self, spec: Any, title: list[str]) -> None:
        self.calls.append(f"test_start {spec.relative} {title[-1]}")

    def on_test_end(self, spec: Any, test: Any) -> None:
        self.calls.append(f"test_end {spec.relative} {test.title[-1]} {test.state}")

    def on_spec_end(self, spec: Any) -> None:
        self.calls.append(f"spec_end {spec.relative} {len(spec.tests)}")

    def on_run_end(self, run: Any) -> None:
        self.calls.append(f"run_end {[s.relative for s in run.specs]} failures={run.failures}")


def test_specs_one_after_the_other_are_told_live() -> None:
    rec = Recording()
    feed = ReporterFeed([rec])
    events = _run(["a.py", "b.py"], [
        SpecStarted(spec="a.py", absolute="/p/a.py"), *_test("a.py", "t1"), SpecEnded(spec="a.py", duration_ms=5),
        SpecStarted(spec="b.py", absolute="/p/b.py"), *_test("b.py", "t2", "failed"), SpecEnded(spec="b.py", duration_ms=5),
    ])
    told = []
    for event in events:
        feed(event)
        told.append(len(rec.calls))
    # each hook is told when its event arrives, not later
    assert told == [1, 2, 3, 3, 4, 5, 6, 7, 7, 8, 9, 10]
    assert rec.calls == [
        "run_start ['a.py', 'b.py']",
        "spec_start a.py 1/2", "test_start a.py t1", "test_end a.py t1 passed", "spec_end a.py 1",
        "spec_start b.py 2/2", "test_start b.py t2", "test_end b.py t2 failed", "spec_end b.py 1",
        "run_end ['a.py', 'b.py'] failures=1",
    ]


def test_interleaved_specs_are_told_one_whole_block_at_a_time() -> None:
    rec = Recording()
    feed = ReporterFeed([rec])
    a1, a2, b1 = _test("a.py", "a1"), _test("a.py", "a2"), _test("b.py", "b1")
    for event in _run(["a.py", "b.py"], [
        SpecStarted(spec="a.py", absolute="/p/a.py"), a1[0],
        SpecStarted(spec="b.py", absolute="/p/b.py"), b1[0], a1[1], b1[1], b1[2],
        SpecEnded(spec="b.py", duration_ms=3), a1[2], *a2, SpecEnded(spec="a.py", duration_ms=9),
    ]):
        feed(event)
    assert rec.calls == [
        "run_start ['a.py', 'b.py']",
        "spec_start a.py 1/2", "test_start a.py a1", "test_end a.py a1 passed",
        "test_start a.py a2", "test_end a.py a2 passed", "spec_end a.py 2",
        "spec_start b.py 2/2", "test_start b.py b1", "test_end b.py b1 passed", "spec_end b.py 1",
        "run_end ['a.py', 'b.py'] failures=0",
    ]


def test_a_run_cut_short_still_ends_every_spec_for_the_reporters() -> None:
    rec = Recording()
    feed = ReporterFeed([rec])
    for event in [RunStarted(run_id="r", runner_version="1", browser="c", specs=["a.py", "b.py"]),
                  SpecStarted(spec="a.py", absolute="/a.py"), *_test("a.py", "a1")[:2],
                  SpecStarted(spec="b.py", absolute="/b.py")]:
        feed(event)
    feed.finish()
    feed.finish()  # once only
    assert rec.calls[-5:] == ["test_start a.py a1", "spec_end a.py 0", "spec_start b.py 2/2", "spec_end b.py 0",
                              "run_end ['a.py', 'b.py'] failures=0"]
    assert sum(c.startswith("run_end") for c in rec.calls) == 1


def test_a_video_written_after_its_spec_ended_reaches_the_run_end() -> None:
    rec = Recording()
    feed = ReporterFeed([rec])
    for event in _run(["a.py"], [SpecStarted(spec="a.py", absolute="/a.py"), *_test("a.py", "t"),
                                  SpecEnded(spec="a.py", duration_ms=1, video="/v/a.py.mp4"),
                                  VideoWritten(spec="a.py", video=None)]):
        feed(event)
    assert feed.run.specs[0].video is None  # lost while being written: the summary says none


def test_a_reporter_that_raises_is_switched_off_and_the_others_go_on() -> None:
    class Broken(Reporter):
        def on_spec_start(self, spec: Any, index: int, total: int) -> None:
            raise ValueError("bad index")

    rec = Recording()
    warnings: list[str] = []
    feed = ReporterFeed([Broken(), rec], warn=warnings.append)
    for event in _run(["a.py"], [SpecStarted(spec="a.py", absolute="/a.py"), *_test("a.py", "t"),
                                  SpecEnded(spec="a.py", duration_ms=1)]):
        feed(event)
    assert len(feed.failures) == 1 and "raised ValueError in on_spec_start: bad index" in feed.failures[0]
    assert warnings == feed.failures
    assert rec.calls[-1] == "run_end ['a.py'] failures=0"


def _spec_output(events: list[Event]) -> str:
    stream = io.StringIO()
    reporter = make_reporter("spec", {}, Path("."))
    reporter.out = stream
    reporter.c.on = False
    feed = ReporterFeed([reporter])
    for event in events:
        feed(event)
    return stream.getvalue()


def test_a_replayed_file_prints_what_the_live_feed_printed(tmp_path: Path) -> None:
    events = _run(["a.py", "b.py"], [
        SpecStarted(spec="a.py", absolute="/p/a.py"), *_test("a.py", "t1"), SpecEnded(spec="a.py", duration_ms=5),
        SpecStarted(spec="b.py", absolute="/p/b.py"), *_test("b.py", "t2", "failed"),
        SpecEnded(spec="b.py", duration_ms=5, video="/v/b.mp4"),
    ])
    live = _spec_output(events)
    writer = EventsFileWriter(tmp_path / "events.jsonl")
    for event in events:
        writer(event)
    writer.close()
    replayed = _spec_output(list(read_events(tmp_path / "events.jsonl")))
    assert replayed == live
    assert "1) t2" in live and "visit: http://127.0.0.1/" in live and "video: /v/b.mp4" in live


def test_the_json_reporter_gives_the_recorded_times_not_the_replay_time(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    reporter = make_reporter("json", {"output": str(out)}, tmp_path)
    feed = ReporterFeed([reporter])
    for event in _run(["a.py"], [SpecStarted(spec="a.py", absolute="/a.py"), *_test("a.py", "t"),
                                  SpecEnded(spec="a.py", duration_ms=1)]):
        feed(event)
    data = json.loads(out.read_text())
    assert data["startedTestsAt"] == "1970-01-01T00:01:40.000+00:00"
    assert data["endedTestsAt"] == "1970-01-01T00:01:41.000+00:00"
