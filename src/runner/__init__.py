"""runner: a browser end-to-end test runner for Python.

The public surface is small: ``Runner`` (the global object of the interface), ``add_command``
(a custom command of the project), the error tree and ``__version__``. Everything else lives in private or internal modules.
"""

from __future__ import annotations

from runner.errors import (
    BrowserNotFoundError,
    CommandError,
    ConfigError,
    InterceptError,
    RunnerError,
    TaskError,
    UsageError,
)
from runner.version import __version__

__all__ = [
    "BrowserNotFoundError",
    "CommandError",
    "ConfigError",
    "InterceptError",
    "Runner",
    "RunnerError",
    "TaskError",
    "UsageError",
    "__version__",
    "add_command",
]


def __getattr__(name: str) -> object:
    # Runner pulls in the config and match layers; import it lazily so that `import runner`
    # (done by pytest for the plugin entry point) stays cheap.
    if name == "Runner":
        from runner.active import Runner

        return Runner
    if name == "add_command":
        from runner.commands.custom import add_command

        return add_command
    raise AttributeError(f"module 'runner' has no attribute {name!r}")
