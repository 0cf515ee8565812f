"""``runner show-trace PATH``: open one trace in Playwright's trace viewer, served on 127.0.0.1.

The viewer is the web app the installed Playwright wheel ships (``engine/trace_viewer.py``). It
needs http, not file:// (it reads the trace in a service worker), so this serves the viewer's
folder and the one trace with runner's static server (``serve/static.py``: 127.0.0.1 only, Host
checked, read-only), prints the URL, opens the system's browser when one can be shown, and
serves until Ctrl-C.
"""

from __future__ import annotations

import os
import sys
import threading
import webbrowser
from pathlib import Path
from urllib.parse import quote, urlencode

from runner.engine.trace_viewer import (
    playwright_version,
    read_trace_info,
    viewer_folder,
    viewer_trace_version,
)
from runner.errors import UsageError
from runner.serve.static import StaticServer

__all__ = ["show_trace", "serve_trace", "serve_until_stopped", "display_likely"]

#: The URL path the trace is served at (the viewer's own files are at the root).
TRACE_URL_PATH = "/runner-trace/"


def display_likely(environ: dict[str, str] | None = None) -> bool:
    """Whether a browser window can likely be shown: not on CI, and on Linux only with a display."""
    env = os.environ if environ is None else environ
    if env.get("CI"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def serve_trace(path: Path, port: int | None = None) -> tuple[StaticServer, str]:
    """Check ``path`` is a trace the installed viewer reads, then serve the viewer and it.
    Returns the server and the URL that opens the trace.

    Raises :class:`UsageError` (one message each): no viewer in the installed Playwright, not a
    trace (see ``read_trace_info``), a trace newer than the viewer reads, the port is busy.
    """
    folder = viewer_folder()
    if folder is None:
        raise UsageError(
            f"the installed Playwright ({playwright_version()}) ships no trace viewer (expected "
            "driver/package/lib/vite/traceViewer in the playwright package).\n"
            "Reinstall Playwright: pip install --force-reinstall playwright"
        )
    info = read_trace_info(path)
    readable = viewer_trace_version(folder)
    if readable is not None and info.version > readable:
        by = f" by Playwright {info.recorded_by}" if info.recorded_by else ""
        raise UsageError(
            f"the trace {str(path)!r} was recorded{by} in trace format {info.version}; the installed "
            f"Playwright {playwright_version()} reads trace formats up to {readable}.\n"
            "Upgrade Playwright to open it: pip install --upgrade playwright"
        )
    served = TRACE_URL_PATH + path.name
    try:
        server = StaticServer(folder, port, extra={served: path}, what="runner show-trace")
    except OSError as err:
        raise UsageError(
            f"port {port!r} could not be used to serve the trace viewer: {err.strerror or err}.\n"
            "Expected a free port: choose another with --port N, or leave --port out to use a free one."
        ) from None
    trace_url = server.url + quote(served)
    return server, f"{server.url}/index.html?{urlencode({'trace': trace_url})}"


def show_trace(path: str, port: int | None, open_browser: bool) -> int:
    """The ``show-trace`` command: serve until Ctrl-C. Returns the exit status (0); bad input
    raises :class:`UsageError`."""
    server, url = serve_trace(Path(path), port)
    return serve_until_stopped(server, url, f"the trace viewer for {path}", open_browser)


def serve_until_stopped(server: StaticServer, url: str, what: str, open_browser: bool) -> int:
    """Print ``url``, open it in the system's browser when one can be shown, and serve until
    Ctrl-C (then stop cleanly: exit status 0, no traceback)."""
    try:
        print(f"Serving {what} at:\n\n  {url}\n\nPress Ctrl-C to stop.", flush=True)
        if open_browser and display_likely():
            try:
                webbrowser.open(url)
            except Exception:  # noqa: BLE001 - the URL is printed: it can be opened by hand
                pass
        stop = threading.Event()
        while not stop.wait(3600):
            pass
    except KeyboardInterrupt:
        print(f"\nrunner: stopped serving {what}.", file=sys.stderr, flush=True)
    finally:
        server.close()
    return 0
