"""Custom commands: the project's own commands, called on the ``runner`` fixture like built-in ones.

The original's ``Cypress.Commands.add(name, fn)`` spelled for Python: :func:`add_command`, as a
call or a decorator, usually in the support file (loaded before every spec, in every worker)::

    from runner import add_command

    @add_command
    def login(runner, name, password):
        runner.visit("/login")
        runner.get("#name").type(name)
        runner.get("#password").type(password, log=False)

A spec then calls ``runner.login("ann", "secret")``: the call is a line of the command log
(``login: 'ann', 'secret'``; ``runner.login("ann", pw, log=False)`` shows ``[redacted]`` for
each positional argument), the commands it calls are told with it as their ``parent``, and an
error raised inside it carries a note naming it. A name that a built-in command has, or that
another custom command took, is refused: overwriting a built-in (the original's
``Commands.overwrite``) is not supported, so a spec's ``runner.visit`` is always runner's.

The commands live in this module while the process runs (the support file registers them when
it is imported, before a ``runner`` fixture exists); the run's session forgets them before it
loads the support file (again, in ``runner open``).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import keyword
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from runner.commands.base import CommandsBase
from runner.commands.steps import run_parent, show_args
from runner.errors import UsageError

__all__ = ["CustomCommands", "add_command", "forget_commands"]

F = Callable[..., Any]


@dataclass(frozen=True)
class _Custom:
    name: str
    fn: F
    where: str  # "support/login.py:3": where the function is defined
    takes_log: bool  # the function has a ``log`` parameter of its own


_commands: dict[str, _Custom] = {}


@overload
def add_command(name: F, fn: None = None) -> F: ...
@overload
def add_command(name: str, fn: F) -> F: ...
@overload
def add_command(name: str, fn: None = None) -> Callable[[F], F]: ...


def add_command(name: str | F, fn: F | None = None) -> F | Callable[[F], F]:
    """Add the custom command ``name`` that runs ``fn(runner, *args, **kwargs)``. As a decorator:
    ``@add_command`` (the function's name) or ``@add_command("name")``. Returns ``fn``.

    Raises ``UsageError`` when ``fn`` is not callable, the name is not a Python name (or starts
    with ``_``), a built-in command has it, or another custom command took it.
    """
    if callable(name) and fn is None:
        return _add(getattr(name, "__name__", ""), name)
    if not isinstance(name, str):
        raise UsageError(f"add_command() takes a command name and a function; found {name!r}.")
    if fn is None:
        return lambda f: _add(name, f)
    return _add(name, fn)


def forget_commands() -> None:
    """Drop every custom command (the support file is about to be loaded again)."""
    _commands.clear()


def _add(name: str, fn: Any) -> F:
    if not callable(fn):
        raise UsageError(f"add_command({name!r}, ...) needs a function taking runner; found {fn!r}.")
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise UsageError(f"add_command() needs a Python name that does not start with '_' "
                         f"(runner.NAME(...) calls it); found {name!r}.")
    builtin = _builtin_names()
    if name in builtin:
        raise UsageError(
            f"add_command({name!r}): {name!r} is a built-in command of runner, which custom commands "
            "cannot replace (runner has no Commands.overwrite).\n"
            f"Give the command a name of its own, e.g. {name + '_as_user'!r}, and call runner.{name}() in it."
        )
    where = _where(fn)
    taken = _commands.get(name)
    if taken is not None and taken.where != where:  # (the same function added twice is no clash)
        raise UsageError(f"add_command({name!r}): the custom command {name!r} was already added by "
                         f"{taken.where}; custom command names must be unique.")
    _commands[name] = _Custom(name, fn, where, _takes_log(fn))
    return fn  # type: ignore[no-any-return]


def _builtin_names() -> set[str]:
    """The commands of the ``runner`` fixture: the names of every class built over CustomCommands."""
    names: set[str] = set()
    todo: list[type] = [CustomCommands]
    while todo:
        cls = todo.pop()
        names.update(n for n in dir(cls) if not n.startswith("_"))
        todo.extend(cls.__subclasses__())
    return names


def _where(fn: Any) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(fn)
    return f"{code.co_filename}:{code.co_firstlineno}"


def _relative(where: str, root: Path) -> str:
    try:
        return str(Path(where).relative_to(root))
    except ValueError:
        return where


def _takes_log(fn: Any) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "log" or p.kind is p.VAR_KEYWORD for p in parameters)


class CustomCommands(CommandsBase):
    """The ``runner`` fixture's custom commands: ``runner.login(...)`` runs the one added as ``login``."""

    if not TYPE_CHECKING:  # (mypy keeps checking the names of built-in commands)
        def __getattr__(self, name: str) -> Any:
            __tracebackhide__ = True
            if name.startswith("_"):
                raise AttributeError(name)
            custom = _commands.get(name)
            if custom is None:
                close = difflib.get_close_matches(name, sorted(_builtin_names() | set(_commands)), n=1)
                hint = f" Did you mean runner.{close[0]}()?" if close else ""
                raise AttributeError(f"runner has no command {name!r}.{hint} A command of your own is added "
                                     "with `from runner import add_command` in the support file (docs/commands.md, "
                                     "Helpers and custom commands).")
            return functools.partial(_call, self, custom)


def _call(runner: CustomCommands, custom: _Custom, *args: Any, **kwargs: Any) -> Any:
    """Run ``custom`` told as a command; ``log=False`` hides its arguments (and is passed on only
    to a function that takes ``log``)."""
    __tracebackhide__ = True
    passed = kwargs if custom.takes_log else {k: v for k, v in kwargs.items() if k != "log"}
    try:
        return run_parent(runner._ctx, custom.name, lambda: custom.fn(runner, *args, **passed), args, kwargs)
    except Exception as err:
        shown = "[redacted]" if kwargs.get("log") is False else show_args(args, kwargs, runner._ctx.redactor)
        if runner._ctx.redactor is not None:
            shown = runner._ctx.redactor.text(shown)
        err.add_note(f"(in the custom command runner.{custom.name}({shown}), "
                     f"added at {_relative(custom.where, runner._ctx.project_root)})")
        raise
