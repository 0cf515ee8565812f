"""--only-changed's import graph, on real files: relative and absolute imports, packages, the
support package, cycles, a module that cannot be parsed, fixture names (no git, no browser)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from runner.run.changed.graph import ImportGraph


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _reached(graph: ImportGraph, root: Path, start: str) -> set[str]:
    return {p.relative_to(root.resolve()).as_posix() for p in graph.closure([root / start])}


def test_relative_imports_and_packages_are_followed(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "specs/__init__.py": "",
        "specs/shop/__init__.py": "",
        "specs/shop/cart_spec.py": """
            from . import near
            from .pages import checkout
            from ..common import util
            import os, json
            """,
        "specs/shop/near.py": "",
        "specs/shop/pages/__init__.py": "",
        "specs/shop/pages/checkout.py": "from ...common.util import helper\n",
        "specs/common/__init__.py": "",
        "specs/common/util.py": "def helper(): ...\n",
        "specs/shop/unused.py": "",
    })
    graph = ImportGraph([root], None)
    assert _reached(graph, root, "specs/shop/cart_spec.py") == {
        "specs/shop/cart_spec.py", "specs/shop/__init__.py", "specs/shop/near.py", "specs/shop/pages/__init__.py",
        "specs/shop/pages/checkout.py", "specs/common/__init__.py", "specs/common/util.py",
    }


def test_absolute_imports_resolve_in_the_project_and_the_support_package(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "runner/integration/a_spec.py": """
            import helpers.cart
            from support.login import sign_in
            from support import data
            from runner import Runner
            import importlib
            late = importlib.import_module("helpers.late")
            import requests
            """,
        "helpers/__init__.py": "",
        "helpers/cart.py": "from . import prices\n",
        "helpers/prices.py": "",
        "helpers/late.py": "",
        "runner/support/index.py": "",
        "runner/support/login.py": "import helpers.cart\n",
        "runner/support/data.py": "",
        "requests_unrelated.py": "",
    })
    graph = ImportGraph([root, root / "runner/integration"], root / "runner/support")
    assert _reached(graph, root, "runner/integration/a_spec.py") == {
        "runner/integration/a_spec.py", "helpers/__init__.py", "helpers/cart.py", "helpers/prices.py",
        "helpers/late.py", "runner/support/login.py", "runner/support/data.py",
    }


def test_an_import_cycle_is_followed_once(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "a_spec.py": "import one\n",
        "one.py": "import two\n",
        "two.py": "from one import thing\nimport three\n",
        "three.py": "import one\n",
    })
    graph = ImportGraph([root], None)
    reached = graph.closure([root / "a_spec.py"])
    assert {p.name for p in reached} == {"a_spec.py", "one.py", "two.py", "three.py"}
    assert reached[(root / "three.py").resolve()] == (root / "two.py").resolve()  # who imported it first


def test_a_module_that_cannot_be_parsed_is_told_and_stops_nothing(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "a_spec.py": "import broken\nimport fine\n",
        "broken.py": "def oops(:\n    pass\n",
        "fine.py": "",
        "binary.py": "",
    })
    (root / "binary.py").write_bytes(b"\x00\xff\xfe not python")
    graph = ImportGraph([root], None)
    assert {p.name for p in graph.closure([root / "a_spec.py"])} == {"a_spec.py", "broken.py", "fine.py"}
    assert graph.facts(root / "broken.py").problem == "a syntax error at line 1"
    assert graph.facts(root / "binary.py").problem is not None
    assert graph.facts(root / "fine.py").problem is None


def test_a_deleted_module_still_resolves(tmp_path: Path) -> None:
    root = _write(tmp_path, {"a_spec.py": "from helpers import gone\nimport missing\n", "helpers/__init__.py": ""})
    gone = root / "helpers" / "gone.py"
    graph = ImportGraph([root], None, gone=[gone])
    assert {p.name for p in graph.closure([root / "a_spec.py"])} == {"a_spec.py", "__init__.py", "gone.py"}
    assert graph.facts(gone).imports == set()


def test_fixture_names_and_reads_by_computed_names(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "literal.py": """
            import pytest

            @pytest.fixture(scope="module")
            def users(runner):
                return runner.fixture("users.json")

            def test_x(runner):
                runner.intercept("/api", {"fixture": "items,utf8"})
                runner.replay_har("flows/checkout.har")
            """,
        "computed_call.py": "def test_x(runner, name):\n    runner.fixture(f'{name}.json')\n",
        "computed_key.py": "def test_x(runner, name):\n    runner.intercept('/a', {'fixture': name})\n",
        "computed_kw.py": "def test_x(route, name):\n    route.reply(fixture=name)\n",
        "computed_har.py": "def test_x(runner, p):\n    runner.replay_har(p)\n",
    })
    graph = ImportGraph([root], None)
    literal = graph.facts(root / "literal.py")
    assert {"users.json", "items,utf8", "flows/checkout.har"} <= literal.literals
    assert literal.dynamic_fixtures is False
    for name in ("computed_call.py", "computed_key.py", "computed_kw.py", "computed_har.py"):
        assert graph.facts(root / name).dynamic_fixtures is True, name
