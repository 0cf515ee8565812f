"""Reporters: what a run prints or writes. ``make_reporter`` builds one from the configuration."""

from __future__ import annotations

import difflib
import importlib
from pathlib import Path
from typing import Any

from runner.errors import ConfigError
from runner.reporters.base import Reporter
from runner.reporters.dot import DotReporter
from runner.reporters.json_report import JsonReporter
from runner.reporters.junit import JunitReporter
from runner.reporters.listing import ListReporter
from runner.reporters.minimal import MinReporter
from runner.reporters.model import AttemptResult, RunResult, SpecResult, TestResult
from runner.reporters.spec import SpecReporter
from runner.reporters.tap import TapReporter

__all__ = ["Reporter", "RunResult", "SpecResult", "TestResult", "AttemptResult", "make_reporter",
           "BUILTIN"]

BUILTIN: dict[str, type[Reporter]] = {
    "spec": SpecReporter,
    "dot": DotReporter,
    "list": ListReporter,
    "min": MinReporter,
    "tap": TapReporter,
    "json": JsonReporter,
    "junit": JunitReporter,
}


def _load_custom(name: str, project_root: Path) -> type[Reporter]:
    """``pkg.module:Class``, ``pkg.module`` (its ``Reporter`` attribute), or a ``.py`` path."""
    module_name, _, attr = name.partition(":")
    if module_name.endswith(".py") or "/" in module_name:
        from runner.pluginsfile import load_module

        path = (project_root / module_name).resolve()
        if not path.is_file():
            raise ConfigError(
                f"reporter {name!r}: the file {str(path)!r} does not exist.\n"
                f"Expected a built-in reporter ({', '.join(BUILTIN)}), a module path "
                "(my_pkg.reporting:MyReporter) or a .py file relative to the project."
            )
        module = load_module(path, f"runner_custom_reporter_{path.stem}")
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            close = difflib.get_close_matches(name, list(BUILTIN), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"reporter {name!r} is not a built-in reporter and could not be imported: {err}.{hint}\n"
                f"Built-in reporters: {', '.join(BUILTIN)}."
            ) from err
    cls = getattr(module, attr or "Reporter", None)
    if cls is None or not isinstance(cls, type):
        raise ConfigError(
            f"reporter {name!r}: {module.__name__} has no reporter class {attr or 'Reporter'!r}.\n"
            "Expected a class with on_run_start/on_spec_start/on_test_end/... methods (see docs/reporters.md)."
        )
    return cls


def make_reporter(name: str, options: dict[str, Any], project_root: Path) -> Any:
    """Build the reporter ``name`` with ``options`` (``reporterOptions``)."""
    cls = BUILTIN.get(name) or _load_custom(name, project_root)
    try:
        # projectRoot lets reporters resolve relative output paths (mochaFile, output).
        return cls({"projectRoot": str(project_root), **options})
    except TypeError as err:
        raise ConfigError(f"reporter {name!r} could not be created with reporterOptions {options!r}: {err}") from err
