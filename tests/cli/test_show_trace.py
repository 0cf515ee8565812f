"""``runner show-trace``: what it refuses (one clear line each, exit status 1, no traceback), and a
clean stop on Ctrl-C. The viewer itself is opened in tests/e2e/test_trace_viewer.py."""

from __future__ import annotations

import json
import os
import socket
import zipfile
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner
from tests.support.show_trace import start_show_trace, stop_serving


def tiny_trace(path: Path, version: int = 10, by: str = "1.65.2") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.trace", json.dumps({"version": version, "type": "context-options",
                                                    "playwrightVersion": by}) + "\n")
    return path


def refused(result, *says: str) -> None:
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert lines and lines[0].startswith("runner: "), result.err
    for part in says:
        assert part in result.err, result.err


def test_a_missing_file_a_folder_and_not_a_zip(tmp_path: Path) -> None:
    refused(run_runner("show-trace", "nope.zip", "--no-open", cwd=tmp_path), "'nope.zip' does not exist")
    refused(run_runner("show-trace", ".", "--no-open", cwd=tmp_path), "is a folder, not a file")
    (tmp_path / "notes.zip").write_text("not a zip at all")
    refused(run_runner("show-trace", "notes.zip", "--no-open", cwd=tmp_path), "'notes.zip' is not a zip file")


def test_a_zip_that_is_not_a_trace(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "report.zip", "w") as archive:
        archive.writestr("index.html", "<h1>a report</h1>")
    refused(run_runner("show-trace", "report.zip", cwd=tmp_path), "is a zip but not a Playwright trace",
            "found: index.html")
    with zipfile.ZipFile(tmp_path / "odd.zip", "w") as archive:
        archive.writestr("trace.trace", json.dumps({"type": "before"}) + "\n")
    refused(run_runner("show-trace", "odd.zip", cwd=tmp_path), "does not begin with the context-options event")


def test_a_trace_from_a_newer_playwright_says_both_versions_and_the_fix(tmp_path: Path) -> None:
    tiny_trace(tmp_path / "new.zip", version=99, by="9.1.0")
    refused(run_runner("show-trace", "new.zip", cwd=tmp_path), "recorded by Playwright 9.1.0 in trace format 99",
            "reads trace formats up to 10", "pip install --upgrade playwright")


def test_a_busy_port(tmp_path: Path) -> None:
    tiny_trace(tmp_path / "t.zip")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused(run_runner("show-trace", "t.zip", "--port", str(port), "--no-open", cwd=tmp_path),
                f"port {port} could not be used", "--port")


def test_a_playwright_without_its_viewer(tmp_path: Path) -> None:
    fake = tmp_path / "shadow" / "playwright"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    tiny_trace(tmp_path / "t.zip")
    path = os.pathsep.join([str(tmp_path / "shadow"), os.environ.get("PYTHONPATH", "")])
    refused(run_runner("show-trace", "t.zip", cwd=tmp_path, env={"PYTHONPATH": path}),
            "ships no trace viewer", "pip install --force-reinstall playwright")


@pytest.mark.slow
def test_ctrl_c_stops_serving_cleanly(tmp_path: Path) -> None:
    proc, url = start_show_trace(tiny_trace(tmp_path / "t.zip"), tmp_path)
    try:
        assert "/index.html?trace=" in url
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped serving" in err
