"""The ``list`` reporter: one line per test (spec, full title, time) as it ends, failures at the end."""

from __future__ import annotations

from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.dot import print_failures, summary_line
from runner.reporters.model import RunResult, SpecResult, TestResult
from runner.reporters.spec import (
    Colors,
    flaky_screenshot_lines,
    format_ms,
    not_run_line,
    quarantine_tag,
)

__all__ = ["ListReporter"]


class ListReporter(Reporter):
    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self.c = Colors(self.out)
        self._failure_no = 0


    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        self._print()

    def on_test_end(self, spec: SpecResult, test: TestResult) -> None:
        c = self.c
        title = f"{spec.relative} {test.full_title}"
        time_text = f"({format_ms(test.duration_ms)})"
        time_text = c.yellow(time_text) if test.slow else c.gray(time_text)
        if test.state == "passed":
            flaky = c.yellow(f" [flaky, passed on attempt {len(test.attempts)}]") if test.flaky else ""
            self._print(f"  {c.green('✓')} {title} {time_text}{flaky}{quarantine_tag(test, c)}")
        elif test.state == "failed":
            self._failure_no += 1
            paint = c.yellow if test.quarantine is not None else c.red
            self._print(f"  {paint(f'{self._failure_no}) {title}')} {time_text}{quarantine_tag(test, c)}")
        else:
            self._print("  " + not_run_line(test, title, c))
        for line in flaky_screenshot_lines(test, c, "      "):
            self._print(line)

    def on_spec_end(self, spec: SpecResult) -> None:
        if spec.error:  # numbered like the failures listed at the end
            self._failure_no += 1
            self._print(f"  {self.c.red(f'{self._failure_no}) {spec.relative} could not be loaded')}")
        elif not spec.tests:
            self._print(f"  {self.c.gray('- ' + spec.relative + ' (no tests)')}")

    def on_run_end(self, run: RunResult) -> None:
        print_failures(run, self.c, self._print)
        self._print()
        self._print(summary_line(run, self.c))
        self._print()
