"""The run events: their JSON form, the bus, the events file."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

import pytest

from runner.events import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    AttemptEnded,
    EventBus,
    EventFormatError,
    EventsFileError,
    EventsFileWriter,
    LogLine,
    RequestIntercepted,
    RunEnded,
    RunStarted,
    TestEnded,
    dumps_event,
    from_json,
    read_events,
)


def _sample(cls: type) -> object:
    """An instance of ``cls`` with every required field filled by its type."""
    values: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        kind = str(f.type)
        values[f.name] = (
            ["a", "b"] if kind.startswith("list") else {"k": "v"} if kind.startswith("dict")
            else True if kind == "bool" else 3 if kind == "int" else 1.5 if kind == "float" else f"<{f.name}>"
        )
    return cls(**values)


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_every_event_survives_its_json_form(kind: str) -> None:
    event = _sample(EVENT_TYPES[kind])
    line = dumps_event(event)  # type: ignore[arg-type]
    assert "\n" not in line
    data = json.loads(line)
    assert data["v"] == SCHEMA_VERSION and data["kind"] == kind
    assert from_json(data) == event


def test_events_are_immutable() -> None:
    event = LogLine(nodeid="a::t", message="hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.message = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("data, fragment", [
    ([1, 2], "expected a JSON object, found list"),
    ({"kind": "log"}, "'v' (the schema version) must be a whole number; found None"),
    ({"v": SCHEMA_VERSION + 1, "kind": "log"}, f"schema version {SCHEMA_VERSION + 1}, newer than"),
    ({"v": 1, "kind": "test.exploded"}, "unknown event kind 'test.exploded'"),
    ({"v": 1, "kind": "log", "at": 1.0, "nodeid": "x"}, "log is missing 'message'"),
    ({"v": 1, "kind": "log", "at": 1.0, "nodeid": "x", "message": "m", "colour": 1}, "log has no field 'colour'"),
    ({"v": 1, "kind": "log", "at": "noon", "nodeid": "x", "message": "m"}, "'at' must be a number"),
])
def test_from_json_says_what_is_wrong(data: object, fragment: str) -> None:
    with pytest.raises(EventFormatError) as err:
        from_json(data)
    assert fragment in str(err.value)


def test_bus_delivers_in_order_to_each_subscriber_and_filters_by_kind() -> None:
    bus = EventBus()
    seen: list[tuple[str, str]] = []
    bus.subscribe(lambda e: seen.append(("all", e.kind)))
    bus.subscribe(lambda e: seen.append(("logs", e.kind)), (LogLine,))
    bus.publish(LogLine(nodeid="n", message="1"))
    bus.publish(TestEnded(spec="s", nodeid="n", title=["t"], state="passed", duration_ms=1, attempts=1))
    assert seen == [("all", "log"), ("logs", "log"), ("all", "test.ended")]


def test_an_event_published_while_another_is_delivered_comes_after_it() -> None:
    bus = EventBus()
    seen: list[str] = []

    def first(event: object) -> None:
        seen.append(f"first {event.message}")  # type: ignore[attr-defined]
        if event.message == "outer":  # type: ignore[attr-defined]
            bus.publish(LogLine(nodeid="n", message="inner"))

    bus.subscribe(first)
    bus.subscribe(lambda e: seen.append(f"second {e.message}"))  # type: ignore[attr-defined]
    bus.publish(LogLine(nodeid="n", message="outer"))
    assert seen == ["first outer", "second outer", "first inner", "second inner"]


def test_a_subscriber_that_raises_is_dropped_and_reported_the_others_go_on() -> None:
    errors: list[str] = []
    bus = EventBus(on_error=lambda sub, err: errors.append(f"{type(err).__name__}: {err}"))
    seen: list[str] = []

    def broken(event: object) -> None:
        raise RuntimeError("boom")

    bus.subscribe(broken)
    bus.subscribe(lambda e: seen.append(e.kind))
    bus.publish(LogLine(nodeid="n", message="1"))
    bus.publish(LogLine(nodeid="n", message="2"))
    assert errors == ["RuntimeError: boom"]
    assert seen == ["log", "log"]


def test_an_interruption_in_one_subscriber_does_not_cost_the_others_the_event() -> None:
    # Ctrl-C while the events file is written: the reporters still get the event (and the one
    # it published meanwhile), then the interruption goes on; the subscriber stays subscribed
    bus = EventBus(on_error=lambda sub, err: pytest.fail(f"reported as broken: {err!r}"))
    seen: list[str] = []
    interrupt = ["once"]

    def interrupted(event: object) -> None:
        seen.append(f"first {event.message}")  # type: ignore[attr-defined]
        if interrupt:
            interrupt.clear()
            bus.publish(LogLine(nodeid="n", message="queued"))
            raise KeyboardInterrupt

    bus.subscribe(interrupted)
    bus.subscribe(lambda e: seen.append(f"second {e.message}"))  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        bus.publish(LogLine(nodeid="n", message="1"))
    assert seen == ["first 1", "second 1", "first queued", "second queued"]
    bus.publish(LogLine(nodeid="n", message="2"))
    assert seen[-2:] == ["first 2", "second 2"]


def test_unsubscribe_stops_delivery() -> None:
    bus = EventBus()
    seen: list[str] = []
    stop = bus.subscribe(lambda e: seen.append(e.kind))
    bus.publish(LogLine(nodeid="n", message="1"))
    stop()
    bus.publish(LogLine(nodeid="n", message="2"))
    assert seen == ["log"]


def test_publishing_from_many_threads_delivers_every_event_once() -> None:
    bus = EventBus()
    seen: list[str] = []
    bus.subscribe(lambda e: seen.append(e.message))  # type: ignore[attr-defined]

    def publish(prefix: str) -> None:
        for i in range(200):
            bus.publish(LogLine(nodeid="n", message=f"{prefix}{i}"))

    threads = [threading.Thread(target=publish, args=(p,)) for p in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(seen) == sorted(f"{p}{i}" for p in "abcd" for i in range(200))
    for p in "abcd":  # each thread's events in the order it published them
        mine = [m for m in seen if m.startswith(p)]
        assert mine == [f"{p}{i}" for i in range(200)]


def _run_started() -> RunStarted:
    return RunStarted(run_id="r1", runner_version="0.1.0", browser="chromium", specs=["a_spec.py"])


def test_the_writer_writes_each_event_at_once(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "events.jsonl"
    writer = EventsFileWriter(path)
    writer(_run_started())
    # flushed: a reader (another process, a kill right now) sees the line already
    assert path.read_text(encoding="utf-8").count("\n") == 1
    writer(LogLine(nodeid="n", message="über \n </script>"))
    writer.close()
    writer(LogLine(nodeid="n", message="after close"))  # ignored, never raises
    events = list(read_events(path))
    assert [e.kind for e in events] == ["run.started", "log"]
    assert events[1].message == "über \n </script>"  # type: ignore[attr-defined]


def _write(path: Path, lines: list[str], tail: str = "") -> Path:
    path.write_text("".join(line + "\n" for line in lines) + tail, encoding="utf-8")
    return path


@pytest.mark.parametrize("bad, line, reason", [
    ("{not json", 3, "not valid JSON"),
    ('{"v": 1, "kind": "nope"}', 3, "unknown event kind 'nope'"),
    ('{"v": 1, "kind": "log", "at": NaN, "nodeid": "n", "message": "m"}', 3, "not valid JSON: NaN is not a number JSON allows"),
    ('{"v": 1, "kind": "log", "at": 1, "nodeid": "n"}', 3, "log is missing 'message'"),
])
def test_a_bad_line_stops_the_reader_after_every_good_event_before_it(tmp_path: Path, bad: str, line: int,
                                                                       reason: str) -> None:
    good = [dumps_event(_run_started()), "", dumps_event(LogLine(nodeid="n", message="m"))]
    path = _write(tmp_path / "e.jsonl", [good[0], bad, good[2]])
    seen = []
    with pytest.raises(EventsFileError) as err:
        for event in read_events(path):
            seen.append(event.kind)
    assert seen == ["run.started"]
    assert err.value.line == 2 and reason in err.value.reason


def test_a_last_line_cut_short_is_named_as_such(tmp_path: Path) -> None:
    full = dumps_event(LogLine(nodeid="n", message="m"))
    path = _write(tmp_path / "e.jsonl", [dumps_event(_run_started())], tail=full[: len(full) // 2])
    events = []
    with pytest.raises(EventsFileError) as err:
        events.extend(read_events(path))
    assert len(events) == 1
    assert err.value.line == 2 and "cut short" in err.value.reason


def test_bytes_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_bytes(dumps_event(_run_started()).encode() + b"\n\xff\xfe\n")
    with pytest.raises(EventsFileError) as err:
        list(read_events(path))
    assert err.value.line == 2 and "not UTF-8" in err.value.reason


def test_a_field_of_the_wrong_shape_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.jsonl", ['{"v": 1, "kind": "run.ended", "at": 1e400, "duration_ms": 1, '
                                         '"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0}'])
    with pytest.raises(EventsFileError) as err:
        list(read_events(path))
    assert "finite" in err.value.reason


def test_attempt_and_run_events_keep_nested_data() -> None:
    attempt = AttemptEnded(spec="s", nodeid="n", attempt=2, state="failed", duration_ms=3.5,
                           routes=[{"id": "r1", "matches": 2}], requests=[{"url": "http://x/?a=1"}])
    assert from_json(json.loads(dumps_event(attempt))) == attempt
    ended = RunEnded(duration_ms=1, tests=1, passed=0, failed=1, pending=0, skipped=0, interrupted=True)
    assert from_json(json.loads(dumps_event(ended))).interrupted is True  # type: ignore[attr-defined]


@pytest.mark.parametrize(("changes", "line"), [
    ({"status": 200}, "(fetch) GET 200 http://h/api @a stubbed"),
    ({"error": "the handler raised ValueError: boom", "state": "Errored"},
     "(fetch) GET http://h/api @a stubbed: the handler raised ValueError: boom"),
    ({"state": "Received", "open": True}, "(fetch) GET http://h/api @a stubbed (still in flight when the test ended): Received"),
    ({"status": 200, "stubbed": False}, "(fetch) GET 200 http://h/api @a to the server"),
    ({"status": 200, "stubbed": False, "server": True}, "(server) GET 200 http://h/api @a to the service"),
    ({"status": 200, "server": True}, "(server) GET 200 http://h/api @a stubbed"),
])
def test_a_request_log_line_shows_its_status_before_the_url_and_an_error_after_it(changes: dict[str, object],
                                                                                 line: str) -> None:
    fields: dict[str, object] = {"nodeid": "n", "id": "1", "method": "GET", "url": "http://h/api", "route_ids": [],
                                 "aliases": ["a"], "stubbed": True, "state": "Complete", "resource_type": "fetch"}
    assert RequestIntercepted(**{**fields, **changes}).log_line() == line  # type: ignore[arg-type]
