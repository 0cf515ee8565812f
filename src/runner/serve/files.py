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
* never what runner writes (404), when it lies inside the folder (it does by default: the folder
  is the project's root): the screenshots, videos, downloads, traces and report folders, the
  events file and the reporter's output files (``reporterOptions.output``/``mochaFile``, the junit
  reporter's default ``runner/results/junit.xml``), with the copies runner keeps beside them (an
  older events file kept aside, a report being built). A page must not read a run's record: it
  holds the run's requests, headers and env values;
* one ``Host`` header only (400 for more);
* a folder is answered with its ``index.html`` (or ``index.htm``), never with a listing of its
  files (404 when it has no index).

The serving itself (those rules, content types, Range requests) is ``serve/static.py``'s.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from runner.errors import ConfigError
from runner.serve.static import StaticServer

__all__ = ["FileServer", "HIDDEN_NAMES", "ARTIFACT_FOLDERS", "artifact_paths"]

#: Files never served, wherever they are in the folder: runner's configuration and its secrets.
HIDDEN_NAMES = frozenset({"runner.json", "runner.env.json"})

#: The folder options runner writes a run's artifacts into; none of their files is served.
ARTIFACT_FOLDERS = ("screenshotsFolder", "videosFolder", "downloadsFolder", "tracesFolder", "reportFolder")
#: The reporters' output file options (reporterOptions), and the junit reporter's default file.
_OUTPUT_OPTIONS = ("output", "mochaFile")
_JUNIT_DEFAULT = "runner/results/junit.xml"


def artifact_paths(config: Any) -> tuple[list[Path], list[str]]:
    """What a run of ``config`` writes, as the folders and the fnmatch patterns (over real paths)
    the file server refuses: the artifact folders and the report's building and old copies beside
    it, the events file and the copies kept aside, the reporter's output files (``[hash]`` in a
    name: any)."""
    folders = [path for path in (config.path(name) for name in ARTIFACT_FOLDERS) if path is not None]
    patterns: list[str] = []
    report = config.path("reportFolder")
    if report is not None:  # folder.py builds `.report.building-<pid>` and keeps `.report.old-<pid>` beside it
        patterns.append(_pattern(report.parent, f".{glob.escape(report.name)}.*"))  # fnmatch's * crosses "/"
    events = config.path("eventsFile")
    if events is not None:  # and artifacts/events_file.keep_aside: `events.<time>.jsonl`
        patterns.append(_pattern(events.parent, glob.escape(events.name)))
        patterns.append(_pattern(events.parent, f"{glob.escape(events.stem)}.*{glob.escape(events.suffix)}"))
    options = config.reporter_options or {}
    outputs = [options.get(key) for key in _OUTPUT_OPTIONS] + [_JUNIT_DEFAULT]
    for value in outputs:
        if isinstance(value, str) and value.strip():
            path = Path(os.path.expanduser(value))
            path = path if path.is_absolute() else config.project_root / path
            patterns.append(_pattern(path.parent, glob.escape(path.name).replace("[[]hash]", "*")))
    return folders, patterns


def _pattern(folder: Path, *names: str) -> str:
    """An fnmatch pattern of the real path of ``folder`` (escaped) joined with ``names`` (patterns)."""
    return os.path.join(glob.escape(os.path.realpath(folder)), *names)


class FileServer:
    """Serve one folder over HTTP on loopback until :meth:`close` (see ``serve/static.py``).

    ``hidden``: files never served even when inside the folder (the configuration file, the
    plugins and support files), compared by real path; ``runner.json`` and ``runner.env.json``
    are never served in any case. ``hidden_folders`` and ``hidden_patterns``: what the run writes
    (:func:`artifact_paths`).
    """

    def __init__(self, folder: Path, port: int | None = None, hidden: Iterable[Path] = (),
                 hidden_folders: Iterable[Path] = (), hidden_patterns: Iterable[str] = ()) -> None:
        if not folder.is_dir():
            raise ConfigError(
                f"fileServerFolder {str(folder)!r} is not a folder.\n"
                "Expected an existing folder to serve the application from; "
                "set fileServerFolder or baseUrl in runner.json."
            )
        try:
            root = os.path.realpath(folder) + os.sep
            # a folder that holds the served one (screenshotsFolder ".") would hide the app itself:
            # its artifacts are then refused by their patterns and names only
            inside = [f for f in hidden_folders if not root.startswith(os.path.realpath(f).rstrip(os.sep) + os.sep)]
            self._server = StaticServer(folder, port, hidden=hidden, hidden_names=HIDDEN_NAMES,
                                        hidden_folders=inside, hidden_patterns=hidden_patterns,
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
