"""The ``spec`` reporter (the default): each spec's tests as they finish, then a summary table."""

from __future__ import annotations

import os
import shlex
from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.model import NOT_RUN, RunResult, SpecResult, TestResult

__all__ = ["SpecReporter", "Colors", "format_ms"]


class Colors:
    """ANSI colours, on when the stream is a terminal (``NO_COLOR`` off, ``FORCE_COLOR`` on)."""

    def __init__(self, stream: TextIO) -> None:
        if os.environ.get("NO_COLOR"):
            self.on = False
        elif os.environ.get("FORCE_COLOR"):
            self.on = True
        else:
            self.on = hasattr(stream, "isatty") and stream.isatty()

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def gray(self, text: str) -> str:
        return self._wrap("90", text)


def format_ms(ms: float) -> str:
    if ms < 1000:
        return f"{int(round(ms))}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s" if seconds < 10 else f"{int(round(seconds))}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}m {secs:02d}s"


class SpecReporter(Reporter):
    """Prints progress as tests finish and a run summary like the original's."""

    OPTIONS = {"routes": (bool, "print the route table of passing tests too"),
               "showRoutes": (bool, "the same as routes")}

    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self.c = Colors(self.out)
        self._failure_no = 0
        self._suites_shown: list[str] = []
        self.show_routes = bool(self.options.get("routes") or self.options.get("showRoutes"))


    def on_run_start(self, run: RunResult, spec_paths: list[str]) -> None:
        c = self.c
        self._print()
        self._print(c.gray("=" * 90))
        self._print()
        self._print("  (Run Starting)")
        self._print()
        shown = ", ".join(spec_paths[:4]) + (f", +{len(spec_paths) - 4} more" if len(spec_paths) > 4 else "")
        rows = [("runner", run.runner_version), ("Browser", run.browser),
                ("Specs", f"{len(spec_paths)} found ({shown})")]
        for key, value in rows:
            self._print(f"  {c.gray(f'{key}:'.ljust(10))}{value}")
        self._print()

    def on_spec_start(self, spec: SpecResult, index: int, total: int) -> None:
        self._suites_shown = []
        self._print(self.c.gray("─" * 90))
        # a spec a stop came before is listed with its tests not run, but it did not run
        label = "Not run:" if spec.never_started else "Running:"
        self._print(f"  {label:<10}{spec.relative}".ljust(80) + self.c.gray(f"({index} of {total})"))
        self._print()

    def on_test_end(self, spec: SpecResult, test: TestResult) -> None:
        c = self.c
        suites, name = test.title[:-1], test.title[-1]
        depth = 0
        for i, suite in enumerate(suites):
            depth = i + 1
            if i >= len(self._suites_shown) or self._suites_shown[i] != suite:
                self._suites_shown = self._suites_shown[:i] + [suite]
                self._print("  " * depth + suite)
        indent = "  " * (depth + 1)
        time_text = format_ms(test.duration_ms)
        time_text = c.yellow(f"({time_text})") if test.slow else c.gray(f"({time_text})")
        if test.state == "passed":
            allowed = test.attempts_allowed or len(test.attempts)
            flaky = c.yellow(f" [passed on attempt {len(test.attempts)} of {allowed}, flaky]") if test.flaky else ""
            if test.verdict and test.flaky:
                flaky = c.yellow(f" [flaky: {test.verdict}]")
            self._print(f"{indent}{c.green('✓')} {c.gray(name)} {time_text}{flaky}{quarantine_tag(test, c)}")
            for line in flaky_screenshot_lines(test, c, indent + "    "):
                self._print(line)
        elif test.state == "failed":
            self._failure_no += 1
            attempts = f" [failed {len(test.attempts)} attempts]" if len(test.attempts) > 1 else ""
            if test.verdict:  # a retry strategy's words: how many passed, and what it needed
                attempts = f" [{test.verdict}]" if test.flaky_failed else f" [failed: {test.verdict}]"
            paint = c.yellow if test.quarantine is not None else c.red
            self._print(f"{indent}{paint(f'{self._failure_no}) {name}')} {time_text}{attempts}{quarantine_tag(test, c)}")
        else:
            self._print(indent + not_run_line(test, name, c))

    def on_spec_end(self, spec: SpecResult) -> None:
        c = self.c
        if not spec.tests and not spec.error:
            self._print(c.yellow("  No tests found in this spec."))
        self._print()
        counts = count_parts(c, spec.count("passed"), spec.count("failed") - spec.quarantined,
                             spec.count("pending"), spec.count("skipped"), quarantined=spec.quarantined,
                             not_run=spec.count(NOT_RUN))
        self._print("  " + ", ".join(counts) + c.gray(f" ({format_ms(spec.duration_ms)})"))
        if spec.error:
            self._print()
            self._print(c.red(f"  The spec {spec.relative} could not be loaded:"))
            self._print(c.red(f"    {spec.error_headline()}"))
            self._print(_indent(spec.error, "      "))
        failed = [t for t in spec.tests if t.state == "failed"]
        start = self._failure_no - len(failed)
        for n, test in enumerate(failed, start + 1):
            self._print()
            self._print(f"  {n}) {test.full_title}{quarantine_tag(test, c)}")
            for line in failure_lines(test, c):
                self._print(line)
            if test.log:
                self._print(c.gray("     command log:"))
                for line in test.log[-15:]:
                    first, *rest = line.split("\n")  # a line of several keeps the log's indent
                    self._print(c.gray("\n".join([f"       {first}", *(f"         {more}" for more in rest)])))
            if test.routes:
                self._print(c.gray(_routes_table(test.routes, "     ")))
        if self.show_routes:
            for test in spec.tests:
                if test.routes and test.state != "failed":
                    self._print(c.gray(f"  routes of {test.full_title}:"))
                    self._print(c.gray(_routes_table(test.routes, "     ")))
        self._print()

    def on_run_end(self, run: RunResult) -> None:
        c = self.c
        self._print()
        self._print(c.gray("=" * 90))
        self._print()
        self._print("  (Run Finished)")
        self._print()
        failed_specs = sum(1 for s in run.specs if not s.ok)
        total_specs = len(run.specs)
        if run.error:
            # the first letter up, the rest as written ("Interrupted by SIGINT", not "sigint")
            label, mark = run.error[:1].upper() + run.error[1:], c.red("✖")
        elif run.flaky_failures and run.flaky_failures == run.failures:  # only flaky tests fail it
            label, mark = f"Failed: {run.flaky_failures} flaky (--fail-on-flaky)", c.red("✖")
        elif failed_specs:
            pct = int(round(100 * failed_specs / total_specs)) if total_specs else 0
            flaky = f"; {run.flaky_failures} flaky (--fail-on-flaky)" if run.flaky_failures else ""
            label, mark = f"{failed_specs} of {total_specs} failed ({pct}%){flaky}", c.red("✖")
        elif run.quarantined:
            label, mark = f"Passed; {run.quarantined} quarantined failed", c.yellow("✔")
        else:
            label, mark = "All specs passed!", c.green("✔")
        # as wide as the longest spec and the last row's label, whose numbers stay in their columns
        width = max([len(s.relative) for s in run.specs] + [24, len(label)]) + 2
        header = f"       {'Spec'.ljust(width)}{'Tests':>7}{'Passing':>9}{'Failing':>9}{'Pending':>9}{'Skipped':>9}{'Duration':>10}"
        self._print(c.gray(header))

        def num(n: int) -> str:
            return str(n) if n else "-"

        for spec in run.specs:
            spec_mark = c.green("✔") if spec.ok else c.red("✖")
            if spec.tests and spec.count(NOT_RUN) == len(spec.tests):
                spec_mark = c.gray("-")  # none of its tests ran
            line = (f"  {spec_mark}    {spec.relative.ljust(width)}{len(spec.tests):>7}{num(spec.count('passed')):>9}"
                    f"{num(spec.failures):>9}{num(spec.count('pending')):>9}{num(spec.count('skipped')):>9}"
                    f"{format_ms(spec.duration_ms):>10}")
            self._print(line)
            if spec.video:
                self._print(c.gray(f"       video: {spec.video}"))
        self._print(c.gray("  " + "─" * (width + 60)))
        self._print(f"  {mark}    {label.ljust(width)}{run.tests:>7}{num(run.total('passed')):>9}"
                    f"{num(run.failures):>9}{num(run.total('pending')):>9}{num(run.total('skipped')):>9}"
                    f"{format_ms(run.duration_ms):>10}")
        for line in quarantine_lines(run, c):
            self._print(line)
        not_run = not_run_summary(run)
        if not_run:
            self._print(c.gray(f"       {not_run}"))
        self._print()


def quarantine_tag(test: TestResult, c: Colors) -> str:
    """`` [quarantined: why]`` after a quarantined test's line (empty for any other test)."""
    return c.yellow(f" [quarantined: {test.quarantine}]") if test.quarantine is not None else ""


def quarantine_lines(run: RunResult, c: Colors) -> list[str]:
    """The run's quarantined tests, each with its outcome and reason, under the summary: what
    the run excused is said where its verdict is."""
    tests = [(spec, test) for spec in run.specs for test in spec.tests if test.quarantine is not None]
    if not tests:
        return []
    lines = ["", c.yellow("  Quarantined (a failure of these does not fail the run):")]
    for spec, test in tests:
        outcome = c.red("failed") if test.state == "failed" else test.state
        lines.append(f"    {spec.relative} {test.full_title}: {outcome} ({test.quarantine})")
    return lines


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def count_parts(c: Colors, passing: int, failing: int, pending: int, skipped: int, *,
                quarantined: int = 0, not_run: int = 0, flaky: int = 0) -> list[str]:
    """``["3 passing", "1 failing", "2 pending", "4 not run"]`` in colour; counts of 0 left out
    (passing kept). ``failing`` leaves out the ``quarantined`` failures, counted apart, and the
    ``flaky`` tests that fail the run (``--fail-on-flaky``: passing, and failing the run)."""
    parts = [c.green(f"{passing} passing")]
    if failing:
        parts.append(c.red(f"{failing} failing"))
    if flaky:
        parts.append(c.red(f"{flaky} flaky failing the run (--fail-on-flaky)"))
    if quarantined:
        parts.append(c.yellow(f"{quarantined} failing in quarantine"))
    if pending:
        parts.append(c.cyan(f"{pending} pending"))
    if skipped:
        parts.append(c.gray(f"{skipped} skipped"))
    if not_run:
        parts.append(c.gray(f"{not_run} not run"))
    return parts


def not_run_summary(run: RunResult) -> str | None:
    """``Not run: 4 tests in 2 specs (stopped after 1 failure (--max-failures 1))``, or None
    when every test ran."""
    specs = [spec for spec in run.specs if spec.count(NOT_RUN)]
    count = sum(spec.count(NOT_RUN) for spec in specs)
    if not count:
        return None
    tests = f"{count} test{'s' if count != 1 else ''} in {len(specs)} spec{'s' if len(specs) != 1 else ''}"
    return f"Not run: {tests}" + (f" ({run.stopped})" if run.stopped else "")


def not_run_line(test: TestResult, title: str, c: Colors) -> str:
    """``- title (Skipped: why)`` for a pending (cyan) or skipped (gray) test; ``- title (not run:
    why)`` for a test the run stopped before (gray)."""
    if test.state == NOT_RUN:
        return c.gray(f"- {title} (not run" + (f": {test.reason})" if test.reason else ")"))
    if test.state == "pending":
        reason = c.gray(f" ({test.message})") if test.message else ""
        return f"{c.cyan('- ' + title)}{reason}"
    return c.gray(f"- {title} ({test.message or 'skipped'})")


def flaky_screenshot_lines(test: TestResult, c: Colors, prefix: str) -> list[str]:
    """The screenshots and traces of a test that passed after failing: listed nowhere else."""
    if not test.flaky:
        return []
    return [c.gray(f"{prefix}screenshot: {shot}") for shot in test.screenshots] + trace_lines(test, c, prefix)


def trace_lines(test: TestResult, c: Colors, prefix: str) -> list[str]:
    """``trace: PATH  (runner show-trace PATH)``: each trace the test kept, and how to open it."""
    return [c.gray(f"{prefix}trace: {trace}  (runner show-trace {shlex.quote(trace)})") for trace in test.traces]


def failure_lines(test: TestResult, c: Colors, prefix: str = "     ") -> list[str]:
    """A failed test's errors: one line per failed attempt (``attempt N: Type: message`` when it
    was retried), the last one's whole report below it, then every screenshot and trace."""
    lines: list[str] = []
    failed = [(i, a) for i, a in enumerate(test.attempts, 1) if a.error]
    for i, attempt in failed:
        label = f"attempt {i}: " if len(test.attempts) > 1 else ""
        lines.append(c.red(f"{prefix}{label}{attempt.headline() or ''}"))
        # the whole report, unless it is that one line again (a death, an interruption); without
        # its first line when the headline says it (pytest.fail with pytrace=False)
        body = _after_headline(attempt.error or "", attempt.headline())
        if (i, attempt) == failed[-1] and body.strip() and body.strip() != attempt.headline():
            lines.append(c.red(_indent(body, prefix + "  ")))
    if test.verdict:
        lines.append(c.red(f"{prefix}retry strategy: {test.verdict}"))
    lines.extend(c.gray(f"{prefix}screenshot: {shot}") for shot in test.screenshots)
    lines.extend(trace_lines(test, c, prefix))
    return lines


def _after_headline(error: str, headline: str | None) -> str:
    """``error`` without its first line when the headline above it already says it: a report
    that is the error's message alone, whose first line the headline gives: a
    ``pytest.fail(msg, pytrace=False)`` (a bad quarantine or runner mark: ``(in setup) Failed:
    msg``), a failure found when the test ended (strictNetwork: ``CommandError: msg``)."""
    lines = error.splitlines()
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None or not headline or not headline.endswith(f": {lines[first].strip()}"):
        return error
    rest = lines[first + 1:]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join(rest)


def _routes_table(routes: list[dict[str, Any]], prefix: str) -> str:
    # a route of runner.intercept_backend takes the app's server's requests, not the page's
    matchers = [("(server) " if r.get("server") else "") + str(r.get("matcher", "")) for r in routes]
    width = min(max([len("Route Matcher"), *map(len, matchers)]), MATCHER_WIDTH)
    lines = [f"{prefix}Routes ({len(routes)}):",
             f"{prefix}  {'Method':<8}{'Route Matcher':<{width + 2}}{'Stubbed':<9}{'Alias':<16}{'#':>4}"]
    for r, matcher in zip(routes, matchers, strict=True):
        lines.append(
            f"{prefix}  {str(r.get('method', '*')):<8}{_cut(matcher, width):<{width + 2}}"
            f"{('Yes' if r.get('stubbed') else 'No'):<9}{_cut(str(r.get('alias') or '-'), 14):<16}"
            f"{r.get('matches', 0):>4}"
        )
    return "\n".join(lines)


#: The widest the matcher column gets; a longer matcher ends in "…" (the json report has it whole).
MATCHER_WIDTH = 60


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
