"""What the HTML report's ``data/index.js`` says: the run's summary, its specs and one row per
test, gathered from the run-level events (run, spec, video, browser, webServer and plugin events) and from
each test as its page is written. :class:`~runner.reporters.html.report.HtmlReport` feeds it.
"""

from __future__ import annotations

import time
from typing import Any

from runner.events import (
    BrowserStarted,
    Event,
    PluginEvent,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    VideoWritten,
    WebServerExited,
    WebServerStarted,
)
from runner.reporters.html.details import TestEvents
from runner.reporters.model import NOT_RUN, RunResult

__all__ = ["RunIndex"]

_HEADLINE = 300  # characters of a failed test's error kept in the list


class RunIndex:
    """The index of one report: ``rows`` (one per test, in the order they were written),
    ``specs`` by name, the run's events and ``notes`` to show at the top."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.rows: list[list[Any]] = []
        self.specs: dict[str, dict[str, Any]] = {}
        self.browsers: list[dict[str, Any]] = []
        self.servers: list[dict[str, Any]] = []  # webServer entries: started or reused, and a death
        self.plugin_errors: list[str] = []
        self.started: RunStarted | None = None
        self.ended: RunEnded | None = None
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.quarantine: dict[str, str] = {}  # nodeid -> why the test is quarantined

    @property
    def failures(self) -> int:
        """Failed tests (not the quarantined ones), specs that could not be loaded, and flaky tests
        under ``--fail-on-flaky``, of the events so far."""
        return sum(1 for row in self.rows if row[3] == "failed" and row[7] not in self.quarantine) + \
            sum(1 for spec in self.specs.values() if spec["error"]) + self.failed_as_flaky

    @property
    def failed_as_flaky(self) -> int:
        """Flaky tests (passed on a retry, not quarantined) that fail a ``--fail-on-flaky`` run,
        which its run.ended says."""
        if self.ended is None or not self.ended.fail_on_flaky:
            return 0
        return sum(1 for row in self.rows if row[6] and row[3] == "passed" and row[7] not in self.quarantine)

    def saw(self, at: float) -> None:
        """An event at ``at``: the run's span when no run.started/run.ended says it."""
        self.first_at = at if self.first_at is None else self.first_at
        self.last_at = at

    def apply(self, event: Event) -> None:
        """A run-level event (others are ignored)."""
        if isinstance(event, (SpecStarted, SpecEnded, VideoWritten)):
            self._spec(event)
        elif isinstance(event, BrowserStarted):
            self.browsers.append({"name": event.name, "version": event.version, "path": event.path,
                                  "headless": event.headless, "launch": event.launch, "at": event.at})
        elif isinstance(event, (WebServerStarted, WebServerExited)):
            self._server(event)
        elif isinstance(event, PluginEvent):
            self.plugin_errors += [f"{event.name}: {error}" for error in event.errors]
        elif isinstance(event, RunStarted):
            self.started = event
        elif isinstance(event, RunEnded):
            self.ended = event

    def _spec(self, event: SpecStarted | SpecEnded | VideoWritten) -> None:
        spec = self.spec(event.spec)
        if isinstance(event, SpecStarted):
            spec["absolute"] = event.absolute
        elif isinstance(event, SpecEnded):
            spec.update(durationMs=round(event.duration_ms, 1), error=event.error, ended=True,
                        errorMessage=event.error_message, empty=event.empty)
            if spec["videoStartedAt"] is None:  # video.written (the final word) not seen yet
                spec["video"] = event.video
        else:
            spec["video"], spec["videoStartedAt"] = event.video, event.started_at or -1.0

    def _server(self, event: WebServerStarted | WebServerExited) -> None:
        server = next((s for s in self.servers if s["name"] == event.name), None)
        if server is None:
            server = {"name": event.name, "command": event.command, "target": None, "reused": False,
                      "pid": None, "tookMs": None, "exited": None, "output": []}
            self.servers.append(server)
        if isinstance(event, WebServerStarted):
            server.update(target=event.target, reused=event.reused, pid=event.pid,
                          tookMs=None if event.reused else round(event.took_ms))
        else:
            server.update(exited=event.status, output=list(event.output))
            self.notes.append(f"{event.name}: {event.command!r} {event.status} while the tests ran: the tests "
                              "after that had no server (see Run details).")

    def spec(self, name: str) -> dict[str, Any]:
        """The spec ``name`` as the index shows it (made the first time it is named)."""
        spec = self.specs.get(name)
        if spec is None:
            spec = self.specs[name] = {"name": name, "absolute": None, "durationMs": None, "error": None,
                                       "errorMessage": None, "video": None, "videoStartedAt": None,
                                       "empty": False, "ended": False}
        return spec

    def add_test(self, test: TestEvents, *, state: str, duration_ms: float, flaky: bool, slow: bool,
                 reason: str | None = None, verdict: str | None = None) -> None:
        """The row of a test whose page was written, with the headline of its error or skip (a
        test a retry strategy failed though an attempt passed: the strategy's verdict), or why it
        was not run (``reason``, state ``not_run``: no attempt)."""
        headline = None
        if state == "failed" and verdict and any(a.state == "passed" for a in test.attempts):
            headline = verdict[:_HEADLINE]
        elif state == "failed" or flaky:
            failed = [a for a in test.attempts if a.error or a.message]
            if failed:
                last = failed[-1]
                headline = (last.message or (last.error or "").strip().splitlines()[-1])[:_HEADLINE]
        elif state in ("skipped", "pending") and test.attempts and test.attempts[-1].message:
            headline = (test.attempts[-1].message or "")[:_HEADLINE]
        elif state == NOT_RUN:
            headline = (reason or "")[:_HEADLINE] or None
        self.spec(test.spec)
        self.rows.append([test.number, test.spec, list(test.title), state, round(duration_ms),
                          0 if state == NOT_RUN else max(len(test.attempts), 1), int(flaky), test.nodeid, round(test.started_at, 3),
                          headline, int(slow)])

    def data(self, run: RunResult, *, trace_viewer: bool) -> dict[str, Any]:
        """The index's data; ``run``: the results built from the same events (the specs in the
        order they started, the browser)."""
        order = list(self.started.specs) if self.started is not None else []
        order += [spec.relative for spec in run.specs if spec.relative not in order]
        order += [name for name in self.specs if name not in order]
        present = [name for name in order if name in self.specs]
        index_of = {name: i for i, name in enumerate(present)}
        rows = sorted(self.rows, key=lambda r: (index_of.get(r[1], len(index_of)), r[0]))
        for row in rows:
            row[1] = index_of.get(row[1], 0)
        return {"run": self._summary(run), "specs": [self.specs[name] for name in present], "tests": rows,
                "traceViewer": trace_viewer, "quarantine": dict(self.quarantine)}

    def _summary(self, run: RunResult) -> dict[str, Any]:
        started, ended = self.started, self.ended
        # a flaky test passed, but is counted once, as flaky: the chips add up to the tests
        states = ["flaky" if row[6] else row[3] for row in self.rows]
        totals = {"tests": len(self.rows), "passed": states.count("passed"), "failed": states.count("failed"),
                  "pending": states.count("pending"), "skipped": states.count("skipped"),
                  "flaky": sum(row[6] for row in self.rows), "unfinished": states.count("unfinished"),
                  "notRun": states.count(NOT_RUN),
                  "specErrors": sum(1 for s in self.specs.values() if s["error"]),
                  # failed, but quarantined: in "failed" too, and not a failure of the run
                  "quarantinedFailed": sum(1 for row in self.rows if row[3] == "failed" and row[7] in self.quarantine),
                  # --fail-on-flaky: flaky (passed) tests that fail the run
                  "failedAsFlaky": self.failed_as_flaky}
        notes = list(self.notes)
        if ended is None:
            notes.append("The events end before the run did (there is no run.ended event): the run was "
                         "stopped. The report shows what was recorded.")
        config = []
        if started is not None:
            for name, value in started.config.items():
                config.append([name, value, started.sources.get(name, "")])
        browser_version = (started.browser_version if started is not None else "") or \
            (self.browsers[0]["version"] if self.browsers else "")
        first, last = self.first_at or time.time(), self.last_at or time.time()
        return {
            "runId": started.run_id if started else None,
            "runnerVersion": started.runner_version if started else None,
            "browser": started.browser if started else (run.browser or None),
            "browserVersion": browser_version or None,
            "browsers": self.browsers,
            "servers": self.servers,
            "projectRoot": started.project_root if started else None,
            "mode": started.mode if started else None,
            "onlyChanged": started.only_changed if started else None,
            "startedAt": started.at if started else first,
            "endedAt": ended.at if ended else last,
            "durationMs": round(ended.duration_ms) if ended else round((last - first) * 1000),
            "interrupted": bool(ended.interrupted) if ended else True,
            "error": ended.error if ended else None,
            "stopped": ended.stopped if ended else None,
            "totals": totals,
            "config": config,
            "notes": notes,
            "pluginErrors": self.plugin_errors,
            "generatedAt": time.time(),
        }
