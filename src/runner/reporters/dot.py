"""The ``dot`` reporter: one character per test as it ends, then failures and a one-line summary."""

from __future__ import annotations

from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.model import NOT_RUN, RunResult, SpecResult, TestResult
from runner.reporters.spec import (
    Colors,
    count_parts,
    failure_lines,
    format_ms,
    not_run_summary,
    quarantine_tag,
)

__all__ = ["DotReporter", "print_failures", "summary_line"]


def summary_line(run: RunResult, c: Colors) -> str:
    parts = count_parts(c, run.total("passed"), run.failures - run.flaky_failures, run.total("pending"),
                        run.total("skipped"), quarantined=run.quarantined, not_run=run.total(NOT_RUN),
                        flaky=run.flaky_failures)
    if run.error:
        parts.append(c.red(run.error))
    elif run.stopped and run.total(NOT_RUN):
        parts.append(c.gray(run.stopped))
    return "  " + ", ".join(parts) + c.gray(f" ({format_ms(run.duration_ms)})")


def print_failures(run: RunResult, c: Colors, write: Any) -> None:
    """Numbered failures: specs that did not load, then failed tests with every attempt's error;
    then the tests the run did not run, when it stopped early."""
    n = 0
    for spec in run.specs:
        if spec.error:
            n += 1
            write("")
            write(f"  {n}) {spec.relative} could not be loaded:")
            write(c.red(f"     {spec.error_headline()}"))
            write(c.red(_indent(spec.error, "       ")))
        for test in spec.tests:
            if test.state != "failed":
                continue
            n += 1
            write("")
            write(f"  {n}) {spec.relative} {test.full_title}{quarantine_tag(test, c)}")
            for line in failure_lines(test, c):
                write(line)
    summary = not_run_summary(run)
    if summary:
        write("")
        write(c.gray(f"  {summary}:"))
        for spec in run.specs:
            for test in spec.tests:
                if test.state == NOT_RUN:
                    write(c.gray(f"    - {spec.relative} {test.full_title}"))


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


class DotReporter(Reporter):
    """``.`` passed, ``!`` passed after retries (flaky), ``F`` failed, ``Q`` failed in quarantine
    (it does not fail the run), ``,`` pending, ``-`` skipped, ``_`` not run (the run stopped before it)."""

    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self.c = Colors(self.out)
        self._count = 0


    def _char(self, text: str) -> None:
        if self._count and self._count % 80 == 0:
            self.out.write("\n  ")
        self._count += 1
        self.out.write(text)
        self.out.flush()

    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        self.out.write("\n  ")
        self.out.flush()

    def on_test_end(self, spec: SpecResult, test: TestResult) -> None:
        c = self.c
        if test.state == "passed":
            self._char(c.yellow("!") if test.flaky else c.gray("."))
        elif test.state == "failed":
            self._char(c.yellow("Q") if test.quarantine is not None else c.red("F"))
        elif test.state == "pending":
            self._char(c.cyan(","))
        elif test.state == NOT_RUN:
            self._char(c.gray("_"))
        else:
            self._char(c.gray("-"))

    def on_spec_end(self, spec: SpecResult) -> None:
        if spec.error:
            self._char(self.c.red("E"))

    def on_run_end(self, run: RunResult) -> None:
        self._print()
        print_failures(run, self.c, self._print)
        self._print()
        self._print(summary_line(run, self.c))
        self._print()
