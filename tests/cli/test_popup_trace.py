"""A popup's page and its runner's commands in the trace the real ``runner run`` writes, with the
test's video unchanged."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from tests.cli.conftest import base_project, run_runner

OPENER = ("<html><body><h1>Shop</h1><a id='r' href='/receipt.html' target='_blank'>receipt</a>"
          "<button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>")
RECEIPT = "<html><body><h1>Receipt</h1></body></html>"
SPEC = """
    def test_popup(runner):
        runner.visit("/")
        with runner.popup() as tab:
            runner.get("#r").click()
        tab.value.get("h1").should("have.text", "Receipt")
        runner.get("#b").click()
        runner.get("#b").should("have.text", "ok")
"""


def trace_events(path: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]


@pytest.mark.slow
def test_the_trace_holds_the_popups_page_and_its_commands_as_the_tabs(project):
    root = project(base_project({"runner/integration/a_spec.py": SPEC, "site/receipt.html": RECEIPT},
                                {"video": False, "trace": "on"}, page=OPENER))
    result = run_runner("run", cwd=root, env={"XDG_DATA_HOME": str(root / "xdg")})
    assert result.code == 0, result.text
    events = trace_events(root / "runner" / "traces" / "a_spec.py" / "test_popup.zip")
    titles = [e["title"] for e in events if e["type"] == "before" and e.get("title")]
    steps = [t for t in titles if t.startswith(("visit", "get(", "popup", "tab["))]
    assert steps == ["visit('/')", "get('#r').click()", "popup()", "tab[1].get('h1') should have.text 'Receipt'",
                     "get('#b').click()", "get('#b') should have.text 'ok'"]
    snapshots = [e["snapshot"] for e in events if e["type"] == "frame-snapshot"]
    pages = {s["pageId"] for s in snapshots}
    assert len(pages) == 2  # the test's page and the popup's, whose DOM is in the trace too
    assert any(s.get("frameUrl", "").endswith("/receipt.html") for s in snapshots)
