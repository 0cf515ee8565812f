"""The ``junit`` reporter: JUnit XML (the Jenkins/Ant junit-10.xsd family) written at the end of the run.

Options: ``mochaFile`` (output path; ``[hash]`` in it gives one file per spec, replaced by a short
stable hash of the spec path; default ``runner/results/junit.xml``), ``testsuitesTitle`` (the root
``<testsuites name>``, default ``runner``), ``projectRoot`` (relative paths are resolved against it;
default the current directory).

Artifacts: the spec's video, screenshots and traces are ``<property name="video|screenshot|trace">``
of its ``<testsuite>``. ``<testcase>`` has no ``<properties>`` in junit-10.xsd, so per-test artifacts go to
the test's ``<system-out>`` as ``[[ATTACHMENT|path]]`` lines (the Jenkins attachments convention), and
a slow test has a ``[[PROPERTY|slow=true]]`` line there.

A quarantined test that failed is a ``<skipped message="quarantined: why; it failed: ...">`` (its
errors in its ``<system-out>``): CI systems (Jenkins, GitLab, GitHub's test reporters) count a
``<failure>`` against the build whatever the run's exit status, and show ``<skipped>`` with its
message, so the report agrees with the run. Every quarantined test has a
``[[PROPERTY|quarantined=why]]`` line in its ``<system-out>``. For the same reason, in a run with
``--fail-on-flaky`` a test that passed only on a retry (not quarantined) is a ``<failure
type="FlakyTest" message="passed only on attempt 2 of 2: fails the run (--fail-on-flaky); attempt
1 failed: ...">``, counted in its suite's ``failures``.
"""

from __future__ import annotations

import hashlib
import socket
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from runner.reporters.base import Reporter
from runner.reporters.model import NOT_RUN, RunResult, SpecResult, TestResult, flaky_failure_message

__all__ = ["JunitReporter", "spec_hash", "DEFAULT_FILE"]

DEFAULT_FILE = "runner/results/junit.xml"


def spec_hash(relative: str) -> str:
    return hashlib.sha1(relative.encode("utf-8")).hexdigest()[:8]


def _secs(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _clean(text: Any) -> str:
    """XML 1.0 cannot hold most control characters even escaped: drop them (ElementTree escapes the rest)."""
    return "".join(ch for ch in str(text) if ch in "\t\n\r" or ord(ch) >= 0x20 and ch not in "\ufffe\uffff")


def _timestamp(at: float | None = None) -> str:
    moment = datetime.fromtimestamp(at, UTC) if at is not None else datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


class JunitReporter(Reporter):
    OPTIONS = {"mochaFile": (Path, "the output file; [hash] in it gives one file per spec"),
               "testsuitesTitle": (str, "the name of the root <testsuites>")}

    def __init__(self, options: dict[str, Any] | None = None, stream: TextIO | None = None) -> None:
        super().__init__(options, stream)
        self.mocha_file = str(self.options.get("mochaFile") or DEFAULT_FILE)
        self.title = str(self.options.get("testsuitesTitle") or "runner")
        self._started: dict[str, str] = {}
        self.written: list[Path] = []

    def _path(self, spec: SpecResult | None) -> Path:
        name = self.mocha_file
        if spec is not None:
            name = name.replace("[hash]", spec_hash(spec.relative))
        return self.output_file(name)

    def on_spec_start(self, spec: SpecResult, index: int, total: int) -> None:
        self._started[spec.relative] = _timestamp(spec.started_at)

    def suite_element(self, spec: SpecResult) -> ET.Element:
        tests = len(spec.tests) + (1 if spec.error else 0)
        skipped = spec.count("pending") + spec.count("skipped") + spec.quarantined + spec.count(NOT_RUN)
        suite = ET.Element("testsuite", {
            "name": _clean(spec.relative), "tests": str(tests), "failures": str(spec.count("failed") - spec.quarantined + spec.flaky_failures),
            "errors": str(1 if spec.error else 0), "skipped": str(skipped), "time": _secs(spec.duration_ms),
            "timestamp": self._started.get(spec.relative) or _timestamp(spec.started_at), "hostname": _clean(socket.gethostname() or "localhost"),
            "file": _clean(spec.relative),
        })
        props = ET.SubElement(suite, "properties")
        if spec.video:
            ET.SubElement(props, "property", {"name": "video", "value": _clean(spec.video)})
        for shot in spec.screenshots:
            ET.SubElement(props, "property", {"name": "screenshot", "value": _clean(shot)})
        for trace in spec.traces:
            ET.SubElement(props, "property", {"name": "trace", "value": _clean(trace)})
        if spec.error:
            case = ET.SubElement(suite, "testcase", {"name": "(spec could not be loaded)",
                                                     "classname": _clean(spec.relative), "time": "0.000"})
            err = ET.SubElement(case, "error", {"message": _clean(spec.error_headline() or "error"),
                                                "type": _clean(spec.error_type or "LoadError")})
            err.text = _clean(spec.error)
        for test in spec.tests:
            suite.append(self.case_element(spec, test))
        return suite

    def case_element(self, spec: SpecResult, test: TestResult) -> ET.Element:
        classname = ".".join([spec.relative, *test.title[:-1]])
        # junit-10.xsd allows name, classname, time and group on a testcase (the spec's file is
        # on its testsuite).
        # the suite titles are in classname: the name is the test's own (CI tools show both)
        case = ET.Element("testcase", {"name": _clean(test.title[-1]), "classname": _clean(classname),
                                       "time": _secs(test.duration_ms)})
        if test.state in ("pending", "skipped"):
            ET.SubElement(case, "skipped", {"message": _clean(test.message or test.state)})
        elif test.quarantined_failure:
            ET.SubElement(case, "skipped", {
                "message": _clean(f"quarantined: {test.quarantine}; it failed: {test.message or 'failed'}")})
        elif test.fails_as_flaky:  # CI systems read the XML: the run's verdict must be in it
            ET.SubElement(case, "failure", {"message": _clean(flaky_failure_message(test)), "type": "FlakyTest"})
        elif test.state == NOT_RUN:  # JUnit has no "not run": CI systems read a skip with its reason
            ET.SubElement(case, "skipped", {"message": _clean(f"not run: {test.reason or 'the run stopped'}")})
        elif test.state == "failed":
            last = test.last_failed
            error = test.error or "failed"
            failure = ET.SubElement(case, "failure", {
                # a flaky test a retry strategy failed: its verdict, not an earlier attempt's error
                "message": _clean((test.verdict if test.flaky_failed else test.message) or "failed"),
                "type": _clean((last.error_type if last else None) or "AssertionError"),
            })
            errors = [f"attempt {i}: {a.headline()}\n{a.error}" for i, a in enumerate(test.attempts, 1) if a.error]
            failure.text = _clean("\n\n".join(errors) if len(test.attempts) > 1 else error)
        out_lines: list[str] = []
        if test.slow:
            out_lines.append("[[PROPERTY|slow=true]]")
        if test.flaky:
            out_lines.append(f"[[PROPERTY|flaky=true]] passed on attempt {len(test.attempts)}")
        elif test.flaky_failed:
            out_lines.append("[[PROPERTY|flaky=true]] failed by its retry strategy")
        if test.verdict:
            out_lines.append(f"retry strategy: {test.verdict}")
        if test.quarantine is not None:
            out_lines.append(f"[[PROPERTY|quarantined={test.quarantine}]]")
            if test.quarantined_failure:
                out_lines.extend(f"attempt {i}: {a.error}" for i, a in enumerate(test.attempts, 1) if a.error)
        out_lines.extend(f"[[ATTACHMENT|{shot}]]" for shot in test.screenshots)
        out_lines.extend(f"[[ATTACHMENT|{trace}]]" for trace in test.traces)
        if spec.video and test.state == "failed":
            out_lines.append(f"[[ATTACHMENT|{spec.video}]]")
        out_lines.extend(test.log)
        if out_lines:
            ET.SubElement(case, "system-out").text = _clean("\n".join(out_lines))
        return case

    def _write(self, path: Path, suites: list[ET.Element], run: RunResult, specs: list[SpecResult]) -> None:
        def total(attr: str) -> str:
            return str(sum(int(s.get(attr, "0")) for s in suites))

        root = ET.Element("testsuites", {
            "name": _clean(self.title), "tests": total("tests"), "failures": total("failures"),
            "errors": total("errors"),
            "time": _secs(run.duration_ms if len(specs) == len(run.specs) else sum(s.duration_ms for s in specs)),
        })
        root.extend(suites)
        ET.indent(root)
        ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
        self.written.append(path)

    def on_run_end(self, run: RunResult) -> None:
        if "[hash]" in self.mocha_file:
            for spec in run.specs:
                self._write(self._path(spec), [self.suite_element(spec)], run, [spec])
        else:
            self._write(self._path(None), [self.suite_element(s) for s in run.specs], run, run.specs)
