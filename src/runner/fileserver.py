"""The static file server runner starts when no ``baseUrl`` is configured.

It serves ``fileServerFolder`` on 127.0.0.1 (``port`` when configured, else a free port), in a
daemon thread, so relative URLs in ``visit`` and ``request`` have somewhere to go.

It serves the application's files and nothing else:

* only requests whose ``Host`` is ``127.0.0.1:<port>`` or ``localhost:<port>`` are answered
  (403 otherwise): a page on another site that rebinds its own name to 127.0.0.1 (DNS
  rebinding) sends its own name as the Host, and must not read the project through the browser;
* only files whose real path (symbolic links followed) is inside the folder, so a link cannot
  lead out of it; ``..`` cannot either, in any encoding (the path is decoded, then normalised);
* never runner's own files (404): ``runner.json`` and ``runner.env.json`` (where secrets go)
  wherever they are, the configuration file given with ``--config-file``, and the plugins and
  support files (code that configures the run and may read secrets; the application never
  needs them);
* a folder is answered with its ``index.html`` (or ``index.htm``), never with a listing of its
  files (404 when it has no index).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

from runner.errors import ConfigError

__all__ = ["FileServer", "HIDDEN_NAMES"]

#: Files never served, wherever they are in the folder: runner's configuration and its secrets.
HIDDEN_NAMES = frozenset({"runner.json", "runner.env.json"})


@dataclass
class _Rules:
    """What one server serves: ``root`` (the folder's real path), ``hidden`` (real paths never
    served), ``hosts`` (the Host values answered; set once the port is known)."""

    root: str
    hidden: frozenset[str]
    hosts: frozenset[str] = field(default=frozenset())


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    # Python's http.server holds keep-alive responses ~40 ms without this (engine-facts.md).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, rules: _Rules, **kwargs: Any) -> None:
        self._root = rules.root
        self._hosts = rules.hosts
        self._hidden = rules.hidden
        super().__init__(*args, directory=rules.root, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self._root or real.startswith(self._root + os.sep)

    def _servable(self, path: str) -> bool:
        """Whether the file ``path`` (inside the folder as requested) may be sent."""
        real = os.path.realpath(path)
        names = {os.path.basename(path).lower(), os.path.basename(real).lower()}
        if names & HIDDEN_NAMES or not self._inside(path):
            return False
        return real not in self._hidden

    def send_head(self) -> Any:
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self._hosts:
            self.send_error(
                HTTPStatus.FORBIDDEN,
                "Host not allowed",
                f"runner's file server answers requests for {' or '.join(sorted(self._hosts))} only.",
            )
            return None
        path = self.translate_path(self.path)
        if "\0" in path:  # %00: no file has that name (and open() would raise ValueError)
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        if os.path.isdir(path):
            if not self._inside(path):
                self.send_error(HTTPStatus.NOT_FOUND, "File not found")
                return None
            if urlpath_ends_with_slash(self.path):
                index = next((os.path.join(path, name) for name in ("index.html", "index.htm")
                              if os.path.isfile(os.path.join(path, name))), None)
                if index is None or not self._servable(index):
                    self.send_error(HTTPStatus.NOT_FOUND, "File not found")
                    return None
            return super().send_head()  # the redirect to "folder/", or the index
        if os.path.exists(path) and not self._servable(path):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # Reached only through a race (the index removed after it was checked): still no listing.
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")
        return None


def urlpath_ends_with_slash(url: str) -> bool:
    """Whether the path of a request target (query and fragment cut) ends with ``/``."""
    return url.split("?", 1)[0].split("#", 1)[0].rstrip().endswith("/")


class FileServer:
    """Serve one folder over HTTP on loopback until :meth:`close`.

    ``hidden``: files never served even when inside the folder (the configuration file, the
    plugins and support files), compared by real path; ``runner.json`` and ``runner.env.json``
    are never served in any case.
    """

    def __init__(self, folder: Path, port: int | None = None, hidden: Iterable[Path] = ()) -> None:
        if not folder.is_dir():
            raise ConfigError(
                f"fileServerFolder {str(folder)!r} is not a folder.\n"
                "Expected an existing folder to serve the application from; "
                "set fileServerFolder or baseUrl in runner.json."
            )
        rules = _Rules(os.path.realpath(folder), frozenset(os.path.realpath(path) for path in hidden))
        handler = functools.partial(_QuietHandler, rules=rules)
        try:
            self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port or 0), handler)
        except OSError as err:
            raise ConfigError(
                f"port {port!r} could not be used to serve fileServerFolder: {err.strerror}.\n"
                "Expected a free port; remove `port` from runner.json to pick one automatically."
            ) from err
        self.port: int = self._server.server_address[1]
        hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        if self.port == 80:  # a browser leaves out the default port
            hosts |= {"127.0.0.1", "localhost"}
        rules.hosts = frozenset(hosts)  # before the first request: serving starts below
        self._server.daemon_threads = True
        self.folder = folder
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
