"""Playwright's trace viewer, as the installed Playwright wheel ships it (a static web app).

runner does not ship a viewer of its own: ``runner show-trace`` serves this folder, and the HTML
report copies it, so a trace opens in the viewer of the Playwright that recorded it.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

__all__ = ["viewer_folder", "viewer_trace_version"]


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
