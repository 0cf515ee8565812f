"""clientCertificates: real TLS servers on 127.0.0.1 that ask for a client certificate."""

from __future__ import annotations

import http.server
import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)


def _make_certs(folder: Path) -> None:
    for ca in ("ca", "other-ca"):
        _openssl(folder, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN=test-{ca}",
                 "-keyout", f"{ca}.key", "-out", f"{ca}.crt")
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, cn, extra in (("server", "127.0.0.1", ["-extfile", "san.cnf"]), ("client", "runner-client", [])):
        _openssl(folder, "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr")
        _openssl(folder, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-days", "2", "-out", f"{name}.crt", *extra)
    _openssl(folder, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-subj", "/CN=runner-client-ec", "-keyout", "client-ec.key", "-out", "client-ec.csr")
    _openssl(folder, "x509", "-req", "-in", "client-ec.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-out", "client-ec.crt")
    (folder / "pass.txt").write_text("s3cret\n")
    _openssl(folder, "pkcs12", "-export", "-in", "client.crt", "-inkey", "client.key", "-out", "client.pfx",
             "-passout", "pass:s3cret")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    _make_certs(folder)
    return folder


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


@contextmanager
def tls_server(certs: Path, *, required: bool) -> Iterator[int]:
    """A server that asks for a client certificate (and refuses to go on without one when
    ``required``) and says whose certificate it got."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.crt", certs / "server.key")
    context.load_verify_locations(certs / "ca.crt")
    context.verify_mode = ssl.CERT_REQUIRED if required else ssl.CERT_OPTIONAL
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def project(root: Path, certs: Path, entry: dict, spec: str) -> Path:
    shutil.copytree(certs, root / "certs")
    (root / "runner.json").write_text(json.dumps({
        "fileServerFolder": ".", "video": False, "trashAssetsBeforeRuns": False, "clientCertificates": [entry]}))
    path = root / "runner" / "integration" / "tls_spec.py"
    path.parent.mkdir(parents=True)
    path.write_text(spec)
    return root


PEM = [{"cert": "certs/client.crt", "key": "certs/client.key"}]


def test_client_certificate_is_presented_to_matching_urls(tmp_path: Path, certs: Path) -> None:
    with tls_server(certs, required=True) as port:
        root = project(tmp_path, certs, {"url": f"https://127.0.0.1:{port}/**", "certs": PEM}, (
            "def test_tls(runner):\n"
            f"    runner.visit('https://127.0.0.1:{port}/')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n"))
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_the_url_glob_is_honoured_to_the_path_and_host_globs_work(tmp_path: Path, certs: Path) -> None:
    with tls_server(certs, required=False) as port:
        root = project(tmp_path, certs, {"url": f"https://127.0.0.*:{port}/secure/**", "certs": PEM}, (
            "def test_paths(runner):\n"
            f"    runner.visit('https://127.0.0.1:{port}/public')\n"
            "    runner.get('#who').should('have.text', 'hello nobody')\n"
            f"    runner.visit('https://127.0.0.1:{port}/secure/page')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n"
            "\n"
            "def test_intercepted_requests_keep_the_certificate(runner):\n"
            "    runner.intercept('/secure/**').as_('secure')\n"
            f"    runner.visit('https://127.0.0.1:{port}/secure/spied')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n"
            "    assert runner.wait('@secure').response.status_code == 200\n"))
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_the_ca_verifies_the_server(tmp_path: Path, certs: Path) -> None:
    spec = ("def test_verified(runner):\n"
            "    runner.visit('https://127.0.0.1:{port}/')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n")
    with tls_server(certs, required=True) as port:
        good = project(tmp_path / "good", certs, {"url": f"https://127.0.0.1:{port}/**", "ca": ["certs/ca.crt"],
                                                  "certs": PEM}, spec.format(port=port))
        passed = run_runner("run", cwd=good)
        wrong = project(tmp_path / "wrong", certs, {"url": f"https://127.0.0.1:{port}/**",
                                                    "ca": ["certs/other-ca.crt"], "certs": PEM}, spec.format(port=port))
        refused = run_runner("run", cwd=wrong)
    assert passed.code == 0, passed.text
    assert refused.code == 1
    assert "clientCertificates[0]" in refused.text and "CERTIFICATE_VERIFY_FAILED" in refused.text


def test_a_pfx_with_its_passphrase_file(tmp_path: Path, certs: Path) -> None:
    with tls_server(certs, required=True) as port:
        root = project(tmp_path, certs, {"url": f"https://127.0.0.1:{port}/**",
                                         "certs": [{"pfx": "certs/client.pfx", "passphrase": "certs/pass.txt"}]}, (
            "def test_tls(runner):\n"
            f"    runner.visit('https://127.0.0.1:{port}/')\n"
            "    runner.get('#who').should('have.text', 'hello runner-client')\n"))
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_an_entry_offers_one_certificate_of_each_key_type(tmp_path: Path, certs: Path) -> None:
    both = [{"cert": "certs/client-ec.crt", "key": "certs/client-ec.key"}, *PEM]
    with tls_server(certs, required=True) as port:
        root = project(tmp_path, certs, {"url": f"https://127.0.0.1:{port}/**", "certs": both}, (
            "def test_tls(runner):\n"
            f"    runner.visit('https://127.0.0.1:{port}/')\n"
            "    runner.get('#who').should('contain.text', 'hello runner-client')\n"))
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"ca": ["certs/missing-ca.crt"], "certs": PEM}, "clientCertificates[0].ca: the file"),
        ({"certs": [{"cert": "certs/client.crt", "key": "certs/nope.key"}]}, "clientCertificates[0].certs[0].key"),
        ({"certs": [{"cert": "certs/client.crt", "key": "certs/server.key"}]}, "could not be loaded"),
        ({"certs": [{"pfx": "certs/client.pfx"}]}, "a wrong or missing passphrase file"),
        ({"certs": [*PEM, {"cert": "certs/server.crt", "key": "certs/server.key"}]},
         "clientCertificates[0].certs[1] is a second RSA certificate (the first is clientCertificates[0].certs[0])"),
    ],
)
def test_a_broken_entry_stops_the_run_before_any_test(tmp_path: Path, certs: Path, entry: dict, says: str) -> None:
    root = project(tmp_path, certs, {"url": "https://127.0.0.1:9/**", **entry},
                   "def test_never(runner):\n    raise AssertionError('ran')\n")
    result = run_runner("run", cwd=root)
    assert result.code == 1 and says in result.err, result.text
    assert "Traceback" not in result.text and "ran" not in result.out
