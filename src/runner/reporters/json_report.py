"""The ``json`` reporter: the whole run as one JSON document, printed at the end or written to ``output``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.model import NOT_RUN, RunResult

__all__ = ["JsonReporter", "run_to_json"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def run_to_json(run: RunResult, started_at: str | None = None, ended_at: str | None = None) -> dict[str, Any]:
    """``RunResult.to_dict()`` plus totals and stats (the original's ``totalTests`` ... names)."""
    data = run.to_dict()
    for spec_data, spec in zip(data["specs"], run.specs, strict=True):
        spec_data["stats"] = {
            "tests": len(spec.tests), "passes": spec.count("passed"), "failures": spec.failures,
            "quarantined": spec.quarantined,
            "pending": spec.count("pending"), "skipped": spec.count("skipped"), "notRun": spec.count(NOT_RUN),
            "duration_ms": spec.duration_ms,
        }
        for test_data, test in zip(spec_data["tests"], spec.tests, strict=True):
            test_data["full_title"] = test.full_title
            test_data["flaky"] = test.flaky
            test_data["flaky_failed"] = test.flaky_failed  # a retry strategy failed it (see verdict)
            test_data["error"] = test.error
            test_data["message"] = test.message
            test_data["screenshots"] = test.screenshots
            test_data["traces"] = test.traces
    data.update({
        "startedTestsAt": started_at,
        "endedTestsAt": ended_at,
        "totalSpecs": len(run.specs),
        "totalTests": run.tests,
        "totalPassed": run.total("passed"),
        # a quarantined test that failed counts in totalQuarantined, not here: status is "passed"
        # when it is the only failure, as the exit status is 0
        "totalFailed": run.total("failed") - run.quarantined,
        "totalQuarantined": run.quarantined,
        "totalPending": run.total("pending"),
        "totalSkipped": run.total("skipped"),
        "totalNotRun": run.total(NOT_RUN),  # the run stopped before them: "stopped" says why
        "totalFlaky": sum(1 for s in run.specs for t in s.tests if t.flaky),
        "totalFlakyFailed": sum(1 for s in run.specs for t in s.tests if t.flaky_failed),
        # --fail-on-flaky (failOnFlaky): flaky tests that passed but fail the run (status "failed")
        "totalFailedAsFlaky": run.flaky_failures,
        "totalSlow": sum(1 for s in run.specs for t in s.tests if t.slow),
        "totalSpecErrors": sum(1 for s in run.specs if s.error),
        "totalDuration": run.duration_ms,
        "status": "passed" if run.ok else "failed",
    })
    return data


class JsonReporter(Reporter):
    """Options: ``output`` (a file path, relative to ``projectRoot``/cwd; default: print to the stream)."""

    OPTIONS = {"output": (Path, "the file to write (default: print to the terminal)")}

    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self._started: str | None = None
        self.written: Path | None = None

    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        self._started = run.started_at or _now()

    def on_run_end(self, run: RunResult) -> None:
        started = run.started_at or self._started
        text = json.dumps(run_to_json(run, started, run.ended_at or _now()), indent=2, default=str,
                          ensure_ascii=False)
        output = self.options.get("output")
        if output:
            path = self.output_file(str(output))
            path.write_text(text + "\n", encoding="utf-8")
            self.written = path
        else:
            self.out.write(text + "\n")
            self.out.flush()
