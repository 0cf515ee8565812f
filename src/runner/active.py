"""The run active in this process, and ``Runner``, the global object of the interface that reads it.

A run session makes itself active while it lives (:func:`activate`); ``Runner``
(``from runner import Runner``) reads the current configuration through :func:`current_config`:
the running test's (its ``runner`` marks included), else the run's. Nothing else keeps state about
the run at module level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["ActiveRun", "Runner", "activate", "deactivate", "current_config"]


class ActiveRun(Protocol):
    def current_config(self) -> Any:
        """The running test's configuration, else the run's."""

    def backend_environment(self) -> dict[str, str]:
        """The environment that sends a server's requests through the run's proxy."""


_active: list[ActiveRun] = []


def activate(run: ActiveRun) -> None:
    """Make ``run`` the active one (the latest activated wins until it is deactivated)."""
    _active.append(run)


def deactivate(run: ActiveRun) -> None:
    """``run`` is over; the one active before it (if any) is active again."""
    while run in _active:
        _active.remove(run)


def current_config() -> Any:
    """The configuration of the running test, else of the active run, else None (no run)."""
    return _active[-1].current_config() if _active else None


class _Runner:
    """``Runner.minimatch``, ``Runner.config(name)``, ``Runner.env(name)``, ``Runner.version``,
    ``Runner.backend_environment()``.

    ``config`` and ``env`` reflect the current test (its ``runner`` marks included) while a test
    runs, the run's configuration between tests, and ``runner.json`` of the current folder when
    no run is active.
    """

    @property
    def version(self) -> str:
        from runner.version import __version__

        return __version__

    @staticmethod
    def minimatch(string: str, pattern: str, options: Mapping[str, Any] | None = None) -> bool:
        """True when ``string`` matches the glob ``pattern`` (minimatch 3 semantics)."""
        from runner.match import minimatch

        return minimatch(string, pattern, options)

    @staticmethod
    def _config() -> Any:
        current = current_config()
        if current is not None:
            return current
        from runner.config import load_config

        return load_config()

    def config(self, name: str | None = None) -> Any:
        """One configuration value by its name (``"baseUrl"``), or all of them as a dict."""
        config = self._config()
        return config.as_dict() if name is None else config[name]

    def env(self, name: str | None = None) -> Any:
        """One ``env`` value (None when unset), or the whole ``env`` dict."""
        env = dict(self._config().env)
        return env if name is None else env.get(name)

    @staticmethod
    def backend_environment() -> dict[str, str]:
        """The variables that send an app server's HTTP and HTTPS through runner's proxy of the
        run active in this process, where ``runner.intercept_backend``'s routes see them
        (docs/app-server.md). Raises UsageError outside a run."""
        if not _active:
            from runner.errors import UsageError

            raise UsageError("Runner.backend_environment() needs a run: call it in a spec, a fixture or a "
                             "plugins file's event handler of a `runner run` (or `runner open`).")
        return _active[-1].backend_environment()

    def __repr__(self) -> str:
        return f"<Runner {self.version}>"


Runner = _Runner()
