"""Builds the reporters' results (``RunResult``, ``SpecResult``, ...) from run events.

The same builder serves a live run (events as they are published) and a replay of an events
file, so both give the reporters the same data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from runner.events import (
    AttemptEnded,
    Event,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    VideoWritten,
)
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult

__all__ = ["RunBuilder", "spec_summary", "run_summary", "iso_time"]


def iso_time(at: float) -> str:
    """``2026-11-23T17:50:42.123+00:00``: an event's time as the json reporter writes it."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")


class RunBuilder:
    """Applies events to one :class:`RunResult`; ``run.specs`` in the order specs started."""

    def __init__(self) -> None:
        self.run = RunResult()
        self.spec_paths: list[str] = []
        self.specs: dict[str, SpecResult] = {}
        self._attempts: dict[str, list[AttemptResult]] = {}
        self._extras: dict[str, AttemptEnded] = {}

    def spec(self, name: str) -> SpecResult:
        """The spec ``name`` (as events name it), made when first seen."""
        spec = self.specs.get(name)
        if spec is None:
            spec = self.specs[name] = SpecResult(relative=name, absolute=name)
            self.run.specs.append(spec)
        return spec

    def apply(self, event: Event) -> Any:
        """Apply ``event``; returns the result it made or changed (the spec, the test, the run),
        or None."""
        if isinstance(event, AttemptEnded):
            self._attempts.setdefault(event.nodeid, []).append(AttemptResult(
                state=event.state, duration_ms=event.duration_ms, error=event.error,
                error_type=event.error_type, message=event.message, screenshots=list(event.screenshots),
                trace=event.trace,
            ))
            self._extras[event.nodeid] = event
            return None
        if isinstance(event, TestEnded):
            attempts = self._attempts.pop(event.nodeid, [])
            extras = self._extras.pop(event.nodeid, None)
            test = TestResult(nodeid=event.nodeid, title=list(event.title), state=event.state,
                              attempts=attempts, duration_ms=event.duration_ms, slow=event.slow,
                              attempts_allowed=event.attempts_allowed, quarantine=event.quarantine,
                              reason=event.reason, verdict=event.verdict)
            if extras is not None:
                test.log, test.routes, test.requests = list(extras.log), list(extras.routes), list(extras.requests)
            spec = self.spec(event.spec)
            spec.tests.append(test)
            spec.screenshots.extend(s for s in test.screenshots if s not in spec.screenshots)
            spec.traces.extend(t for t in test.traces if t not in spec.traces)
            return test
        if isinstance(event, SpecStarted):
            spec = self.spec(event.spec)
            spec.absolute = event.absolute
            spec.started_at = event.at
            return spec
        if isinstance(event, SpecEnded):
            spec = self.spec(event.spec)
            spec.duration_ms = event.duration_ms
            spec.error, spec.error_type, spec.error_message = event.error, event.error_type, event.error_message
            if event.video is not None or spec.video is None:
                spec.video = event.video
            return spec
        if isinstance(event, VideoWritten):
            spec = self.spec(event.spec)
            spec.video = event.video
            return spec
        if isinstance(event, RunStarted):
            run = self.run
            run.browser, run.runner_version, run.config = event.browser, event.runner_version, dict(event.config)
            run.started_at = iso_time(event.at)
            self.spec_paths = list(event.specs)
            return run
        if isinstance(event, RunEnded):
            self.run.duration_ms = event.duration_ms
            self.run.error = event.error
            self.run.stopped = event.stopped
            if event.fail_on_flaky:
                self.run.fail_flaky()
            self.run.ended_at = iso_time(event.at)
            return self.run
        return None


def spec_summary(spec: SpecResult) -> dict[str, Any]:
    """A spec's counts as the plugins file's ``after:spec`` gets them."""
    return {"tests": len(spec.tests), "passes": spec.count("passed"), "failures": spec.failures,
            "pending": spec.count("pending"), "skipped": spec.count("skipped"),
            "duration": round(spec.duration_ms), "error": spec.error, "video": spec.video}


def run_summary(run: RunResult) -> dict[str, Any]:
    """The run's totals as the plugins file's ``after:run`` gets them."""
    return {"totalTests": run.tests, "totalPassed": run.total("passed"), "totalFailed": run.failures,
            "totalPending": run.total("pending"), "totalSkipped": run.total("skipped"),
            "totalDuration": round(run.duration_ms),
            "runs": [{"spec": s.relative, **spec_summary(s)} for s in run.specs]}
