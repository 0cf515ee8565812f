"""``runner show-report``: what it refuses (one clear line each, exit status 1, no traceback), what
it serves (the report, never the marker, 127.0.0.1 only) and a clean stop on Ctrl-C. The report of
a real run opened through it: tests/e2e/test_served_report.py."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner
from tests.cli.test_show_trace import refused
from tests.support.show_trace import BOUND, start_serving, stop_serving


def a_report(folder: Path) -> Path:
    """The smallest folder runner counts as its report."""
    folder.mkdir(parents=True)
    (folder / "index.html").write_text("<!doctype html><title>a runner report</title>")
    (folder / ".runner-report").write_text("runner report\n")
    return folder


def test_folders_that_hold_no_report(tmp_path: Path) -> None:
    refused(run_runner("show-report", "nope", "--no-open", cwd=tmp_path),
            "there is no report in 'nope': the folder does not exist", "runner report --from FILE --reporter html")
    (tmp_path / "file.txt").write_text("x")
    refused(run_runner("show-report", "file.txt", "--no-open", cwd=tmp_path), "'file.txt' is a file")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "index.html").write_text("<h1>my own page</h1>")
    refused(run_runner("show-report", "mine", "--no-open", cwd=tmp_path),
            "'mine' holds no runner report: expected index.html and the .runner-report file")
    # without FOLDER: the project's reportFolder, which no run wrote yet
    refused(run_runner("show-report", "--no-open", cwd=tmp_path), "runner/report")


def test_a_project_without_reports_and_a_broken_config(tmp_path: Path) -> None:
    (tmp_path / "runner.json").write_text('{"reportFolder": false}')
    refused(run_runner("show-report", "--no-open", cwd=tmp_path),
            "reportFolder is false", "runner show-report FOLDER")
    (tmp_path / "runner.json").write_text('{"reportFolder": 3}')
    refused(run_runner("show-report", "--no-open", cwd=tmp_path), "Expected `reportFolder` to be a string or false")


def test_a_busy_port(tmp_path: Path) -> None:
    a_report(tmp_path / "runner" / "report")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused(run_runner("show-report", "--port", str(port), "--no-open", cwd=tmp_path),
                f"port {port} could not be used to serve the report", "--port")


@pytest.mark.parametrize("command", [["show-report"], ["show-trace", "t.zip"], ["open"]])
@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_that_is_no_port_is_a_usage_error(tmp_path: Path, command: list[str], port: str) -> None:
    """--port 70000 reached bind(): OverflowError and its traceback."""
    a_report(tmp_path / "runner" / "report")
    refused(run_runner(*command, "--port", port, "--no-open", cwd=tmp_path, timeout=60),
            f"argument --port/-p: expected a port number from 1 to 65535 (or leave --port out for a free one); "
            f"found {port!r}", f"Try 'runner {command[0]} --help'")


def _get(port: int, path: str, host: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
    try:
        conn.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.slow
def test_serves_the_report_not_its_marker_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    a_report(tmp_path / "elsewhere" / "report")
    proc, url = start_serving(["show-report", "elsewhere/report", "--no-open"], tmp_path)
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/index.html")
        port = int(url.split(":")[2].split("/")[0])
        assert _get(port, "/index.html") == 200
        assert _get(port, "/.runner-report") == 404
        assert _get(port, "/") == 200  # the folder's index, never a listing
        assert _get(port, "/index.html", host="evil.example:80") == 403  # DNS rebinding
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped serving the report" in err


@pytest.mark.parametrize("port", ["70000", "0", "http"])
def test_runner_runs_bad_port_names_the_flag_not_config(tmp_path: Path, port: str) -> None:
    """runner run --port 70000 said "An invalid configuration value was set from --config"."""
    (tmp_path / "runner.json").write_text("{}")
    refused(run_runner("run", "--port", port, cwd=tmp_path, timeout=60),
            f"argument --port/-p: expected a port number from 1 to 65535; found {port!r}", "Try 'runner run --help'")
