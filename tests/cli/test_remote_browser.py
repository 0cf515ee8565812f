"""`runner run --browser-endpoint`: a real `playwright run-server` on loopback as the remote grid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.support.playwright_server import playwright_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

SPEC = '''
import time


def test_everything_remote(runner):
    runner.intercept("/api/user", {"body": {"name": "Ada"}}).as_("user")
    runner.visit("/")  # runner's file server on this machine's loopback
    runner.get("h1").should("have.text", "Hi")
    runner.get("#load").click()
    runner.wait("@user")
    runner.get("#name").should("have.text", "Ada")
    runner.screenshot("remote")
    runner.get("#download").click()
    deadline = time.monotonic() + 15
    while not (runner.config("downloadsFolder") and (__import__("pathlib").Path(runner.config("downloadsFolder")) / "data.csv").exists()) and time.monotonic() < deadline:
        runner.wait(50)


def test_fails_with_a_trace(runner):
    runner.visit("/")
    runner.get("#missing", timeout=300).should("exist")
'''
PAGE = """<html><body><h1>Hi</h1><p id="name"></p>
<button id="load" onclick="fetch('/api/user').then(r => r.json()).then(u => document.getElementById('name').textContent = u.name)">load</button>
<a id="download" href="/data.csv" download>get</a></body></html>"""


def _project(root: Path) -> Path:
    files = base_project({"runner/integration/remote_spec.py": SPEC, "site/data.csv": "a,b\n1,2\n"},
                         {"trashAssetsBeforeRuns": False}, page=PAGE)
    return write_project(root, files)


@pytest.mark.slow
def test_a_run_on_a_remote_browser_keeps_every_artifact_here(tmp_path: Path) -> None:
    root = _project(tmp_path)
    with playwright_server() as endpoint:
        result = run_runner("run", "--browser-endpoint", endpoint, "--browser", CHROMIUM, cwd=root, timeout=240)
    assert result.code == 1, result.text  # the second test fails on purpose
    assert "✓ test_everything_remote" in result.out, result.text
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    assert events[0]["browser"].startswith("chromium (headless) ws://127.0.0.1:")
    assert [e for e in events if e["kind"] == "request.intercepted" and e["stubbed"]]
    assert (root / "runner/downloads/data.csv").read_text() == "a,b\n1,2\n"
    assert list((root / "runner/screenshots").rglob("remote.png"))
    assert list((root / "runner/screenshots").rglob("*(failed).png"))
    assert (root / "runner/videos/remote_spec.py.mp4").stat().st_size > 0
    assert list((root / "runner/traces").rglob("*.zip"))


@pytest.mark.slow
def test_workers_each_connect_to_the_endpoint(tmp_path: Path) -> None:
    files = {f"runner/integration/{n}_spec.py": "def test_x(runner):\n    runner.visit('/')\n"
             "    runner.get('h1').should('have.text', 'Hi')\n" for n in "abc"}
    root = write_project(tmp_path, base_project(files, {"video": False}))
    with playwright_server() as endpoint:
        result = run_runner("run", "--workers", "2", "-r", "dot", cwd=root, timeout=240,
                            env={"RUNNER_BROWSER_ENDPOINT": endpoint, "RUNNER_BROWSER": CHROMIUM})
    assert result.code == 0, result.text
    assert "3 passing" in result.out


def test_a_version_mismatch_is_one_message_naming_both(tmp_path: Path) -> None:
    root = _project(tmp_path)
    with playwright_server(version="1.40.0") as endpoint:
        result = run_runner("run", "--browser-endpoint", endpoint, cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "runs Playwright 1.40, and runner here has Playwright 1." in result.err, result.text
    assert "pip install 'playwright==1.40.*'" in result.err
    assert "Traceback" not in result.text and "test_everything_remote" not in result.out


@pytest.mark.parametrize(("args", "env", "says"), [
    (["--browser-endpoint", "ws://127.0.0.1:9/"], {}, "The browser endpoint ws://127.0.0.1:9/ cannot be reached"),
    (["--browser-endpoint", "http://grid/"], {}, "--browser-endpoint 'http://grid/': expected the WebSocket URL"),
    ([], {"RUNNER_BROWSER_ENDPOINT": "grid:3000"}, "RUNNER_BROWSER_ENDPOINT 'grid:3000': expected the WebSocket URL"),
    (["--browser-endpoint", "ws://127.0.0.1:notaport/"], {},
     "--browser-endpoint 'ws://127.0.0.1:notaport/': Port could not be cast to integer value as 'notaport'; expected"),
    (["--browser-endpoint", "ws://127.0.0.1:99999/"], {}, "'ws://127.0.0.1:99999/': Port out of range 0-65535"),
    ([], {"RUNNER_BROWSER_ENDPOINT": "ws://[::1/"}, "RUNNER_BROWSER_ENDPOINT 'ws://[::1/': Invalid IPv6 URL; expected"),
    (["--browser-endpoint", "ws://127.0.0.1:9/", "--browser-endpoint-header", "no colon"], {},
     "--browser-endpoint-header 'no colon': expected 'Name: value'"),
    (["--browser-endpoint", "ws://127.0.0.1:9/"], {"RUNNER_BROWSER_ENDPOINT_HEADERS": "[1]"},
     "RUNNER_BROWSER_ENDPOINT_HEADERS: expected a JSON object"),
])
def test_a_bad_or_unreachable_endpoint_fails_the_run_at_start(tmp_path: Path, args: list[str], env: dict,
                                                             says: str) -> None:
    root = _project(tmp_path)
    result = run_runner("run", *args, cwd=root, env=env, timeout=120)
    assert result.code == 1 and says in result.err, result.text
    assert "Traceback" not in result.text and "✓" not in result.out


@pytest.mark.slow
def test_shards_of_workers_on_a_remote_pool_make_one_report(tmp_path: Path) -> None:
    files = {f"runner/integration/{n}_spec.py": (
        "import pytest\n\n@pytest.mark.parametrize('i', [1, 2, 3])\n"
        "def test_x(runner, i):\n    runner.intercept('/api/n', {'body': {'n': i}}).as_('n')\n"
        "    runner.visit('/')\n    runner.get('h1').should('have.text', 'Hi')\n") for n in "abcdef"}
    files["runner/integration/f_spec.py"] += "\ndef test_fails(runner):\n    assert False, 'f fails'\n"
    root = write_project(tmp_path, base_project(files, {"video": False}))
    with playwright_server() as endpoint:
        env = {"RUNNER_BROWSER_ENDPOINT": endpoint, "RUNNER_BROWSER": CHROMIUM, "RUNNER_WORKERS": "2"}
        shards = [run_runner("run", "--shard", f"{i}/2", "--config", f"eventsFile=shards/{i}.jsonl", "-r", "dot",
                             cwd=root, env=env, timeout=300) for i in (1, 2)]
    assert sorted(r.code for r in shards) == [0, 1], [r.text for r in shards]
    merged = run_runner("merge", "merged.jsonl", "shards", cwd=root)
    assert merged.code == 1 and "19 tests, 18 passed, 1 failed" in merged.err, merged.text
    events = [json.loads(line) for line in (root / "merged.jsonl").read_text().splitlines()]
    assert sorted(events[0]["specs"]) == [f"{n}_spec.py" for n in "abcdef"]
    assert sum(1 for e in events if e["kind"] == "route.added") == 18  # the workers' events, every one
    report = run_runner("report", "--from", "merged.jsonl", "-r", "html", "-o", "output=merged-report", cwd=root)
    assert report.code == 1 and (root / "merged-report/index.html").is_file(), report.text
