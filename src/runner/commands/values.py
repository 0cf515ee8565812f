"""Retrying values: ``Value``, a subject over data that is not DOM (wrap, its, invoke, requests).

A :class:`Value` is read again until what is asked of it holds, as a DOM subject is.

Also the reading of a dotted path through such data (:func:`lookup_path`) and the rule of an
alias's name, which a DOM subject shares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from runner import expect
from runner.commands.base import CommandsBase
from runner.commands.context import Attempt, TestContext, retry
from runner.commands.steps import command, show_args
from runner.errors import CommandError, UsageError

__all__ = ["Value", "lookup_path", "alias_name", "read_method"]


class _BoundRead:
    """A subject's read (``value``) taken without the call: calling it reads; comparing or
    testing it (``subject.value == 3``, silently False for a bound method) says to call it."""

    __slots__ = ("_owner", "_func")

    def __init__(self, owner: Any, func: Callable[..., Any]) -> None:
        self._owner = owner
        self._func = func

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        return self._func(self._owner, *args, **kwargs)

    def _uncalled(self, *_: Any) -> Any:
        __tracebackhide__ = True
        raise UsageError(f"{self._owner!r}.value is a method: call it, .value(), to read the value.")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = __iter__ = _uncalled
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<method value of {self._owner!r}: call it, .value()>"


class read_method:  # noqa: N801 - used as a decorator, like property
    """A subject's ``value`` method, which says so when it is used without its call."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self._func = func
        self.__doc__ = func.__doc__

    def __get__(self, owner: Any, owner_type: Any = None) -> Any:
        return self._func if owner is None else _BoundRead(owner, self._func)


class _Missing(Exception):
    """A value path could not be read yet (retried)."""


class Value:
    """A retrying subject over data that is not DOM."""

    _pageless = True  # its commands' trace steps end with a snapshot of the page (steps.py)

    def __init__(self, commands: CommandsBase, getter: Callable[[], Any], label: str,
                 detail: Callable[[Any], str] | None = None, *, once: bool = False) -> None:
        self._commands = commands
        # read once and unable to change (a page function's result, copied out as data):
        # should() asserts it once, as retrying could only wait out the timeout
        self._once = once
        self._ctx: TestContext = commands._ctx
        self._getter = getter
        self._label = label
        self._detail = detail  # what a failing should() adds about the value, e.g. one line per item

    @classmethod
    def wrapping(cls, commands: CommandsBase, value: Any) -> Value:
        """``runner.wrap(value)``: a subject over ``value`` itself."""
        return cls(commands, lambda: value, f"wrap({value!r})"[:80])

    def _explained(self, message: str, value: Any) -> str:
        if self._detail is None:
            return message
        try:
            return f"{message}\n{self._detail(value)}"
        except Exception:  # noqa: BLE001 - a detail must never hide the failure itself
            return message

    def __repr__(self) -> str:
        return f"<Value {self._label}>"

    def _read(self) -> tuple[bool, Any, str]:
        outer, self._ctx.one_attempt = self._ctx.one_attempt, True  # this Value's retry waits
        try:
            return True, self._getter(), ""
        except (_Missing, KeyError, IndexError, AttributeError, TypeError) as err:
            return False, None, str(err) or type(err).__name__
        except CommandError as err:
            return False, None, str(err)
        finally:
            self._ctx.one_attempt = outer

    @read_method
    @command("value")
    def value(self) -> Any:
        """The current value, waiting (up to defaultCommandTimeout) until it can be read."""
        __tracebackhide__ = True

        def attempt() -> Attempt:
            ok, value, message = self._read()
            return Attempt(ok, message, value)

        return retry(self._ctx, attempt, float(self._ctx.config.default_command_timeout), self._label)

    @command("should")
    def should(self, chainer: str | Callable[[Any], Any], *args: Any, timeout: float | None = None) -> Value:
        __tracebackhide__ = True
        limit = float(timeout if timeout is not None else self._ctx.config.default_command_timeout)
        if callable(chainer):
            func = chainer

            def attempt_fn() -> Attempt:
                ok, value, message = self._read()
                if not ok:
                    return Attempt(False, message)
                try:
                    func(value)
                except AssertionError as err:
                    return Attempt(False, self._explained(str(err) or "the callback's assertion failed", value))
                return Attempt(True)

            self._assert(attempt_fn, limit, f"{self._label}.should(<callback>)")
            return self
        expect.validate_chainer(chainer, *args)

        def attempt() -> Attempt:
            ok, value, message = self._read()
            if not ok and not chainer.endswith("exist"):
                return Attempt(False, message)
            outcome = expect.check(value, chainer, *args)
            return Attempt(outcome.ok, outcome.message if outcome.ok else self._explained(outcome.message, value))

        shown = ", ".join(repr(a) for a in (chainer, *args))
        self._assert(attempt, limit, f"{self._label}.should({shown})")
        return self

    and_ = should

    def _assert(self, attempt: Callable[[], Attempt], limit: float, what: str) -> Any:
        """Retry ``attempt`` until it holds (its value); a value read once is asserted once,
        failing at once."""
        __tracebackhide__ = True
        if not self._once:
            return retry(self._ctx, attempt, limit, what)
        self._ctx.checkpoint()
        result = attempt()
        if not result.ok:
            page = f"{self._ctx.page_label}." if self._ctx.page_label else ""
            raise CommandError(f"Asserted once, not retried (the value was read once and cannot change): "
                               f"{page}{what}: {result.message}")
        return result.value

    def its(self, path: str) -> Value:
        return Value(self._commands, lambda: lookup_path(self._getter(), str(path), self._ctx.redactor),
                     f"{self._label}.its({path!r})", once=self._once)

    @command("invoke")
    def invoke(self, method: str, *args: Any, **kwargs: Any) -> Value:
        """Call ``method(*args, **kwargs)`` of the value, now (once it can be read, up to
        defaultCommandTimeout), and yield what it returned."""
        __tracebackhide__ = True
        label = f"{self._label}.invoke({show_args((method, *args), kwargs, self._ctx.redactor)})"

        def attempt() -> Attempt:
            ok, target, message = self._read()
            if not ok:
                return Attempt(False, message)
            func = getattr(target, method, None)
            if func is None and isinstance(target, Mapping):
                func = target.get(method)
            if not callable(func):
                raise CommandError(f"{label}: {_short(target, self._ctx.redactor)} has no method {method!r}.")
            return Attempt(True, value=func)

        func = retry(self._ctx, attempt, float(self._ctx.config.default_command_timeout), label)
        result = func(*args, **kwargs)  # once: what it raises is the test's error, as in a plain call
        return Value(self._commands, lambda: result, label)

    def then(self, func: Callable[[Any], Any]) -> Any:
        result = func(self.value())
        return self if result is None else Value.wrapping(self._commands, result)

    def spread(self, fn: Callable[..., Any] | None = None) -> Any:
        """``fn(*items)``'s result for a list or tuple value, or (without ``fn``) its items as a
        tuple: ``a, b = runner.wrap([1, 2]).spread()``. Waits (up to defaultCommandTimeout)
        until the value can be read and is a list or tuple."""
        __tracebackhide__ = True
        items = self._spread_items(*(() if fn is None else (fn,)))
        return items if fn is None else fn(*items)

    @command("spread")
    def _spread_items(self, *fn: Callable[..., Any]) -> tuple[Any, ...]:
        __tracebackhide__ = True
        if fn and not callable(fn[0]):
            raise UsageError(f"{self._label}.spread() takes a function fn(*items); found {fn[0]!r}.")

        def attempt() -> Attempt:
            ok, value, message = self._read()
            if ok and isinstance(value, (list, tuple)):
                return Attempt(True, value=tuple(value))
            return Attempt(False, message if not ok else f"spread() needs a list or tuple; the value is {_short(value, self._ctx.redactor)}")

        items: tuple[Any, ...] = self._assert(attempt, float(self._ctx.config.default_command_timeout),
                                              f"{self._label}.spread()")
        return items

    def as_(self, alias: str) -> Value:
        self._commands._dom_aliases[alias_name(alias)] = self
        return self


def lookup_path(value: Any, path: str, redactor: Any = None) -> Any:
    """Follow a dotted path through dicts, lists and attributes (camelCase or snake_case); a
    zero-argument accessor on the way (e.g. a Subject's text) reads through. ``redactor``: the
    run's, for the value a message shows (see :func:`_short`).

    Raises _Missing (the retry loop tries again) when a part of the path does not exist yet.
    """
    try:
        return expect.walk_path(value, path, call_accessors=True)
    except expect.PathMissing as err:
        if err.reason == "index":  # the words of Python's IndexError, as before the walker
            container = err.container
            kind = "string" if isinstance(container, str) else "tuple" if isinstance(container, tuple) else "list"
            raise _Missing(f"{kind} index out of range") from None
        raise _Missing(f"{_short(err.container, redactor)} has no property {err.part!r}") from None


def _short(value: Any, redactor: Any = None) -> str:
    """``value`` as a message shows it, cut at 80 characters; with the run's ``redactor`` its
    secrets are hidden before the cut (a secret cut in two would no longer be found whole)."""
    text = repr(value)
    if redactor is not None:
        text = redactor.text(text)
    return text if len(text) < 80 else text[:77] + "..."


def alias_name(alias: str) -> str:
    """``alias`` as ``as_()`` names a subject (without the ``@`` that reads it back)."""
    if not isinstance(alias, str) or not alias:
        raise UsageError(f"as_() needs a non-empty string alias; found {alias!r}.")
    if alias.startswith("@"):
        raise UsageError(f"as_({alias!r}): an alias cannot start with '@'. Try renaming it to {alias.lstrip('@')!r}.")
    return alias
