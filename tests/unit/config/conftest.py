"""Helpers for the configuration tests: real files in tmp_path, an empty environment."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.config import Config, load_config


def _write_json(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def write_json() -> Callable[[Path, Any], Path]:
    """``write_json(path, document)``: write a JSON file (folders created), return its path.

    A fixture rather than an import: `conftest` is not a unique module name across the tree."""
    return _write_json


@pytest.fixture(scope="module")
def _project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("project")


@pytest.fixture
def project(_project_dir: Path) -> Path:
    """An empty project folder (one per module, emptied before each test: faster than tmp_path)."""
    for child in _project_dir.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    return _project_dir


@pytest.fixture
def load(project: Path) -> Callable[..., Config]:
    """``load(doc=None, **kwargs)``: write runner.json (when ``doc`` is given) and load it with an
    empty environment unless ``environ`` is passed."""

    def _load(doc: Any = None, **kwargs: Any) -> Config:
        if doc is not None:
            _write_json(project / "runner.json", doc)
        kwargs.setdefault("environ", {})
        return load_config(project, **kwargs)

    return _load
