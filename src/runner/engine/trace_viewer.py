"""Playwright's trace viewer, as the installed Playwright wheel ships it (a static web app).

runner does not ship a viewer of its own: ``runner show-trace`` serves this folder, and the HTML
report copies it, so a trace opens in the viewer of the Playwright that recorded it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import zipfile
from pathlib import Path

from runner.errors import UsageError

__all__ = ["viewer_folder", "viewer_trace_version", "playwright_version", "TraceInfo", "read_trace_info"]


def viewer_folder() -> Path | None:
    """The folder of the trace viewer's web app (``index.html``, ``sw.bundle.js``, ...), or None
    when the installed Playwright has none."""
    spec = importlib.util.find_spec("playwright")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "driver" / "package" / "lib" / "vite" / "traceViewer"
        if (folder / "index.html").is_file() and (folder / "sw.bundle.js").is_file():
            return folder
    return None


_VERSION_CHECK = re.compile(rb"case`context-options`:if\(\w+\.version>(\w+)\)")


def viewer_trace_version(folder: Path) -> int | None:
    """The newest trace format the viewer in ``folder`` reads (None when it cannot be told)."""
    try:
        code = (folder / "sw.bundle.js").read_bytes()
    except OSError:
        return None
    found = _VERSION_CHECK.search(code)
    if found is None:
        return None
    name = re.escape(found.group(1))
    value = re.search(rb"(?:^|[,;{\s])" + name + rb"=(\d+)[,;]", code)
    return int(value.group(1)) if value else None


def playwright_version() -> str:
    """The installed Playwright's version ("unknown" when it cannot be told)."""
    try:
        return importlib.metadata.version("playwright")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# The first line of a trace holds its context-options event; a longer one is not a trace's.
_FIRST_LINE_MAX = 1 << 20


class TraceInfo:
    """What the first event of a trace says: its format ``version`` and the Playwright that
    recorded it (``recorded_by``, "" when it does not say)."""

    def __init__(self, version: int, recorded_by: str) -> None:
        self.version = version
        self.recorded_by = recorded_by


def read_trace_info(path: Path) -> TraceInfo:
    """Read the trace file ``path`` (a Playwright trace zip) far enough to know its format.

    Raises :class:`UsageError` saying what ``path`` is instead: missing, a folder, not a zip, a
    zip that is not a Playwright trace (no ``*.trace`` entry, or one that does not begin with
    the ``context-options`` event).
    """
    shown = repr(str(path))
    expected = "Expected a Playwright trace: a .zip runner wrote under tracesFolder (runner/traces by default)."
    if not path.exists():
        raise UsageError(f"the trace {shown} does not exist.\n{expected}")
    if path.is_dir():
        raise UsageError(f"the trace {shown} is a folder, not a file.\n{expected}")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            entry = "trace.trace" if "trace.trace" in names else next((n for n in names if n.endswith(".trace")), None)
            if entry is None:
                found = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "") if names else "nothing"
                raise UsageError(f"the file {shown} is a zip but not a Playwright trace: it holds no "
                                 f"trace.trace (found: {found}).\n{expected}")
            with archive.open(entry) as stream:
                first = stream.readline(_FIRST_LINE_MAX)
    except zipfile.BadZipFile:
        raise UsageError(f"the file {shown} is not a zip file, so it is not a Playwright trace.\n"
                         f"{expected}") from None
    except OSError as err:
        raise UsageError(f"the trace {shown} cannot be read: {err.strerror or err}.") from None
    try:
        event = json.loads(first)
    except ValueError:
        event = None
    if not isinstance(event, dict) or event.get("type") != "context-options":
        raise UsageError(f"the file {shown} is not a Playwright trace: its {entry} does not begin with "
                         f"the context-options event.\n{expected}")
    version = event.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise UsageError(f"the trace {shown} does not say which trace format it is (no version in its "
                         f"context-options event).\n{expected}")
    recorded_by = event.get("playwrightVersion")
    return TraceInfo(version, recorded_by if isinstance(recorded_by, str) else "")
