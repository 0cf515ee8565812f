"""``runner show-report [FOLDER]``: serve a run's HTML report on 127.0.0.1 and open it.

The report opens from disk too, but the trace viewer copied into it needs http (it reads a trace
in a service worker), so this serves the folder with runner's static server (``serve/static.py``:
127.0.0.1 only, Host checked, read-only, no listings), prints the URL, opens the system's
browser when one can be shown, and serves until Ctrl-C. Without FOLDER: the project's
``reportFolder``.
"""

from __future__ import annotations

from pathlib import Path

from runner.errors import UsageError
from runner.reporters.html.folder import MARKER, is_report_folder
from runner.serve.static import StaticServer
from runner.serve.trace import serve_until_stopped

__all__ = ["check_report_folder", "serve_report", "show_report"]

_WHERE_REPORTS_COME_FROM = ("`runner run` writes one to reportFolder (runner/report by default); "
                            "`runner report --from FILE --reporter html` builds one from an events file.")


def check_report_folder(folder: Path) -> None:
    """Raise :class:`UsageError` (one message) unless ``folder`` holds a report runner wrote."""
    if not folder.exists():
        raise UsageError(f"there is no report in {str(folder)!r}: the folder does not exist.\n"
                         f"Expected the folder of a runner report. {_WHERE_REPORTS_COME_FROM}")
    if not folder.is_dir():
        raise UsageError(f"{str(folder)!r} is a file; expected the folder of a runner report "
                         f"(it holds index.html).\n{_WHERE_REPORTS_COME_FROM}")
    if not is_report_folder(folder) or not (folder / "index.html").is_file():
        raise UsageError(
            f"{str(folder)!r} holds no runner report: expected index.html and the {MARKER} file runner "
            f"writes beside it.\n{_WHERE_REPORTS_COME_FROM}"
        )


def serve_report(folder: Path, port: int | None = None) -> tuple[StaticServer, str]:
    """Check ``folder`` and serve it. Returns the server and the report's URL. Raises
    :class:`UsageError` for a folder that holds no report and a port that cannot be used."""
    check_report_folder(folder)
    try:
        server = StaticServer(folder, port, hidden_names=(MARKER,), what="runner show-report")
    except OSError as err:
        raise UsageError(
            f"port {port!r} could not be used to serve the report: {err.strerror or err}.\n"
            "Expected a free port: choose another with --port N, or leave --port out to use a free one."
        ) from None
    return server, f"{server.url}/index.html"


def show_report(folder: Path, port: int | None, open_browser: bool) -> int:
    """The ``show-report`` command: serve until Ctrl-C. Returns the exit status (0)."""
    server, url = serve_report(folder, port)
    return serve_until_stopped(server, url, f"the report in {folder}", open_browser)
