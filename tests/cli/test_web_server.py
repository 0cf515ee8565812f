"""``webServer``: real ``runner run`` (and ``runner open``) processes start the project's own app
(a small Python HTTP server), the tests run against it through ``baseUrl``, and it is stopped,
its whole process group and what it started, however the run ends; it is reused, or refused, when
its port already answers; a command that exits, or never answers, is one message and no test runs.

The app writes what it did into a state folder given to it through ``webServer.env``: each start
(its pid), its working folder, the pid of the child it spawns.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, run_runner, write_project
from tests.support.procs import alive, left_after, pid_in, stop_group
from tests.support.servers import free_port

APP = '''
import http.server
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

name, port = sys.argv[1], int(sys.argv[2])
state = Path(os.environ["APP_STATE"])
STOPPED = (
    "import os, signal, sys, time\\n"
    "def stopped(signum, frame):\\n"
    "    open(sys.argv[1], 'w').write(signal.Signals(signum).name)\\n"
    "    os._exit(0)\\n"
    "signal.signal(signal.SIGTERM, stopped)\\n"
)
# SIGTERM (runner's stop; a kill of what is left is SIGKILL) is noted, by the app and its child
exec(STOPPED.replace("sys.argv[1]", repr(str(state / f"{name}.stopped"))))
with open(state / f"{name}.starts", "a") as starts:
    starts.write(f"{os.getpid()}\\n")
(state / f"{name}.cwd").write_text(os.getcwd())
(state / f"{name}.pgid").write_text(str(os.getpgrp()))
if "--child" in sys.argv:  # a process of its own, as a dev server's reloader or worker
    # it writes its pid once its SIGTERM handler is in place
    ready = "open(sys.argv[2], 'w').write(str(os.getpid()))\\n"
    subprocess.Popen([sys.executable, "-c", STOPPED + ready + "time.sleep(600)", str(state / f"{name}.child-stopped"),
                      str(state / f"{name}.child")])
if "--never" in sys.argv:  # it never listens
    print("warming up, slowly", flush=True)
    time.sleep(600)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/die":
            print("dying now", flush=True)
            os._exit(4)
        greeting = os.environ.get("GREETING", "")
        body = (f"<html><head><title>{name}</title></head><body><h1>{name} app</h1>"
                f"<p id='greeting'>{greeting}</p></body></html>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Page)
print(f"{name} listening on {port}", flush=True)
server.serve_forever()
'''



def _command(name: str, port: int, *flags: str) -> str:
    return shlex.join([sys.executable, "server.py", name, str(port), *flags])


def _project(root: Path, servers: list[dict] | dict, spec: str, base_url: str | None = None) -> Path:
    config: dict = {"webServer": servers, "video": False}
    if base_url is not None:
        config["baseUrl"] = base_url
    (root / "state").mkdir()
    return write_project(root, {"runner.json": json.dumps(config), "app/server.py": APP,
                                "runner/integration/app_spec.py": spec})


def _entry(root: Path, name: str, app_port: int, *flags: str, **more: object) -> dict:
    return {"command": _command(name, app_port, *flags), "cwd": "app",
            "env": {"APP_STATE": str(root / "state"), "GREETING": f"hello from {name}"}, **more}


def _stopped(root: Path, name: str) -> tuple[str, str]:
    """How the app and its child were told to stop ("SIGTERM": by runner's stop of the group)."""
    paths = (root / "state" / f"{name}.stopped", root / "state" / f"{name}.child-stopped")
    return tuple(p.read_text() if p.exists() else "" for p in paths)  # type: ignore[return-value]


def _starts(root: Path, name: str) -> list[int]:
    path = root / "state" / f"{name}.starts"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


TWO_APPS_SPEC = '''
def test_the_first_app_at_base_url(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "first app")
    runner.get("#greeting").should("have.text", "hello from first")


def test_the_second_app(runner):
    runner.visit("http://127.0.0.1:{port}/")
    runner.get("h1").should("have.text", "second app")
'''


def test_a_list_of_two_servers_is_started_in_order_tested_and_stopped(tmp_path: Path) -> None:
    first, second = free_port(), free_port()
    root = _project(tmp_path, [_entry(tmp_path, "first", first, url=f"http://127.0.0.1:{first}/"),
                               _entry(tmp_path, "second", second, "--child", port=second, stdout="pipe")],
                    TWO_APPS_SPEC.replace("{port}", str(second)), base_url=f"http://127.0.0.1:{first}")
    done = run_runner("run", cwd=root)
    assert done.code == 0, done.text
    assert "test_the_second_app" in done.out, done.out
    assert "Traceback" not in done.text
    assert f"webServer[0]: {_command('first', first)!r} answers at http://127.0.0.1:{first}/" in done.err
    assert f"webServer[1]: {_command('second', second, '--child')!r} answers at port {second}" in done.err
    assert f"[webServer[1]] second listening on {second}" in done.err  # piped, named by its place
    (pid_first,), (pid_second,) = _starts(root, "first"), _starts(root, "second")
    assert Path((root / "state" / "first.cwd").read_text()) == (root / "app").resolve()  # cwd
    child = pid_in(root / "state" / "second.child", 5)
    assert not left_after({pid_first, pid_second, child}), "a server (or its child) outlived the run"
    assert _stopped(root, "first")[0] == "SIGTERM" and _stopped(root, "second") == ("SIGTERM", "SIGTERM")
    events = [json.loads(line) for line in (root / "runner" / "results" / "events.jsonl").read_text().splitlines()]
    told = [(e["name"], e["target"], e["pid"], e["reused"]) for e in events if e["kind"] == "web_server.started"]
    groups = [int((root / "state" / f"{name}.pgid").read_text()) for name in ("first", "second")]
    assert told == [("webServer[0]", f"http://127.0.0.1:{first}/", groups[0], False),  # its process group
                    ("webServer[1]", f"port {second} (127.0.0.1)", groups[1], False)]
    assert [e["kind"] for e in events[:3]] == ["run.started", "web_server.started", "web_server.started"]


REUSE_SPEC = '''
def test_the_app(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "mine app")
'''


def test_a_running_server_is_reused_or_refused_and_never_started_twice(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    root = _project(tmp_path, _entry(tmp_path, "mine", port, url=url, reuseExistingServer=True), REUSE_SPEC,
                    base_url=url.rstrip("/"))
    env = {**os.environ, "APP_STATE": str(root / "state")}
    mine = subprocess.Popen(shlex.split(_command("mine", port)), cwd=root / "app", env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert mine.stdout is not None and "listening" in mine.stdout.readline()
        done = run_runner("run", cwd=root)
        assert done.code == 0, done.text
        assert f"webServer: {url} answers already: that server is used (reuseExistingServer)" in done.err
        assert _starts(root, "mine") == [mine.pid], "runner started the server although one answered"
        events = (root / "runner" / "results" / "events.jsonl").read_text().splitlines()
        told = [json.loads(line) for line in events if '"web_server.started"' in line]
        assert [(e["reused"], e["pid"]) for e in told] == [(True, None)]
        assert mine.poll() is None, "runner stopped a server it did not start"

        config = json.loads((root / "runner.json").read_text())
        config["webServer"]["reuseExistingServer"] = False
        (root / "runner.json").write_text(json.dumps(config))
        refused = run_runner("run", cwd=root)
        assert refused.code == 1, refused.text
        assert (f"runner: webServer: {url} answers already, before runner started" in refused.err
                and "another server is using it. Stop that server (free the port), or set "
                    "webServer.reuseExistingServer to true" in refused.err), refused.err
        assert "Traceback" not in refused.text and "test_the_app" not in refused.out
        assert _starts(root, "mine") == [mine.pid]
    finally:
        stop_group(mine)  # type: ignore[arg-type]


NO_TEST_SPEC = '''
from pathlib import Path


def test_never_runs(runner):
    Path({stamp!r}).write_text("ran")
'''


def test_a_command_that_exits_and_one_that_never_answers_are_told_and_nothing_runs(tmp_path: Path) -> None:
    port = free_port()
    stamp = tmp_path / "ran"
    spec = NO_TEST_SPEC.format(stamp=str(stamp))
    exits = {"command": shlex.join([sys.executable, "-c", "import sys; print('cannot read settings.py'); "
                                                          "sys.exit(3)"]), "port": port}
    root = _project(tmp_path, [exits], spec)
    done = run_runner("run", cwd=root)
    assert done.code == 1, done.text
    assert (f"runner: webServer[0]: {exits['command']!r} exited with status 3 before it answered at port {port} "
            "(127.0.0.1). It" in done.err), done.err
    assert "  | cannot read settings.py" in done.err
    assert "Traceback" not in done.text and not stamp.exists()
    assert not (root / "runner" / "results" / "events.jsonl").exists()

    never = _entry(root, "slow", port, "--never", "--child", url=f"http://127.0.0.1:{port}/", timeout=1500)
    (root / "runner.json").write_text(json.dumps({"webServer": never, "video": False}))
    done = run_runner("run", cwd=root)
    assert done.code == 1, done.text
    assert (f"runner: webServer: {never['command']!r} did not answer at http://127.0.0.1:{port}/ within 1500 ms "
            "(webServer.timeout); it was stopped." in done.err), done.err
    assert "  | warming up, slowly" in done.err and "raise webServer.timeout" in done.err
    assert "Traceback" not in done.text and not stamp.exists()
    (pid,) = _starts(root, "slow")
    child = pid_in(root / "state" / "slow.child", 5)
    assert not left_after({pid, child}), "the server that never answered was left running"
    assert _stopped(root, "slow") == ("SIGTERM", "SIGTERM")


def test_what_runner_prints_of_a_server_hides_the_runs_secrets(tmp_path: Path) -> None:
    secret = "s3cret-pw-4711"
    port, other = free_port(), free_port()
    stamp = tmp_path / "ran"
    first = _entry(tmp_path, "first", port, port=port)
    first["command"] = f"APP_PASSWORD={secret} {first['command']}"
    told = shlex.join([sys.executable, "-c", "import os, sys; print('cannot log in with', os.environ['APP_PASSWORD']); "
                                             "sys.exit(3)"])
    root = _project(tmp_path, [first, {"command": f"APP_PASSWORD={secret} {told}", "port": other}],
                    NO_TEST_SPEC.format(stamp=str(stamp)))
    (root / "runner.env.json").write_text(json.dumps({"env": {"appPassword": secret}}))
    done = run_runner("run", cwd=root)
    assert done.code == 1, done.text
    assert "runner: webServer[0]: 'APP_PASSWORD=[redacted] " in done.err, done.err
    assert "runner: webServer[1]: 'APP_PASSWORD=[redacted] " in done.err
    assert "  | cannot log in with [redacted]" in done.err
    assert secret not in done.text and "Traceback" not in done.text and not stamp.exists()
    assert not left_after(set(_starts(root, "first")))


def test_a_port_held_by_something_that_is_not_the_app_is_told(tmp_path: Path) -> None:
    with socket.socket() as held:  # accepts connections, answers no HTTP
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        root = _project(tmp_path, _entry(tmp_path, "late", port, url=f"http://127.0.0.1:{port}/", timeout=20000),
                        NO_TEST_SPEC.format(stamp=str(tmp_path / "ran")))
        done = run_runner("run", cwd=root)
    assert done.code == 1, done.text
    assert "exited with status 1 before it answered" in done.err, done.err
    assert (f"Port {port} takes connections now: another process may hold it (free it, or set "
            "webServer.reuseExistingServer to true)." in done.err)
    assert "Address already in use" in done.err  # the app's own words, in its last lines
    assert not [line for line in done.text.splitlines() if "Traceback" in line and "  | " not in line]


DYING_SPEC = '''
import urllib.request

import pytest


def test_the_app_dies(runner):
    runner.visit("/")
    with pytest.raises(OSError):
        urllib.request.urlopen("{url}/die", timeout=10)
    print("the test's own output")


def test_after_it(runner):
    runner.visit("/")
'''


def test_output_piped_and_a_death_while_the_tests_run_reach_the_terminal(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = _project(tmp_path, _entry(tmp_path, "brittle", port, url=url, stdout="pipe"),
                    DYING_SPEC.replace("{url}", url), base_url=url)
    done = run_runner("run", cwd=root)
    assert done.code == 1, done.text  # test_after_it fails: nothing answers any more
    assert f"[webServer] brittle listening on {port}" in done.err  # piped, before the tests
    assert "[webServer] dying now" in done.err  # piped while a test ran (pytest captures fd 2 then)
    assert (f"runner: webServer: {_command('brittle', port)!r} exited with status 4 while the tests ran; the "
            "tests after this use no server. Its last output:\n  | brittle listening on" in done.err), done.err
    assert "the test's own output" not in done.err  # pytest's capture is untouched
    events = [json.loads(line) for line in (root / "runner" / "results" / "events.jsonl").read_text().splitlines()]
    [exited] = [e for e in events if e["kind"] == "web_server.exited"]  # the report's events tell it too
    assert (exited["name"], exited["command"], exited["status"]) == ("webServer", _command("brittle", port),
                                                                     "exited with status 4"), exited
    assert exited["output"][-1] == "dying now", exited
    kinds = [e["kind"] for e in events]
    assert kinds.index("web_server.exited") < kinds.index("run.ended"), kinds


WAITING_SPEC = '''
import os
import signal
import time
from pathlib import Path


def test_waits(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "app app")
    Path({stamp!r}).write_text(str(os.getpid()))
    if os.environ.get("DIE"):
        os.kill(os.getpid(), signal.SIGKILL)  # the process running the tests dies
    time.sleep(60)
'''


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "death"])
def test_the_server_and_its_child_are_stopped_when_the_run_is_stopped(tmp_path: Path, how: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = _project(tmp_path, _entry(tmp_path, "app", port, "--child", url=url),
                    WAITING_SPEC.format(stamp=str(tmp_path / "started")), base_url=url)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    temp = tmp_path / "temp"  # the run's temporary folders: its proxy's CA among them
    temp.mkdir()
    env.update({"NO_COLOR": "1", "TMPDIR": str(temp), **({"DIE": "1"} if how == "death" else {})})
    proc = subprocess.Popen([RUNNER, "run"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        pid_in(tmp_path / "started", 90)
        (server,) = _starts(root, "app")
        child = pid_in(root / "state" / "app.child")
        if how != "death":
            assert alive(server) and alive(child)  # a terminal's Ctrl-C (the foreground group), a CI's SIGTERM
            os.killpg(proc.pid, getattr(signal, how))
        out, err = proc.communicate(timeout=90)
    finally:
        stop_group(proc)
    expected = {"SIGINT": 130, "SIGTERM": 143, "death": 1}[how]
    assert proc.returncode == expected, (out, err)
    assert "Traceback" not in err + out
    assert not left_after({server, child}, 5), "the server or its child outlived the run"
    with pytest.raises(ProcessLookupError):
        os.killpg(server, 0)  # its process group is gone
    if how != "death":  # stopped by runner, group and all; a dead run's watching parent kills what is left
        assert _stopped(root, "app") == ("SIGTERM", "SIGTERM")
    # the proxy the server was given (its CA and key) is removed, by the run or, after a death, its watcher
    # (with the run's folder, where it was made)
    assert not list(temp.glob("runner-proxy-*")) and not list(temp.glob("runner-run-*")), list(temp.iterdir())


def _wait_for_start(root: Path, proc: subprocess.Popen[str], name: str, bound: float = 60) -> int:
    deadline = time.monotonic() + bound
    while not _starts(root, name):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "runner open did not start the server"
        time.sleep(0.05)
    return _starts(root, name)[0]


def test_runner_open_starts_the_server_and_stops_it_when_it_exits(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    root = _project(tmp_path, _entry(tmp_path, "open", port, "--child", url=url), REUSE_SPEC, base_url=url)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    proc = subprocess.Popen([RUNNER, "open", "--no-open", "--no-spare"], cwd=root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        server = _wait_for_start(root, proc, "open")
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once the server answered: it serves after
        assert first.startswith("runner open: serving"), first
        child = pid_in(root / "state" / "open.child", 10)
        assert alive(server) and alive(child)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        stop_group(proc)
    assert proc.returncode == 0, err
    assert f"webServer: {_command('open', port, '--child')!r} answers at {url}" in err
    assert "Traceback" not in err
    assert not left_after({server, child}, 5), "runner open left its server running"
    assert _stopped(root, "open") == ("SIGTERM", "SIGTERM")


def test_ctrl_c_while_the_server_starts_stops_it_and_runs_nothing(tmp_path: Path) -> None:
    port = free_port()
    stamp = tmp_path / "ran"
    root = _project(tmp_path, _entry(tmp_path, "starting", port, "--never", "--child", port=port, timeout=120000),
                    NO_TEST_SPEC.format(stamp=str(stamp)))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    proc = subprocess.Popen([RUNNER, "run"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        server = _wait_for_start(root, proc, "starting")
        child = pid_in(root / "state" / "starting.child")
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        stop_group(proc)
    assert proc.returncode == 130, (out, err)
    assert "interrupted by SIGINT" in err and "Traceback" not in out + err
    assert not stamp.exists()
    assert not left_after({server, child}, 5)
    assert _stopped(root, "starting") == ("SIGTERM", "SIGTERM")
