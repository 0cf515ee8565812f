"""``visit``'s hooks: ``on_before_load`` and ``on_load``, and the window handle a Python hook gets.

A hook is JavaScript (a string) or a Python callable. JavaScript is statements or an expression
evaluated with the window's names in scope (``localStorage.setItem('token', 'x')``); when it
evaluates to a function (``"win => win.localStorage.setItem('token', 'x')"``, the original's
``onBeforeLoad(win)``), that function is called with the window. A Python callable is given a
:class:`WindowHandle`. ``on_before_load`` runs in the visit's new document before any of its
scripts (the engine holds the document: ``engine/visit_hooks.py``), a Python one in a thread of
its own while the test waits, bounded by ``defaultCommandTimeout``; ``on_load`` runs once the
visit's ``wait_until`` is reached (the load event, by default), on the test's thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Callable
from typing import Any

from runner.engine.visit_hooks import BeforeLoad, Evaluate, HookTimeout, PageScriptError
from runner.errors import CommandError, UsageError

__all__ = ["WindowHandle", "StorageArea", "Hook", "check_hook", "before_load", "describe_hook", "hook_failure"]

#: What a hook may be: JavaScript, or a Python callable taking a :class:`WindowHandle`.
Hook = str | Callable[["WindowHandle"], Any]

# A dotted path from the window, followed to its end: (window, "a.b") -> [holder, last key].
_WALK = ("const __walk = (w, path) => { const keys = path.split('.'); const last = keys.pop();"
         " let o = w; for (const k of keys) { if (o == null) throw new TypeError("
         "`cannot read ${JSON.stringify(k)} of ${o} in ${JSON.stringify(path)}`); o = o[k]; }"
         " if (o == null) throw new TypeError(`cannot read ${JSON.stringify(last)} of ${o} in "
         "${JSON.stringify(path)}`); return [o, last]; };")


class StorageArea:
    """``localStorage`` or ``sessionStorage`` of the page, as a hook's window handle gives it."""

    def __init__(self, window: WindowHandle, name: str) -> None:
        self._window = window
        self._name = name

    def get_item(self, key: str) -> str | None:
        """The value stored under ``key`` (None when there is none)."""
        return self._window._evaluate(f"{self}.get_item()", f"(w, k) => w.{self._name}.getItem(k)",  # type: ignore[no-any-return]
                                      str(key))

    def set_item(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (a value that is not a string is stored as JSON, as an
        app that reads it with ``JSON.parse`` expects)."""
        text = value if isinstance(value, str) else json.dumps(value)
        self._window._evaluate(f"{self}.set_item()", f"(w, k, v) => {{ w.{self._name}.setItem(k, v); }}",
                               str(key), text)

    def remove_item(self, key: str) -> None:
        self._window._evaluate(f"{self}.remove_item()", f"(w, k) => {{ w.{self._name}.removeItem(k); }}", str(key))

    def clear(self) -> None:
        self._window._evaluate(f"{self}.clear()", f"w => {{ w.{self._name}.clear(); }}")

    def items(self) -> dict[str, str]:
        """Every key and its value."""
        return self._window._evaluate(  # type: ignore[no-any-return]
            f"{self}.items()", f"w => Object.fromEntries(Object.entries(w.{self._name}))")

    def __repr__(self) -> str:
        return "win.local_storage" if self._name == "localStorage" else "win.session_storage"


class WindowHandle:
    """The page's ``window`` as a Python hook gets it.

    ``evaluate(js, *args)`` runs JavaScript in the page (a function is called with the window and
    ``args``); ``get(path)``, ``set(path, value)`` and ``call(path, *args)`` read, write and call
    what a dotted path from the window names (``"app.config.locale"``, ``"app.store.dispatch"``);
    ``local_storage`` and ``session_storage`` have ``get_item``, ``set_item``, ``remove_item``,
    ``clear`` and ``items``. Values cross as JSON. Raises ``CommandError`` when the page's
    JavaScript throws.
    """

    def __init__(self, hook: str, run: Callable[[str, list[Any]], Any]) -> None:
        self._hook = hook
        self._run = run
        self.local_storage = StorageArea(self, "localStorage")
        self.session_storage = StorageArea(self, "sessionStorage")

    def evaluate(self, js: str, *args: Any) -> Any:
        """Evaluate ``js`` (statements or an expression, the window's names in scope) and return
        its value as JSON data; a function is called with the window and ``args``."""
        if not isinstance(js, str):
            raise UsageError(f"{self._hook}: win.evaluate() needs JavaScript (a string); found {js!r}.")
        return self._evaluate("win.evaluate()", js, *args)

    def _evaluate(self, what: str, js: str, *args: Any) -> Any:
        try:
            return self._run(js, list(args))
        except PageScriptError as err:
            raise CommandError(f"{what} threw in the page: {err}") from None

    def get(self, path: str) -> Any:
        """The value at ``path`` from the window (``"location.pathname"``)."""
        return self._evaluate(f"win.get({path!r})",
                              f"(w, p) => {{ {_WALK} const [o, k] = __walk(w, p); return o[k]; }}", path)

    def set(self, path: str, value: Any) -> None:
        """Set the property at ``path`` (its holder must exist) to ``value``."""
        self._evaluate(f"win.set({path!r})",
                       f"(w, p, v) => {{ {_WALK} const [o, k] = __walk(w, p); o[k] = v; }}", path, value)

    def call(self, path: str, *args: Any) -> Any:
        """Call the method at ``path`` with ``args`` (``this`` is its holder); its result."""
        return self._evaluate(
            f"win.call({path!r})",
            f"(w, p, ...a) => {{ {_WALK} const [o, k] = __walk(w, p); if (typeof o[k] !== 'function')"
            " throw new TypeError(`${p} is not a function`); return o[k](...a); }", path, *args)

    def __repr__(self) -> str:
        return f"<window of {self._hook}>"


def check_hook(name: str, hook: Any) -> None:
    """Raise ``UsageError`` unless ``hook`` is JavaScript or a callable."""
    if hook is not None and not (isinstance(hook, str) and hook.strip()) and not callable(hook):
        raise UsageError(
            f"runner.visit(): {name} must be JavaScript (a string) or a Python callable taking the "
            f"window; found {hook!r}."
        )


def describe_hook(hook: Hook) -> str:
    """How the command log names a hook: ``<function login>`` or its JavaScript (cut)."""
    if isinstance(hook, str):
        text = " ".join(hook.split())
        return repr(text if len(text) <= 60 else text[:59] + "…")
    return f"<function {getattr(hook, '__name__', type(hook).__name__)}>"


def before_load(hook: Hook, bound_s: float) -> BeforeLoad:
    """The engine's form of ``on_before_load``: JavaScript evaluated in the paused document, or
    the callable run in a thread of its own with a window handle on the paused document."""
    if isinstance(hook, str):
        source = hook

        async def run_js(evaluate: Evaluate) -> None:
            await evaluate(source, [], False)

        return BeforeLoad(run_js, bound_s)
    user_hook = hook

    async def run_python(evaluate: Evaluate) -> None:
        loop = asyncio.get_running_loop()

        def run(source: str, args: list[Any]) -> Any:
            return asyncio.run_coroutine_threadsafe(evaluate(source, args, True), loop).result(bound_s)

        done: concurrent.futures.Future[None] = concurrent.futures.Future()

        def call() -> None:
            outcome: BaseException | None = None
            try:
                user_hook(WindowHandle("on_before_load", run))
            except BaseException as err:  # noqa: BLE001 - handed to the test as the hook's error
                outcome = err
            if done.set_running_or_notify_cancel():  # not when the hook was given up on
                done.set_exception(outcome) if outcome is not None else done.set_result(None)

        # A daemon thread: a hook that never returns is given up on (the engine bounds it) and
        # keeps no process alive; its later calls on the window are refused.
        threading.Thread(target=call, name="runner-on_before_load", daemon=True).start()
        await asyncio.wrap_future(done)

    return BeforeLoad(run_python, bound_s)


def hook_failure(name: str, error: BaseException, bound_s: float,
                 bound_by: str = "defaultCommandTimeout") -> CommandError:
    """The error a visit fails with when its hook ``name`` failed with ``error``; ``bound_by``
    names where the hook's time limit ``bound_s`` came from."""
    if isinstance(error, HookTimeout):
        return CommandError(
            f"runner.visit(): {name} did not return within {bound_s * 1000:g}ms "
            f"({bound_by}); the page was let go without it.\n"
            f"A hook must not wait for the page: {name} runs while the page is held before its scripts."
        )
    if isinstance(error, PageScriptError):
        return CommandError(f"runner.visit(): {name} threw in the page: {error}")
    if isinstance(error, CommandError | UsageError):
        return CommandError(f"runner.visit(): {name} failed: {error}")
    return CommandError(f"runner.visit(): {name} raised {type(error).__name__}: {error}")
