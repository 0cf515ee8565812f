"""Which spec files a run selects: ``integrationFolder``, ``testFiles``, ``ignoreTestFiles`` and
``--spec``. Shared by ``runner run`` and ``runner open`` (its spec list)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from runner.errors import UsageError

__all__ = ["select_specs", "pytest_ini_args"]


def select_specs(config: Any, spec_filter: str | None, cwd: Path) -> tuple[list[Path], list[str]]:
    """The spec files of a run, and warnings (non-Python files matched).

    Files under ``integrationFolder`` matched by ``testFiles`` and not by ``ignoreTestFiles``
    (minimatch, ``dot`` and ``matchBase``, relative to ``integrationFolder``); ``spec_filter``
    (comma-separated paths or globs, relative to ``cwd`` or the project) narrows them.
    """
    from runner.match import compile_pattern, pattern_list

    folder = config.path("integrationFolder")
    if folder is None or not folder.is_dir():
        raise UsageError(
            f"integrationFolder {str(folder)!r} is not a folder, so there are no specs to run.\n"
            "Create it (runner/integration by default) or set integrationFolder in runner.json."
        )
    options = {"dot": True, "matchBase": True}
    include = [compile_pattern(p, options) for p in pattern_list(config.test_files)]
    exclude = [compile_pattern(p, options) for p in pattern_list(config.ignore_test_files)]
    specs: list[Path] = []
    warnings: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if any(part in ("__pycache__", "node_modules") for part in path.relative_to(folder).parts):
            continue
        if not any(m(rel) for m in include) or any(m(rel) for m in exclude):
            continue
        if path.suffix != ".py":
            warnings.append(f"{rel} matches testFiles but is not a Python file; skipped.")
            continue
        if path.name in ("conftest.py", "__init__.py"):
            continue
        specs.append(path)
    if spec_filter:
        wanted = [w.strip() for w in spec_filter.split(",") if w.strip()]
        chosen: list[Path] = []
        for spec in specs:
            for pattern in wanted:
                candidates = {spec.as_posix(), spec.relative_to(folder).as_posix()}
                for base in (cwd, config.project_root):
                    try:
                        candidates.add(spec.relative_to(base.resolve()).as_posix())
                    except ValueError:
                        pass
                target = Path(pattern)
                if (target.is_absolute() or (cwd / target).exists()) and (cwd / target).resolve() == spec.resolve():
                    chosen.append(spec)
                    break
                matcher = compile_pattern(pattern, {"dot": True})
                if any(matcher(c) or c == pattern for c in candidates):
                    chosen.append(spec)
                    break
        specs = chosen
    return specs, warnings


def pytest_ini_args(project_root: Path) -> list[str]:
    """Use the project's own pytest configuration, and never one of a folder above it."""
    for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
        candidate = project_root / name
        if candidate.is_file():
            text = candidate.read_text(encoding="utf-8", errors="replace")
            if name.endswith("pytest.ini") or "[pytest]" in text or "[tool.pytest" in text \
                    or "[tool:pytest]" in text:
                return ["-c", str(candidate)]
    # An empty configuration file that is not a folder above the project's (nothing to clean up).
    return ["-c", os.devnull]
