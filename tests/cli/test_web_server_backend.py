"""``webServer`` and ``runner.intercept_backend`` together: a server runner starts gets runner's
proxy in its environment (``runner run`` without workers), so the tests stub and watch the calls
it makes to another service; an entry's own ``env`` keeps a server off the proxy."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.conftest import run_runner, write_project
from tests.support.open_backend import SERVICE
from tests.support.servers import free_port

# The app renders the price the "pricing service" gives it; the service stands on 127.0.0.1.
APP = '''
import http.server, os, sys, urllib.request

port, service = int(sys.argv[1]), sys.argv[2]


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with urllib.request.urlopen(service + "/price", timeout=10) as answer:  # reads HTTP_PROXY
            price = answer.read().decode()
        body = f"<html><body><p id='price'>{price}</p><p id='proxy'>{os.environ.get('HTTP_PROXY', '')}</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Page).serve_forever()
'''

SPEC = '''
def test_the_service_is_stubbed_on_the_server(runner):
    runner.intercept_backend("GET", "**/price", {"body": "42 EUR"}).as_("price")
    runner.visit("/")
    runner.get("#price").should("have.text", "42 EUR")
    assert runner.wait("@price").request.url.endswith("/price")


def test_unrouted_the_service_answers(runner):
    runner.visit("/")
    runner.get("#price").should("have.text", "7 EUR")
'''




def _project(root: Path, app_env: dict[str, str]) -> Path:
    app_port, service_port = free_port(), free_port()
    py = shlex.quote(sys.executable)
    return write_project(root, {
        "app.py": APP,
        "service.py": SERVICE,
        "runner/integration/price_spec.py": SPEC,
        "runner.json": json.dumps({
            "baseUrl": f"http://127.0.0.1:{app_port}",
            "video": False,
            "webServer": [
                {"command": f"{py} service.py {service_port}", "port": service_port, "timeout": 30000},
                {"command": f"{py} app.py {app_port} http://127.0.0.1:{service_port}", "port": app_port,
                 "timeout": 30000, "env": app_env},
            ],
        }),
    })


def test_a_started_servers_calls_are_stubbed_and_waited_on(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    done = run_runner("run", "--reporter", "dot", cwd=root, timeout=180)
    assert done.code == 0, done.text
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    served = [e for e in events if e.get("kind") == "request.intercepted" and e.get("server")]
    assert served and all(e["nodeid"].endswith("test_the_service_is_stubbed_on_the_server") for e in served), served


def test_an_entrys_own_env_keeps_it_off_the_proxy(tmp_path: Path) -> None:
    off = {"HTTP_PROXY": "", "HTTPS_PROXY": "", "http_proxy": "", "https_proxy": ""}
    root = _project(tmp_path, off)
    done = run_runner("run", "--reporter", "dot", cwd=root, timeout=180)
    # the stub is never reached: the app calls the service straight, so the first test fails
    assert done.code == 1, done.text
    assert "42 EUR" in done.text and "7 EUR" in done.text


NAMED_SPEC = '''
def test_{name}(runner):
    runner.intercept_backend("GET", "**/price")
'''


def test_under_workers_intercept_backend_says_why_webservers_server_has_no_proxy(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    (root / "runner/integration/price_spec.py").unlink()
    for name in ("first", "second"):  # two specs: two workers
        (root / f"runner/integration/{name}_spec.py").write_text(NAMED_SPEC.format(name=name))
    done = run_runner("run", "--workers", "2", "--reporter", "dot", cwd=root, timeout=180)
    assert done.code == 2, done.text
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    errors = [json.dumps(e) for e in events if e.get("kind") == "attempt.ended" and e.get("state") == "failed"]
    assert len(errors) == 2, errors
    for error in errors:
        assert "found no app server sending its requests through runner's proxy" in error, error
        assert ("The servers of `webServer` get runner's proxy when `runner open` starts them, or `runner run` "
                "runs the tests in its own process (without `--workers`); a server `runner run` reuses "
                "(`reuseExistingServer`) and those of `--workers` get none") in error, error


def test_a_reused_server_is_told_it_has_no_proxy_and_intercept_backend_says_so(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    (root / "runner/integration/price_spec.py").write_text(NAMED_SPEC.format(name="reused"))
    config = json.loads((root / "runner.json").read_text())
    for entry in config["webServer"]:
        entry["reuseExistingServer"] = True
    (root / "runner.json").write_text(json.dumps(config))
    # the developer's servers, started by hand before the run (as the entries' commands would)
    started = [subprocess.Popen(shlex.split(entry["command"]), cwd=root, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for entry in config["webServer"]]
    try:
        for entry in config["webServer"]:
            deadline = time.monotonic() + 30
            while not _takes_connections(entry["port"]):
                assert time.monotonic() < deadline, f"{entry['command']} did not start"
                time.sleep(0.05)
        done = run_runner("run", "--reporter", "dot", cwd=root, timeout=180)
    finally:
        for process in started:
            process.kill()
            process.wait(10)
    assert done.code == 1, done.text
    assert done.err.count("It was not started by runner, so it has not runner's proxy: "
                          "runner.intercept_backend() does not see its requests.") == 2, done.err
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    [error] = [json.dumps(e) for e in events if e.get("kind") == "attempt.ended" and e.get("state") == "failed"]
    assert "found no app server sending its requests through runner's proxy" in error, error
    assert "a server `runner run` reuses (`reuseExistingServer`)" in error, error


def _takes_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
