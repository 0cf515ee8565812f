"""``backend/open_proxy.py``: runner open's proxy address relays each connection to the run's proxy
while a run has one, else to its own pass-through proxy; a change closes the connections relayed
so far (a kept-alive client connects anew); stopping removes the session's folder and its CA.
Real sockets, a real mitmproxy and a real HTTP service on 127.0.0.1."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

from tests.support.servers import serving

from runner.backend.open_proxy import OpenProxy

_BOUND_S = 10.0


def _get_through(conn: http.client.HTTPConnection, url: str) -> bytes:
    conn.request("GET", url)
    return conn.getresponse().read()


def _accepted(listener: socket.socket, relay: tuple[str, int]) -> bool:
    """Whether a new connection to the relay reaches ``listener`` (a run's proxy, standing in)."""
    with socket.create_connection(relay, timeout=_BOUND_S):
        try:
            accepted, _ = listener.accept()
        except TimeoutError:
            return False
        accepted.close()
        return True


def test_the_relay_follows_the_run_and_passes_through_between_runs() -> None:
    proxy = OpenProxy()
    env = proxy.start()
    folder = proxy.ca
    with serving() as service, socket.socket() as run_proxy:
        service.route("/price", lambda h: h.send(200, "7 EUR", content_type="text/plain"))
        run_proxy.bind(("127.0.0.1", 0))
        run_proxy.listen()
        run_proxy.settimeout(_BOUND_S)
        try:
            host, port = env["HTTP_PROXY"].removeprefix("http://").split(":")
            relay = (host, int(port))
            assert env["HTTPS_PROXY"] == env["http_proxy"] == env["HTTP_PROXY"]
            assert Path(env["SSL_CERT_FILE"]) == folder / "ca-bundle.pem" and env["REQUESTS_CA_BUNDLE"] == env["SSL_CERT_FILE"]
            assert {p.name for p in folder.iterdir()} >= {"mitmproxy-ca.pem", "mitmproxy-ca-cert.pem", "ca-bundle.pem"}
            # no run: the pass-through proxy; the connection is kept alive for a second request
            kept = http.client.HTTPConnection(*relay, timeout=_BOUND_S)
            assert _get_through(kept, service.url + "/price") == b"7 EUR"
            assert _get_through(kept, service.url + "/price") == b"7 EUR"
            owner = object()
            proxy.route(owner, run_proxy.getsockname()[1])
            assert kept.sock is not None and kept.sock.recv(1) == b""  # closed by the change of run
            kept.close()
            assert _accepted(run_proxy, relay)
            proxy.unroute(object())  # another run's end: this run keeps the address
            assert _accepted(run_proxy, relay)
            proxy.unroute(owner)
            again = http.client.HTTPConnection(*relay, timeout=_BOUND_S)
            assert _get_through(again, service.url + "/price") == b"7 EUR"
            again.close()
        finally:
            proxy.stop()
    assert not folder.exists()
    proxy.stop()  # twice: nothing to do
