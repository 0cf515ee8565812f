"""A folder served over HTTP on 127.0.0.1 (a free port) for the length of a ``with`` block."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder``; yields its base URL (``http://127.0.0.1:PORT``). The server and its thread
    end when the block does, however it ends."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
