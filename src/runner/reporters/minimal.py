"""The ``min`` reporter: nothing but the failures and a one-line summary at the end."""

from __future__ import annotations

from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.dot import print_failures, summary_line
from runner.reporters.model import RunResult
from runner.reporters.spec import Colors

__all__ = ["MinReporter"]


class MinReporter(Reporter):
    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self.c = Colors(self.out)


    def on_run_end(self, run: RunResult) -> None:
        print_failures(run, self.c, self._print)
        self._print()
        self._print(summary_line(run, self.c))
        self._print()
