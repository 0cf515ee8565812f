"""A project for ``runner open`` with ``webServer``: an app whose page shows what a pricing
service (127.0.0.1) and a payments API (HTTPS, a host that does not exist) tell its server, and a
spec whose first test stubs both with ``runner.intercept_backend`` and whose second has no route
(tests/cli/test_open_backend.py, tests/e2e/test_open_backend_ui.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.cli.conftest import write_project
from tests.support.servers import free_port

# The app renders what the "pricing service" (127.0.0.1) and a payments API (HTTPS, a host that
# does not exist) give it; it writes where its CA bundle is (the session's folder, removed at the end).
APP = '''
import http.server, os, sys, urllib.request

port, service = int(sys.argv[1]), sys.argv[2]
with open("bundle.txt", "w") as out:
    out.write(os.environ.get("SSL_CERT_FILE", ""))


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:  # reads HTTP(S)_PROXY, SSL_CERT_FILE
            return answer.read().decode()
    except Exception as err:
        return f"failed: {err}"


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        price, charge = fetch(service + "/price"), fetch("https://payments.invalid/charge")
        body = (f"<html><body><p id='price'>{price}</p><p id='charge'>{charge}</p>"
                "</body></html>")
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Page).serve_forever()
'''

SERVICE = '''
import http.server, sys


class Price(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"7 EUR")

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Price).serve_forever()
'''

SPEC = '''
def test_stubbed(runner):
    runner.intercept_backend("GET", "**/price", {"body": "42 EUR"}).as_("price")
    runner.intercept_backend("GET", "https://payments.invalid/charge", {"body": "paid"})
    runner.visit("/")
    runner.get("#price").should("have.text", "42 EUR")
    runner.get("#charge").should("have.text", "paid")
    assert runner.wait("@price").request.url.endswith("/price")


def test_unrouted(runner):
    runner.visit("/")
    runner.get("#price").should("have.text", "7 EUR")


def test_spied(runner):
    runner.intercept_backend("GET", "**/price").as_("real")
    runner.visit("/")
    runner.get("#price").should("have.text", "7 EUR")
    runner.wait("@real")
'''



def backend_project(root: Path) -> Path:
    app_port, service_port = free_port(), free_port()
    py = shlex.quote(sys.executable)
    return write_project(root, {
        "app.py": APP,
        "service.py": SERVICE,
        "runner/integration/price_spec.py": SPEC,
        "runner.json": json.dumps({
            "baseUrl": f"http://127.0.0.1:{app_port}",
            "video": False,
            "watchForFileChanges": False,
            "webServer": [
                {"command": f"{py} service.py {service_port}", "port": service_port, "timeout": 30000},
                {"command": f"{py} app.py {app_port} http://127.0.0.1:{service_port}", "port": app_port,
                 "timeout": 30000},
            ],
        }),
    })
