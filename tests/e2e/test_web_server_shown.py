"""``webServer``'s servers as the HTML report and ``runner open`` show them, in a real Chromium:
a real ``runner run`` (then a real ``runner open``) of a project whose one server runner starts
(a small Python HTTP server that dies when a test asks it to) and whose other one it finds
running (reused). The report's run details and runner open's page tell each server, started or
reused and how long it took to answer, and the death with its last lines, as text, the
project's secret (in the server's command and output) hidden."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner, write_project
from tests.support import servers as test_servers
from tests.support.servers import free_port
from tests.support.show_trace import start_serving, stop_serving
from tests.support.static_files import serve_folder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SECRET = "s3cret-pw-4711"
RUN_DONE_MS = 60000  # runner open's run starts Python, pytest and a browser: bounded, generously

APP = '''
import http.server
import os
import sys


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/die":
            # markup in its output is shown as text; the secret it was given never in clear
            print("<b>dying</b> & gone", os.environ["APP_PASSWORD"], flush=True)
            os._exit(4)
        body = b"<html><body><h1>the app</h1></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


port = int(sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Page)
print(f"listening on {port}", flush=True)
server.serve_forever()
'''

SPEC = '''
import urllib.request

import pytest


def test_the_app_dies(runner):
    runner.visit("/")
    with pytest.raises(OSError):
        urllib.request.urlopen("{url}/die", timeout=10)
'''



def _project(root: Path, reused: test_servers.TestServer) -> tuple[Path, str]:
    """A project whose ``webServer[0]`` runner starts and ``webServer[1]`` (``reused``'s port) it
    reuses; returns it and the started server's command."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = f"APP_PASSWORD={SECRET} " + shlex.join([sys.executable, "server.py", str(port)])
    servers = [{"command": command, "url": url, "cwd": "app"},
               {"command": "never run", "port": reused.port, "reuseExistingServer": True}]
    config = {"webServer": servers, "baseUrl": url, "video": False}
    write_project(root, {"runner.json": json.dumps(config), "app/server.py": APP,
                         "runner/integration/app_spec.py": SPEC.replace("{url}", url),
                         "runner.env.json": json.dumps({"env": {"appPassword": SECRET}})})
    return root, command.replace(SECRET, "[redacted]")  # as runner shows it


@pytest.fixture(scope="module")
def reused() -> Iterator[test_servers.TestServer]:
    with test_servers.serving() as server:
        yield server


def test_the_report_tells_each_server_and_a_death_with_its_last_lines(runner, reused: test_servers.TestServer,
                                                                     tmp_path: Path) -> None:
    root, command = _project(tmp_path, reused)
    done = run_runner("run", cwd=root)
    assert done.code == 0, done.text
    with serve_folder(root / "runner" / "report") as url:
        runner.visit(url + "/index.html")
        # the death is said at the top, and told whole in the run's details
        runner.get("#notes").should("contain", f"webServer[0]: {command!r} exited with status 4 while the tests ran")
        runner.get("#runDetails summary").click()
        rows = "#runInfo table.servers-table tbody tr"
        runner.get(rows).should("have.length", 2)
        runner.get(rows).eq(0).should("contain", "webServer[0]").and_("contain", command).and_(
            "contain", "started by runner, answered in").and_("contain", "exited with status 4 while the tests ran")
        runner.get(f"{rows} pre.server-output").should("have.length", 1).and_(
            "have.text", f"listening on {command.split()[-1]}\n<b>dying</b> & gone [redacted]")
        runner.get(f"{rows} pre.server-output b").should("not.exist")  # its output is text, never markup
        runner.get(rows).eq(1).should("contain", "webServer[1]").and_("contain", f"port {reused.port}").and_(
            "contain", "reused").and_("contain", "not stopped by runner")
        text = runner.get("body").invoke("prop", "textContent").value() or ""
        assert "[redacted]" in text and SECRET not in text


def test_runner_open_shows_a_line_per_server_and_a_death_at_once(runner, reused: test_servers.TestServer, tmp_path: Path) -> None:
    root, command = _project(tmp_path, reused)
    proc, url = start_serving(["open", "--no-open"], root)
    try:
        runner.visit(url)
        runner.get("#connection").should("have.attr", "data-state", "open")
        lines = "#servers .server"
        runner.get(lines).should("have.length", 2)
        runner.get(lines).eq(0).should("have.attr", "data-state", "up").and_("contain", "webServer[0]").and_(
            "contain", command).and_("contain", "started, answered in")
        runner.get(lines).eq(1).should("have.attr", "data-state", "reused").and_("contain", f"port {reused.port}")
        runner.get(".spec[data-spec='app_spec.py'] .run-spec").click()
        # told while runner open runs, without a reload: the line, its last lines and a notice
        runner.get(lines).eq(0).should("have.attr", "data-state", "died", timeout=RUN_DONE_MS).and_(
            "contain", "exited with status 4 while runner open ran")
        runner.get("#servers pre.server-output").should("contain", "<b>dying</b> & gone [redacted]")
        runner.get("#servers b").should("not.exist")
        runner.get(".notice.error").should("contain", f"webServer[0]: {command!r} exited with status 4")
        runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
        runner.reload()  # a page loaded later sees the death too
        runner.get(lines).eq(0).should("have.attr", "data-state", "died")
        text = runner.get("body").invoke("prop", "textContent").value() or ""
        assert "[redacted]" in text and SECRET not in text
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
