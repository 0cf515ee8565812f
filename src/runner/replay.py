"""``runner report --from FILE``: a recorded run's events fed to any reporter.

The events go through the same :class:`~runner.reporters.feed.ReporterFeed` as a live run, so a
reporter prints and writes what it did live. A file that breaks off (a run killed before it
ended, a line cut short, a hand edit) is replayed up to the last good event; the report then ends
there and one message says which line stopped it and why.
"""

from __future__ import annotations

import sys
from pathlib import Path

from runner.errors import UsageError
from runner.events import EventsFileError, RunEnded, RunStarted, read_events

__all__ = ["report_command"]


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

    path = Path(events_from).expanduser()
    if path.is_dir():
        raise UsageError(f"--from {events_from!r} is a folder; expected an events file "
                         "(runner/results/events.jsonl by default).")
    if not path.is_file():
        raise UsageError(f"--from {events_from!r}: no such file. runner run writes its events to "
                         "eventsFile (runner/results/events.jsonl by default).")
    if not reporter_name.strip():
        raise UsageError("--reporter needs a name: spec, dot, list, min, tap, json, junit, or a custom reporter.")
    feed = ReporterFeed([])
    problem: str | None = None
    first_at = last_at = None
    events = read_events(path)
    try:
        for number, event in enumerate(events, 1):
            if number == 1:
                if not isinstance(event, RunStarted):
                    raise UsageError(
                        f"{path} does not start with a run.started event (it starts with {event.kind}), "
                        "so it is not the events file of a run. Pass the file runner run wrote.")
                # the run's own reporterOptions, then the flags: as the live run had them
                recorded = event.config.get("reporterOptions")
                options = dict(recorded) if isinstance(recorded, dict) else {}
                feed.reporters.append(make_reporter(reporter_name, options, project_root, flags=option_flags))
            first_at = event.at if first_at is None else first_at
            last_at = event.at
            feed(event)
    except EventsFileError as err:
        if first_at is None:
            raise UsageError(f"{err}.\n{path} is not an events file runner can read.") from None
        problem = f"{err}.\nThe report covers the events before that line; the run ends there."
    except OSError as err:
        raise UsageError(f"--from {events_from!r} cannot be read: {err.strerror or err}.") from None
    if first_at is None:
        raise UsageError(f"{path} is empty: it holds no events (the run stopped before it began?).")
    if not feed.ended:
        if problem is None:
            problem = (f"{path} ends before the run did (it has no run.ended event): the run was "
                       "stopped. The report covers what it recorded.")
        run = feed.run
        feed(RunEnded(at=last_at or first_at, duration_ms=((last_at or first_at) - first_at) * 1000,
                      tests=run.tests, passed=run.total("passed"), failed=run.failures,
                      pending=run.total("pending"), skipped=run.total("skipped"),
                      error="the run was cut short", interrupted=True))
    failures = feed.run.failures
    for message in ([problem] if problem else []):
        print(f"runner: {message}", file=sys.stderr)
    if feed.failures and failures == 0:
        failures = 1
    if problem is not None:
        failures = max(failures, 1)
    return min(failures, 255)
