"""The static file server runner starts when no ``baseUrl`` is configured.

It serves ``fileServerFolder`` on 127.0.0.1 (``port`` when configured, else a free port), in a
daemon thread, so relative URLs in ``visit`` and ``request`` have somewhere to go.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import Any

from runner.errors import ConfigError

__all__ = ["FileServer"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    # Python's http.server holds keep-alive responses ~40 ms without this (engine-facts.md).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


class FileServer:
    """Serve one folder over HTTP on loopback until :meth:`close`."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        if not folder.is_dir():
            raise ConfigError(
                f"fileServerFolder {str(folder)!r} is not a folder.\n"
                "Expected an existing folder to serve the application from; "
                "set fileServerFolder or baseUrl in runner.json."
            )
        handler = functools.partial(_QuietHandler, directory=str(folder))
        try:
            self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port or 0), handler)
        except OSError as err:
            raise ConfigError(
                f"port {port!r} could not be used to serve fileServerFolder: {err.strerror}.\n"
                "Expected a free port; remove `port` from runner.json to pick one automatically."
            ) from err
        self._server.daemon_threads = True
        self.folder = folder
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
            name="runner-fileserver",
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
