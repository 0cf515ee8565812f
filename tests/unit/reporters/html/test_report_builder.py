"""The HTML report's builder on hand-made events: what lands in the index and in each test's
data file, bodies, escaping, fallbacks, artifacts, the folder's ownership, a cut-short file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.support.report_events import (
    ERROR,
    FAILED_ID,
    XSS_BODY,
    XSS_TITLE,
    crafted_run,
    png,
    read_data_file,
    write_events,
)

from runner.errors import UsageError
from runner.events import AttemptEnded, RunStarted, TestEnded, TestStarted, dumps_event
from runner.reporters.html import MARKER, HtmlReport, folder_refusal, overlap_refusal
from runner.reporters.html.bodies import INLINE_BYTES, body_view
from runner.reporters.html.jsdata import js_call, js_literal
from runner.reporters.replay import html_report_command


def build(tmp_path: Path, events=None, *, viewer: Path | None = None, **kwargs) -> Path:
    report = HtmlReport(tmp_path / "report", viewer=viewer)
    for event in events if events is not None else crafted_run(tmp_path / "artifacts", **kwargs):
        report(event)
    return report.finish()


def index_of(folder: Path) -> dict:
    return read_data_file(folder / "data" / "index.js", "index")


def page_of(folder: Path, nodeid: str) -> dict:
    row = next(r for r in index_of(folder)["tests"] if r[7] == nodeid)
    number, page = read_data_file(folder / "data" / "t" / f"{row[0]}.js", "test")
    assert number == row[0] == page["number"]
    return page


def test_the_index_has_the_run_and_one_row_per_test_in_spec_order(tmp_path: Path) -> None:
    folder = build(tmp_path)
    index = index_of(folder)
    run = index["run"]
    assert (run["runnerVersion"], run["browserVersion"], run["interrupted"]) == ("9.9.9", "156.0.1", False)
    # the flaky test is counted as flaky only: the outcomes add up to the tests (they made 8 of 7)
    assert run["totals"] == {"tests": 7, "passed": 1, "failed": 3, "pending": 1, "skipped": 1, "flaky": 1,
                             "unfinished": 0, "notRun": 0, "specErrors": 1, "quarantinedFailed": 0,
                             "failedAsFlaky": 0}
    assert ["defaultCommandTimeout", 4000, "default"] in run["config"]
    assert ["env", {"who": XSS_TITLE}, "cli"] in run["config"]
    assert [s["name"] for s in index["specs"]] == ["shop_spec.py", "odd_spec.py", "broken_spec.py"]
    assert index["specs"][2]["errorMessage"] == "SyntaxError: invalid syntax (broken_spec.py, line 3)"
    rows = {r[7]: r for r in index["tests"]}
    assert [r[1] for r in index["tests"]] == [0, 0, 0, 0, 0, 1, 1]  # spec indexes, in order
    failed = rows[FAILED_ID]
    assert failed[2:7] == [["checkout", "shows the total"], "failed", 5100, 1, 0]
    assert failed[9].startswith("CommandError: Timed out retrying")
    flaky = rows["specs/shop_spec.py::test_coupon_applies"]
    assert (flaky[3], flaky[5], flaky[6]) == ("passed", 2, 1)
    assert flaky[9] == "AssertionError: coupon not applied"  # why it was flaky
    assert rows["specs/shop_spec.py::test_refunds"][9] == "Skipped: not built yet"
    assert index["traceViewer"] is False  # no viewer folder was given
    # the page's own files and the marker are there; the rest is loaded on demand
    for name in ("index.html", "report.js", "report.css", MARKER):
        assert (folder / name).is_file()
    assert len(list((folder / "data" / "t").iterdir())) == 7


def test_a_failed_tests_page_has_its_error_commands_routes_and_requests(tmp_path: Path) -> None:
    page = page_of(build(tmp_path), FAILED_ID)
    (attempt,) = page["attempts"]
    assert attempt["error"] == ERROR and attempt["errorType"] == "CommandError"
    commands = attempt["commands"]
    # the intercepted requests are in the command log where they began, except `log: False`'s (r4)
    assert [(c["name"], c["state"]) for c in commands] == [
        ("intercept", "passed"), ("visit", "passed"), ("fetch", "passed"), ("fetch", "passed"),
        ("fetch", "passed"), ("fetch", "passed"), ("should", "failed"), ("log", "passed")]
    assert [c["args"] for c in commands if c["kind"] == "request"] == [
        "GET 200 http://127.0.0.1:9/api/cart", "GET 200 http://127.0.0.1:9/logo.png",
        "GET 200 http://127.0.0.1:9/big.txt", "POST 500 http://127.0.0.1:9/api/order"]
    assert commands[2]["aliases"] == ["cart"] and commands[2]["stubbed"] is True
    assert commands[2]["at"] == pytest.approx(200, abs=0.2)
    should = commands[6]
    assert should["subject"] == "get('#total')" and should["line"] == 7 and should["durationMs"] == 4000
    assert should["error"].startswith("CommandError") and should["file"] == "specs/shop_spec.py"  # of the project
    assert 0 < commands[0]["at"] < commands[1]["at"] < should["at"]  # ms from the attempt's start
    assert attempt["log"] == []  # the command events are there: no fallback
    assert attempt["routes"] == [{"method": "GET", "matcher": '{"method": "GET", "url": "/api/cart"}',
                                  "stubbed": True, "alias": "cart", "matches": 1, "handler": "static",
                                  "times": None, "middleware": False}]
    requests = attempt["requests"]
    assert attempt["requestsFrom"] == "events"
    assert [(r["method"], r["status"], r["stubbed"]) for r in requests] == [
        ("GET", 200, True), ("GET", 200, False), ("GET", 200, False), ("GET", 200, False), ("POST", 500, False)]
    # placed on the attempt's time line: each began ``total`` before it ended
    assert requests[0]["at"] == pytest.approx(200, abs=0.2)
    assert requests[4]["at"] == pytest.approx(600, abs=0.2)
    assert requests[4]["timings"] == {"queued": 0.3, "handler": 12.5, "upstream": 40.0, "total": 60.0}
    assert requests[0]["responseHeaders"] == {"content-type": "application/json"}


def test_bodies_json_image_cut_unrecorded_and_request(tmp_path: Path) -> None:
    folder = build(tmp_path)
    requests = page_of(folder, FAILED_ID)["attempts"][0]["requests"]
    json_body = requests[0]["responseBody"]
    assert (json_body["kind"], json_body["state"]) == ("json", "recorded")
    assert json.loads(json_body["text"])["total"] == 41 and "file" not in json_body
    image = requests[1]["responseBody"]
    assert image["kind"] == "image" and image["image"].endswith(".png")
    assert (folder / image["image"]).read_bytes() == png(3, 3, (20, 90, 200))
    big = requests[2]["responseBody"]
    assert big["shownCut"] is True and len(big["text"].encode()) <= INLINE_BYTES
    assert (folder / big["file"]).read_text() == "line of a long text body\n" * 4000  # the whole body
    assert requests[3]["responseBody"] == {"state": "unrecorded", "size": None}
    assert requests[4]["requestBody"]["text"] == '{"sku":"A-1","qty":1}'
    assert requests[0]["requestBody"] == {"state": "none"}


def test_body_view_edge_cases(tmp_path: Path) -> None:
    written: dict[str, bytes] = {}

    def write(data: bytes, extension: str) -> str:
        written[extension] = data
        return f"bodies/x.{extension}"

    assert body_view(None, size=0, present=True, write=write) == {"state": "none"}
    assert body_view(None, size=None, present=False, write=write) == {"state": "none"}  # no response
    assert body_view(None, size=10, present=True, write=write) == {"state": "unrecorded", "size": 10}
    cut = body_view({"size": 3 << 20, "content_type": "text/plain", "encoding": "utf-8", "data": "abc",
                     "cut": True}, size=3 << 20, present=True, write=write)
    assert cut["recordCut"] is True and cut["size"] == 3 << 20 and cut["text"] == "abc"
    bad = body_view({"size": 3, "content_type": "image/png", "encoding": "base64", "data": "!!!"},
                    size=3, present=True, write=write)
    assert "could not decode" in bad["text"]
    binary = body_view({"size": 3, "content_type": "application/octet-stream", "encoding": "base64",
                        "data": "AAEC"}, size=3, present=True, write=write)
    assert binary["kind"] == "binary" and written["bin"] == b"\x00\x01\x02"
    svg = body_view({"size": 5, "content_type": "image/svg+xml", "encoding": "utf-8", "data": "<svg/>"},
                    size=5, present=True, write=write)
    assert svg["kind"] == "svg" and svg["text"] == "<svg/>"
    # a multi-byte text cut at 64 KB is cut between characters, never inside one
    text = "é" * INLINE_BYTES
    view = body_view({"size": len(text.encode()), "content_type": "text/plain", "encoding": "utf-8",
                      "data": text}, size=None, present=True, write=write)
    assert view["text"] == "é" * (INLINE_BYTES // 2) and written["txt"] == text.encode()


@pytest.mark.parametrize("value", [
    "</script><script>alert(1)</script>", "<!-- x", "a\u2028b\u2029c", "]]>", "&lt;", "\x00\x1f",
    {"</SCRIPT>": ["<img src=x onerror=alert(1)>"]},
])
def test_data_files_cannot_end_their_script(value) -> None:
    text = js_literal(value)
    assert all(ch not in text for ch in "<>&\u2028\u2029") and text.isascii()
    assert json.loads(text) == value  # still the same data


def test_numbers_json_has_no_word_for_become_null() -> None:
    assert js_literal({"a": float("nan"), "b": [float("inf")], "c": 1.5}) == '{"a":null,"b":[null],"c":1.5}'
    assert js_call("test", 3, {"x": "<"}) == '__runnerReport.test(3,{"x":"\\u003c"});\n'


def test_payloads_in_data_stay_data(tmp_path: Path) -> None:
    folder = build(tmp_path)
    for path in (folder / "data").rglob("*.js"):
        text = path.read_text()
        assert "<" not in text and "\u2028" not in text
    page = page_of(folder, "specs/odd_spec.py::test_xss")
    assert page["title"] == [XSS_TITLE]
    assert page["attempts"][0]["requests"][0]["responseBody"]["text"] == XSS_BODY


def test_without_command_or_request_events_the_attempts_own_rows_are_used(tmp_path: Path) -> None:
    attempt = page_of(build(tmp_path), "specs/odd_spec.py::test_in_a_worker")["attempts"][0]
    assert attempt["commands"] == []
    assert attempt["log"] == ["visit: http://127.0.0.1:9/", "failed: get('#x') (after 300ms)"]
    assert attempt["requestsFrom"] == "attempt"
    (row,) = attempt["requests"]
    assert (row["url"], row["status"], row["at"]) == ("http://127.0.0.1:9/api/worker", 204, None)
    assert row["responseBody"] == {"state": "unrecorded", "size": 12}


def test_artifacts_are_linked_into_the_report_and_missing_ones_said(tmp_path: Path) -> None:
    folder = build(tmp_path)
    attempt = page_of(folder, FAILED_ID)["attempts"][0]
    shot, gone = attempt["screenshots"]
    assert shot["failure"] is True and shot["file"].startswith("screenshots/")
    source = tmp_path / "artifacts" / "checkout -- shows the total (failed).png"
    assert os.path.samefile(folder / shot["file"], source)  # a hard link: no copy
    assert gone["missing"] == str(tmp_path / "artifacts" / "gone.png") and "gone" in gone["why"]
    assert (folder / attempt["trace"]["file"]).read_bytes().startswith(b"PK")
    video = index_of(folder)["specs"][0]
    assert (folder / video["video"]["file"]).is_file() and video["videoStartedAt"] == 1_800_000_000.015


def test_the_trace_viewer_is_copied_only_when_a_test_has_a_trace(tmp_path: Path) -> None:
    viewer = tmp_path / "viewer"
    viewer.mkdir()
    (viewer / "index.html").write_text("viewer")
    (viewer / "sw.bundle.js").write_text("sw")
    with_trace = build(tmp_path / "a", viewer=viewer)
    assert (with_trace / "trace" / "index.html").read_text() == "viewer" and index_of(with_trace)["traceViewer"]
    without = build(tmp_path / "b", viewer=viewer, trace=False)
    assert not (without / "trace").exists() and index_of(without)["traceViewer"] is False


def test_a_run_cut_short_keeps_its_unfinished_test_and_says_so(tmp_path: Path) -> None:
    events = crafted_run(tmp_path / "artifacts", end=False)
    events.append(TestStarted(at=events[-1].at + 1, spec="odd_spec.py", nodeid="specs/odd_spec.py::test_late",
                              title=["late"]))
    folder = build(tmp_path, events)
    index = index_of(folder)
    assert index["run"]["interrupted"] is True
    assert any("no run.ended" in note for note in index["run"]["notes"])
    late = next(r for r in index["tests"] if r[7] == "specs/odd_spec.py::test_late")
    assert late[3] == "unfinished"
    assert page_of(folder, "specs/odd_spec.py::test_late")["attempts"][0]["state"] == "unfinished"


def test_runner_report_from_a_file_that_breaks_off(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    events = crafted_run(tmp_path / "artifacts")
    path = write_events(tmp_path / "events.jsonl", events[:8])
    with path.open("a") as file:
        file.write(dumps_event(events[8])[:40] + "\n")  # a line cut in the middle
    code = html_report_command(str(path), ["output=out"], tmp_path, viewer=None)
    assert code == 1
    index = index_of(tmp_path / "out")
    assert [(r[7], r[3]) for r in index["tests"]] == [("specs/shop_spec.py::test_home_page_loads", "passed"),
                                                      (FAILED_ID, "unfinished")]  # it ran when the file broke off
    assert any("events file broke off" in note and "line 9" in note for note in index["run"]["notes"])
    err = capsys.readouterr().err
    assert "line 9" in err and "runner show-report out" in err


def test_runner_report_refuses_a_folder_that_is_not_a_report(tmp_path: Path) -> None:
    path = write_events(tmp_path / "events.jsonl", crafted_run(tmp_path / "artifacts"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(UsageError, match="not a runner report"):
        html_report_command(str(path), ["output=mine"], tmp_path, viewer=None)
    assert (mine / "notes.txt").read_text() == "keep me" and len(list(mine.iterdir())) == 1
    # the default folder is the project's reportFolder
    (tmp_path / "runner.json").write_text(json.dumps({"reportFolder": "reports/html"}))
    assert html_report_command(str(path), None, tmp_path, viewer=None) == 4  # 3 failed, 1 spec error
    assert (tmp_path / "reports" / "html" / MARKER).is_file()
    (tmp_path / "runner.json").write_text(json.dumps({"reportFolder": False}))
    with pytest.raises(UsageError, match="reportFolder is false"):
        html_report_command(str(path), None, tmp_path, viewer=None)


def test_a_report_replaces_the_older_one_and_never_a_foreign_folder(tmp_path: Path) -> None:
    folder = build(tmp_path)
    (folder / "stale.txt").write_text("from the older report")
    again = build(tmp_path)
    assert again == folder and not (folder / "stale.txt").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []  # no leftovers
    # a folder that is not runner's, whatever happens between the check and the swap
    report = HtmlReport(tmp_path / "theirs")
    for event in crafted_run(tmp_path / "artifacts"):
        report(event)
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "data.csv").write_text("1,2")
    with pytest.raises(PermissionError, match="not a runner report"):
        report.finish()
    assert (tmp_path / "theirs" / "data.csv").read_text() == "1,2"
    assert not any(".building-" in p.name for p in tmp_path.iterdir())


def test_folder_refusals(tmp_path: Path) -> None:
    assert folder_refusal(tmp_path / "new") is None
    (tmp_path / "empty").mkdir()
    assert folder_refusal(tmp_path / "empty") is None
    (tmp_path / "afile").write_text("x")
    assert "is a file" in (folder_refusal(tmp_path / "afile") or "")
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    assert "is a link" in (folder_refusal(tmp_path / "link") or "")
    project = tmp_path / "project"
    assert "is the project" in (overlap_refusal(project, {"project": project}) or "")
    assert "holds the screenshotsFolder" in (overlap_refusal(project / "out", {
        "project": project, "screenshotsFolder": project / "out" / "shots"}) or "")
    assert overlap_refusal(project / "runner" / "report", {
        "project": project, "screenshotsFolder": project / "runner" / "screenshots"}) is None


def test_an_odd_event_costs_a_note_not_the_report(tmp_path: Path) -> None:
    report = HtmlReport(tmp_path / "report")
    report(RunStarted(at=1.0, run_id="r", runner_version="1", browser="b", specs=["s.py"]))
    report(TestStarted(at=2.0, spec="s.py", nodeid="s.py::t", title=["t"]))
    report(AttemptEnded(at=3.0, spec="s.py", nodeid="s.py::t", attempt=1, state="failed", duration_ms=1,
                        routes=[{"method": "GET"}], requests=["not a row"]))  # type: ignore[list-item]
    report(TestEnded(at=3.1, spec="s.py", nodeid="s.py::t", title=["t"], state="failed", duration_ms=1, attempts=1))
    folder = report.finish()
    assert [r[3] for r in index_of(folder)["tests"]] == ["failed"]
