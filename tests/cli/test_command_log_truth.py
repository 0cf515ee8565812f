"""The terminal's command log, the events file's attempt log and the HTML report's rows tell the
same commands of a failed test, in the same order, with the same arguments (a secret hidden
alike): cookies, url,
intercept, wait, a custom command (and the commands it runs) and a popup's commands included."""

from __future__ import annotations

import json
import re

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.report_events import read_data_file

PAGE = ("<html><body><h1>Hi</h1><a id='open' href='two.html' target='_blank'>two</a>"
        "<p id='p'>para</p></body></html>")
SPEC = """
    from runner import add_command

    @add_command
    def check_para(runner, text):
        runner.get("#p").should("have.text", text)

    def test_everything_is_told(runner):
        runner.visit("/")
        runner.set_cookie("a", "b")
        runner.set_cookie("token", runner.env("password"))
        runner.get_cookie("a")
        runner.get_cookies()
        runner.url()
        runner.intercept("/x", {"body": "y"}).as_("x")
        runner.check_para("para")
        with runner.popup() as tab:
            runner.get("#open").click()
        tab.value.get("h2").should("have.text", "Two")
        tab.value.url()
        runner.clear_cookie("a")
        runner.clear_cookies()
        runner.wait(10)
        runner.get("h1").should("have.text", "Nope")
    """
SECRET = "pw-secret-8"
NODEID = "runner/integration/a_spec.py::test_everything_is_told"
# the log names a should "assert" (as the original's command log does)
LOG_NAMES = {"assert": "should"}
# the lines of the log that are not a command's: requests, and the line that ends a failure
NOT_COMMANDS = {"failed", "request", "warning"}


def _names_of_log(lines: list[str]) -> list[str]:
    """The commands a log tells (``tab[1] click: get('#b')`` -> ``tab[1] click``)."""
    names = []
    for line in lines:
        name = line.split(":", 1)[0]
        base = name.rsplit(" ", 1)[-1]
        if base in NOT_COMMANDS:
            continue
        tab = name.rsplit(" ", 1)[0] + " " if " " in name else ""
        names.append(tab + LOG_NAMES.get(base, base))
    return names


def _terminal_log(out: str) -> list[str]:
    block = out.split("command log:", 1)[1]
    lines = []
    for line in block.splitlines()[1:]:
        if not line.startswith("       ") or not line.strip():
            break
        if not line.startswith("         "):  # a line of several: its next lines are indented more
            lines.append(line.strip())
    return lines


@pytest.mark.slow
def test_the_terminal_the_events_file_and_the_report_tell_the_same_commands(project) -> None:
    root = project(base_project({
        "runner/integration/a_spec.py": SPEC,
        "site/two.html": "<html><body><h2>Two</h2></body></html>",
        "runner.env.json": json.dumps({"password": SECRET}),
    }, {"video": False, "defaultCommandTimeout": 1000, "retries": 0}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text

    # the report: one row per command.started, a popup's named by its tab
    index = read_data_file(root / "runner" / "report" / "data" / "index.js", "index")
    row = next(r for r in index["tests"] if r[7] == NODEID)
    attempt = read_data_file(root / "runner" / "report" / "data" / "t" / f"{row[0]}.js", "test")[1]["attempts"][0]
    rows = [c for c in attempt["commands"] if c["kind"] == "command"]
    reported = [(f"{c['subject'].split('.')[0]} " if (c["subject"] or "").startswith("tab[") else "") + c["name"]
                for c in rows]
    assert reported == [
        "visit", "set_cookie", "set_cookie", "get_cookie", "get_cookies", "url", "intercept", "check_para", "should", "click",
        "popup", "tab[1] should", "tab[1] url", "clear_cookie", "clear_cookies", "wait", "should"], rows

    # the events file: the attempt's log
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    (ended,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"] == NODEID]
    assert _names_of_log(ended["log"]) == reported, ended["log"]

    # the terminal: the spec reporter's command log under the failure (its last 15 lines)
    terminal = _terminal_log(result.out)
    assert terminal == ended["log"][-15:], result.out
    assert _names_of_log(terminal) == reported[-len(_names_of_log(terminal)):]

    # the same arguments: a command without a line of its own is told with the event's args
    lines = ended["log"]
    started = {(e["name"], e["args"]) for e in events if e["kind"] == "command.started" and e["nodeid"] == NODEID}
    assert "set_cookie: 'a', 'b'" in lines and "get_cookie: 'a'" in lines and "url" in lines
    assert "intercept: '/x', {'body': 'y'}" in lines and "tab[1] url" in lines
    assert "clear_cookie: 'a'" in lines and "clear_cookies" in lines and "wait: 10" in lines
    assert "check_para: 'para'" in lines
    # a secret hidden alike in both
    assert "set_cookie: 'token', '[redacted]'" in lines and SECRET not in result.text
    assert SECRET not in (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8")
    assert ("set_cookie", "'token', '[redacted]'") in started
    assert {("set_cookie", "'a', 'b'"), ("intercept", "'/x', {'body': 'y'}"), ("wait", "10")} <= started
    # a failed should is told as a passing one is, then the failure
    assert lines[-2] == "assert: get('h1') should have.text 'Nope'", lines
    assert re.fullmatch(r"failed: get\('h1'\)\.should\('have\.text', 'Nope'\) \(after \d+ms\)", lines[-1]), lines
