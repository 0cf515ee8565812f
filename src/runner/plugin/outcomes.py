"""What pytest's reports say about one attempt of a test or one spec that could not be loaded.

Reports may come from this process or, under pytest-xdist, from a worker process (pytest
serializes them). So what runner adds to a report is plain JSON data in attributes of its own:
``runner_error`` (the failure's type and one line), ``runner_attempts`` (the earlier attempts of
a retried test) and ``runner_test`` (the attempt's command log, routes, requests, slow threshold,
trace file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from runner.events.cut import ERROR_TEXT_LIMIT, cut_line, cut_text
from runner.usercode.tracebacks import error_line, is_internal, split_error_line

__all__ = ["ALLOWED_ATTR", "DIED_TYPE", "ERROR_ATTR", "died_report", "spec_exit_report", "ATTEMPTS_ATTR", "TEST_ATTR", "EVENTS_ATTR", "SPEC_VIDEO_ATTR", "QUARANTINE_ATTR", "INTERRUPTED_TYPE", "VERDICT_ATTR", "error_summary",
           "attempt_from_reports", "interrupted_report", "interruption_reason", "load_error_text",
           "load_error_summary", "relative_to_first", "title_of"]

#: ``[type name, one line]`` of a failed report (set by the plugin's makereport hook).
ERROR_ATTR = "runner_error"
#: The earlier attempts of a retried test, on its final reports (attempt dicts).
ATTEMPTS_ATTR = "runner_attempts"
#: On a test's final reports: how many attempts its retries allowed (``retries`` + 1).
ALLOWED_ATTR = "runner_attempts_allowed"
#: On a test's final reports, when a retry strategy decided its outcome: ``{"outcome", "text",
#: "last_attempt_kept"}`` (``text``: "passed 2 of 3 attempts, 2 required (...)"; with
#: ``last_attempt_kept`` the attempts in ``ATTEMPTS_ATTR`` include the last, as it ran, because
#: the strategy failed a test whose last attempt passed).
VERDICT_ATTR = "runner_verdict"
#: On an attempt's teardown report: ``{"log", "routes", "requests", "slow_ms", "trace"}``.
TEST_ATTR = "runner_test"
#: In pytest-xdist workers: the finer events of the test (commands, routes, requests, ...) as
#: JSON, and the spec's video when the spec ended there (see worker_relay.py)
EVENTS_ATTR = "runner_events"
SPEC_VIDEO_ATTR = "runner_spec_video"
#: On a quarantined test's reports: why it is quarantined (plugin/quarantine.py).
QUARANTINE_ATTR = "runner_quarantine"


def error_summary(type_name: str, error: object) -> list[str]:
    """``["CommandError", "CommandError: Timed out ..."]``: the error's type and first line."""
    return [type_name, error_line(type_name, "" if error is None else error)]


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


def title_of(nodeid: str) -> list[str]:
    """``a_spec.py::Suite::test_x`` -> ``["Suite", "test_x"]``."""
    parts = nodeid.split("::")[1:]
    return parts or [nodeid]


def _summary_from_text(report: pytest.TestReport) -> tuple[str | None, str | None]:
    """The error's type and one line, read from pytest's crash line (a report without ours)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(getattr(crash, "message", "") or "").strip()
    if not text:
        lines = [line for line in (report.longreprtext or "").splitlines() if line.strip()]
        return None, (lines[-1].strip() if lines else None)
    first = text.splitlines()[0]
    error_type, message = split_error_line(first)
    if error_type is None:
        return None, first
    kind, line = error_summary(error_type, message)
    return kind, line


def _failure_text(report: pytest.TestReport) -> str:
    """The report's text as pytest writes it, less the line a pytest-xdist worker's report opens
    with (``[gw0] linux -- Python 3.11.7 /path/to/python``: which process ran it, not the failure)."""
    text = (report.longreprtext or "").rstrip()
    if getattr(report, "node", None) is not None:
        first, _, rest = text.partition("\n")
        if first.startswith("[") and " -- Python " in first:
            text = rest.lstrip("\n")
    return text


def attempt_from_reports(reports: list[pytest.TestReport]) -> dict[str, Any]:
    """One attempt (its setup, call and teardown reports) as plain data: ``state`` (passed,
    failed, pending, skipped), ``duration_ms``, ``error`` (the whole report), ``error_type``,
    ``message`` (one line, or why it was skipped), ``screenshots``, ``log``, ``routes``,
    ``requests``, ``slow_ms`` (None: the run's threshold) and ``trace`` (the trace file kept, or
    None)."""
    state = "passed"
    error = error_type = message = None
    duration = 0.0
    screenshots: list[str] = []
    extras: dict[str, Any] = {}
    for report in reports:
        duration += report.duration * 1000
        screenshots += [str(v) for k, v in report.user_properties if k == "screenshot"]
        extras = getattr(report, TEST_ATTR, None) or extras
        if report.failed and state != "failed":
            state = "failed"
            error = _failure_text(report)  # the phase, when not "call", is in the message
            summary = getattr(report, ERROR_ATTR, None)
            error_type, message = tuple(summary) if summary else _summary_from_text(report)
            if message and report.when != "call":
                message = f"(in {report.when}) {message}"
        elif report.skipped and state == "passed":
            if hasattr(report, "wasxfail"):
                state = "pending"
                message = f"expected to fail: {report.wasxfail}" if report.wasxfail else "expected to fail"
            else:
                state = "pending" if report.when == "setup" else "skipped"
                message = _skip_reason(report)
    # a failure's text is whatever the test's assertion or exception held: capped (events/cut.py)
    if error is not None:
        error = cut_text(error, ERROR_TEXT_LIMIT, "the failure's report")
    if message is not None:
        message = cut_line(message)
    return {"state": state, "duration_ms": duration, "error": error, "error_type": error_type,
            "message": message, "screenshots": screenshots, "log": list(extras.get("log", [])),
            "routes": list(extras.get("routes", [])), "requests": list(extras.get("requests", [])),
            "slow_ms": extras.get("slow_ms"), "trace": extras.get("trace")}


def _skip_reason(report: pytest.TestReport) -> str | None:
    """``"Skipped: not now"``: the reason pytest recorded for a skip."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]) or None
    return None


#: A frame line of pytest's report: ``path:line: in function``.
_FRAME = re.compile(r"^(?P<path>\S.*?):(?P<line>\d+): in ")


def load_error_text(text: str) -> str:
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
    return cut_text("\n".join(kept).strip("\n") or text, ERROR_TEXT_LIMIT, "the spec's load error")


def load_error_summary(text: str) -> tuple[str | None, str | None]:
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


#: The error type an interrupted attempt is reported with.
INTERRUPTED_TYPE = "Interrupted"


def spec_exit_report(module: pytest.Module, exc: SystemExit) -> pytest.CollectReport:
    """The failed collection of a spec that called ``sys.exit()`` as it was imported: the user's
    frames, and a last line saying what happened and what to do."""
    excinfo = pytest.ExceptionInfo.from_exception(exc)
    frames = str(module._repr_failure_py(excinfo, style="short"))  # noqa: SLF001 - pytest's own rendering
    line = (f"E   SystemExit: the spec called sys.exit({exc.code!r}) while it was imported, which would end "
            "the whole run; its tests did not run. Raise an exception (or pytest.skip(..., "
            "allow_module_level=True)) instead, or move the call into a test.")
    return pytest.CollectReport(module.nodeid, "failed", longrepr=f"{frames}\n{line}", result=[])


#: The error type of an attempt whose process died under it (os._exit, a crash, SIGKILL).
DIED_TYPE = "TestProcessDied"


def died_report(nodeid: str, location: tuple[str, int | None, str], how: str,
                duration_s: float) -> pytest.TestReport:
    """The report of an attempt that ended because the process running it died (``how``: what
    is known of the death), failed with that as its error."""
    line = f"{DIED_TYPE}: the process running the tests died while this test was running: {how}."
    report = pytest.TestReport(nodeid=nodeid, location=location, keywords={}, outcome="failed",
                               longrepr=line, when="call", duration=duration_s)
    setattr(report, ERROR_ATTR, [DIED_TYPE, line])
    return report


def interruption_reason(signal_name: str | None, error: BaseException | None) -> str:
    """What stopped the run, in a few words: ``"SIGTERM"``, ``"pytest.exit('why')"``, or
    ``"KeyboardInterrupt (Ctrl-C)"``."""
    if signal_name:
        return signal_name
    if isinstance(error, pytest.exit.Exception):
        return f"pytest.exit({error.msg!r})"
    return "KeyboardInterrupt (Ctrl-C)"


def interrupted_report(nodeid: str, location: tuple[str, int | None, str], reason: str,
                       duration_s: float, extras: dict[str, Any] | None = None) -> pytest.TestReport:
    """The report of an attempt the run's interruption cut short: failed, with the reason as its
    error, so that no report of the run says that everything passed. ``extras``: the attempt's
    log, routes and requests (see ``TEST_ATTR``)."""
    line = f"{INTERRUPTED_TYPE}: the run was stopped by {reason} while this test was running."
    report = pytest.TestReport(nodeid=nodeid, location=location, keywords={}, outcome="failed",
                               longrepr=line, when="call", duration=duration_s)
    setattr(report, ERROR_ATTR, [INTERRUPTED_TYPE, line])
    if extras:
        setattr(report, TEST_ATTR, extras)
    return report
