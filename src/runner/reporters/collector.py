"""Turns pytest's reports into runner's results, spec by spec, and tells the reporters.

Registered as a pytest plugin by runner's plugin whenever a run session is active. It also
emits the plugins file's ``before:spec`` / ``after:spec`` / ``after:run`` events, because it is
the one place that knows where a spec starts and ends.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from runner.reporters.base import Reporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.tracebacks import error_line, is_internal, message_line, split_error_line, user_frames

__all__ = ["ResultCollector", "ATTEMPTS_ATTR", "ERROR_ATTR", "error_summary", "relative_to_first"]

# Our runtest protocol attaches the earlier attempts of a retried test to its final reports.
ATTEMPTS_ATTR = "runner_attempts"
# ... and the plugin's makereport hook a failed report's (error type, one-line message).
ERROR_ATTR = "runner_error"


def error_summary(type_name: str, error: object) -> tuple[str, str]:
    """(``"CommandError"``, ``"CommandError: Timed out ..."``): the error's type and first line."""
    return type_name, error_line(type_name, "" if error is None else error)


def _summary_from_text(report: pytest.TestReport) -> tuple[str | None, str | None]:
    """The error's type and one line, read from pytest's crash line (a report without our attribute)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(getattr(crash, "message", "") or "").strip()
    if not text:
        lines = [line for line in (report.longreprtext or "").splitlines() if line.strip()]
        return None, (lines[-1].strip() if lines else None)
    first = text.splitlines()[0]
    error_type, message = split_error_line(first)
    return (None, first) if error_type is None else error_summary(error_type, message)


def relative_to_first(path: Path, roots: tuple[Path | None, ...]) -> str | None:
    """``path`` relative to the first of ``roots`` that holds it (posix form), else None."""
    for root in roots:
        if root is None:
            continue
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return None


def _title(nodeid: str) -> list[str]:
    parts = nodeid.split("::")[1:]
    return parts or [nodeid]


class ResultCollector:
    """A pytest plugin object; ``run`` holds the results when the session ends."""

    def __init__(self, *, project_root: Path, spec_root: Path | None, reporters: list[Reporter],
                 events: Any = None, emit_events: bool = True, browser: str = "",
                 version: str = "", config: dict[str, Any] | None = None,
                 slow_threshold: Any = None, test_extras: Any = None,
                 finish_spec: Any = None, settle_videos: Any = None,
                 spec_paths: list[Path] | None = None) -> None:
        self.project_root = project_root
        # the specs runner run selected, in order: a spec without tests is reported too
        self._spec_paths = [str(Path(p).resolve()) for p in spec_paths] if spec_paths is not None else None
        self._collected_files: set[str] = set()  # files that had tests (before -k deselected any)
        self._empty: set[str] = set()
        self.spec_root = spec_root
        self.reporters = reporters
        self.events = events
        self.emit_events = emit_events
        self.run = RunResult(browser=browser, runner_version=version, config=config or {})
        self._slow_threshold = slow_threshold  # callable(nodeid) -> ms
        self._test_extras = test_extras  # callable(nodeid) -> (log, routes, requests)
        self._finish_spec = finish_spec  # callable(passed) -> video path or None
        # callable() -> {video label given out: what it is now}, once every video is written
        self._settle_videos = settle_videos
        self._started = time.monotonic()
        self._specs: dict[str, SpecResult] = {}
        self._order: list[str] = []
        self._remaining: dict[str, int] = {}
        self._current: str | None = None
        self._spec_started = 0.0
        self._reports: dict[str, list[pytest.TestReport]] = {}
        self._announced = False
        # one message per reporter that raised (it is switched off for the rest of the run)
        self.reporter_failures: list[str] = []

    # -- helpers --------------------------------------------------------------------------
    def _relative(self, path: str) -> str:
        return relative_to_first(Path(path), (self.spec_root, self.project_root)) or Path(path).as_posix()

    def _spec(self, path: str) -> SpecResult:
        key = str(Path(path).resolve())
        if key not in self._specs:
            self._specs[key] = SpecResult(relative=self._relative(path), absolute=key)
            self._order.append(key)
        return self._specs[key]

    def _call(self, hook: str, *args: Any) -> None:
        for reporter in list(self.reporters):
            method = getattr(reporter, hook, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception as err:  # noqa: BLE001 - a broken reporter must not stop the tests
                self.reporters.remove(reporter)
                self.reporter_failures.append(_reporter_failure(reporter, hook, err))
                print(f"runner: {self.reporter_failures[-1]}", file=sys.stderr, flush=True)

    def _emit(self, event: str, *args: Any) -> None:
        if self.events is not None and self.emit_events:
            self.events.emit(event, *args)

    def _spec_payload(self, spec: SpecResult) -> dict[str, Any]:
        return {"name": Path(spec.absolute).name, "relative": spec.relative, "absolute": spec.absolute}

    # -- pytest hooks ---------------------------------------------------------------------
    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self._collected_files.add(str(Path(str(item.path)).resolve()))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            spec = self._spec(str(item.path))
            self._remaining[spec.absolute] = self._remaining.get(spec.absolute, 0) + 1
        if self._spec_paths is not None:
            self._add_specs_without_tests()
        self._announce()

    def _add_specs_without_tests(self) -> None:
        """List the selected specs in their order, with those that hold no test at all (those whose
        tests pytest arguments deselected are left out)."""
        assert self._spec_paths is not None
        ordered = []
        for key in self._spec_paths:
            if key in self._specs:
                ordered.append(key)
            elif key not in self._collected_files:
                self._spec(key)
                self._empty.add(key)
                ordered.append(key)
        self._order = ordered + [k for k in self._order if k not in ordered]

    def _announce(self) -> None:
        if self._announced:
            return
        self._announced = True
        self._call("on_run_start", self.run, [self._specs[k].relative for k in self._order])

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.fspath:
            spec = self._spec(str(report.fspath))
            spec.error = _load_error_text(str(report.longrepr))
            spec.error_type, spec.error_message = _load_error_summary(spec.error)

    def _report_specs_without_tests(self, before: str | None = None) -> None:
        """Report specs that could not be loaded or hold no test (there is nothing to wait for),
        in their place in the order: those listed before the spec ``before``, or all."""
        for key in self._order:
            if key == before:
                break
            spec = self._specs[key]
            if ((spec.error or key in self._empty) and self._remaining.get(key, 0) == 0
                    and spec not in self.run.specs):
                self._begin(spec)
                self._finish(spec)

    def _begin(self, spec: SpecResult) -> None:
        self._current = spec.absolute
        self._spec_started = time.monotonic()
        index = len(self.run.specs) + 1
        self.run.specs.append(spec)
        self._emit("before:spec", self._spec_payload(spec))
        self._call("on_spec_start", spec, index, len(self._order))

    def _finish(self, spec: SpecResult) -> None:
        spec.duration_ms = (time.monotonic() - self._spec_started) * 1000
        if self._finish_spec is not None:
            spec.video = self._finish_spec(spec.ok)
        self._call("on_spec_end", spec)
        self._emit("after:spec", self._spec_payload(spec), _spec_summary(spec))
        self._current = None

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        path = nodeid.split("::")[0]
        spec = self._spec_for_nodeid(path)
        if self._current != spec.absolute:
            self._report_specs_without_tests(before=spec.absolute)
            self._begin(spec)
        self._call("on_test_start", spec, _title(nodeid))

    def _spec_for_nodeid(self, path: str) -> SpecResult:
        candidate = Path(path)
        if not candidate.is_absolute():
            for root in (Path.cwd(), self.project_root):
                if (root / candidate).exists():
                    candidate = root / candidate
                    break
        return self._spec(str(candidate))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._reports.setdefault(report.nodeid, []).append(report)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        reports = self._reports.pop(nodeid, [])
        spec = self._spec_for_nodeid(nodeid.split("::")[0])
        test = self._test_result(nodeid, reports)
        spec.tests.append(test)
        spec.screenshots.extend(s for s in test.screenshots if s not in spec.screenshots)
        self._call("on_test_end", spec, test)
        remaining = self._remaining.get(spec.absolute, 1) - 1
        self._remaining[spec.absolute] = remaining
        if remaining <= 0:
            self._finish(spec)

    def _test_result(self, nodeid: str, reports: list[pytest.TestReport]) -> TestResult:
        final = _attempt_from_reports(reports)
        earlier: list[AttemptResult] = []
        for report in reports:
            earlier = getattr(report, ATTEMPTS_ATTR, None) or earlier
        attempts = [*earlier, final]
        duration = sum(a.duration_ms for a in attempts)
        test = TestResult(nodeid=nodeid, title=_title(nodeid), state=final.state,
                          attempts=attempts, duration_ms=duration)
        threshold = self._slow_threshold(nodeid) if self._slow_threshold else None
        test.slow = threshold is not None and duration > float(threshold)
        if self._test_extras is not None:
            log, routes, requests = self._test_extras(nodeid)
            test.log, test.routes, test.requests = log, routes, requests
        return test

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._announce()
        if self._current is not None:  # a spec cut short (-x, maxfail, interrupted) ends first
            self._finish(self._specs[self._current])
        self._report_specs_without_tests()
        if self._settle_videos is not None:
            changed = self._settle_videos()
            for spec in self.run.specs:
                if spec.video is not None and spec.video in changed:
                    spec.video = changed[spec.video]
        self.run.duration_ms = (time.monotonic() - self._started) * 1000
        if exitstatus in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) and not self.run.tests:
            return  # pytest did not run: there are no results to report (runner run says why)
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            self.run.error = "no tests ran"
        self._call("on_run_end", self.run)
        self._emit("after:run", _run_summary(self.run))


def _attempt_from_reports(reports: list[pytest.TestReport]) -> AttemptResult:
    state = "passed"
    error = None
    error_type = None
    message = None
    duration = 0.0
    screenshots: list[str] = []
    for report in reports:
        duration += report.duration * 1000
        screenshots += [str(v) for k, v in report.user_properties if k == "screenshot"]
        if report.failed and state != "failed":
            state = "failed"
            error = _error_text(report)
            error_type, message = getattr(report, ERROR_ATTR, None) or _summary_from_text(report)
            if message and report.when != "call":
                message = f"(in {report.when}) {message}"
        elif report.skipped and state == "passed":
            if hasattr(report, "wasxfail"):
                state = "pending"
                message = f"expected to fail: {report.wasxfail}" if report.wasxfail else "expected to fail"
            else:
                state = "pending" if report.when == "setup" else "skipped"
                message = _skip_reason(report)
    return AttemptResult(state=state, duration_ms=duration, error=error, error_type=error_type,
                         message=message, screenshots=screenshots)


def _skip_reason(report: pytest.TestReport) -> str | None:
    """``"Skipped: not now"``: the reason pytest recorded for a skip."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]) or None
    return None


def _error_text(report: pytest.TestReport) -> str:
    return (report.longreprtext or "").rstrip()  # the phase, when not "call", is in the message


#: A frame line of pytest's report: ``path:line: in function``.
_FRAME = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+): in ")


def _load_error_text(text: str) -> str:
    """pytest's report of a spec that could not be imported, without the frames of pytest's and
    Python's own import machinery (the user's frames and the error lines stay)."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        frame = _FRAME.match(line)
        if frame:
            skipping = is_internal(frame.group("path"))
        elif line.startswith("E ") or not line.startswith(" "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept).strip("\n") or text


def _load_error_summary(text: str) -> tuple[str | None, str | None]:
    """(type, one line) of a load error: ``("SyntaxError", "SyntaxError: invalid syntax (a_spec.py,
    line 3)")``, read from the report's ``E`` lines."""
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    if not errors:
        return None, None
    # the line that names the exception (a message may go on over several lines after it)
    last = next((e for e in reversed(errors) if split_error_line(e)[0] is not None), errors[-1])
    error_type = split_error_line(last)[0]
    where = next((m for m in (re.match(r'File "(.+)", line (\d+)', e) for e in errors) if m), None)
    if where is not None and error_type in ("SyntaxError", "IndentationError", "TabError"):
        last = f"{last} ({Path(where.group(1)).name}, line {where.group(2)})"
    return error_type, last


def _reporter_failure(reporter: Any, hook: str, err: Exception) -> str:
    """What a reporter that raised did, with the last frames of the reporter's own code."""
    name = getattr(reporter, "runner_name", None) or type(reporter).__name__
    kind = type(err).__name__
    message = message_line(err)
    where = user_frames(err, frames=2)
    after = "" if hook == "on_run_end" else "; the tests go on"
    return (f"the reporter {name!r} raised {kind} in {hook}" + (f": {message}" if message else "")
            + (f"\n{where}" if where else "") + f"\nIt is switched off for the rest of the run{after}.")


def _spec_summary(spec: SpecResult) -> dict[str, Any]:
    return {"tests": len(spec.tests), "passes": spec.count("passed"), "failures": spec.failures,
            "pending": spec.count("pending"), "skipped": spec.count("skipped"),
            "duration": round(spec.duration_ms), "error": spec.error, "video": spec.video}


def _run_summary(run: RunResult) -> dict[str, Any]:
    return {"totalTests": run.tests, "totalPassed": run.total("passed"), "totalFailed": run.failures,
            "totalPending": run.total("pending"), "totalSkipped": run.total("skipped"),
            "totalDuration": round(run.duration_ms),
            "runs": [{"spec": s.relative, **_spec_summary(s)} for s in run.specs]}
