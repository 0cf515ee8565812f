"""The reporter interface. A reporter is any object with some of these methods; all are optional.

A custom reporter (``"reporter": "my_pkg.reporting:MyReporter"`` or ``"./reporter.py"``) subclasses
:class:`Reporter` and overrides what it needs. It is built with ``(options, stream)``:
``options`` is ``reporterOptions`` (a dict) and ``stream`` the terminal's text stream.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar, TextIO

from runner.config.paths import resolve_path
from runner.reporters.model import RunResult, SpecResult, TestResult

__all__ = ["Reporter"]


class Reporter:
    """Base class with a no-op for every hook, called in this order::

        on_run_start(run, spec_paths)
          on_spec_start(spec, index, total)
            on_test_start(spec, title)        # once per test, before its first attempt
            on_test_end(spec, test)           # after its last attempt; test.attempts has them all
          on_spec_end(spec)
        on_run_end(run)
    """

    #: The ``reporterOptions`` a built-in reporter reads: name -> (expected type, what it does);
    #: the type ``Path`` is an output file path given as a string. ``make_reporter`` checks them
    #: before the run; a custom reporter that leaves this empty gets its options unchecked.
    OPTIONS: ClassVar[dict[str, tuple[type, str]]] = {}

    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        self.options = dict(options or {})
        self.stream: TextIO = stream if stream is not None else sys.stdout
        self.out: TextIO = self.stream

    def output_file(self, value: str) -> Path:
        """The file an output option names, ready to be written: ``~`` expanded, a relative path
        relative to the project (``projectRoot``), its folder made."""
        path = resolve_path(Path(str(self.options.get("projectRoot") or ".")), value)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def _print(self, text: str = "") -> None:
        """Write one line and flush, so progress shows while a long run goes on."""
        self.out.write(text + "\n")
        self.out.flush()

    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        pass

    def on_spec_start(self, spec: SpecResult, index: int, total: int) -> None:
        pass

    def on_test_start(self, spec: SpecResult, title: list[str]) -> None:
        pass

    def on_test_end(self, spec: SpecResult, test: TestResult) -> None:
        pass

    def on_spec_end(self, spec: SpecResult) -> None:
        pass

    def on_run_end(self, run: RunResult) -> None:
        pass
