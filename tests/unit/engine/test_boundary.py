"""Only ``engine/`` imports Playwright or touches its objects; everything else calls verbs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import runner

PACKAGE = Path(runner.__file__).parent
OUTSIDE_ENGINE = sorted(p for p in PACKAGE.rglob("*.py") if "engine" not in p.relative_to(PACKAGE).parts)

# Playwright objects the browser session holds, and the calls that hand out element handles.
BROWSER_ATTRIBUTES = {"page", "context", "cdp"}
HANDLE_CALLS = {"keyboard", "evaluate_handle", "as_element", "dom_handle"}


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        found += [f"line {node.lineno}: imports {name}" for name in names if name.split(".")[0] == "playwright"]
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if node.attr in HANDLE_CALLS or (node.attr in BROWSER_ATTRIBUTES and owner_name == "browser"):
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_the_boundary_is_checked_on_every_module_outside_the_engine() -> None:
    names = {str(p.relative_to(PACKAGE)) for p in OUTSIDE_ENGINE}
    assert {"run/session.py", "plugin/__init__.py", "commands/api.py", "run/spec_videos.py"} <= names


@pytest.mark.parametrize("path", OUTSIDE_ENGINE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_playwright_outside_the_engine(path: Path) -> None:
    assert _violations(path) == []


def test_the_check_sees_a_reach_for_the_page(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import playwright.async_api\nbrowser.page.goto('x')\n"
                      "ctx.browser.context.cookies()\nh.as_element()\nerror.context\n", encoding="utf-8")
    assert sorted(_violations(sample)) == [
        "line 1: imports playwright.async_api", "line 2: .page", "line 3: .context", "line 4: .as_element",
    ]
