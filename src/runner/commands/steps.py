"""Each command a test calls is told on the run's bus: ``command.started``, then
``command.ended`` with its duration and whether it passed.

``@command("click")`` wraps a method of the ``runner`` fixture or of a subject. A command called
by another command (``dblclick`` calling ``click``, ``clear`` calling ``type``) is part of the
outer one and is not told again. The event names the user's file and line: the innermost frame
that is not runner's own.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from runner.events import CommandEnded, CommandStarted
from runner.tracebacks import error_line, is_runner

__all__ = ["command", "show_args"]

F = TypeVar("F", bound=Callable[..., Any])

#: The longest an argument list is shown; the rest is cut with "…".
MAX_SHOWN = 200


def show_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """``'/users', timeout=100``: a call's arguments as the command log shows them."""
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    text = ", ".join(parts)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _short(value: Any) -> str:
    if callable(value) and hasattr(value, "__name__"):
        return f"<function {value.__name__}>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user's object may have a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:79] + "…"


def _caller() -> tuple[str | None, int | None]:
    """The user's file and line that called the command (the innermost non-runner frame)."""
    frame = sys._getframe(2)
    while frame is not None and is_runner(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None, None
    return frame.f_code.co_filename, frame.f_lineno


def command(name: str) -> Callable[[F], F]:
    """Tell the calls of the decorated method as the command ``name`` (the object it is a method
    of has ``_ctx``, the test's context, and may have ``_label``, the subject it acts on)."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            ctx = self._ctx
            if ctx.publish is None or ctx.command_depth:
                return method(self, *args, **kwargs)
            ctx.command_depth += 1
            ctx.commands_told += 1
            label = getattr(self, "_label", None)
            ctx.command = f"runner.{label}.{name}()" if label else f"runner.{name}()"
            number = ctx.commands_told
            file, line = _caller()
            ctx.publish(CommandStarted(nodeid=ctx.nodeid, id=number, name=name, args=show_args(args, kwargs),
                                       subject=label, file=file, line=line,
                                       attempt=ctx.attempt))
            started = time.perf_counter()
            state, error = "passed", None
            try:
                return method(self, *args, **kwargs)
            except BaseException as err:
                state, error = "failed", error_line(type(err).__name__, err)
                raise
            finally:
                ctx.command_depth -= 1
                ctx.publish(CommandEnded(nodeid=ctx.nodeid, id=number, name=name, state=state,
                                         duration_ms=round((time.perf_counter() - started) * 1000, 3),
                                         error=error, attempt=ctx.attempt))

        return run  # type: ignore[return-value]

    return decorate
