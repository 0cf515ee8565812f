"""The built-in reporters (dot, list, min, tap, json, junit) on a made-up run: no browser, no pytest run."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from runner.reporters import BUILTIN, make_reporter
from runner.reporters.dot import DotReporter
from runner.reporters.json_report import JsonReporter
from runner.reporters.junit import JunitReporter, spec_hash
from runner.reporters.listing import ListReporter
from runner.reporters.minimal import MinReporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.reporters.tap import TapReporter


@pytest.fixture(autouse=True)
def _no_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


# errors as pytest reports them (the test's source first), messages as the plugin sums them up
ERROR_1 = "runner = <runner for test_bad>\n\n>   runner.get('#n').should('have.text', '3')\nE   CommandError: one"
ERROR_2 = ("runner = <runner for test_bad>\n\n>   runner.get('#n').should('have.text', '3')\n"
           "E   CommandError: expected 3 got 2\nE     at line 4")
ROUTE = {"method": "GET", "matcher": "/api/*", "stubbed": True, "alias": "api", "matches": 2}
REQUEST = {"id": "r1", "method": "GET", "url": "http://x/api/users?a=1&b=<2>", "alias": "api",
           "stubbed": True, "status": 200, "error": None, "duration_ms": 12.5}


def _run() -> RunResult:
    ok = TestResult("a_spec.py::test_ok", ["test_ok"], "passed", [AttemptResult("passed", 120)], 120)
    flaky = TestResult("a_spec.py::TestSuite::test_slow", ["TestSuite", "test_slow"], "passed",
                       [AttemptResult("failed", 50, "AssertionError: first", "AssertionError",
                                      ["shots/a first.png"]),
                        AttemptResult("passed", 12000)], 12050, slow=True)
    bad = TestResult("b_spec.py::test_bad", ["test_bad & <co> \"q\""], "failed",
                     [AttemptResult("failed", 40, ERROR_1, "CommandError", message="CommandError: one"),
                      AttemptResult("failed", 80, ERROR_2, "CommandError", ["shots/b.png"],
                                    message="CommandError: expected 3 got 2")], 120,
                     log=["visit: http://x/"], routes=[ROUTE], requests=[REQUEST])
    pending = TestResult("b_spec.py::test_later", ["test_later"], "pending", [AttemptResult("pending", 0)], 0)
    return RunResult(
        specs=[SpecResult("a_spec.py", "/p/a_spec.py", [ok, flaky], duration_ms=1500),
               SpecResult("b_spec.py", "/p/b_spec.py", [bad, pending], duration_ms=900,
                          video="videos/b_spec.py.mp4", screenshots=["shots/b.png"]),
               SpecResult("c_spec.py", "/p/c_spec.py", [], error="SyntaxError: invalid syntax (c_spec.py, line 3)")],
        duration_ms=2400, browser="chromium (headless)", runner_version="0.1.0",
        config={"baseUrl": "http://x", "retries": 1, "odd": Path("/p")})


def render(cls: type, options: dict[str, Any] | None = None, run: RunResult | None = None) -> tuple[str, Any]:
    out = io.StringIO()
    reporter = cls(options, out)
    run = run or _run()
    reporter.on_run_start(run, [s.relative for s in run.specs])
    for i, spec in enumerate(run.specs, 1):
        reporter.on_spec_start(spec, i, len(run.specs))
        for test in spec.tests:
            reporter.on_test_start(spec, test.title)
            reporter.on_test_end(spec, test)
        reporter.on_spec_end(spec)
    reporter.on_run_end(run)
    return out.getvalue(), reporter


SUMMARY = "  2 passing, 2 failing, 1 pending (2.4s)"


def test_dot():
    text, _ = render(DotReporter)
    lines = text.splitlines()
    assert lines[1] == "  .!F,E"
    assert "  2) c_spec.py could not be loaded:" in lines
    assert "     SyntaxError: invalid syntax (c_spec.py, line 3)" in lines
    i = lines.index("  1) b_spec.py test_bad & <co> \"q\"")
    # each attempt's message, the last one's whole report, the screenshots
    assert lines[i + 1:i + 9] == [
        "     attempt 1: CommandError: one", "     attempt 2: CommandError: expected 3 got 2",
        "       runner = <runner for test_bad>", "",
        "       >   runner.get('#n').should('have.text', '3')", "       E   CommandError: expected 3 got 2",
        "       E     at line 4", "     screenshot: shots/b.png"]
    assert lines[-2] == SUMMARY


def test_list_lines_and_slow_colour(monkeypatch):
    text, _ = render(ListReporter)
    lines = text.splitlines()
    assert "  ✓ a_spec.py test_ok (120ms)" in lines
    assert "  ✓ a_spec.py TestSuite test_slow (12s) [flaky, passed on attempt 2]" in lines
    assert "  1) b_spec.py test_bad & <co> \"q\" (120ms)" in lines
    assert "  - b_spec.py test_later" in lines
    # numbered as in the failures at the end
    assert "  2) c_spec.py could not be loaded" in lines
    failures = lines[lines.index("  2) c_spec.py could not be loaded") + 1:]
    assert "  1) b_spec.py test_bad & <co> \"q\"" in failures and "  2) c_spec.py could not be loaded:" in failures
    assert lines[-2] == SUMMARY
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    colored, _ = render(ListReporter)
    assert "\x1b[33m(12s)\x1b[0m" in colored and "\x1b[90m(120ms)\x1b[0m" in colored


def test_min_prints_only_failures_and_summary():
    text, _ = render(MinReporter)
    assert "test_ok" not in text and "test_later" not in text
    assert "  2) c_spec.py could not be loaded:" in text and "  1) b_spec.py test_bad" in text
    assert text.splitlines()[-2] == SUMMARY


def test_tap_13():
    text, _ = render(TapReporter)
    lines = text.splitlines()
    assert lines[0] == "TAP version 13"
    points = [line for line in lines if re.match(r"(not )?ok \d+ ", line)]
    assert points == ["ok 1 - a_spec.py test_ok", "ok 2 - a_spec.py TestSuite test_slow",
                      "not ok 3 - b_spec.py test_bad & <co> \"q\"", "ok 4 - b_spec.py test_later # SKIP pending",
                      "not ok 5 - c_spec.py could not be loaded"]
    assert "1..5" in lines and lines.index("1..5") > lines.index(points[-1])
    # YAML blocks: indented, between "  ---" and "  ...", right after their "not ok" line
    i = lines.index(points[2])
    end = lines.index("  ...", i)
    assert lines[i + 1] == "  ---"
    block = lines[i + 1:end + 1]
    assert all(line.startswith("  ") for line in block)
    assert '  message: "CommandError: expected 3 got 2"' in block
    assert '  type: "CommandError"' in block and "  attempts: 2" in block
    assert "  stack: |-" in block and "    E   CommandError: expected 3 got 2" in block
    assert "    E     at line 4" in block
    assert '    - "shots/b.png"' in block
    assert lines[lines.index(points[4]) + 1] == "  ---"
    assert lines[-5:] == ["1..5", "# tests 5", "# pass 2", "# fail 2", "# skip 1"]
    # slowTestThreshold: a diagnostic line after a slow test that passed
    assert lines[lines.index(points[1]) + 1] == "# slow: test 2 took 12s (slowTestThreshold)"
    import yaml
    parsed = yaml.safe_load("\n".join(line[2:] for line in block[1:-1]))
    assert parsed["stack"] == ERROR_2


def test_tap_escapes_hash_in_titles():
    run = RunResult(specs=[SpecResult("a.py", "/a.py", [TestResult("x", ["issue #12"], "passed", [], 1)])])
    text, _ = render(TapReporter, run=run)
    assert "ok 1 - a.py issue \\#12" in text.splitlines()


def test_json_to_stream_and_file(tmp_path):
    text, _ = render(JsonReporter)
    data = json.loads(text)
    assert data["config"] == {"baseUrl": "http://x", "retries": 1, "odd": "/p"}
    for key, value in {"totalSpecs": 3, "totalTests": 4, "totalPassed": 2, "totalFailed": 1, "totalPending": 1,
                       "totalSkipped": 0, "totalDuration": 2400, "totalFlaky": 1, "totalSlow": 1,
                       "totalSpecErrors": 1, "status": "failed", "browser": "chromium (headless)"}.items():
        assert data[key] == value, key
    assert data["startedTestsAt"] and data["endedTestsAt"] >= data["startedTestsAt"]
    b = data["specs"][1]
    assert b["video"] == "videos/b_spec.py.mp4" and b["screenshots"] == ["shots/b.png"]
    assert b["stats"] == {"tests": 2, "passes": 0, "failures": 1, "pending": 1, "skipped": 0, "duration_ms": 900,
                          "quarantined": 0}
    bad = b["tests"][0]
    assert bad["routes"] == [ROUTE] and bad["requests"] == [REQUEST] and bad["log"] == ["visit: http://x/"]
    assert [a["error"] for a in bad["attempts"]] == [ERROR_1, ERROR_2]
    assert [a["message"] for a in bad["attempts"]] == ["CommandError: one", "CommandError: expected 3 got 2"]
    assert bad["message"] == "CommandError: expected 3 got 2"
    assert bad["attempts"][1]["screenshots"] == ["shots/b.png"] and bad["duration_ms"] == 120
    assert bad["error"] == ERROR_2
    assert data["specs"][0]["tests"][1]["slow"] is True and data["specs"][0]["tests"][1]["flaky"] is True
    assert data["specs"][2]["error"].startswith("SyntaxError")

    text, reporter = render(JsonReporter, {"output": "out/run.json", "projectRoot": str(tmp_path)})
    assert text == "" and reporter.written == tmp_path / "out" / "run.json"
    written = json.loads((tmp_path / "out" / "run.json").read_text())
    assert json.loads(json.dumps(written)) == written and written["totalTests"] == 4


# The structure junit-10.xsd (Jenkins xunit plugin) allows: children and attributes per element,
# required attributes; NUMERIC attributes must hold numbers.
SCHEMA: dict[str, dict[str, Any]] = {
    "testsuites": {"children": {"testsuite"}, "attrs": {"name", "time", "tests", "failures", "errors"},
                   "required": set()},
    "testsuite": {"children": {"testsuite", "properties", "testcase", "system-out", "system-err"},
                  "attrs": {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp",
                            "hostname", "id", "package", "file", "log", "url"},
                  "required": {"name", "tests", "failures", "errors"}},
    "properties": {"children": {"property"}, "attrs": set(), "required": set()},
    "property": {"children": set(), "attrs": {"name", "value"}, "required": {"name", "value"}},
    "testcase": {"children": {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure",
                              "flakyError", "system-out", "system-err"},
                 "attrs": {"name", "time", "classname", "group"}, "required": {"name"}},
    "failure": {"children": set(), "attrs": {"message", "type"}, "required": set()},
    "error": {"children": set(), "attrs": {"message", "type"}, "required": set()},
    "skipped": {"children": set(), "attrs": {"message", "type"}, "required": set()},
    "system-out": {"children": set(), "attrs": set(), "required": set()},
    "system-err": {"children": set(), "attrs": set(), "required": set()},
}
NUMERIC = {"tests", "failures", "errors", "skipped", "disabled", "time", "assertions", "line"}
# Our own order (the xsd accepts any): what CI tools display best.
ORDER = {"testsuite": ["properties", "testcase", "system-out", "system-err"],
         "testcase": ["skipped", "error", "failure", "system-out", "system-err"]}


def validate(el: ET.Element) -> None:
    rule = SCHEMA[el.tag]
    assert set(el.attrib) <= rule["attrs"], (el.tag, el.attrib)
    assert rule["required"] <= set(el.attrib), (el.tag, el.attrib)
    for name in NUMERIC & set(el.attrib):
        float(el.attrib[name])
        assert float(el.attrib[name]) >= 0
    if "timestamp" in el.attrib:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", el.attrib["timestamp"])
    tags = [child.tag for child in el]
    assert set(tags) <= rule["children"], (el.tag, tags)
    if el.tag in ORDER:
        assert tags == sorted(tags, key=ORDER[el.tag].index), tags
    if el.tag == "testsuite":
        assert tags.count("properties") <= 1
        assert int(el.get("tests", "0")) == tags.count("testcase")
    for child in el:
        validate(child)


def test_junit_single_file(tmp_path):
    _, reporter = render(JunitReporter, {"projectRoot": str(tmp_path), "testsuitesTitle": "My <run>"})
    path = tmp_path / "runner" / "results" / "junit.xml"
    assert reporter.written == [path]
    raw = path.read_text(encoding="utf-8")
    assert raw.startswith("<?xml") and "&lt;co&gt;" in raw and "&amp;" in raw
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    validate(root)
    assert root.attrib["name"] == "My <run>"
    assert root.attrib == {"name": "My <run>", "tests": "5", "failures": "1", "errors": "1", "time": "2.400"}
    a, b, c = root.findall("testsuite")
    assert [s.get("name") for s in (a, b, c)] == ["a_spec.py", "b_spec.py", "c_spec.py"]
    assert b.get("file") == "b_spec.py" and b.get("failures") == "1" and b.get("skipped") == "1"
    props = [(p.get("name"), p.get("value")) for p in b.find("properties") or []]
    assert props == [("video", "videos/b_spec.py.mp4"), ("screenshot", "shots/b.png")]
    bad, later = b.findall("testcase")
    assert bad.get("name") == 'test_bad & <co> "q"' and bad.get("classname") == "b_spec.py"
    assert bad.get("time") == "0.120"
    failure = bad.find("failure")
    assert failure is not None and failure.get("message") == "CommandError: expected 3 got 2"
    assert failure.get("type") == "CommandError" and "attempt 1: CommandError: one" in (failure.text or "")
    out = (bad.findtext("system-out") or "").splitlines()
    assert "[[ATTACHMENT|shots/b.png]]" in out and "[[ATTACHMENT|videos/b_spec.py.mp4]]" in out
    assert "visit: http://x/" in out
    assert later.find("skipped") is not None
    slow = a.findall("testcase")[1]
    assert slow.get("classname") == "a_spec.py.TestSuite" and slow.get("name") == "test_slow"
    assert "[[PROPERTY|slow=true]]" in (slow.findtext("system-out") or "")
    assert "[[ATTACHMENT|shots/a first.png]]" in (slow.findtext("system-out") or "")
    error = c.find("testcase/error")
    assert c.get("errors") == "1" and error is not None and error.get("message", "").startswith("SyntaxError")


def test_junit_file_per_spec_with_hash(tmp_path):
    _, reporter = render(JunitReporter, {"projectRoot": str(tmp_path), "mochaFile": "out/results-[hash].xml"})
    expected = [tmp_path / "out" / f"results-{spec_hash(name)}.xml" for name in ("a_spec.py", "b_spec.py", "c_spec.py")]
    assert reporter.written == expected and len(set(expected)) == 3
    assert spec_hash("a_spec.py") == spec_hash("a_spec.py") and re.fullmatch(r"[0-9a-f]{8}", spec_hash("a_spec.py"))
    for path, name in zip(expected, ("a_spec.py", "b_spec.py", "c_spec.py"), strict=True):
        root = ET.parse(path).getroot()
        validate(root)
        assert [s.get("name") for s in root] == [name] and root.get("tests") == root[0].get("tests")


def test_junit_strips_control_characters(tmp_path):
    run = RunResult(specs=[SpecResult("a.py", "/a.py", [TestResult(
        "x", ["bell\x07"], "failed", [AttemptResult("failed", 1, "boom \x1b[31mred\x1b[0m")], 1)])])
    _, reporter = render(JunitReporter, {"mochaFile": str(tmp_path / "j.xml")}, run=run)
    case = ET.parse(reporter.written[0]).getroot().find("testsuite/testcase")
    assert case is not None and case.get("name") == "bell"
    assert case.find("failure").get("message") == "boom [31mred[0m"  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["spec", "dot", "list", "min", "tap", "json", "junit"])
def test_make_reporter_builds_each_builtin(name, tmp_path, capsys):
    reporter = make_reporter(name, {}, tmp_path)
    assert type(reporter) is BUILTIN[name]
    assert reporter.options == {"projectRoot": str(tmp_path)}
    assert capsys.readouterr().err == ""


def test_tap_marks_a_slow_failure_in_its_yaml_block():
    slow_fail = TestResult("s.py::test_x", ["test_x"], "failed",
                           [AttemptResult("failed", 9000, "E boom", "AssertionError", message="AssertionError: boom")],
                           9000, slow=True)
    text, _ = render(TapReporter, run=RunResult(specs=[SpecResult("s.py", "/s.py", [slow_fail])]))
    assert "  slow: true" in text.splitlines() and "# slow:" not in text
