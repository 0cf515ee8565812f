"""A small static HTTP server on 127.0.0.1: one folder, read-only, in a daemon thread.

runner's file server (``serve/files.py``, the app's files when there is no ``baseUrl``) and
``runner show-trace`` (Playwright's trace viewer and one trace) both serve with it. The rules:

* only requests whose ``Host`` is ``127.0.0.1:<port>`` or ``localhost:<port>`` are answered
  (403 otherwise): a page on another site that rebinds its own name to 127.0.0.1 (DNS
  rebinding) sends its own name as the Host, and must not read the folder through a browser;
* only files whose real path (symbolic links followed) is inside the folder, so a link cannot
  lead out of it; ``..`` cannot either, in any encoding (the path is decoded, then normalised);
* never the ``hidden`` files (by real path), files named one of ``hidden_names``, files inside a
  ``hidden_folders`` folder (runner's artifacts: a report, traces, screenshots...) nor files whose
  real path matches one of ``hidden_patterns`` (fnmatch: a junit file per spec, an events file
  kept aside) (404);
* a request with more than one ``Host`` header is refused (400): which one a check reads and which
  one another reader believes must never differ;
* a folder is answered with its ``index.html`` (or ``index.htm``), never with a listing of its
  files (404 when it has no index);
* ``extra`` files: single files served at a URL path of their own, wherever they are (the trace
  ``runner show-trace`` opens);
* GET and HEAD only, each file with its content type (``.js``, ``.css``, ``.zip``, ``.mp4``,
  ``.webm``, ``.json``, ``.svg``, ``.ttf``, ``.webmanifest``, ...), and ``Range`` requests (a
  video or a zip read in parts) answered with 206 and the part asked for.
"""

from __future__ import annotations

import email.utils
import fnmatch
import functools
import http.server
import io
import mimetypes
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

__all__ = ["StaticServer", "CONTENT_TYPES", "content_type"]

#: Content types of the files runner serves (the system's table may lack some, or be wrong).
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
    ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
    ".gif": "image/gif", ".webp": "image/webp", ".ico": "image/x-icon",
    ".ttf": "font/ttf", ".woff": "font/woff", ".woff2": "font/woff2",
    ".webmanifest": "application/manifest+json", ".zip": "application/zip",
    ".mp4": "video/mp4", ".webm": "video/webm", ".txt": "text/plain; charset=utf-8",
    ".wasm": "application/wasm", ".jsonl": "application/x-ndjson",
}

_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


def content_type(path: str) -> str:
    """The content type a file is served with, by its extension."""
    ext = os.path.splitext(path)[1].lower()
    return CONTENT_TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"


@dataclass
class _Rules:
    """What one server serves: ``root`` (the folder's real path), ``hidden`` (real paths never
    served), ``hidden_names`` (lower-case file names never served), ``extra`` (URL path -> file),
    ``hosts`` (the Host values answered; set once the port is known)."""

    root: str
    hidden: frozenset[str] = frozenset()
    hidden_names: frozenset[str] = frozenset()
    extra: Mapping[str, str] = field(default_factory=dict)
    documents: dict[str, bytes] = field(default_factory=dict)  # URL path -> an HTML page held in memory
    hosts: frozenset[str] = frozenset()
    what: str = "runner's server"  # names the server in its 403 answer
    hidden_folders: tuple[str, ...] = ()  # real paths, each ending with the separator
    hidden_patterns: tuple[str, ...] = ()  # fnmatch patterns over real paths


class _Part:
    """The part of an open file a Range request asked for: reads stop at its end."""

    def __init__(self, file: IO[bytes], start: int, length: int) -> None:
        file.seek(start)
        self._file = file
        self._left = length

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        size = self._left if size < 0 else min(size, self._left)
        data = self._file.read(size)
        self._left -= len(data)
        return data

    def close(self) -> None:
        self._file.close()


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    # Python's http.server holds keep-alive responses ~40 ms without this (engine-facts.md).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def __init__(self, *args: Any, rules: _Rules, **kwargs: Any) -> None:
        self._rules = rules
        super().__init__(*args, directory=rules.root, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        return content_type(os.fspath(path))

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        root = self._rules.root
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def _servable(self, path: str) -> bool:
        """Whether the file ``path`` (inside the folder as requested) may be sent."""
        real = os.path.realpath(path)
        names = {os.path.basename(path).lower(), os.path.basename(real).lower()}
        if names & self._rules.hidden_names or not self._inside(path):
            return False
        if real.startswith(self._rules.hidden_folders) or any(
                fnmatch.fnmatchcase(real, pattern) for pattern in self._rules.hidden_patterns):
            return False
        return real not in self._rules.hidden

    def _not_found(self) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")

    def send_head(self) -> Any:
        if len(self.headers.get_all("Host") or []) > 1:
            self.send_error(HTTPStatus.BAD_REQUEST, "More than one Host header",
                            f"{self._rules.what} answers requests with one Host header.")
            return None
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self._rules.hosts:
            self.send_error(
                HTTPStatus.FORBIDDEN, "Host not allowed",
                f"{self._rules.what} answers requests for {' or '.join(sorted(self._rules.hosts))} only.",
            )
            return None
        document = self._rules.documents.get(unquote(urlsplit(self.path).path))
        if document is not None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(document)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return io.BytesIO(document)
        extra = self._rules.extra.get(unquote(urlsplit(self.path).path))
        if extra is not None:
            return self._send_file(extra)
        path = self.translate_path(self.path)
        if "\0" in path:  # %00: no file has that name (and open() would raise ValueError)
            self._not_found()
            return None
        if os.path.isdir(path):
            if not self._inside(path):
                self._not_found()
                return None
            if not _ends_with_slash(self.path):
                return super().send_head()  # the redirect to "folder/"
            index = next((os.path.join(path, name) for name in ("index.html", "index.htm")
                          if os.path.isfile(os.path.join(path, name))), None)
            if index is None or not self._servable(index):
                self._not_found()
                return None
            path = index
        if not os.path.isfile(path) or not self._servable(path):
            self._not_found()
            return None
        return self._send_file(path)

    def _send_file(self, path: str) -> Any:
        """Send the headers for the file ``path`` (all of it, or the part a Range asked for) and
        return what to copy to the client."""
        try:
            file = open(path, "rb")  # noqa: SIM115 - closed by do_GET / do_HEAD
        except OSError:
            self._not_found()
            return None
        try:
            stat = os.fstat(file.fileno())
            size = stat.st_size
            if _not_modified_since(self.headers.get("If-Modified-Since"), stat.st_mtime) \
                    and not self.headers.get("Range"):
                file.close()
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self.end_headers()
                return None
            try:
                part = _range(self.headers.get("Range"), size)
            except _Unsatisfiable:
                file.close()
                self.send_response(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if part is None:
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Length", str(size))
                body: Any = file
            else:
                start, end = part
                self.send_response(HTTPStatus.PARTIAL_CONTENT)
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                self.send_header("Content-Length", str(end - start + 1))
                body = _Part(file, start, end - start + 1)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
            self.end_headers()
            return body
        except BaseException:
            file.close()
            raise

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # Never reached (send_head answers folders itself); a listing is never sent in any case.
        self._not_found()
        return None


def _ends_with_slash(url: str) -> bool:
    """Whether the path of a request target (query and fragment cut) ends with ``/``."""
    return url.split("?", 1)[0].split("#", 1)[0].rstrip().endswith("/")


def _not_modified_since(header: str | None, mtime: float) -> bool:
    """Whether a file last changed at ``mtime`` is unchanged since the ``If-Modified-Since`` date."""
    if not header:
        return False
    try:
        since = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:
        return False
    return int(mtime) <= since.timestamp()


class _Unsatisfiable(Exception):
    """The range asked for starts past the end of the file."""


def _range(header: str | None, size: int) -> tuple[int, int] | None:
    """The byte range ``(first, last)`` a ``Range`` header asks of a file of ``size`` bytes; None
    for the whole file (no header, or one this server does not serve in parts: several ranges,
    another unit). Raises ``_Unsatisfiable`` when the range starts past the end."""
    if not header:
        return None
    found = _RANGE.match(header.strip())
    if found is None:
        return None
    first, last = found.groups()
    if not first and not last:
        return None
    if not first:  # the last N bytes
        count = int(last)
        if count == 0:
            raise _Unsatisfiable
        return max(size - count, 0), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size or end < start:
        raise _Unsatisfiable
    return start, end


class _Server(http.server.ThreadingHTTPServer):
    """A connection the browser dropped (a reset, a closed pipe: a tab closed mid-download, a
    keep-alive connection let go) is the browser's business, not an error of the server: it is
    not printed. Anything else a request raises is one line on stderr, never a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        err = sys.exc_info()[1]
        if isinstance(err, (ConnectionError, TimeoutError)):
            return
        host, port = self.server_address[:2]
        print(f"runner: warning: a request to {host!s}:{port} failed: {type(err).__name__}: {err}",
              file=sys.stderr)


class StaticServer:
    """Serve ``folder`` over HTTP on 127.0.0.1 (``port``, else a free one) until :meth:`close`.

    ``hidden``: files never served (compared by real path); ``hidden_names``: file names never
    served wherever they are (compared in lower case); ``hidden_folders``: folders none of whose
    files are served (by real path); ``hidden_patterns``: fnmatch patterns of real paths never
    served (write the folder part with ``glob.escape``); ``extra``: URL path -> a file served
    there (outside the folder too). ``what`` names the server in its refusals. Raises ``OSError``
    when the port cannot be used.
    """

    def __init__(self, folder: Path, port: int | None = None, *, hidden: Iterable[Path] = (),
                 hidden_names: Iterable[str] = (), hidden_folders: Iterable[Path] = (),
                 hidden_patterns: Iterable[str] = (), extra: Mapping[str, Path] | None = None,
                 what: str = "runner's server") -> None:
        rules = _Rules(
            os.path.realpath(folder), frozenset(os.path.realpath(path) for path in hidden),
            frozenset(name.lower() for name in hidden_names),
            {url: os.path.realpath(path) for url, path in (extra or {}).items()}, what=what,
            hidden_folders=tuple(os.path.realpath(path).rstrip(os.sep) + os.sep for path in hidden_folders),
            hidden_patterns=tuple(hidden_patterns),
        )
        handler = functools.partial(_StaticHandler, rules=rules)
        self._server = _Server(("127.0.0.1", port or 0), handler)
        self.port: int = self._server.server_address[1]
        hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        if self.port == 80:  # a browser leaves out the default port
            hosts |= {"127.0.0.1", "localhost"}
        rules.hosts = frozenset(hosts)  # before the first request: serving starts below
        self.folder = folder
        self.url = f"http://127.0.0.1:{self.port}"
        self._documents = rules.documents
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
            name="runner-static-server",
        )
        self._thread.start()

    def put_document(self, path: str, html: bytes) -> str:
        """Serve ``html`` at the URL path ``path`` (before any file of that name); its URL."""
        self._documents[path] = html
        return self.url + path

    def drop_document(self, path: str) -> None:
        self._documents.pop(path, None)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
