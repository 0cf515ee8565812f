"""Loading the project's plugins file and support file.

The plugins file (``pluginsFile``, default ``runner/plugins/index.py``) runs in the runner's own
process. It defines ``setup(on, config)``; ``on`` registers tasks and run events, and a returned
dict is merged into the configuration (source ``plugin``) and validated again::

    def setup(on, config):
        on("task", {"seed": lambda arg: db.seed(arg)})
        on("before:spec", lambda spec: print("starting", spec["relative"]))
        return {"defaultCommandTimeout": 8000}
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from runner.errors import ConfigError, TaskError, UsageError
from runner.events import Event, PluginEvent
from runner.usercode.threads import Workers
from runner.usercode.tracebacks import user_code_tail

__all__ = ["PluginEvents", "load_module", "load_plugins_file", "EVENTS"]

EVENTS = ("task", "before:run", "after:run", "before:spec", "after:spec", "after:screenshot",
          "dev-server:start")


class PluginEvents:
    """What ``setup(on, config)`` registered: tasks and event listeners.

    ``publish`` (the run's event bus) is told every event emitted (``plugin.event``).
    """

    def __init__(self, publish: Callable[[Event], None] | None = None) -> None:
        self.tasks: dict[str, Callable[..., Any]] = {}
        self.listeners: dict[str, list[Callable[..., Any]]] = {}
        self.errors: list[str] = []
        self.publish = publish
        self._workers = Workers("runner-task", size=8)

    def on(self, event: str, handler: Any) -> None:
        if event not in EVENTS:
            raise UsageError(
                f"on() was given the event {event!r}, which runner does not emit.\n"
                f"Expected one of: {', '.join(EVENTS)}."
            )
        if event == "task":
            if not isinstance(handler, Mapping) or not all(callable(v) for v in handler.values()):
                raise UsageError(
                    f"on('task', ...) expects a dict of task names to functions; found {handler!r}."
                )
            self.tasks.update(handler)
            return
        if not callable(handler):
            raise UsageError(f"on({event!r}, ...) expects a function; found {handler!r}.")
        self.listeners.setdefault(event, []).append(handler)

    def has(self, event: str) -> bool:
        return bool(self.listeners.get(event))

    def emit(self, event: str, *args: Any) -> None:
        """Call the listeners of ``event``; a listener that raises is reported, not fatal."""
        listeners = self.listeners.get(event, [])
        errors_before = len(self.errors)
        for listener in listeners:
            try:
                listener(*args)
            except Exception as err:  # noqa: BLE001 - a broken listener must not stop the run
                where = _where(listener)
                message = (
                    f"The {event!r} listener {where} raised {type(err).__name__}: {err}\n"
                    + user_code_tail(err, frames=3)
                )
                self.errors.append(message)
                print(f"runner: {message}", file=sys.stderr)
        if self.publish is not None and listeners:
            self.publish(PluginEvent(name=event, listeners=len(listeners), errors=self.errors[errors_before:]))

    def start_dev_server(self, options: dict[str, Any]) -> tuple[str, Callable[[], Any] | None] | None:
        """Start the front end's dev server with the ``dev-server:start`` handler (component
        testing): its URL, and a function that stops it (or None). None when no handler is
        registered. The handler returns the URL (``"http://localhost:5173"``) or a dict with
        ``url`` (or ``port``, meaning ``http://localhost:<port>``) and an optional ``close``.
        Raises ConfigError when the handler fails or returns something else."""
        handlers = self.listeners.get("dev-server:start", [])
        if not handlers:
            return None
        handler = handlers[-1]  # like a task: the last registration wins
        where = _where(handler)
        try:
            returned = handler(options)
        except Exception as err:
            raise ConfigError(
                f"The 'dev-server:start' handler {where} raised {type(err).__name__}: {err}\n"
                + user_code_tail(err, frames=3)
            ) from err
        close = None
        url: Any = returned
        if isinstance(returned, Mapping):
            url = returned.get("url")
            if url is None and isinstance(returned.get("port"), int):
                url = f"http://localhost:{returned['port']}"
            close = returned.get("close")
            if close is not None and not callable(close):
                raise ConfigError(f"The 'dev-server:start' handler {where} returned a `close` that is "
                                  f"not a function: {close!r}.")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError(
                f"The 'dev-server:start' handler {where} returned {returned!r}.\n"
                "Expected the dev server's URL (e.g. 'http://localhost:5173'), or a dict with `url` "
                "(or `port`) and an optional `close` function."
            )
        return url.rstrip("/") + "/", close

    def run_task(self, name: str, arg: Any, timeout_ms: float, *, bound_by: str = "taskTimeout") -> Any:
        """Run task ``name`` with ``arg`` in a worker thread, bounded by ``timeout_ms``, which
        came from ``bound_by`` (the option, or the task's ``timeout=``: its message names it)."""
        task = self.tasks.get(name)
        if task is None:
            known = ", ".join(sorted(self.tasks)) or "none are registered"
            raise TaskError(
                f"runner.task({name!r}) failed: the task {name!r} is not registered in the "
                f"plugins file.\nRegistered tasks: {known}.\n"
                f"Add it with on('task', {{{name!r}: function}}) in setup(on, config)."
            )
        params = inspect.signature(task).parameters
        future = self._workers.submit(task) if not params else self._workers.submit(task, arg)
        try:
            return future.result(timeout_ms / 1000)
        except concurrent.futures.TimeoutError as err:
            if not future.done():
                self._workers.give_up(future)  # a task that never returns keeps no run alive
                raise TaskError(
                    f"runner.task({name!r}) timed out after waiting {int(timeout_ms)}ms "
                    f"({bound_by}).\nMake the task finish sooner, or pass a larger timeout=."
                ) from None
            failure: Exception = err  # the task's own TimeoutError
        except Exception as err:
            failure = err
        raise TaskError(
            f"runner.task({name!r}) failed: the task raised {type(failure).__name__}: {failure}"
        ) from failure


def _where(func: Any) -> str:
    code = getattr(func, "__code__", None)
    if code is None:
        return repr(func)
    return f"{getattr(func, '__name__', 'listener')} ({code.co_filename}:{code.co_firstlineno})"


def load_module(path: Path, name: str, *, package_of: Path | None = None) -> ModuleType:
    """Import a Python file under a private module name; errors name the file. With
    ``package_of`` (a folder), the file is the ``__init__.py`` of the package ``name`` over it."""
    locations = [str(package_of)] if package_of is not None else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path} could not be loaded as a Python file: Python imports only files "
                          f"whose name ends in .py (found {path.name!r}).")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - sys.exit() at import ended runner silently, exit 0
        sys.modules.pop(name, None)
        raise ConfigError(f"{path} {_raised(err)} while it was loaded:\n{_failure(err)}") from err
    return module


def _raised(err: BaseException) -> str:
    """"raised KeyError", or what a SystemExit is: a call that would end runner with no word."""
    if isinstance(err, SystemExit):
        return f"called sys.exit({err.code!r})"
    return f"raised {type(err).__name__}"


def _failure(err: BaseException) -> str:
    """The user's frames and the error; for sys.exit(), what to do instead."""
    tail = user_code_tail(err)
    if isinstance(err, SystemExit):
        tail += ("\nCode that runs in runner's process must not end it: raise an exception to stop the run "
                 "with a message.")
    return tail


#: Keys of the ``config`` given to ``setup`` that say where the project is; not options.
READ_ONLY_KEYS = ("projectRoot", "configFile")


def load_plugins_file(path: Path, config_dict: dict[str, Any],
                      publish: Callable[[Event], None] | None = None) -> tuple[PluginEvents, dict[str, Any]]:
    """Run the plugins file's ``setup(on, config)``.

    ``config_dict`` may hold :data:`READ_ONLY_KEYS` besides the options: returning them changed
    is an error. ``publish`` is told every event the file's listeners are given.

    Returns the registered events and the configuration changes it returned (possibly empty).
    Raises ``ConfigError`` when the file cannot be loaded, has no ``setup``, raises, or returns
    something that is not a dict.
    """
    events = PluginEvents(publish=publish)
    module = load_module(path, "runner_plugins_file")
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise ConfigError(
            f"The plugins file {path} defines no setup(on, config) function.\n"
            "Expected: def setup(on, config): ...  (or set pluginsFile to false in runner.json)."
        )
    given = dict(config_dict)
    try:
        returned = setup(events.on, given)
    except (UsageError, ConfigError) as err:
        raise ConfigError(f"The plugins file {path} failed in setup(): {err}") from err
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - sys.exit() in setup ended the run with its code and no word
        raise ConfigError(f"The plugins file {path} {_raised(err)} in setup():\n{_failure(err)}") from err
    if returned is None:
        return events, {}
    if not isinstance(returned, Mapping):
        raise ConfigError(
            f"The plugins file {path} returned {returned!r} from setup().\n"
            "Expected a dict of configuration values to change, or None."
        )
    changes = {k: v for k, v in returned.items() if k not in config_dict or config_dict[k] != v}
    for key in READ_ONLY_KEYS:
        if key in changes:
            raise ConfigError(
                f"The plugins file {path} returned {key}={changes[key]!r} from setup().\n"
                f"{key} says where the project is ({config_dict.get(key)!r}) and cannot be changed; "
                "use --project or --config-file instead."
            )
    return events, changes
