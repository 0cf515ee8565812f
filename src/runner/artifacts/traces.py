"""Which attempts of a test record a Playwright trace, which traces are kept, and where they go.

The ``trace`` option (the ``runner`` mark may set it per test or suite):

- ``"off"``: no attempt is recorded;
- ``"on"``: every attempt is recorded and kept;
- ``"retain-on-failure"`` (the default): every attempt is recorded, kept when it failed;
- ``"on-first-retry"``: only attempt 2 (the first retry) is recorded, and kept.

A trace that is not kept is never written (Playwright discards it: no disk cost). A kept one
goes to ``<tracesFolder>/<spec relative path>/<test title>.zip``, `` (attempt N)`` added for
attempts after the first, with the names made safe as screenshot names are. The steps whose
command failed carry its error (:func:`mark_failed_steps`).
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.artifacts.screenshots import claim_artifact_path

__all__ = ["records_trace", "keeps_trace", "claim_trace_path", "StepError", "FailureStep", "mark_failed_steps",
           "SNAPSHOT_CALL"]

#: The expression runner evaluates in the page at the end of a step, for its DOM snapshot alone.
SNAPSHOT_CALL = "0"

def records_trace(mode: str, attempt: int) -> bool:
    """Whether attempt ``attempt`` (1 for the first run of a test) of a test whose ``trace`` is
    ``mode`` is recorded."""
    if mode in ("on", "retain-on-failure"):
        return True
    if mode == "on-first-retry":
        return attempt == 2
    return False


def keeps_trace(mode: str, attempt: int, *, failed: bool) -> bool:
    """Whether the trace of a recorded attempt is kept (written): ``failed`` is whether the
    attempt failed in its setup or its call (see docs/traces.md for teardown)."""
    if not records_trace(mode, attempt):
        return False
    return failed if mode == "retain-on-failure" else True


def claim_trace_path(folder: Path, spec_relative: str, title: str, *, attempt: int, taken: set[Path]) -> Path:
    """``<folder>/<spec_relative>/<title>.zip`` (`` (attempt N)`` for N > 1), not one of ``taken``
    (it is added to it): two tests whose titles make the same file name get `` (2)``."""
    return claim_artifact_path(folder / spec_relative, title, taken=taken, attempt=attempt, extension=".zip")


@dataclass(frozen=True)
class StepError:
    """The error a command failed with, as its trace step carries it (Playwright's ``after``
    event of a failed call: ``{"name", "message", "stack"}``)."""

    name: str  # the exception's type: "CommandError"
    message: str  # its whole message
    stack: str = ""  # where it was raised, as Python tells it (the user's frames)


@dataclass(frozen=True)
class FailureStep:
    """A test's failure that no command's step carries (a plain ``assert``, an exception of the
    test's own code): told as a last step of its trace, ``name``d by its error line, at the
    spec's ``file``:``line`` where it was raised."""

    name: str
    file: str | None
    line: int | None
    error: StepError


def mark_failed_steps(path: Path, failed: dict[int, StepError], *, quiet: str | None = None,
                      waited_out: tuple[str, ...] = ()) -> None:
    """Give the steps of the trace at ``path`` that failed their error: ``failed`` maps a step's
    number (the n-th ``tracingGroup`` of the trace, from 1) to it. The trace viewer then marks
    the step failed and lists the error in its Errors tab, as it does for a failed Playwright
    call. With ``quiet``, a step's own evaluation of that expression (runner's closing snapshot)
    loses the error it may have failed with: it is not the test's. An evaluation inside a step
    that failed with a message holding one of ``waited_out`` (a navigation destroyed its page:
    runner waits it out and evaluates again, element_verbs ``_in_page``) loses its error too: the
    command did not fail of it, and the Errors tab holds the test's errors, not the retries
    runner made on its way. The zip is rewritten whole (a
    trace is tens of KB); a trace that cannot be read or written is left as it is."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = [(info, archive.read(info)) for info in archive.infolist()]
    except (OSError, zipfile.BadZipFile):
        return
    out: list[tuple[zipfile.ZipInfo, bytes]] = []
    for info, data in entries:
        if info.filename == "trace.trace":
            data = _with_errors(data, failed, quiet, waited_out)
        out.append((info, data))
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for info, data in out:
                archive.writestr(info, data)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()


_EVALUATIONS = frozenset({"evaluateExpression", "evaluateExpressionHandle"})


def _waited_out(event: dict[str, Any], waited_out: tuple[str, ...]) -> bool:
    error = event.get("error")
    message = str(error.get("message", "")) if isinstance(error, dict) else ""
    return any(text in message for text in waited_out)


def _with_errors(trace: bytes, failed: dict[int, StepError], quiet: str | None, waited_out: tuple[str, ...]) -> bytes:
    """``trace.trace`` (one JSON event a line) with the errors put on the failed steps' ends."""
    lines = trace.decode("utf-8").splitlines()
    events: list[Any] = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            events.append(None)  # kept as it was
    groups: set[str] = set()
    calls: dict[str, StepError] = {}  # the callId of each failed step -> its error
    snapshots: set[str] = set()  # the callIds of runner's closing snapshots
    evaluations: set[str] = set()  # the callIds of the evaluations runner's commands made
    for event in events:
        if not isinstance(event, dict) or event.get("type") != "before":
            continue
        if event.get("method") == "tracingGroup":
            groups.add(str(event.get("callId")))
            if len(groups) in failed:
                calls[str(event.get("callId"))] = failed[len(groups)]
        elif event.get("method") in _EVALUATIONS and str(event.get("parentId")) in groups:
            evaluations.add(str(event.get("callId")))
            if quiet is not None and (event.get("params") or {}).get("expression") == quiet:
                snapshots.add(str(event.get("callId")))
    kept: list[str] = []
    for line, event in zip(lines, events, strict=True):
        if isinstance(event, dict) and event.get("type") == "after":
            call = str(event.get("callId"))
            error = calls.get(call)
            if error is not None:
                event["error"] = {"name": error.name, "message": error.message, "stack": error.stack}
                line = json.dumps(event, separators=(",", ":"))
            elif "error" in event and (call in snapshots or (call in evaluations and _waited_out(event, waited_out))):
                del event["error"]
                line = json.dumps(event, separators=(",", ":"))
        kept.append(line)
    return ("\n".join(kept) + "\n").encode("utf-8")
