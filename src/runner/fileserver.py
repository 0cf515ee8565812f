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

The serving itself (those rules, content types, Range requests) is ``serve.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from runner.errors import ConfigError
from runner.serve import StaticServer

__all__ = ["FileServer", "HIDDEN_NAMES"]

#: Files never served, wherever they are in the folder: runner's configuration and its secrets.
HIDDEN_NAMES = frozenset({"runner.json", "runner.env.json"})


class FileServer:
    """Serve one folder over HTTP on loopback until :meth:`close` (see ``serve.py``).

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
        try:
            self._server = StaticServer(folder, port, hidden=hidden, hidden_names=HIDDEN_NAMES,
                                        what="runner's file server")
        except OSError as err:
            raise ConfigError(
                f"port {port!r} could not be used to serve fileServerFolder: {err.strerror}.\n"
                "Expected a free port; remove `port` from runner.json to pick one automatically."
            ) from err
        self.port: int = self._server.port
        self._mounts = 0
        self._mount_path: str | None = None
        self.folder = folder
        self.url = self._server.url

    def mount_page(self, html: str) -> str:
        """Serve ``html`` (a page ``runner.mount`` built) from this server's origin, replacing the
        previous one, and return its URL. Relative URLs in it resolve against the folder's root
        (the page says ``<base href="/">``)."""
        self._mounts += 1
        if self._mount_path is not None:
            self._server.drop_document(self._mount_path)
        self._mount_path = f"/__runner__/mount/{self._mounts}.html"
        return self._server.put_document(self._mount_path, html.encode("utf-8"))

    def close(self) -> None:
        self._server.close()
