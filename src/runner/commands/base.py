"""What every family of the ``runner`` fixture's commands shares: the test and the run's collaborators.

Also the reading of a command's keyword options (camelCase or snake_case, unknown ones refused).

Each family (``navigation``, ``page``, ``queries``, ``network``, ``storage``, ``system``,
``screenshots``) is a class over :class:`CommandsBase`; ``api.RunnerCommands`` is all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.commands.context import TestContext
from runner.errors import UsageError

if TYPE_CHECKING:
    from runner.commands.mount import MountHost
    from runner.usercode.plugins_file import PluginEvents

__all__ = ["CommandsBase", "snake_options"]


class CommandsBase:
    """The state the command families read: the test (``_ctx``), the run's interceptor (and
    whether the app's server's proxy runs), plugin
    events, screenshot folder, session cache and mount host, the DOM aliases of the test and its
    open ``within`` blocks."""

    def __init__(self, ctx: TestContext, *, events: PluginEvents | None = None,
                 interceptor: Callable[[], Any] | None = None, screenshot_dir: Callable[[], Path] | None = None,
                 session_cache: dict[str, Any] | None = None, mount_host: MountHost | None = None,
                 backend_proxy: Callable[[], bool] | None = None) -> None:
        self._ctx = ctx
        # whether runner's proxy for the app's server runs in this process (runner.intercept_backend)
        self._backend_proxy = backend_proxy
        self._mount_host = mount_host
        self._events = events
        self._interceptor_getter = interceptor
        self._dom_aliases: dict[str, Any] = {}  # a Subject or a Value, by the name as_() gave it
        # each open `within` block's subject (its steps and label), innermost last
        self._scope: list[tuple[list[dict[str, Any]], str]] = []
        self._screenshot_dir = screenshot_dir
        self._session_cache: dict[str, Any] = session_cache if session_cache is not None else {}

    def __repr__(self) -> str:
        return f"<runner for {self._ctx.title or 'a test'}>"


def snake_options(options: Mapping[str, Any], allowed: set[str], command: str) -> dict[str, Any]:
    """Accept camelCase or snake_case option names; reject unknown ones with a suggestion."""
    import difflib

    from runner.casing import camel_to_snake

    out: dict[str, Any] = {}
    for key, value in options.items():
        snake = camel_to_snake(key)
        if snake not in allowed:
            close = difflib.get_close_matches(snake, sorted(allowed), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise UsageError(
                f"{command}() does not take the option {key!r}.{hint}\n"
                f"Options it takes: {', '.join(sorted(allowed))}."
            )
        out[snake] = value
    return out
