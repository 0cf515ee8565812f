"""Which spec files a run selects: ``integrationFolder`` (``componentFolder`` for a component run),
``testFiles``, ``ignoreTestFiles`` and ``--spec``. Shared by ``runner run`` and ``runner open``
(its spec list)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.errors import UsageError

__all__ = ["select_specs", "spec_folder", "spec_folder_option", "spec_matcher", "pytest_ini_args"]


def spec_folder_option(config: Any) -> str:
    """The option naming the folder of this run's specs: ``componentFolder`` for a component
    run, else ``integrationFolder`` (see :func:`spec_folder` for the folder itself, checked)."""
    return "componentFolder" if config.testing_type == "component" else "integrationFolder"


def spec_folder(config: Any) -> tuple[str, Path]:
    """The option naming the folder this run's specs are in, and the folder: ``componentFolder``
    for a component run, else ``integrationFolder``. Raises UsageError when it is not a folder."""
    if config.testing_type == "component":
        folder = config.path("componentFolder")
        if folder is None:
            raise UsageError(
                "componentFolder is false, so component testing is off and there are no component "
                "specs to run.\nSet componentFolder in runner.json (e.g. \"runner/component\")."
            )
        if not folder.is_dir():
            raise UsageError(
                f"componentFolder {str(folder)!r} is not a folder, so there are no component specs "
                "to run.\nCreate it or fix componentFolder in runner.json."
            )
        return "componentFolder", folder
    folder = config.path("integrationFolder")
    if folder is None or not folder.is_dir():
        raise UsageError(
            f"integrationFolder {str(folder)!r} is not a folder, so there are no specs to run.\n"
            "Create it (runner/integration by default) or set integrationFolder in runner.json."
        )
    return "integrationFolder", folder


def select_specs(config: Any, spec_filter: str | None, cwd: Path) -> tuple[list[Path], list[str]]:
    """The spec files of a run, and warnings (non-Python files matched).

    Files under the spec folder (:func:`spec_folder`) matched by ``testFiles`` and not by
    ``ignoreTestFiles`` (minimatch, ``dot`` and ``matchBase``, relative to that folder);
    ``spec_filter`` (comma-separated paths or globs, relative to ``cwd`` or the project) narrows
    them. An e2e run never takes a file under ``componentFolder``, nor a component run one
    under ``integrationFolder``, whatever the folders' nesting.
    """
    from runner.match import compile_pattern

    _key, folder = spec_folder(config)
    matches = spec_matcher(config, folder)
    specs: list[Path] = []
    warnings: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if not matches(path):
            continue
        if path.suffix != ".py":
            rel = path.relative_to(folder).as_posix()
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


def spec_matcher(config: Any, folder: Path) -> Callable[[Path], bool]:
    """Whether a file under ``folder`` (the spec folder) is matched by ``testFiles`` and not by
    ``ignoreTestFiles``, nor in ``__pycache__``/``node_modules``/``__snapshots__`` (the snapshot
    baselines beside the specs, docs/snapshots.md), nor a spec of the other testing
    type (a Python file matched is a spec unless it is a ``conftest.py`` or ``__init__.py``)."""
    from runner.match import compile_pattern, pattern_list

    other = config.path("integrationFolder" if config.testing_type == "component" else "componentFolder")
    options = {"dot": True, "matchBase": True}
    include = [compile_pattern(p, options) for p in pattern_list(config.test_files)]
    exclude = [compile_pattern(p, options) for p in pattern_list(config.ignore_test_files)]

    def matches(path: Path) -> bool:
        if not path.is_relative_to(folder):
            return False
        parts = path.relative_to(folder).parts
        if any(part in ("__pycache__", "node_modules", "__snapshots__") for part in parts):
            return False
        rel = "/".join(parts)
        if not any(m(rel) for m in include) or any(m(rel) for m in exclude):
            return False
        # a spec of the other testing type
        return other is None or other == folder or not path.is_relative_to(other) or folder.is_relative_to(other)

    return matches


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
