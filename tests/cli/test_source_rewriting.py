"""experimentalSourceRewriting parses a framed page's JavaScript (indirect forms are caught);
modifyObstructiveCode: false leaves framebusting code alone."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import base_project, run_runner, write_project

APP = """<html><body><p id="status">waiting</p><iframe src="framed.html"></iframe>
<script>addEventListener("message", (e) => { document.getElementById("status").textContent = e.data; });</script>
</body></html>"""
# An alias of top: the patterns cannot see it, the parser does.
FRAMED = """<html><body><script>
const t = top;
if (t !== window) { t.location = "busted.html"; }
parent.postMessage("stayed", "*");
</script></body></html>"""
SPEC = """
def test_framed(runner):
    runner.visit("/index.html")
    runner.get("#status").should("have.text", "stayed")
    assert runner.url().endswith("/index.html")
"""


def project(root: Path, config: dict) -> Path:
    return write_project(root, base_project({"site/framed.html": FRAMED, "site/busted.html": "<h1>busted</h1>",
                                             "runner/integration/a_spec.py": SPEC},
                                            {"video": False, **config}, page=APP))


def test_the_parser_catches_an_alias_of_top(tmp_path: Path) -> None:
    result = run_runner("run", cwd=project(tmp_path, {"experimentalSourceRewriting": True}))
    assert result.code == 0, result.text


def test_the_patterns_alone_let_an_alias_through_and_false_leaves_code_alone(tmp_path: Path) -> None:
    patterns = run_runner("run", cwd=project(tmp_path / "a", {}))
    off = run_runner("run", cwd=project(tmp_path / "b", {"modifyObstructiveCode": False}))
    assert patterns.code == 1 and off.code == 1  # the page was taken away in both
