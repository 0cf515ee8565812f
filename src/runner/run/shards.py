"""``runner run``'s side of sharding: picking this shard's specs, recording durations.

The packing itself is :mod:`runner.run.shard_plan`; this module reads the options, tells the user what
this shard runs (and why), marks the run's ``run.started`` with the shard so ``runner merge`` can
check the shards belong together, and writes the durations file after a run that asked for it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from runner.config.paths import shown_path
from runner.events import Event, RunStarted, SpecEnded, SpecStarted
from runner.run.shard_plan import (
    DEFAULT_DURATIONS,
    ShardError,
    durations_from_events,
    parse_shard,
    plan_shards,
    read_durations,
    record_durations,
    spec_key,
)

__all__ = ["DurationsRecorder", "durations_command", "durations_for", "durations_path", "take_shard",
           "tell_empty_shard"]


def durations_path(project_root: Path, option: str | None) -> Path:
    """The durations file: ``--durations`` (relative to the working directory) or the default."""
    return Path(option).resolve() if option else project_root / DEFAULT_DURATIONS


def durations_for(project_root: Path, option: str | None) -> dict[str, float] | None:
    """The durations file's times when it exists and can be read (None otherwise: ordering by
    test counts is a fine fallback where nothing is being split across machines)."""
    path = durations_path(project_root, option)
    try:
        return read_durations(path) if path.is_file() else None
    except ShardError:
        return None


def take_shard(session: Any, text: str, durations_option: str | None, specs: list[Path],
               selected: dict[str, int] | None = None) -> list[Path]:
    """This shard's specs (in the run's order); prints what it runs, sets ``session.shard``.
    ``selected``: how many tests of each spec run, when fewer than it holds run (``--last-failed``).
    Raises :class:`ShardError` for a bad ``--shard`` or durations file."""
    shard = parse_shard(text)
    root = Path(session.config.project_root)
    path = durations_path(root, durations_option)
    durations: dict[str, float] | None = None
    if path.is_file():
        durations = read_durations(path)
    elif durations_option:
        raise ShardError(f"--durations {durations_option!r}: the file {str(path)!r} does not exist. Write it with "
                         "`runner run --record-durations` (or `runner durations --from EVENTS`), or leave "
                         "--durations out to balance by test counts.")
    plan = plan_shards(specs, root, shard.total, durations, selected)
    if plan.stale:
        shown = ", ".join(plan.stale[:5]) + (", ..." if len(plan.stale) > 5 else "")
        print(f"runner: notice: {shown_path(path, root)} names {len(plan.stale)} spec(s) that no longer exist "
              f"(ignored): {shown}", file=sys.stderr)
    mine = set(plan.shards[shard.index - 1])
    chosen = [spec for spec in specs if spec_key(spec, root) in mine]
    unit = "ms" if plan.basis == "recorded durations" else "tests"
    line = (f"runner: shard {shard}: {len(chosen)} of {len(specs)} specs, by {plan.basis} "
            f"({_amount(plan.load(shard.index), unit)} of {_amount(sum(plan.weights.values()), unit)}; "
            f"the largest shard {_amount(max(plan.load(i) for i in range(1, shard.total + 1)), unit)})")
    if plan.estimated:
        line += f"; {len(plan.estimated)} spec(s) without a recorded duration estimated from their test counts"
    print(line, file=sys.stderr)
    key = hashlib.sha256(json.dumps(plan.shards).encode()).hexdigest()[:16]
    session.shard = {"index": shard.index, "total": shard.total, "plan": key, "basis": plan.basis}
    return chosen


def tell_empty_shard(session: Any) -> None:
    """A shard that got no spec: its run starts and ends with nothing (``runner merge`` then
    knows the shard ran), and the user is told why."""
    import uuid

    from runner import __version__
    from runner.events import RunEnded

    print(f"runner: shard {session.shard['index']}/{session.shard['total']} has no spec to run (there are "
          "fewer specs than shards); it passes with nothing to do.", file=sys.stderr)
    config = session.config
    session.bus.publish(RunStarted(run_id=uuid.uuid4().hex, runner_version=__version__, browser="not started",
                                   specs=[], project_root=str(config.project_root), mode="run", shard=session.shard,
                                   only_changed=session.only_changed))
    session.bus.publish(RunEnded(duration_ms=0, tests=0, passed=0, failed=0, pending=0, skipped=0))


def _amount(value: float, unit: str) -> str:
    if unit == "tests":
        return f"{value:g} tests"
    seconds = value / 1000
    return f"{seconds:.1f}s" if seconds < 60 else f"{int(seconds // 60)}m {seconds % 60:02.0f}s"


class DurationsRecorder:
    """Subscribed to the run's bus with ``--record-durations``: keeps what the durations need
    and writes them into the file when the run is over."""

    def __init__(self, path: Path, project_root: Path) -> None:
        self.path = path
        self._root = project_root
        self._events: list[Event] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, (RunStarted, SpecStarted, SpecEnded)):
            self._events.append(event)

    def write(self) -> str:
        """Write the file; returns the line that tells the user (or why it could not)."""
        measured = durations_from_events(self._events)
        if not measured:
            return "runner: --record-durations: no spec ran to the end; the durations file was left as it was."
        try:
            written = record_durations(self.path, measured, self._root)
        except OSError as err:
            return f"runner: warning: --record-durations: {str(self.path)!r} cannot be written ({err.strerror or err})."
        return (f"runner: recorded the durations of {len(measured)} spec(s) in {shown_path(self.path, self._root)} "
                f"({len(written)} in all); commit it, and --shard balances by it.")


def durations_command(events_files: list[str], output: str | None, project: Path) -> int:
    """``runner durations --from FILE...``: record the specs' durations of those runs (a later
    file wins for a spec both hold). Raises ``UsageError`` for a file that cannot be read."""
    from runner.errors import UsageError
    from runner.events import EventsFileError, read_events

    root = project.resolve()
    measured: dict[str, float] = {}
    for name in events_files:
        path = Path(name).expanduser()
        if not path.is_file():
            raise UsageError(f"--from {name!r}: no such file (expected a run's events file).")
        events: list[Event] = []
        try:
            events.extend(read_events(path))
        except EventsFileError as err:
            if not events:
                raise UsageError(f"{err}: {path} is not an events file runner can read.") from None
            print(f"runner: warning: {err}; the durations before that line are used.", file=sys.stderr)
        except OSError as err:
            raise UsageError(f"--from {name!r} cannot be read: {err.strerror or err}.") from None
        measured.update(durations_from_events(events))
    if not measured:
        raise UsageError("the events files hold no spec that ran to its end: there is no duration to record.")
    path = durations_path(root, output)
    try:
        written = record_durations(path, measured, root)
    except OSError as err:
        raise UsageError(f"the durations file {str(path)!r} cannot be written: {err.strerror or err}.") from None
    print(f"runner: recorded the durations of {len(measured)} spec(s) in {shown_path(path, root)} ({len(written)} in all).",
          file=sys.stderr)
    return 0
