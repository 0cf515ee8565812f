"""The HTTP server of bench/intercept.py, in a process of its own.

A real app's server is another process: its answers never wait for runner's Python. Served from
threads of the bench's own process, every millisecond runner's engine thread holds the GIL would
also delay the server's answer, and an intercepted fetch would be charged twice for runner's
work. Run here, the server has its own interpreter and the figures charge runner once.

Serves ``/small`` (a small JSON), ``/big`` (a 1 MiB JSON), ``/pixel.png``, ``/app`` (an empty
page) and ``/images`` (a page of 1000 pixels) on 127.0.0.1, prints ``http://127.0.0.1:PORT`` on
one line once it listens, and stops when its standard input closes (the bench ended, or died).

:func:`start` runs it from the bench: the child, and its address once it printed it (bounded).
"""

from __future__ import annotations

import selectors
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import TestServer  # noqa: E402

SMALL = b'{"ok": true, "items": [1, 2, 3]}'
BIG = b'{"pad": "' + b"x" * (1024 * 1024) + b'"}'
PIXEL = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f"
         b"\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00"
         b"\x00\x00IEND\xaeB`\x82")

#: The longest the bench waits for the child to say where it listens.
STARTUP_S = 20.0


def serve_routes(server: TestServer) -> None:
    """Give ``server`` the bench's routes."""
    server.route("/small", lambda h: h.send(200, SMALL, content_type="application/json"))
    server.route("/big", lambda h: h.send(200, BIG, content_type="application/json"))
    server.route("/pixel.png", lambda h: h.send(200, PIXEL, content_type="image/png"))
    images = "".join(f'<img src="/pixel.png?n={i}" width="1" height="1">' for i in range(1000))
    server.page("/app", "<html><body>bench</body></html>")
    server.page("/images", f"<html><body>{images}</body></html>")


def start() -> tuple[subprocess.Popen[bytes], str]:
    """Start the server in a child process; returns it and its base URL. Raises RuntimeError
    when it did not say where it listens within :data:`STARTUP_S` (the child is stopped)."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve())], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = b""
    deadline = time.monotonic() + STARTUP_S
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                break
            chunk = proc.stdout.read1(256)
            if not chunk:  # it exited
                break
            line += chunk
    url = line.decode("ascii", "replace").strip()
    if not url.startswith("http://127.0.0.1:"):
        stop(proc)
        raise RuntimeError(f"the bench's HTTP server did not start within {STARTUP_S:g}s (it said {url!r})")
    return proc, url


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's stdin (it stops), and wait for it, bounded; killed if it lingers."""
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    if proc.stdout is not None:
        proc.stdout.close()


def main() -> None:
    server = TestServer()
    serve_routes(server)
    print(server.url, flush=True)
    try:
        sys.stdin.buffer.read()  # until the bench closes it (or exits)
    finally:
        server.close()


if __name__ == "__main__":
    main()
