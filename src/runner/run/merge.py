"""``runner merge OUT INPUT...``: the events files of a sharded run's shards made one run's file.

Every input must be a shard's events (``runner run --shard i/n`` marks its ``run.started``), all
of the same split: the same number of shards and the same plan (the same specs packed the same
way, so every spec ran in exactly one of them). The merged file starts with one ``run.started``
(every shard's specs, ``shard.merged`` naming the shards), holds each shard's events in shard
order, and ends with one ``run.ended`` whose totals come from the merged events themselves (as a
reporter would count them), timed from the first shard's start to the last shard's end. A
missing shard, or a shard whose file breaks off, is said on stderr and in ``run.ended``'s
``error``: the merged run then fails even when every test in it passed.

From the merged file, ``runner report --from OUT`` builds any reporter's output or the HTML
report. The exit status is the merged run's, as ``runner run`` would give it.
"""

from __future__ import annotations

import os
import sys
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runner.errors import UsageError
from runner.events import (
    NOT_RUN,
    Event,
    EventsFileError,
    RunEnded,
    RunStarted,
    TestEnded,
    dumps_event,
    read_events,
)

__all__ = ["merge_command", "merge_shards"]


@dataclass
class _ShardFile:
    path: Path
    started: RunStarted
    events: list[Event] = field(default_factory=list)  # between run.started and run.ended
    ended: RunEnded | None = None
    problem: str | None = None  # why the file stops early

    @property
    def index(self) -> int:
        return int((self.started.shard or {})["index"])


def _inputs(names: list[str]) -> list[Path]:
    paths: list[Path] = []
    for name in names:
        path = Path(name).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            if not found:
                raise UsageError(f"{name!r} is a folder without events files (*.jsonl).")
            paths += found
        elif path.is_file():
            paths.append(path)
        else:
            raise UsageError(f"{name!r}: no such file or folder (expected the shards' events files, or a folder "
                             "holding them).")
    unique = list(dict.fromkeys(p.resolve() for p in paths))
    if not unique:
        raise UsageError("runner merge needs the shards' events files (or a folder holding them).")
    return unique


def _read(path: Path) -> _ShardFile:
    shard: _ShardFile | None = None
    try:
        for number, event in enumerate(read_events(path), 1):
            if number == 1:
                if not isinstance(event, RunStarted):
                    raise UsageError(f"{path} does not start with a run.started event (it starts with "
                                     f"{event.kind}): it is not the events file of a run.")
                if not event.shard or "index" not in event.shard:
                    raise UsageError(f"{path} is not a shard's events file: its run had no --shard (runner merge "
                                     "joins the shards of one `runner run --shard i/n` split).")
                shard = _ShardFile(path, event)
            elif isinstance(event, RunEnded):
                assert shard is not None
                shard.ended = event
                break
            else:
                assert shard is not None
                shard.events.append(event)
    except EventsFileError as err:
        if shard is None:
            raise UsageError(f"{err}: {path} is not an events file runner can read.") from None
        shard.problem = f"{err}; the shard's events end there"
    except OSError as err:
        raise UsageError(f"{path} cannot be read: {err.strerror or err}.") from None
    if shard is None:
        raise UsageError(f"{path} is empty: it holds no events.")
    if shard.ended is None and shard.problem is None:
        shard.problem = "it has no run.ended event (the shard's run was stopped)"
    return shard


def _check(shards: list[_ShardFile]) -> None:
    first = shards[0]
    total, plan = (first.started.shard or {}).get("total"), (first.started.shard or {}).get("plan")
    for shard in shards[1:]:
        info = shard.started.shard or {}
        if info.get("total") != total or info.get("plan") != plan:
            raise UsageError(
                f"the shards come from different runs: {first.path} is shard {first.index}/{total} of plan {plan}, "
                f"{shard.path} is shard {shard.index}/{info.get('total')} of plan {info.get('plan')} (the specs, "
                "the shard count or the durations file differed). Merge the shards of one split.")
    seen: dict[int, Path] = {}
    for shard in shards:
        if shard.index in seen:
            raise UsageError(f"{seen[shard.index]} and {shard.path} are both shard {shard.index}/{total}: "
                             "pass each shard's events once.")
        seen[shard.index] = shard.path


def merge_shards(inputs: list[str]) -> tuple[list[Event], list[str]]:
    """The merged run's events and what is wrong with it (missing or cut-short shards).
    Raises :class:`UsageError` when the inputs cannot be merged at all."""
    from runner.reporters.feed import ReporterFeed

    shards = sorted((_read(p) for p in _inputs(inputs)), key=lambda s: s.index)
    _check(shards)
    total = int((shards[0].started.shard or {})["total"])
    present = [s.index for s in shards]
    missing = [i for i in range(1, total + 1) if i not in present]
    problems = [f"shard {i}/{total} is missing from the merge" for i in missing]
    problems += [f"shard {s.index}/{total} ({s.path}): {s.problem}" for s in shards if s.problem]
    first = shards[0].started
    info: dict[str, Any] = {"total": total, "plan": (first.shard or {}).get("plan"), "merged": present,
                            "missing": missing, "runs": {str(s.index): s.started.run_id for s in shards}}
    started = replace(first, at=min(s.started.at for s in shards), run_id=uuid.uuid4().hex,
                      specs=[spec for s in shards for spec in s.started.specs], shard=info)
    body = [_relocated(event, s.started.project_root) for s in shards for event in s.events]
    feed = ReporterFeed([])
    for event in [started, *body]:
        feed(event)
    ends = [s.ended.at if s.ended else (s.events[-1].at if s.events else s.started.at) for s in shards]
    run = feed.run
    # the shards of one split run with the same flags: one with --fail-on-flaky makes the merged run so
    fail_on_flaky = any(s.ended is not None and s.ended.fail_on_flaky for s in shards)
    if fail_on_flaky:
        run.fail_flaky()
    ended = RunEnded(at=max(ends), duration_ms=(max(ends) - started.at) * 1000, tests=run.tests,
                     passed=run.total("passed"), failed=run.failures + run.quarantined - run.flaky_failures,
                     pending=run.total("pending"),
                     skipped=run.total("skipped"), error="; ".join(problems) or None, quarantined=run.quarantined,
                     interrupted=any(s.ended is None or s.ended.interrupted for s in shards),
                     # each shard stops on its own failures (--max-failures): the first reason says it
                     stopped=next((s.ended.stopped for s in shards if s.ended and s.ended.stopped), None),
                     not_run=run.total(NOT_RUN), fail_on_flaky=fail_on_flaky)
    return [started, *body, ended], problems


_ARTIFACTS = {"screenshot.taken": ("path",), "snapshot.compared": ("baseline", "expected", "actual", "diff"),
              "attempt.ended": ("screenshots", "trace"),
              "video.written": ("video",), "spec.ended": ("video",)}


def _relocated(event: Event, root: str) -> Event:
    """``event`` with the artifact paths inside its shard's project made relative to it, so a
    report built from the merged file finds them in the project it is built in (the shards'
    artifact folders gathered there), whatever folder each shard machine ran in."""
    fields = _ARTIFACTS.get(event.kind)
    if not fields or not root:
        return event
    base = Path(root)

    def inside(value: Any) -> Any:
        if isinstance(value, list):
            return [inside(v) for v in value]
        if isinstance(value, str) and Path(value).is_absolute() and Path(value).is_relative_to(base):
            return Path(value).relative_to(base).as_posix()
        return value

    return replace(event, **{name: inside(getattr(event, name)) for name in fields})  # type: ignore[type-var]


def merge_command(output: str, inputs: list[str], project: Path | None = None) -> int:
    """Write the merged events to ``output``; returns the merged run's exit status (its failed
    tests, at most 255; at least 1 when a shard is missing or cut short). The merged run is
    added to the history of ``project`` (the current folder) when it holds a ``runner.json``."""
    events, problems = merge_shards(inputs)
    out = Path(output).expanduser()
    if out.resolve() in {Path(name).expanduser().resolve() for name in inputs}:
        raise UsageError(f"the output {output!r} is one of the inputs: write the merged run elsewhere.")
    if out.is_dir():
        raise UsageError(f"the output {output!r} is a folder: expected the merged events file's path "
                         "(e.g. runner/results/events.jsonl).")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        partial.write_text("".join(dumps_event(e) + "\n" for e in events), encoding="utf-8")
        os.replace(partial, out)
    except OSError as err:
        raise UsageError(f"the merged events cannot be written to {output!r}: {err.strerror or err}.") from None
    ended = events[-1]
    assert isinstance(ended, RunEnded) and isinstance(events[0], RunStarted)
    shards = events[0].shard or {}
    # --fail-on-flaky (the shards'): a flaky test, passed on a retry and not quarantined, fails the run
    flaky = sum(1 for e in events if isinstance(e, TestEnded) and e.flaky and e.state == "passed"
                and e.quarantine is None) if ended.fail_on_flaky else 0
    in_quarantine = f" ({ended.quarantined} in quarantine: not failing the run)" if ended.quarantined else ""
    print(f"runner: merged {len(shards.get('merged', []))} of {shards.get('total')} shards into {out}: "
          f"{len(events[0].specs)} specs, {ended.tests} tests, {ended.passed} passed, {ended.failed} failed"
          f"{in_quarantine}, {ended.pending} pending, {ended.skipped} skipped"
          + (f", {ended.not_run} not run ({ended.stopped})" if ended.not_run else "")
          + (f"; {flaky} flaky failing the run (--fail-on-flaky)" if flaky else "") + ".", file=sys.stderr)
    for problem in problems:
        print(f"runner: warning: {problem}.", file=sys.stderr)
    _add_to_history(events, (project or Path(".")).resolve())
    code = ended.failed - ended.quarantined + flaky  # a quarantined test's failure does not fail the run
    if problems:
        code = max(code, 1)
    return min(code, 255)


def _add_to_history(events: list[Event], root: Path) -> None:
    """Add the merged run to the project's history, but for the shards that added themselves
    already when they ran here (run/history.py matches them by run id): never counted twice."""
    if not (root / "runner.json").is_file():
        return  # not a runner project: no history to keep here
    from runner.config import load_config
    from runner.errors import RunnerError
    from runner.run.history import (
        HISTORY_FILE,
        HistoryError,
        history_path,
        run_from_events,
        update_history,
    )

    try:
        keep = load_config(root).history_runs
    except RunnerError as err:
        print(f"runner: warning: the merged run was not added to the history: {err}", file=sys.stderr)
        return
    run = run_from_events(events)
    if not keep or run is None:
        return
    path = history_path(root)
    try:
        # no pruning of removed specs (project_root None): the shards ran these tests where their spec
        # files were, and a job that only gathers the shards' events may not have them; `runner run`
        # prunes when it adds its own run
        how, gained = update_history(path, run, keep)
    except HistoryError as err:
        print(f"runner: warning: {err}; the merged run was not added to the history. Move the file away to "
              "start a new history.", file=sys.stderr)
        return
    print(f"runner: {_history_told(how, gained, len(run.tests))} ({HISTORY_FILE}).", file=sys.stderr)
    absent = sorted(spec for spec in {test.split("::", 1)[0] for test in run.tests} if not (root / spec).is_file())
    if absent and gained:
        print(f"runner: note: {len(absent)} spec file(s) of the merged run are not in this project (e.g. {absent[0]}): "
              "the history keeps their tests, but the next `runner run` here drops them as removed specs.",
              file=sys.stderr)


def _history_told(how: str, gained: int, tests: int) -> str:
    """What merging did to the history, from what the file gained."""
    if not gained:
        return "the merged run is already in the history: nothing added"
    if how == "added":
        return f"the merged run was added to the history: {_tests(gained)}"
    return (f"{_tests(gained)} of the merged run's shards that had not added themselves joined their run in the "
            f"history ({tests - gained} were there already)")


def _tests(count: int) -> str:
    return f"{count} test{'s' if count != 1 else ''}"
