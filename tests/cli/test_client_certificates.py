"""clientCertificates: a real TLS server on 127.0.0.1 that demands a client certificate."""

from __future__ import annotations

import http.server
import json
import shutil
import ssl
import subprocess
import threading
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


def _make_certs(folder: Path) -> None:
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-out", "server.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=runner-client", "-keyout", "client.key",
        "-out", "client.csr")
    run("x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-out", "client.crt")


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # noqa: ANN002
        pass

    def do_GET(self) -> None:  # noqa: N802
        peer = self.connection.getpeercert() or {}
        subject = dict(x[0] for x in peer.get("subject", ()))
        body = f"<h1 id='who'>hello {subject.get('commonName', 'nobody')}</h1>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_client_certificate_is_presented_to_matching_urls(tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    certs.mkdir()
    _make_certs(certs)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.crt", certs / "server.key")
    context.load_verify_locations(certs / "ca.crt")
    context.verify_mode = ssl.CERT_REQUIRED
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        (tmp_path / "runner.json").write_text(json.dumps({
            "fileServerFolder": ".", "video": False, "trashAssetsBeforeRuns": False,
            "clientCertificates": [{
                "url": f"https://127.0.0.1:{port}/**",
                "certs": [{"cert": "certs/client.crt", "key": "certs/client.key"}],
            }],
        }))
        spec = tmp_path / "runner" / "integration" / "tls_spec.py"
        spec.parent.mkdir(parents=True)
        spec.write_text(
            "def test_tls(runner):\n"
            f"    runner.visit('https://127.0.0.1:{port}/')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n")
        result = run_runner("run", cwd=tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert result.code == 0, result.text
