"""The one error tree of runner.

::

    RunnerError                      base of everything runner raises on purpose
     +-- ConfigError                 the configuration (file, env, CLI, plugins, mark) is invalid
     +-- UsageError                  a command or CLI was called the wrong way (bad arguments)
     +-- BrowserNotFoundError        no Chromium/Chrome could be found or launched
     +-- CommandError (AssertionError)
     |    |                          a test command failed (timeout, failed assertion, HTTP error)
     |    +-- InterceptError         a route handler misbehaved or a request ended badly
     +-- TaskError                   a plugins-file task failed or is not registered

``CommandError`` derives from ``AssertionError`` so pytest reports a failing command as a test
failure (not an error) and shows its message without our internals.

Messages name the thing, show the value found with ``!r``, say what was expected and end with the
fix, in that order.
"""

from __future__ import annotations

__all__ = [
    "RunnerError",
    "ConfigError",
    "UsageError",
    "BrowserNotFoundError",
    "CommandError",
    "InterceptError",
    "TaskError",
]


class RunnerError(Exception):
    """Base class of every error runner raises on purpose."""


class ConfigError(RunnerError):
    """The resolved configuration is invalid. ``problems`` holds one line per problem."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems or [])


class UsageError(RunnerError):
    """A command, fixture method or CLI was called with arguments it does not accept."""


class BrowserNotFoundError(RunnerError):
    """No usable browser was found; the message says what to install."""


class CommandError(RunnerError, AssertionError):
    """A test command failed: its assertion never held, it timed out, or its target failed."""


class InterceptError(CommandError):
    """A route handler misbehaved, or an intercepted request ended in an error a test must see."""


class TaskError(RunnerError):
    """A task of the plugins file is not registered, raised, or ran past ``taskTimeout``."""
