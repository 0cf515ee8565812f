"""runner's pytest plugin, tested the way pytest's own plugins are: ``pytester`` runs pytest on
generated projects (in a subprocess each, so every run has its own browser and plugin state).
pytester itself is enabled for the whole suite in pyproject.toml (``-p pytester``)."""

from __future__ import annotations

import json

import pytest

PAGE = "<html><head><title>T</title></head><body><h1>Hi</h1></body></html>"


@pytest.fixture
def project(pytester: pytest.Pytester):
    """Write a runner project into pytester's folder: ``runner.json`` (serving ``site/``, videos
    off) and the given specs (``{"a_spec.py": source}`` under runner/integration)."""

    def make(specs: dict[str, str], config: dict | None = None) -> pytest.Pytester:
        pytester.makefile(".json", runner=json.dumps({"fileServerFolder": "site", "video": False, **(config or {})}))
        (pytester.path / "site").mkdir(exist_ok=True)
        (pytester.path / "site" / "index.html").write_text(PAGE)
        folder = pytester.path / "runner" / "integration"
        folder.mkdir(parents=True, exist_ok=True)
        for name, source in specs.items():
            (folder / name).write_text(source)
        return pytester

    return make
