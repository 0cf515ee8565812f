"""The run active in this process, for ``Runner.config()`` and ``Runner.env()``.

A run session makes itself active while it lives (:func:`activate`); ``Runner`` reads the current
configuration through :func:`current_config`: the running test's (its ``runner`` marks included),
else the run's. Nothing else keeps state about the run at module level.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ActiveRun", "activate", "deactivate", "current_config"]


class ActiveRun(Protocol):
    def current_config(self) -> Any:
        """The running test's configuration, else the run's."""


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
