"""A sample project for ``runner open``'s tests, and the command started on it (bounded)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

PAGE = ("<html><head><title>Sample</title></head><body><h1 id='h'>Hi</h1>"
        "<button id='b' onclick=\"fetch('/api/x').then(r => r.json())"
        ".then(d => document.getElementById('h').textContent = d.msg)\">go</button>"
        "<input id='name' name='name'><button data-cy='save' onclick=\"document.getElementById('h')"
        ".textContent = 'saved ' + document.getElementById('name').value\">save</button></body></html>")

SPEC = '''
def test_click(runner):
    runner.intercept("GET", "/api/x", {"body": {"msg": "<script>window.pwned = 1</script><b>bold</b>"}}).as_("x")
    runner.visit("/")
    runner.get("#b").click()
    runner.wait("@x")
    runner.get("#h").should("contain", "bold")


def test_fails(runner):
    runner.visit("/")
    runner.get("#missing", timeout=200).should("exist")
'''


def write_sample(root: Path, config: dict | None = None, spec: str = SPEC) -> Path:
    (root / "site").mkdir(parents=True, exist_ok=True)
    (root / "site" / "index.html").write_text(PAGE, encoding="utf-8")
    (root / "runner" / "integration").mkdir(parents=True, exist_ok=True)
    (root / "runner" / "integration" / "a_spec.py").write_text(textwrap.dedent(spec).lstrip(), encoding="utf-8")
    (root / "runner.json").write_text(json.dumps({"fileServerFolder": "site", "video": False, **(config or {})}),
                                      encoding="utf-8")
    return root
