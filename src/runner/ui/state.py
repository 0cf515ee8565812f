"""What ``runner open``'s server remembers between runs, bounded by ``numTestsKeptInMemory``.

- the last state and duration of every spec and test that ran (small: one entry per test);
- the *kept* tests: each test's events (command log, routes, requests, its attempts) and its
  traces, for the last ``keep`` tests that ran, across runs. A test beyond that is dropped with
  its trace files (they are the server's own, in its temporary folder: never a project file);
  with 0 the running test is shown live and dropped when it ends. A test is kept once: a spec
  run again (all specs, the spec) replaces every test of that spec kept from earlier runs when
  it starts, and a test run again alone replaces its own earlier record only;
- the run's output (the child's stderr: warnings, errors), the last ``OUTPUT_LINES`` lines;
- the ``webServer`` servers runner open started or reused (:class:`ServerLines`): a line each, and
  a death while it runs, told to the pages at once.

Pure bookkeeping: no server, no I/O but deleting dropped traces under ``traces_root``. The
server hands every event the child tells to :meth:`UiState.apply` and sends the page what it
returns.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import signal
import threading
from asyncio import AbstractEventLoop
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.events import WebServerExited, WebServerStarted

__all__ = ["UiState", "KeptTest", "OUTPUT_LINES", "RunTally", "ServerLines"]

OUTPUT_LINES = 500

# The events that belong to one test (they carry its nodeid).
_TEST_EVENTS = {"test.started", "command.started", "command.ended", "log", "route.added",
                "route.aliased", "request.intercepted", "screenshot.taken", "a11y.checked", "snapshot.compared",
                "attempt.ended", "test.ended"}


#: A child's exit status when a signal (Ctrl-C, SIGTERM) ended its run: 128 + the signal.
_SIGNALLED = {130, 143}


@dataclass
class RunTally:
    """One run's tests by outcome (a flaky test is flaky, not also passed), its specs that could
    not be loaded, and whether its run.ended said it was interrupted: the words the status bar
    shows when the run ends, instead of the child's exit status."""

    counts: dict[str, int] = field(default_factory=dict)
    spec_errors: int = 0
    interrupted: bool = False
    started: bool = False  # run.started was seen
    ended: bool = False  # run.ended was seen
    died: bool = False  # the child died mid-run (see death_tail)
    errors: list[str] = field(default_factory=list)  # what the child said stopped it (its ``error`` messages)
    # the run's tests and specs starting and ending: what a death's last events are made from
    lifecycle: list[dict[str, Any]] = field(default_factory=list)

    def take(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind in _LIFECYCLE:
            self.lifecycle.append(event)
        if kind == "run.started":
            self.started = True
        elif kind == "run.ended":
            self.ended = True
        if kind == "test.ended":
            state = "flaky" if event.get("flaky") else str(event.get("state") or "failed")
            self.counts[state] = self.counts.get(state, 0) + 1
        elif kind == "spec.ended" and event.get("error"):
            self.spec_errors += 1
        elif kind == "run.ended" and event.get("interrupted"):
            self.interrupted = True

    def words(self, code: int, *, stopped: bool) -> str:
        """``"3 passed, 1 failed"``; ``"interrupted"`` (a signal the person did not send through
        the page) before the counts; what went wrong when no test could say it. A run the person
        stopped (the status bar already says "stopped") is told by its counts alone."""
        order = ("passed", "failed", "flaky", "pending", "skipped", "unfinished")
        parts = [f"{self.counts[name]} {name}" for name in (*order, *sorted(set(self.counts) - set(order)))
                 if self.counts.get(name)]
        if self.spec_errors:
            parts.append(f"{self.spec_errors} spec{'s' if self.spec_errors > 1 else ''} could not be loaded")
        counted = ", ".join(parts)
        if self.died:
            return f"the process running the tests died: {counted}" if counted else "the process running the tests died"
        if stopped:
            return counted or "no test ended"
        if self.interrupted or code in _SIGNALLED or code < 0:
            return f"interrupted: {counted}" if counted else "interrupted"
        error = self._error_words()
        if not counted:
            if error:
                return f"could not run: {error}"
            return "no tests ran" if code == 0 else "the run ended before any test (see the Output tab)"
        if code != 0 and not self.counts.get("failed") and not self.spec_errors:
            return f"{counted}; then: {error}" if error else f"{counted}; the run then failed (see the Output tab)"
        return counted

    def not_run(self) -> str:
        """Why the run never started (the child's error before its run began: the configuration,
        the plugins file, no spec matching), in words; "" when it started or told no error."""
        return "" if self.started or self.counts else self._error_words()

    def _error_words(self) -> str:
        """The child's first error on one line (a longer one's first line: the Output tab has it
        whole); "" when it told none."""
        lines = [line.strip() for line in (self.errors or [""])[0].splitlines() if line.strip()]
        if len(lines) > 1:
            return f"{lines[0].rstrip(':')} (see the Output tab)"
        return lines[0] if lines else ""

    def death_tail(self, code: int) -> list[dict[str, Any]]:
        """The child ended mid-run (run.started, no run.ended) with exit status ``code``, and not
        by an interruption (SIGINT, SIGTERM): a test that ends its process (``os._exit``, a crash,
        the OOM killer's SIGKILL). The events it could not publish, as ``runner run`` tells them
        (its running test failed by the death, the run ended), to be applied like its own; []
        when it did not die."""
        signalled = code in _SIGNALLED or -code in (signal.SIGINT, signal.SIGTERM)
        if not self.started or self.ended or signalled:
            return []
        from runner.events import from_json
        from runner.events.jsonl import dumps_event
        from runner.run.guard import death_events

        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            words = f"it was killed by {name}"
        else:
            words = f"it exited with status {code} without finishing the run (os._exit() or a crash in native code)"
        events = []
        for event in self.lifecycle:
            with contextlib.suppress(Exception):
                events.append(from_json(event))
        self.died = True
        return [json.loads(dumps_event(event)) for event in death_events(events, words)]


#: The events a death's last events are made from (RunTally.death_tail).
_LIFECYCLE = {"run.started", "spec.started", "spec.ended", "test.started", "attempt.ended", "test.ended"}


@dataclass
class KeptTest:
    """One test of one run: its events in order, and its traces (attempt -> file)."""

    key: str
    nodeid: str
    spec: str
    title: list[str]
    events: list[dict[str, Any]] = field(default_factory=list)
    traces: dict[int, Path] = field(default_factory=dict)
    # the images of its failed snapshot comparisons, by their number in the page's URLs
    images: list[Path] = field(default_factory=list)
    ended: bool = False
    run: int = 0  # the number of the run it belongs to

    def summary(self) -> dict[str, Any]:
        return {"key": self.key, "nodeid": self.nodeid, "spec": self.spec, "title": self.title,
                "events": self.events, "traces": sorted(self.traces), "run": self.run}


class UiState:
    def __init__(self, keep: int, traces_root: Path) -> None:
        self.keep = max(0, keep)
        self.traces_root = traces_root
        self.kept: OrderedDict[str, KeptTest] = OrderedDict()
        self.live: dict[str, KeptTest] = {}  # nodeid -> the running test's record
        self.spec_status: dict[str, dict[str, Any]] = {}
        self.test_status: dict[str, dict[str, Any]] = {}
        self.output: deque[str] = deque(maxlen=OUTPUT_LINES)
        self._keys = itertools.count(1)
        self._run = 0  # the number of the run whose events come in
        self._one_test = False  # that run runs one test (it replaces that test's record only)
        self._started: set[str] = set()  # the node ids that run started
        self.tally = RunTally()  # that run's tests, counted for its words when it ends

    @property
    def run(self) -> int:
        return self._run

    def new_run(self, number: int, *, one_test: bool = False) -> None:
        """Run ``number`` starts: its tally starts from nothing. ``one_test``: it runs one test of
        a spec, which replaces that test's earlier record only (the spec's other tests kept from
        earlier runs stay)."""
        self._run = number
        self._one_test = one_test
        self._started = set()
        self.tally = RunTally()

    def apply(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Take in one event (its JSON form); returns the messages for the page (the event with
        the key of its test, and ``drop`` messages for tests no longer kept)."""
        kind = event.get("kind")
        out: list[dict[str, Any]] = []
        self.tally.take(event)
        if kind == "spec.started":
            spec = str(event.get("spec"))
            self.spec_status[spec] = {"state": "running"}
            if not self._one_test:  # the spec runs again: its tests of earlier runs are replaced
                out += self._drop_kept(lambda r: r.spec == spec and r.run != self._run)
        elif kind == "spec.ended":
            spec = str(event.get("spec"))
            out += self._forget_stale(spec)  # before the event: the page's spec state counts without them
            state = "failed" if event.get("error") else self._spec_state(spec)
            self.spec_status[spec] = {"state": state, "duration_ms": event.get("duration_ms"),
                                      "error": event.get("error_message") or event.get("error")}
            return [*out, {"t": "event", "event": event}]
        if kind not in _TEST_EVENTS:
            return [{"t": "event", "event": event}, *out]
        nodeid = str(event.get("nodeid", ""))
        if kind == "test.started":
            self._started.add(nodeid)
            out += self._drop_kept(lambda r: r.nodeid == nodeid)  # the test runs again: once in the tabs
            started = KeptTest(key=f"t{next(self._keys)}", nodeid=nodeid, spec=str(event.get("spec", "")),
                               title=list(event.get("title") or []), run=self.run)
            self.live[nodeid] = started
            self.test_status[nodeid] = {"state": "running", "spec": started.spec, "title": started.title}
            if self.keep:
                self.kept[started.key] = started
                out += self._evict()
        live = self.live.get(nodeid)
        if live is None:
            return [{"t": "event", "event": event}, *out]
        record = live
        if kind == "snapshot.compared":
            event = self._with_image_urls(record, event)
        record.events.append(event)
        if kind == "attempt.ended" and event.get("trace"):
            self._take_trace(record, int(event.get("attempt") or 1), Path(str(event["trace"])))
        out.insert(0, {"t": "event", "key": record.key, "run": record.run, "event": event})
        if kind == "test.ended":
            record.ended = True
            self.live.pop(nodeid, None)
            self.test_status[nodeid] = {"state": event.get("state"), "duration_ms": event.get("duration_ms"),
                                        "spec": record.spec, "title": record.title,
                                        "quarantine": event.get("quarantine")}
            if not self.keep:
                self._delete_traces(record)
                out.append({"t": "drop", "key": record.key})
        return out

    @staticmethod
    def _with_image_urls(record: KeptTest, event: dict[str, Any]) -> dict[str, Any]:
        """A snapshot comparison's event with ``urls``: where the page gets its expected, actual
        and diff images (``/snapshots/<test key>/<n>.png``; the server serves only these)."""
        urls = {}
        for kind in ("expected", "actual", "diff"):
            path = event.get(kind)
            if isinstance(path, str) and path.endswith(".png"):
                record.images.append(Path(path))
                urls[kind] = f"/snapshots/{record.key}/{len(record.images)}.png"
        return {**event, "urls": urls}

    def image(self, key: str, number: int) -> Path | None:
        """The image file ``number`` (from 1) of a kept test's snapshot comparisons (None:
        unknown, dropped or gone)."""
        record = self.kept.get(key) or next((r for r in self.live.values() if r.key == key), None)
        if record is None or not 1 <= number <= len(record.images):
            return None
        path = record.images[number - 1]
        return path if path.is_file() else None

    def _forget_stale(self, spec: str) -> list[dict[str, Any]]:
        """A spec ran again (not one test of it): the statuses of its tests this run did not start
        (renamed, deleted, or the spec no longer loads) are an earlier run's, and go."""
        if self._one_test:
            return []
        stale = [n for n, s in self.test_status.items() if s.get("spec") == spec and n not in self._started]
        for nodeid in stale:
            del self.test_status[nodeid]
        return [{"t": "forget", "nodeids": stale}] if stale else []

    def _spec_state(self, spec: str) -> str:
        states = [s.get("state") for s in self.test_status.values() if s.get("spec") == spec]
        if "failed" in states:
            return "failed"
        return "passed" if "passed" in states or not states else str(states[-1])

    def _take_trace(self, record: KeptTest, attempt: int, path: Path) -> None:
        if self._is_ours(path):
            record.traces[attempt] = path

    def _is_ours(self, path: Path) -> bool:
        try:
            path.resolve().relative_to(self.traces_root.resolve())
        except (ValueError, OSError):
            return False
        return True

    def _evict(self) -> list[dict[str, Any]]:
        """The oldest kept tests beyond ``keep``, dropped."""
        return self._drop_kept(lambda _r: True, max(0, len(self.kept) - self.keep))

    def _drop_kept(self, which: Callable[[KeptTest], bool], most: int | None = None) -> list[dict[str, Any]]:
        """Drop the kept tests ``which`` selects (the oldest ``most`` of them), their traces
        deleted; the ``drop`` messages for the page."""
        doomed = [record for record in self.kept.values() if which(record)]
        out = []
        for old in doomed[:most]:
            del self.kept[old.key]
            if self.live.get(old.nodeid) is old:  # an earlier run's test that never ended
                del self.live[old.nodeid]
            self._delete_traces(old)
            old.events = []
            out.append({"t": "drop", "key": old.key})
        return out

    def _delete_traces(self, record: KeptTest) -> None:
        for path in record.traces.values():
            if self._is_ours(path):
                try:
                    path.unlink()
                except OSError:
                    pass
        record.traces.clear()

    def trace(self, key: str, attempt: int) -> Path | None:
        """The trace file of a kept test's attempt (None: unknown, dropped or gone)."""
        record = self.kept.get(key) or next((r for r in self.live.values() if r.key == key), None)
        path = record.traces.get(attempt) if record is not None else None
        return path if path is not None and path.is_file() else None

    def add_output(self, line: str) -> dict[str, Any]:
        self.output.append(line)
        return {"t": "output", "line": line}

    def snapshot(self) -> dict[str, Any]:
        """All the page needs when it (re)connects."""
        tests = [r.summary() for r in self.kept.values()]
        tests += [r.summary() for r in self.live.values() if r.key not in self.kept]
        return {"specStatus": self.spec_status, "testStatus": self.test_status, "tests": tests,
                "output": list(self.output)}


class ServerLines:
    """The ``webServer`` servers as the page shows them (``servers`` in its hello): one line each,
    started by runner (how long it took to answer) or reused, and how it ended when it died while
    runner open ran, with its last lines of output; every text through ``redact`` (the project's
    secrets). A death is heard on the server's watcher thread: once the server serves
    (:meth:`listen`), it is told to the pages on the server's loop at once, as a ``servers``
    message and an error notice."""

    def __init__(self, redact: Callable[[str], str] | None = None) -> None:
        self._redact = redact or (lambda text: text)
        self._lines: list[dict[str, Any]] = []
        self._lock = threading.Lock()  # a death comes on a watcher thread
        self._tell: tuple[AbstractEventLoop, Callable[[dict[str, Any]], None]] | None = None

    def started(self, events: list[WebServerStarted]) -> None:
        with self._lock:
            self._lines += [{"name": e.name, "command": self._redact(e.command), "target": self._redact(e.target),
                             "reused": e.reused, "tookMs": None if e.reused else round(e.took_ms),
                             "exited": None, "output": []} for e in events]

    def exited(self, event: WebServerExited) -> None:
        """A server died (on its watcher's thread)."""
        with self._lock:
            for line in self._lines:
                if line["name"] == event.name:
                    line.update(exited=event.status, output=[self._redact(text) for text in event.output])
            tell = self._tell
        if tell is not None:
            loop, broadcast = tell
            message = (f"{event.name}: {self._redact(event.command)!r} {event.status} while runner open ran: "
                       "the tests after this have no server (restart runner open to start it again).")
            with contextlib.suppress(RuntimeError):  # the loop is closed: runner open is ending
                loop.call_soon_threadsafe(self._told, broadcast, message)

    def _told(self, broadcast: Callable[[dict[str, Any]], None], message: str) -> None:
        broadcast({"t": "servers", "servers": self.snapshot()})
        broadcast({"t": "notice", "level": "error", "message": message})

    def listen(self, loop: AbstractEventLoop, broadcast: Callable[[dict[str, Any]], None]) -> None:
        """Tell a death from now on to the pages (``broadcast`` on ``loop``)."""
        with self._lock:
            self._tell = (loop, broadcast)

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(line, output=list(line["output"])) for line in self._lines]
