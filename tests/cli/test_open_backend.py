"""``runner open`` and ``runner.intercept_backend``: the servers ``webServer`` starts once for the
session send their calls through runner open's proxy relay, to the proxy of the run in progress.
A run whose test stubs the server's calls (HTTP, and HTTPS to a host that does not exist: the
run's proxy signs with the session's CA, which the server trusts) shows the stubs, marked as the
server's; the next run, without routes, sees the real service; the session's CA folder is gone
and nothing is left running after runner open exits (SIGTERM)."""

from __future__ import annotations

import asyncio
import http.client
import json
import signal
import subprocess
from pathlib import Path

import pytest
from tests.support.open_backend import backend_project
from tests.support.open_ui import OpenSocket
from tests.support.procs import children, left_after
from tests.support.show_trace import start_serving


def _ended(message: dict) -> bool:
    return message.get("t") == "run" and message["run"].get("state") in ("done", "stopped", "not-run")


async def _run_one(url: str, test: str) -> tuple[OpenSocket, dict]:
    """Run one test of the spec through the UI's socket until its run ends: the socket (what the
    page was told) and the run's end."""
    sock = await OpenSocket.connect(url)
    try:
        hello = await sock.until(lambda m: m.get("t") == "hello", bound=30)
        spec = next(s for s in hello["specs"] if s.endswith("price_spec.py"))
        await sock.send({"t": "run", "spec": spec, "test": test})
        await sock.until(lambda m: m.get("t") == "event" and m["event"].get("kind") == "test.started", bound=120)
        ended = await sock.until(_ended, bound=120)
    finally:
        await sock.close()
    return sock, ended["run"]


def _terminate(proc: subprocess.Popen[str]) -> str:
    """SIGTERM, as a service manager stops it (Ctrl-C is test_open_command.py's): its stderr."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return err


def _page(root: Path) -> str:
    base = json.loads((root / "runner.json").read_text())["baseUrl"]
    conn = http.client.HTTPConnection(base.split("//")[1], timeout=30)
    try:
        conn.request("GET", "/")
        return conn.getresponse().read().decode()
    finally:
        conn.close()


@pytest.mark.slow
def test_runner_open_intercepts_its_servers_calls_run_by_run(tmp_path: Path) -> None:
    root = backend_project(tmp_path)
    proc, url = start_serving(["open", "--no-open"], root)
    try:
        first, first_end = asyncio.run(_run_one(url, "test_stubbed"))
        started = children(proc.pid)
        between = _page(root)  # no run in progress: the app's calls go on, untouched
        second, second_end = asyncio.run(_run_one(url, "test_unrouted"))
    finally:
        err = _terminate(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert first_end["state"] == "done" and "1 passed" in first_end["summary"], (first_end, err)
    assert second_end["state"] == "done" and "1 passed" in second_end["summary"], (second_end, err)
    # the server's calls are told as the server's, to the page (its command log, Routes, Requests)
    served = [e for e in first.events("request.intercepted") if e.get("server")]
    assert {e["url"].split("://")[0] for e in served} == {"http", "https"}, served
    (attempt,) = first.events("attempt.ended")
    assert any(line.startswith("request: (server) GET 200 http://127.0.0.1:") and line.endswith("/price @price stubbed")
               for line in attempt["log"]), attempt["log"]
    assert [r["server"] for r in attempt["routes"]] == [True, True] and [r["matches"] for r in attempt["routes"]] == [1, 1]
    assert [r["server"] for r in attempt["requests"]] == [True, True]
    assert "<p id='price'>7 EUR</p>" in between and "<p id='charge'>failed" in between, between
    # the run without routes: no server request recorded, the real service answered
    assert not [e for e in second.events("request.intercepted") if e.get("server")]
    # the session's CA folder (where the servers' bundle was) is gone, and nothing runs any more
    bundle = Path((root / "bundle.txt").read_text())
    assert bundle.name == "ca-bundle.pem" and bundle.parent.name.startswith("runner-open-proxy-"), bundle
    assert not bundle.parent.exists()
    assert left_after(started) == []
