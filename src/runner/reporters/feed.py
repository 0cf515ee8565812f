"""The reporters' subscription to the run-event stream.

:class:`ReporterFeed` is a bus subscriber: it builds the results from the events
(:class:`~runner.reporters.from_events.RunBuilder`) and calls the reporter hooks
(``on_run_start`` ... ``on_run_end``, see ``base.py``). The same feed serves a live run and a
replay of an events file (``runner report --from``), so both print the same.

Specs whose events interleave (tests of several specs running at once in worker processes) are
told one whole spec at a time: the first spec to start is told live; the others are held and told
as a block, in the order they started, once the spec before them has ended.

A reporter hook that raises is reported once (``failures``) and the reporter switched off for
the rest of the run; the other reporters and the tests go on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from runner.events import (
    Event,
    RunEnded,
    RunStarted,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
)
from runner.reporters.from_events import RunBuilder
from runner.reporters.model import RunResult, SpecResult
from runner.usercode.tracebacks import message_line, user_frames

__all__ = ["ReporterFeed"]


class ReporterFeed:
    """Feeds events to ``reporters``; ``run`` holds the results."""

    def __init__(self, reporters: list[Any], *, warn: Callable[[str], None] | None = None) -> None:
        self.reporters = list(reporters)
        self.builder = RunBuilder()
        self.failures: list[str] = []  # one message per reporter that raised
        self._warn = warn or _print_warning
        self._told: list[str] = []  # specs told to the reporters, in order
        self._live: str | None = None  # the spec told as its events come
        self._held: dict[str, list[tuple[str, tuple[Any, ...]]]] = {}  # spec -> hooks to tell later
        self._ended: set[str] = set()
        self.ended = False

    @property
    def run(self) -> RunResult:
        return self.builder.run

    def __call__(self, event: Event) -> None:
        result = self.builder.apply(event)
        if isinstance(event, RunStarted):
            self._call("on_run_start", self.run, list(self.builder.spec_paths))
        elif isinstance(event, SpecStarted):
            self._held.setdefault(event.spec, [])
            if self._live is None:
                self._tell_next()
        elif isinstance(event, TestStarted):
            self._hook(event.spec, "on_test_start", (self.builder.spec(event.spec), list(event.title)))
        elif isinstance(event, TestEnded):
            self._hook(event.spec, "on_test_end", (self.builder.spec(event.spec), result))
        elif isinstance(event, SpecEnded):
            self._ended.add(event.spec)
            if event.spec not in self._held and event.spec != self._live and event.spec not in self._told:
                self._held[event.spec] = []  # ended without a start event (an older file)
            self._hook(event.spec, "on_spec_end", (self.builder.spec(event.spec),))
            if event.spec == self._live:
                self._live = None
                self._tell_next()
        elif isinstance(event, RunEnded):
            self.finish()

    def finish(self) -> None:
        """Tell what is still held and end the run for the reporters (once)."""
        if self.ended:
            return
        self.ended = True
        if self._live is not None and self._live not in self._ended:  # cut short
            self._call("on_spec_end", self.builder.spec(self._live))
        self._live = None
        while self._held:
            self._live = None
            self._tell_next(force=True)
        # the results list specs in the order the reporters were told them
        order = {name: i for i, name in enumerate(self._told)}
        self.run.specs.sort(key=lambda spec: order.get(spec.relative, len(order)))
        self._call("on_run_end", self.run)

    # -- telling ----------------------------------------------------------------------------
    def _hook(self, spec: str, hook: str, args: tuple[Any, ...]) -> None:
        if spec == self._live:
            self._call(hook, *args)
            return
        if spec not in self._held:  # a test of a spec that never started: start it now
            self._held[spec] = []
            if self._live is None:
                self._tell_next()
                if spec == self._live:
                    self._call(hook, *args)
                    return
        self._held[spec].append((hook, args))

    def _tell_next(self, force: bool = False) -> None:
        """Make the first held spec the live one: tell its start and what it holds; when it has
        already ended (or ``force``), go on with the next."""
        while self._held:
            name = next(iter(self._held))
            held = self._held.pop(name)
            self._start(name)
            for hook, args in held:
                self._call(hook, *args)
            if name not in self._ended and not force:
                self._live = name
                return
            if name not in self._ended:  # cut short: the run ends before the spec did
                self._call("on_spec_end", self.builder.spec(name))

    def _start(self, name: str) -> None:
        spec: SpecResult = self.builder.spec(name)
        self._told.append(name)
        total = max(len(self.builder.spec_paths), len(self._told))
        self._call("on_spec_start", spec, len(self._told), total)

    def _call(self, hook: str, *args: Any) -> None:
        for reporter in list(self.reporters):
            method = getattr(reporter, hook, None)
            if method is None:
                continue
            try:
                method(*args)
            except Exception as err:  # noqa: BLE001 - a broken reporter must not stop the tests
                self.reporters.remove(reporter)
                self.failures.append(_reporter_failure(reporter, hook, err))
                self._warn(self.failures[-1])


def _print_warning(message: str) -> None:
    print(f"runner: {message}", file=sys.stderr, flush=True)


def _reporter_failure(reporter: Any, hook: str, err: Exception) -> str:
    """What a reporter that raised did, with the last frames of the reporter's own code."""
    name = getattr(reporter, "runner_name", None) or type(reporter).__name__
    kind = type(err).__name__
    message = message_line(err)
    where = user_frames(err, frames=2)
    after = "" if hook == "on_run_end" else "; the tests go on"
    return (f"the reporter {name!r} raised {kind} in {hook}" + (f": {message}" if message else "")
            + (f"\n{where}" if where else "") + f"\nIt is switched off for the rest of the run{after}.")
