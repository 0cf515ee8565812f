"""One test's page of the report, as data: its attempts, each with its error, screenshots, snapshot
comparisons (expected, actual, diff), trace, command log, Routes table, intercepted requests
(headers, bodies, timings) and accessibility checks (``runner.check_a11y``'s violations).

The events of a test are gathered while it runs (:class:`TestEvents`) and turned into the data
of its page when it ends (:func:`test_page`); then they are dropped, so a long run holds one
test's events at a time. Where the live events are missing (tests run by pytest-xdist workers
publish their commands and requests in the worker), the attempt's own rows are used instead:
``attempt.ended.log`` for the command log, ``attempt.ended.requests`` for the requests.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.events import (
    A11yChecked,
    AttemptEnded,
    CommandEnded,
    CommandStarted,
    LogLine,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
    ScreenshotTaken,
    SnapshotCompared,
)
from runner.reporters.html.bodies import WriteFile, body_view
from runner.reporters.html.files import ArtifactCopies
from runner.reporters.model import NOT_RUN

__all__ = ["TestEvents", "test_page"]


@dataclass
class TestEvents:
    """What happened in one test, as its events came."""

    __test__ = False  # not a pytest test class

    number: int
    nodeid: str
    spec: str
    title: list[str]
    started_at: float
    commands: list[CommandStarted | CommandEnded | LogLine] = field(default_factory=list)
    routes: list[RouteAdded | RouteAliased] = field(default_factory=list)
    requests: list[RequestIntercepted] = field(default_factory=list)
    shots: list[ScreenshotTaken] = field(default_factory=list)
    checks: list[A11yChecked] = field(default_factory=list)
    snapshots: list[SnapshotCompared] = field(default_factory=list)
    attempts: list[AttemptEnded] = field(default_factory=list)

    def attempt_numbers(self) -> list[int]:
        """Every attempt told, ended or not (a run cut short leaves one unended)."""
        seen = {a.attempt for a in self.attempts}
        for group in (self.commands, self.routes, self.requests, self.shots, self.checks, self.snapshots):
            seen.update(e.attempt for e in group)
        return sorted(seen) or [1]


def _ms(value: Any) -> float | None:
    return round(float(value), 1) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@functools.lru_cache(maxsize=4096)
def _relative(path: str | None, root: Path | None) -> str | None:
    """``path`` relative to the project (as the user reads it), when it is inside it."""
    if not path or root is None:
        return path
    try:
        return os.path.relpath(path, root) if Path(path).is_relative_to(root) else path
    except ValueError:
        return path


def _commands(events: list[CommandStarted | CommandEnded | LogLine], start: float,
              root: Path | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    open_rows: dict[int, dict[str, Any]] = {}
    depths: dict[int, int] = {}  # by command id: how deep in custom commands it ran
    row: dict[str, Any] | None
    for event in events:
        at = round((event.at - start) * 1000, 1)
        if isinstance(event, CommandStarted):
            depth = depths[event.id] = depths.get(event.parent, -1) + 1 if event.parent is not None else 0
            row = {"kind": "command", "name": event.name, "args": event.args, "subject": event.subject,
                   "file": _relative(event.file, root), "line": event.line, "at": at,
                   "durationMs": None, "state": "running", "error": None, "result": None, "depth": depth}
            rows.append(row)
            open_rows[event.id] = row
        elif isinstance(event, CommandEnded):
            row = open_rows.pop(event.id, None)
            if row is None:  # its start is not in the events (a cut file): told from its end
                row = {"kind": "command", "name": event.name, "args": "", "subject": None, "file": None,
                       "line": None, "at": round(at - event.duration_ms, 1)}
                rows.append(row)
            row.update(durationMs=_ms(event.duration_ms), state=event.state, error=event.error, result=event.result)
        else:
            rows.append({"kind": "log", "name": "log", "args": event.message, "at": at, "state": "passed",
                         "file": _relative(event.file, root), "line": event.line})
    return rows


def _route_rows(attempt: AttemptEnded | None, events: list[RouteAdded | RouteAliased]) -> list[dict[str, Any]]:
    if attempt is not None and attempt.routes:
        return [_server_marked({"method": r.get("method"), "matcher": r.get("matcher"), "stubbed": r.get("stubbed"),
                                "alias": r.get("alias"), "matches": r.get("matches"), "handler": r.get("handler"),
                                "times": r.get("times"), "middleware": r.get("middleware")}, bool(r.get("server")))
                for r in attempt.routes if isinstance(r, dict)]
    rows: dict[str, dict[str, Any]] = {}
    for event in events:  # the attempt did not end: the routes as they were added
        if isinstance(event, RouteAdded):
            rows[event.route_id] = _server_marked({"method": event.method, "matcher": event.matcher,
                                                   "stubbed": event.stubbed, "alias": event.alias, "matches": None,
                                                   "handler": event.handler, "times": event.times,
                                                   "middleware": event.middleware}, event.server)
        elif event.route_id in rows:
            rows[event.route_id]["alias"] = event.alias
    return list(rows.values())


def _server_marked(row: dict[str, Any], server: bool) -> dict[str, Any]:
    """A route's or request's row, with ``server: True`` when it is the app's server's (the
    page's rows stay as they were)."""
    if server:
        row["server"] = True
    return row


def _request(event: RequestIntercepted, start: float, write: Callable[[bytes, str, str], str]) -> dict[str, Any]:
    timings = {k: _ms(v) for k, v in (event.timings or {}).items()}
    total = timings.get("total")
    begun = event.at - (total or 0) / 1000
    return _server_marked({
        "method": event.method, "url": event.url, "status": event.status, "state": event.state,
        "error": event.error, "stubbed": event.stubbed, "aliases": list(event.aliases),
        "resourceType": event.resource_type, "at": round((begun - start) * 1000, 1), "timings": timings,
        "open": event.open, "late": event.late,
        "requestHeaders": dict(event.request_headers), "responseHeaders": dict(event.response_headers),
        "requestBody": body_view(event.request_body, size=event.request_body_size, present=True,
                                 write=lambda data, ext: write(data, "request", ext)),
        "responseBody": body_view(event.response_body, size=event.response_body_size,
                                  present=event.status is not None,
                                  write=lambda data, ext: write(data, "response", ext)),
    }, event.server)


def _request_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of ``attempt.ended.requests`` (no bodies, no time of its own)."""
    found = row.get("timings")
    timings: dict[str, Any] = found if isinstance(found, dict) else {}
    status = row.get("status")
    return _server_marked({
        "method": row.get("method"), "url": row.get("url"), "status": status, "state": row.get("state"),
        "error": row.get("error"), "stubbed": row.get("stubbed"), "aliases": list(row.get("aliases") or []),
        "resourceType": row.get("resource_type"), "at": None,
        "open": bool(row.get("open")), "late": bool(row.get("late")),
        "timings": {k: _ms(v) for k, v in timings.items()},
        "requestHeaders": dict(row.get("request_headers") or {}),
        "responseHeaders": dict(row.get("response_headers") or {}),
        "requestBody": body_view(None, size=row.get("request_body_size"), present=True, write=_no_write),
        "responseBody": body_view(None, size=row.get("response_body_size"), present=status is not None,
                                  write=_no_write),
    }, bool(row.get("server")))


def _logged_request(event: RequestIntercepted, start: float) -> dict[str, Any]:
    """An intercepted request's line in the command log (placed where the request began)."""
    total = event.timings.get("total") if event.timings else None
    ended = round((event.at - start) * 1000, 1)
    return {"kind": "request", "name": "server" if event.server else event.resource_type or "request",
            "args": f"{event.method} {event.outcome} {event.url}", "aliases": list(event.aliases),
            "stubbed": event.stubbed, "at": round(ended - total, 1) if isinstance(total, (int, float)) else ended,
            "durationMs": _ms(total), "state": "failed" if event.state == "Errored" else "passed",
            "error": event.error if event.state == "Errored" else None, "open": event.open, "late": event.late,
            "server": event.server}


def _check(event: A11yChecked) -> dict[str, Any]:
    """An accessibility check as its table shows it (the violations as the event has them)."""
    return {"command": event.command, "scope": event.scope, "impact": event.impact, "warn": event.warn,
            "rules": event.rules, "ignored": event.ignored, "axe": event.axe,
            "violations": [dict(v) for v in event.violations if isinstance(v, dict)]}


def _snapshot(event: SnapshotCompared, copies: ArtifactCopies, root: Path | None) -> dict[str, Any]:
    """A snapshot assertion's part of the page: its outcome, words, and the images copied."""
    return {"what": event.what, "name": event.name, "outcome": event.outcome, "passed": event.passed,
            "baseline": _relative(event.baseline, root), "message": event.message,
            "diffPixels": event.diff_pixels, "diffRatio": event.diff_ratio, "threshold": event.threshold,
            "maxDiffPixels": event.max_diff_pixels, "maxDiffPixelRatio": event.max_diff_pixel_ratio,
            "expected": copies.add(event.expected, "snapshots"), "actual": copies.add(event.actual, "snapshots"),
            "diff": copies.add(event.diff, "snapshots"), "diffText": event.diff_text}


def _no_write(data: bytes, extension: str) -> str:  # pragma: no cover - never called without a body
    raise AssertionError("no body to write")


def test_page(test: TestEvents, *, state: str, duration_ms: float, flaky: bool, slow: bool,
              copies: ArtifactCopies, write_body: WriteFile, project_root: Path | None) -> dict[str, Any]:
    """The data of ``test``'s page. Screenshots and traces are copied into the report now (they
    are complete when the attempt ends); ``write_body(data, name)`` writes a body file."""
    ended = {a.attempt: a for a in test.attempts}
    attempts = []
    # The first attempt begins with the test, each later one where the one before ended (never
    # after its own first event). Not its end less its duration: pytest's durations leave out the
    # failure screenshot and the test's settling, so every command read "+0ms" in a failed test.
    begun = test.started_at
    # a test the run stopped before (--max-failures) had no attempt: its page says only why
    for number in [] if state == NOT_RUN else test.attempt_numbers():
        attempt = ended.get(number)
        firsts = [e.at for group in (test.commands, test.routes, test.requests) for e in group
                  if e.attempt == number]
        start = min([begun, *firsts])
        if attempt is not None:
            begun = attempt.at
        commands = _commands([e for e in test.commands if e.attempt == number], start, project_root)
        failure_shots = {s.path for s in test.shots if s.attempt == number and s.failure}
        shot_paths = list(attempt.screenshots) if attempt is not None else []
        shot_paths += [s.path for s in test.shots if s.attempt == number and s.path not in shot_paths]
        screenshots = []
        for path in shot_paths:
            copied = copies.add(path, "screenshots")
            if copied is not None:
                screenshots.append({**copied, "name": Path(path).name, "failure": path in failure_shots})
        requests = [e for e in test.requests if e.attempt == number]
        if requests:  # the intercepted requests are in the command log too (unless `log: False`)
            commands = sorted(commands + [_logged_request(e, start) for e in requests if e.log],
                              key=lambda row: row["at"] if row["at"] is not None else 0.0)
        count = 0

        def write(data: bytes, which: str, extension: str, number: int = number) -> str:
            nonlocal count
            count += 1
            return write_body(data, f"{number}-{count}-{which}.{extension}")

        if requests:
            request_rows = [_request(e, start, write) for e in requests]
            requests_from = "events"
        else:
            rows = attempt.requests if attempt is not None else []
            request_rows = [_request_row(r) for r in rows if isinstance(r, dict)]
            requests_from = "attempt"
        attempts.append({
            "attempt": number,
            "state": attempt.state if attempt is not None else "unfinished",
            "durationMs": _ms(attempt.duration_ms) if attempt is not None else None,
            "startedAt": start,
            "error": attempt.error if attempt is not None else None,
            "errorType": attempt.error_type if attempt is not None else None,
            "message": attempt.message if attempt is not None else None,
            "screenshots": screenshots,
            "snapshots": [_snapshot(e, copies, project_root) for e in test.snapshots if e.attempt == number],
            "trace": copies.add(attempt.trace, "traces") if attempt is not None else None,
            "commands": commands,
            "log": list(attempt.log) if attempt is not None and not commands else [],
            "routes": _route_rows(attempt, [e for e in test.routes if e.attempt == number]),
            "requests": request_rows,
            "requestsFrom": requests_from,
            "a11y": [_check(e) for e in test.checks if e.attempt == number],
        })
    return {"number": test.number, "nodeid": test.nodeid, "spec": test.spec, "title": list(test.title),
            "state": state, "durationMs": _ms(duration_ms), "flaky": flaky, "slow": slow,
            "startedAt": test.started_at, "attempts": attempts}
