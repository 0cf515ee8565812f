"""``Runner``: the global object of the interface (``from runner import Runner``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Runner"]


class _Runner:
    """``Runner.minimatch``, ``Runner.config(name)``, ``Runner.env(name)``, ``Runner.version``.

    ``config`` and ``env`` reflect the current test (its ``runner`` marks included) while a test
    runs, the run's configuration between tests, and ``runner.json`` of the current folder when
    no run is active.
    """

    @property
    def version(self) -> str:
        from runner import __version__

        return __version__

    @staticmethod
    def minimatch(string: str, pattern: str, options: Mapping[str, Any] | None = None) -> bool:
        """True when ``string`` matches the glob ``pattern`` (minimatch 3 semantics)."""
        from runner.match import minimatch

        return minimatch(string, pattern, options)

    @staticmethod
    def _config() -> Any:
        from runner.active import current_config

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

    def __repr__(self) -> str:
        return f"<Runner {self.version}>"


Runner = _Runner()
