"""``runner report --from FILE``: a recorded run's events fed to any reporter.

The events go through the same :class:`~runner.reporters.feed.ReporterFeed` as a live run, so a
reporter prints and writes what it did live. A file that breaks off (a run killed before it
ended, a line cut short, a hand edit) is replayed up to the last good event; the report then ends
there and one message says which line stopped it and why.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.errors import UsageError
from runner.events import Event, EventsFileError, RunEnded, RunStarted, read_events

__all__ = ["report_command", "html_report_command", "report_line"]


def _events_file(events_from: str) -> Path:
    """The events file ``--from`` names; raises ``UsageError`` when it is not a file."""
    path = Path(events_from).expanduser()
    if path.is_dir():
        raise UsageError(f"--from {events_from!r} is a folder; expected an events file "
                         "(runner/results/events.jsonl by default).")
    if not path.is_file():
        raise UsageError(f"--from {events_from!r}: no such file. runner run writes its events to "
                         "eventsFile (runner/results/events.jsonl by default).")
    return path


def _replay(path: Path, events_from: str, apply: Callable[[int, Event], None]) -> tuple[str | None, float, float]:
    """Hand every event of ``path`` to ``apply(number, event)``, up to the first bad line.

    Returns what stopped it early (None when the file was read to its end) and the times of its
    first and last events. Raises ``UsageError`` when the file is not the events file of a run
    (its first event is not run.started, its first line is not an event, it is empty) or cannot
    be read.
    """
    problem: str | None = None
    first_at = last_at = None
    try:
        for number, event in enumerate(read_events(path), 1):
            if number == 1 and not isinstance(event, RunStarted):
                raise UsageError(
                    f"{path} does not start with a run.started event (it starts with {event.kind}), "
                    "so it is not the events file of a run. Pass the file runner run wrote.")
            first_at = event.at if first_at is None else first_at
            last_at = event.at
            apply(number, event)
    except EventsFileError as err:
        if first_at is None:
            raise UsageError(f"{err}.\n{path} is not an events file runner can read.") from None
        problem = f"{err}.\nThe report covers the events before that line; the run ends there."
    except OSError as err:
        raise UsageError(f"--from {events_from!r} cannot be read: {err.strerror or err}.") from None
    if first_at is None or last_at is None:
        raise UsageError(f"{path} is empty: it holds no events (the run stopped before it began?).")
    return problem, first_at, last_at


def report_command(events_from: str, reporter_name: str, option_flags: list[str] | None,
                   project_root: Path) -> int:
    """Replay ``events_from`` through ``reporter_name``. Returns the exit status: the number of
    failed tests of the recorded run (at most 255), at least 1 when the file broke off.

    The reporter gets the ``reporterOptions`` the run was recorded with, then ``option_flags``
    (``--reporter-options``). Raises ``UsageError`` when the file cannot be read at all or is not
    an events file, and ``ConfigError`` for a bad reporter.
    """
    from runner.reporters import make_reporter
    from runner.reporters.feed import ReporterFeed

    path = _events_file(events_from)
    if not reporter_name.strip():
        raise UsageError("--reporter needs a name: spec, dot, list, min, tap, json, junit, or a custom reporter.")
    feed = ReporterFeed([])

    def apply(number: int, event: Event) -> None:
        if number == 1:
            # the run's own reporterOptions, then the flags: as the live run had them
            recorded = event.config.get("reporterOptions") if isinstance(event, RunStarted) else None
            options = dict(recorded) if isinstance(recorded, dict) else {}
            feed.reporters.append(make_reporter(reporter_name, options, project_root, flags=option_flags))
        feed(event)

    problem, first_at, last_at = _replay(path, events_from, apply)
    if not feed.ended:
        if problem is None:
            problem = (f"{path} ends before the run did (it has no run.ended event): the run was "
                       "stopped. The report covers what it recorded.")
        run = feed.run
        feed(RunEnded(at=last_at, duration_ms=(last_at - first_at) * 1000,
                      tests=run.tests, passed=run.total("passed"), failed=run.failures,
                      pending=run.total("pending"), skipped=run.total("skipped"),
                      error="the run was cut short", interrupted=True))
    failures = feed.run.failures
    if problem:
        print(f"runner: {problem}", file=sys.stderr)
    if feed.failures and failures == 0:
        failures = 1
    if problem is not None:
        failures = max(failures, 1)
    return min(failures, 255)


def html_report_command(events_from: str, option_flags: list[str] | None, project_root: Path, *,
                        viewer: Path | None) -> int:
    """``runner report --from FILE --reporter html``: build the HTML report of a recorded run.

    It goes to ``--reporter-options output=DIR``, else to the project's ``reportFolder``.
    ``viewer``: the trace viewer's folder (copied when a test has a trace). Returns the exit
    status as :func:`report_command` does. Raises ``UsageError`` for a file that is not an events
    file, a folder runner will not replace or cannot write, and ``ConfigError`` for a bad
    configuration (when the output comes from it).
    """
    from runner.reporters.html import HtmlReport, folder_refusal

    path = _events_file(events_from)
    target = _html_output(option_flags, project_root)
    refusal = folder_refusal(target)
    if refusal is not None:
        raise UsageError(f"the HTML report was not written: {refusal}.\nPass --reporter-options "
                         "output=DIR with a new folder (or one runner wrote a report to).")
    # relative artifact paths (a merged run's, see run/merge.py) are found in the project built in
    report = HtmlReport(target, viewer=viewer, project_root=project_root)
    problem, _first_at, _last_at = _replay(path, events_from, lambda _number, event: report(event))
    if problem is not None:
        report.note(f"The events file broke off: {problem}")
    try:
        written = report.finish()
    except OSError as err:
        raise UsageError(f"the HTML report could not be written to {str(target)!r}: "
                         f"{err.strerror or err}.") from None
    if problem is not None:
        print(f"runner: {problem}", file=sys.stderr)
    print(report_line(written), file=sys.stderr)
    failures = report.failures
    if problem is not None or report.ended is None:
        failures = max(failures, 1)
    return min(failures, 255)


def _html_output(option_flags: list[str] | None, project_root: Path) -> Path:
    """The folder the HTML report goes to: ``output`` of the flags, else ``reportFolder``."""
    from runner.config import load_config, parse_cli_values
    from runner.config.paths import resolve_path

    options: dict[str, Any] = {}
    for text in option_flags or []:
        options.update(parse_cli_values(text, option="--reporter-options"))
    for key in options:
        if key != "output":
            print(f"runner: warning: reporterOptions.{key} is not an option of the html reporter and is "
                  "ignored. It reads output.", file=sys.stderr)
    output = options.get("output")
    if output is not None:
        if not isinstance(output, str) or not output.strip():
            raise UsageError(f"reporterOptions.output of the html reporter must be the path of a folder; "
                             f"found {output!r}.")
        return resolve_path(project_root, output)
    config = load_config(project_root)
    folder = config.path("reportFolder")
    if folder is None:
        raise UsageError("reportFolder is false in this project's configuration, so the HTML report has "
                         "no folder.\nPass --reporter-options output=DIR.")
    return folder


def report_line(folder: Path) -> str:
    """The line that says where a report is and how to open it (``folder`` relative to the
    current folder when it is inside it)."""
    import shlex

    try:
        shown = str(folder.relative_to(Path.cwd()))
    except ValueError:
        shown = str(folder)
    return f"runner: the HTML report is in {shown}: open it with runner show-report {shlex.quote(shown)}"
