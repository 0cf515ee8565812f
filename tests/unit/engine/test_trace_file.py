"""Reading a trace's format version, and the installed viewer's (tiny zips built here)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from runner.engine.trace_viewer import read_trace_info, viewer_folder, viewer_trace_version
from runner.errors import UsageError


def make_zip(path: Path, entries: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return path


def trace_text(version: object, by: str = "1.99.0", kind: str = "context-options") -> str:
    first = {"version": version, "type": kind, "playwrightVersion": by, "browserName": "chromium"}
    return json.dumps(first) + "\n" + json.dumps({"type": "event"}) + "\n"


def test_the_version_and_the_playwright_that_recorded_it(tmp_path: Path) -> None:
    info = read_trace_info(make_zip(tmp_path / "t.zip", {"trace.trace": trace_text(7, "1.44.0")}))
    assert (info.version, info.recorded_by) == (7, "1.44.0")
    other = read_trace_info(make_zip(tmp_path / "u.zip", {"trace.network": "", "0-trace.trace": trace_text(12)}))
    assert other.version == 12


@pytest.mark.parametrize(("entries", "says"), [
    (None, "does not exist"),
    ("folder", "is a folder"),
    ("not a zip", "is not a zip file"),
    ({"readme.txt": "hi", "b.png": ""}, "holds no trace.trace (found: readme.txt, b.png)"),
    ({"trace.trace": trace_text(10, kind="event")}, "does not begin with the context-options event"),
    ({"trace.trace": "garbage\n"}, "does not begin with the context-options event"),
    ({"trace.trace": ""}, "does not begin with the context-options event"),
    ({"trace.trace": trace_text("10")}, "does not say which trace format"),
])
def test_what_is_not_a_trace_is_named(tmp_path: Path, entries: object, says: str) -> None:
    path = tmp_path / "x.zip"
    if entries == "folder":
        path.mkdir()
    elif isinstance(entries, str):
        path.write_text(entries)
    elif isinstance(entries, dict):
        make_zip(path, entries)
    with pytest.raises(UsageError) as caught:
        read_trace_info(path)
    assert says in str(caught.value) and str(path) in str(caught.value)


def test_the_installed_viewer_reads_the_traces_playwright_writes() -> None:
    folder = viewer_folder()
    assert folder is not None and (folder / "index.html").is_file()
    version = viewer_trace_version(folder)
    assert isinstance(version, int) and version >= 7


def test_a_viewer_whose_version_cannot_be_read_says_none(tmp_path: Path) -> None:
    (tmp_path / "sw.bundle.js").write_text("self.addEventListener('fetch', () => {})")
    assert viewer_trace_version(tmp_path) is None
    assert viewer_trace_version(tmp_path / "missing") is None
