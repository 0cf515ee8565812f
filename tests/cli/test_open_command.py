"""The real ``runner open`` command: what it refuses, what its server refuses (no token, another
Host, another Origin, paths outside what it serves), and that stopping it (Ctrl-C during a test)
leaves no process behind. The run's options of the interactive mode: retries.openMode and
experimentalInteractiveRunEvents."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner
from tests.support.open_ui import OpenSocket, run_all_and_hello, write_sample
from tests.support.procs import children, left_after
from tests.support.show_trace import start_serving, stop_serving


def _get(url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_a_project_that_is_not_a_folder_and_a_busy_port_are_one_message_each(tmp_path: Path) -> None:
    done = run_runner("open", "--no-open", "--project", str(tmp_path / "nope"), cwd=tmp_path)
    assert done.code == 1 and "does not exist" in done.err and "Traceback" not in done.text
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_runner("open", "--no-open", "--port", str(port), cwd=write_sample(tmp_path))
    assert done.code == 1 and f"port {port} could not be used" in done.err and "Traceback" not in done.text


def test_the_server_refuses_what_has_no_token_another_host_or_origin(tmp_path: Path) -> None:
    proc, url = start_serving(["open", "--no-open"], write_sample(tmp_path, {"watchForFileChanges": False}))
    try:
        base, _, token = url.partition("/?token=")
        host = base.split("//", 1)[1]
        status, _, body = _get(url, "/")
        assert status == 403 and b"token" in body
        status, _, _ = _get(url, "/static/open.js", {"Cookie": "runner_open_token=wrong"})
        assert status == 403
        status, headers, _ = _get(url, f"/?token={token}")
        assert status == 302 and headers["location"] == "/" and "HttpOnly" in headers["set-cookie"]
        cookie = {"Cookie": f"runner_open_token={token}"}
        status, headers, page = _get(url, "/", cookie)
        assert status == 200 and b"open.js" in page
        assert "script-src 'self'" in headers["content-security-policy"]
        assert _get(url, "/static/open.js", cookie)[0] == 200
        assert _get(url, "/", {**cookie, "Host": f"evil.example:{host.split(':')[1]}"})[0] == 421
        for path in ("/static/..%2F__init__.py", "/viewer/../../../../etc/passwd", "/viewer/%2e%2e/%2e%2e/x",
                     "/traces/t1/1.zip", "/traces/../runner.json", "/runner.json"):
            assert _get(url, path, cookie)[0] == 404, path
        status, _, _ = _get(url, "/ws", {**cookie, "Origin": "http://evil.example", "Connection": "Upgrade",
                                          "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        assert status == 403
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


SLOW_SPEC = '''
import time

def test_long(runner):
    runner.visit("/")
    runner.log("started")
    time.sleep(120)
'''


@pytest.mark.slow
def test_a_long_test_leaves_the_ui_answering_and_ctrl_c_leaves_no_browser_behind(tmp_path: Path) -> None:
    project = write_sample(tmp_path, {"watchForFileChanges": False}, spec=SLOW_SPEC)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        async def start_and_wait() -> None:
            sock = await OpenSocket.connect(url)
            try:
                await sock.send({"t": "run"})
                await sock.until(lambda m: m.get("t") == "event" and m["event"]["kind"] == "log")
                # the test sleeps for two minutes: another page connects and is answered at once
                other = await OpenSocket.connect(url)
                try:
                    hello = await other.until(lambda m: m.get("t") == "hello", bound=5)
                finally:
                    await other.close()
                assert hello["run"]["state"] == "running"
                assert [t["title"] for t in hello["state"]["tests"]] == [["test_long"]]
            finally:
                await sock.close()

        asyncio.run(start_and_wait())
        started = children(proc.pid)
        assert len(started) >= 3  # the child, its driver, the browser
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert left_after(started) == []


RETRIED_SPEC = '''
def test_flaky(runner):
    runner.visit("/")
    runner.get("#missing", timeout=100).should("exist")
'''

PLUGINS = '''
import json, pathlib

def setup(on, config):
    log = pathlib.Path(config["projectRoot"]) / "plugin-events.jsonl"
    for name in ("before:run", "after:run", "before:spec", "after:spec"):
        on(name, lambda *args, _n=name: log.open("a").write(json.dumps(_n) + "\\n"))
'''


@pytest.mark.slow
@pytest.mark.parametrize("interactive_events", [False, True])
def test_retries_open_mode_and_interactive_run_events(tmp_path: Path, interactive_events: bool) -> None:
    project = write_sample(tmp_path, {"watchForFileChanges": False, "retries": {"runMode": 0, "openMode": 1},
                                      "experimentalInteractiveRunEvents": interactive_events,
                                      "pluginsFile": "plugins.py"}, spec=RETRIED_SPEC)
    (project / "plugins.py").write_text(PLUGINS, encoding="utf-8")
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        sock, _hello = run_all_and_hello(url)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    attempts = sock.events("attempt.ended")
    assert [a["attempt"] for a in attempts] == [1, 2]  # openMode: 1 retry (runMode's 0 not used)
    log = project / "plugin-events.jsonl"
    fired = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    if interactive_events:
        assert fired == ["before:run", "before:spec", "after:spec", "after:run"]
    else:
        assert fired == []


@pytest.mark.slow
def test_a_run_nobody_watches_any_more_is_stopped(tmp_path: Path) -> None:
    from runner.ui.server import OpenServer

    project = write_sample(tmp_path, {"watchForFileChanges": False}, spec=SLOW_SPEC)

    async def scenario() -> tuple[set[int], str]:
        server = OpenServer(project=project, orphan_grace=0.5)
        url = await server.start()
        try:
            sock = await OpenSocket.connect(url)
            await sock.send({"t": "run"})
            await sock.until(lambda m: m.get("t") == "event" and m["event"]["kind"] == "log")
            assert server.run is not None and server.run.proc is not None
            started = children(server.run.proc.pid) | {server.run.proc.pid}
            await sock.close()  # the page is closed mid-test
            await asyncio.wait_for(server.run.done.wait(), 30)
            return started, server.run_info["state"]
        finally:
            await server.close()

    started, state = asyncio.run(scenario())
    assert state == "stopped"
    assert left_after(started) == []


@pytest.mark.slow
def test_zero_tests_kept_means_no_trace_and_nothing_kept(tmp_path: Path) -> None:
    project = write_sample(tmp_path, {"watchForFileChanges": False, "numTestsKeptInMemory": 0})
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        sock, hello = run_all_and_hello(url)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    attempts = sock.events("attempt.ended")
    assert len(attempts) == 2 and all(a["trace"] is None for a in attempts)  # not even recorded
    assert sorted(m["key"] for m in sock.seen if m.get("t") == "drop") == ["t1", "t2"]
    assert hello["state"]["tests"] == [] and len(hello["state"]["testStatus"]) == 2
