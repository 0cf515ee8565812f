"""The one place runner starts pytest: ``runner run``'s test process and ``runner open``'s children.

Both hand pytest the selected specs (or one test of one), the project's own pytest ini options,
the same fixed options (the project is the root and the conftest boundary, no cache, no terminal
reporter: runner's reporters print, specs imported with ``importlib``, a spec that fails to
collect does not stop the others) and a :class:`~runner.plugin.RunPlugin` that carries the
session. What differs is passed in: ``runner run``'s reporters, worker and pass-through options;
``runner open``'s studio plugin. The caller reads the outcome from :class:`PytestRun`, so that
only this module (and the plugin) knows pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runner.plugin import RunPlugin
from runner.run.specs import pytest_ini_args

__all__ = ["PytestRun", "run_pytest", "import_pytest_plugins"]

# Every run's options, after its targets and the project's ini options.
_FIXED_OPTIONS = (
    "-p", "no:cacheprovider", "-p", "no:terminal",
    "--import-mode=importlib", "--continue-on-collection-errors",
    "-W", "ignore::pytest.PytestAssertRewriteWarning",
)


@dataclass(frozen=True)
class PytestRun:
    """How pytest ended, and the run plugin that holds the results."""

    code: int
    plugin: RunPlugin

    @property
    def interrupted(self) -> bool:
        """pytest was stopped (Ctrl-C, a signal, ``pytest.exit``)."""
        return self.code == pytest.ExitCode.INTERRUPTED

    @property
    def unusable(self) -> bool:
        """pytest could not run the specs at all (its usage or internal error)."""
        return self.code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR)

    @property
    def collected_nothing(self) -> bool:
        return self.code == pytest.ExitCode.NO_TESTS_COLLECTED

    @property
    def failures(self) -> int:
        """The failed tests; without results (pytest never got to the run), 1 unless pytest said OK."""
        run = self.plugin.run
        return run.failures if run is not None else (0 if self.code == pytest.ExitCode.OK else 1)


def run_pytest(session: Any, targets: Sequence[str], specs: list[Path], *, reporters: list[Any],
               interrupted_by: Callable[[], str | None], options: Sequence[str] = (),
               plugins: Sequence[object] = (), max_failures: int | None = None,
               fail_on_flaky: bool = False) -> PytestRun:
    """Run pytest in this process on ``targets`` (spec paths, or ``spec::test``) with the run's
    ``session``; ``options`` go after the fixed ones, ``plugins`` after the run plugin;
    ``max_failures``: stop after that many failed tests (``runner run --max-failures``);
    ``fail_on_flaky``: a test that passed only on a retry fails the run (``--fail-on-flaky``)."""
    root = session.config.project_root
    args = [*targets, *pytest_ini_args(root), "--rootdir", str(root), "--confcutdir", str(root),
            *_FIXED_OPTIONS, *options]
    run = RunPlugin(session, reporters, specs, interrupted_by=interrupted_by, max_failures=max_failures,
                    fail_on_flaky=fail_on_flaky)
    code = pytest.main(args, plugins=[run, *plugins])
    return PytestRun(int(code), run)


def import_pytest_plugins() -> None:
    """Import the plugins pytest imports as it starts (its own and the installed ones), ahead of
    the run (``runner open``'s spare child): a plugin that fails to import is left to pytest to
    report when it starts."""
    import importlib
    from importlib.metadata import entry_points

    from _pytest.config import default_plugins

    names = [f"_pytest.{name}" for name in default_plugins] + [e.module for e in entry_points(group="pytest11")]
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - pytest reports it at the run's start
            continue
