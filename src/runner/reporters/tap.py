"""The ``tap`` reporter: TAP version 13, one line per test as it ends, the plan ``1..N`` at the end."""

from __future__ import annotations

from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.model import NOT_RUN, RunResult, SpecResult, TestResult
from runner.reporters.spec import format_ms

__all__ = ["TapReporter"]


def _desc(text: str) -> str:
    # '#' starts a directive in TAP; escape it (and backslashes) in descriptions.
    return " ".join(text.replace("\\", "\\\\").replace("#", "\\#").split())


def _yaml_block(fields: dict[str, Any]) -> list[str]:
    lines = ["  ---"]
    for key, value in fields.items():
        if isinstance(value, bool):
            lines.append(f"  {key}: {'true' if value else 'false'}")
        elif isinstance(value, (int, float)):
            lines.append(f"  {key}: {value}")
        elif isinstance(value, list):
            lines.append(f"  {key}:")
            lines.extend(f"    - {_scalar(v)}" for v in value)
        elif "\n" in str(value):
            lines.append(f"  {key}: |-")
            lines.extend(f"    {line}" for line in str(value).splitlines())
        else:
            lines.append(f"  {key}: {_scalar(value)}")
    lines.append("  ...")
    return lines


def _scalar(value: Any) -> str:
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class TapReporter(Reporter):
    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self._n = 0


    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        self._print("TAP version 13")

    def on_test_end(self, spec: SpecResult, test: TestResult) -> None:
        self._n += 1
        title = _desc(f"{spec.relative} {test.full_title}")
        if test.state == "passed":
            self._print(f"ok {self._n} - {title}")
            if test.quarantine is not None:
                self._print(f"# quarantined: test {self._n}: {_desc(test.quarantine)}")
            if test.slow:  # a diagnostic line: TAP consumers show it, none counts it
                self._print(f"# slow: test {self._n} took {format_ms(test.duration_ms)} (slowTestThreshold)")
        elif test.state in ("pending", "skipped", NOT_RUN):  # TAP has SKIP, no "not run"
            self._print(f"ok {self._n} - {title} # SKIP {_desc(test.message or test.state)}")
        else:
            # TAP's TODO directive: a failure consumers show but do not count, as the run does
            todo = f" # TODO quarantined: {_desc(test.quarantine)}" if test.quarantine is not None else ""
            self._print(f"not ok {self._n} - {title}{todo}")
            fields: dict[str, Any] = {"message": test.message or "failed", "severity": "fail"}
            last = test.last_failed
            if last and last.error_type:
                fields["type"] = last.error_type
            fields["duration_ms"] = round(test.duration_ms, 3)
            if test.slow:
                fields["slow"] = True
            fields["attempts"] = len(test.attempts)
            if test.error:
                fields["stack"] = test.error if "\n" in test.error else test.error + "\n"
            if test.screenshots:
                fields["screenshots"] = test.screenshots
            if test.traces:
                fields["traces"] = test.traces
            for line in _yaml_block(fields):
                self._print(line)

    def on_spec_end(self, spec: SpecResult) -> None:
        if spec.error:
            self._n += 1
            self._print(f"not ok {self._n} - {_desc(spec.relative)} could not be loaded")
            fields = {"message": spec.error_headline() or "error", "severity": "fail"}
            if spec.error_type:
                fields["type"] = spec.error_type
            for line in _yaml_block({**fields, "stack": spec.error + "\n"}):
                self._print(line)

    def on_run_end(self, run: RunResult) -> None:
        self._print(f"1..{self._n}")
        self._print(f"# tests {self._n}")
        self._print(f"# pass {run.total('passed')}")
        self._print(f"# fail {run.failures}")
        if run.flaky_failures:  # counted in "# fail": their test points passed, on a retry
            self._print(f"# fail-on-flaky: {run.flaky_failures} of the failures passed only on a retry (flaky)")
        if run.quarantined:
            self._print(f"# todo {run.quarantined} (failed in quarantine)")
        self._print(f"# skip {run.total('pending') + run.total('skipped') + run.total(NOT_RUN)}")
        if run.total(NOT_RUN):
            self._print(f"# not run {run.total(NOT_RUN)}" + (f": {run.stopped}" if run.stopped else ""))
        if run.error:
            self._print(f"# error: {run.error}")
